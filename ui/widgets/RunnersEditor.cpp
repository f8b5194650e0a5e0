#include "ui/widgets/RunnersEditor.h"

#include "core/engine/RunnerProbe.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace kernelpad {

RunnersEditor::RunnersEditor(QWidget* parent)
    : QGroupBox(tr("Runners: where kernels run"), parent)
    , m_choice(new QComboBox(this))
    , m_list(new QListWidget(this))
    , m_newSpec(new QLineEdit(this))
    , m_newName(new QLineEdit(this))
    , m_add(new QPushButton(tr("Add"), this))
    , m_remove(new QPushButton(tr("Remove"), this))
    , m_test(new QPushButton(tr("Test Connection"), this))
    , m_helloLimit(new QLineEdit(this))
    , m_keepLimit(new QLineEdit(this))
    , m_status(new QLabel(this)) {
    m_choice->setObjectName(QStringLiteral("runnerChoice"));
    m_list->setObjectName(QStringLiteral("runnerList"));
    m_newSpec->setObjectName(QStringLiteral("newRunner"));
    m_newName->setObjectName(QStringLiteral("newRunnerName"));
    m_add->setObjectName(QStringLiteral("addRunner"));
    m_remove->setObjectName(QStringLiteral("removeRunner"));
    m_test->setObjectName(QStringLiteral("testRunner"));
    m_status->setObjectName(QStringLiteral("runnerStatus"));
    m_helloLimit->setObjectName(QStringLiteral("runnerHelloLimit"));
    m_keepLimit->setObjectName(QStringLiteral("runnerKeepLimit"));
    m_helloLimit->setToolTip(
        tr("How long the runner may take to start and say hello, in seconds: raise it for a "
           "batch queue (Slurm). Empty: 60 s here, 30 s over ssh, 600 s for a command."));
    m_keepLimit->setToolTip(
        tr("Outputs larger than this many MiB stay on the runner until the buffer viewer asks "
           "for a range, so a large output is not copied unless someone looks at it. Empty: "
           "64 MiB. $KERNELPAD_STREAM_KEEP_BYTES overrides it."));
    m_newSpec->setPlaceholderText(
        tr("ssh:[user@]host[:port][/path/to/kernelpad-cli] or cmd:srun --gpus=1 kernelpad-cli "
           "serve"));
    m_newName->setPlaceholderText(tr("name (optional)"));
    m_list->setMaximumHeight(100);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    form->addRow(tr("Run kernels on:"), m_choice);
    layout->addLayout(form);
    layout->addWidget(m_list);
    auto* add = new QHBoxLayout;
    add->addWidget(m_newSpec, 3);
    add->addWidget(m_newName, 1);
    add->addWidget(m_add);
    layout->addLayout(add);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_remove);
    buttons->addWidget(m_test);
    buttons->addStretch();
    layout->addLayout(buttons);
    auto* limits = new QFormLayout;
    limits->addRow(tr("Hello time limit (s):"), m_helloLimit);
    limits->addRow(tr("Keep outputs larger than (MiB):"), m_keepLimit);
    layout->addLayout(limits);
    layout->addWidget(m_status);

    connect(m_add, &QPushButton::clicked, this,
            [this] { addRunner(m_newSpec->text().trimmed(), m_newName->text().trimmed()); });
    connect(m_newSpec, &QLineEdit::returnPressed, m_add, &QPushButton::click);
    connect(m_remove, &QPushButton::clicked, this, &RunnersEditor::removeSelected);
    connect(m_test, &QPushButton::clicked, this, &RunnersEditor::testSelected);
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        // This computer's runner is always there.
        m_remove->setEnabled(row > 0);
        m_test->setEnabled(row >= 0);
        showLimits(row);
    });
    connect(m_helloLimit, &QLineEdit::editingFinished, this, &RunnersEditor::applyLimits);
    connect(m_keepLimit, &QLineEdit::editingFinished, this, &RunnersEditor::applyLimits);
    refill(QString());
}

QString RunnersEditor::deviceLabel(const RunnerSpec& runner, const DeviceInfo& device) {
    const QString text = QStringLiteral("%1, %2").arg(device.name, device.arch());
    return runner.isLocal() ? text : runner.displayName() + QStringLiteral(": ") + text;
}

void RunnersEditor::setRunners(const QVector<RunnerSpec>& runners, const QString& chosen) {
    m_runners = runners;
    refill(chosen);
}

QString RunnersEditor::chosen() const {
    return m_choice->currentIndex() <= 0 ? QString() : m_choice->currentText();
}

QString RunnersEditor::status() const {
    return m_status->text();
}

void RunnersEditor::refill(const QString& chosen) {
    m_choice->clear();
    m_list->clear();
    m_choice->addItem(tr("this computer"));
    m_list->addItem(tr("this computer (kernelpad-cli serve)"));
    for (const RunnerSpec& r : m_runners) {
        m_choice->addItem(r.displayName());
        m_list->addItem(QStringLiteral("%1 — %2").arg(r.displayName(), r.toText()));
    }
    const int index = chosen.isEmpty() ? 0 : m_choice->findText(chosen);
    m_choice->setCurrentIndex(std::max(index, 0));
    m_list->setCurrentRow(0);
}

void RunnersEditor::showLimits(int row) {
    // This computer's runner starts at once and shares its folders: its limits are not asked.
    const bool elsewhere = row > 0 && row <= m_runners.size();
    m_helloLimit->setEnabled(elsewhere);
    m_keepLimit->setEnabled(elsewhere);
    const RunnerSpec spec = elsewhere ? m_runners[row - 1] : RunnerSpec::local();
    m_helloLimit->setText(spec.helloLimitText());
    m_keepLimit->setText(spec.keepLimitText());
    RunnerSpec byDefault;
    byDefault.kind = spec.kind;
    m_helloLimit->setPlaceholderText(
        tr("%1 (default)").arg(byDefault.effectiveHelloLimitMs() / 1000));
    m_keepLimit->setPlaceholderText(
        tr("%1 (default)").arg(RunnerProbe::defaultKeepBeyondBytes() >> 20));
}

bool RunnersEditor::applyLimits() {
    const int row = m_list->currentRow();
    if (row <= 0 || row > m_runners.size())
        return false;
    RunnerSpec spec = m_runners[row - 1];
    QString error;
    if (!spec.setHelloLimitText(m_helloLimit->text(), &error) ||
        !spec.setKeepLimitText(m_keepLimit->text(), &error)) {
        showStatus(tr("%1: %2").arg(spec.displayName(), error));
        return false;
    }
    if (spec != m_runners[row - 1]) {
        m_runners[row - 1] = spec;
        showStatus(tr("%1: hello within %2 s; outputs over %3 MiB stay on the runner.")
                       .arg(spec.displayName())
                       .arg(spec.effectiveHelloLimitMs() / 1000.0)
                       .arg(double(spec.effectiveKeepBeyondBytes()) / (1024.0 * 1024.0)));
    }
    return true;
}

void RunnersEditor::showStatus(const QString& text) {
    m_status->setText(text);
}

bool RunnersEditor::addRunner(const QString& text, const QString& name) {
    QString error;
    std::optional<RunnerSpec> spec = RunnerSpec::parse(text, &error);
    if (!spec) {
        // The CLI's message names --runner; here the field is the runner box.
        showStatus(tr("Runner: %1").arg(error.section(QStringLiteral("': "), 1)));
        return false;
    }
    if (spec->isLocal()) {
        showStatus(tr("Runner: this computer is always in the list"));
        return false;
    }
    spec->name = name;
    const QString shown = spec->displayName();
    if (shown == tr("this computer") || m_choice->findText(shown) >= 0) {
        showStatus(tr("Runner name: '%1' is taken; give the runner another name").arg(shown));
        return false;
    }
    const QString current = chosen();
    m_runners.push_back(*spec);
    refill(current);
    m_list->setCurrentRow(int(m_runners.size()));
    m_newSpec->clear();
    m_newName->clear();
    showStatus(
        tr("Added %1; Test Connection checks it, \"Run kernels on\" chooses it.").arg(shown));
    return true;
}

void RunnersEditor::removeSelected() {
    const int row = m_list->currentRow();
    if (row <= 0 || row > m_runners.size())
        return;
    QString current = chosen();
    if (current == m_runners[row - 1].displayName())
        current.clear();
    m_runners.removeAt(row - 1);
    refill(current);
}

void RunnersEditor::testSelected() {
    const int row = m_list->currentRow();
    const RunnerSpec spec = row <= 0 ? RunnerSpec::local() : m_runners.value(row - 1);
    if (!m_probe) {
        m_probe = new RunnerProbe(this);
        connect(m_probe, &RunnerProbe::tested, this,
                [this](const QVector<DeviceInfo>& devices, const QString& why) {
                    QStringList lines;
                    for (const DeviceInfo& d : devices)
                        lines << deviceLabel(m_testing, d);
                    if (devices.isEmpty())
                        lines << tr("%1: no CUDA device: %2")
                                     .arg(m_testing.displayName(),
                                          why.isEmpty() ? tr("the runner found none") : why);
                    showStatus(lines.join(QLatin1Char('\n')));
                    m_test->setEnabled(true);
                    emit tested();
                });
    }
    m_testing = spec;
    // Before the test: a runner that cannot start answers at once, inside test().
    showStatus(tr("Connecting to %1…").arg(spec.displayName()));
    m_test->setEnabled(false);
    QString error;
    if (!m_probe->test(spec, &error)) {
        showStatus(error);
        m_test->setEnabled(true);
        emit tested();
    }
}

} // namespace kernelpad
