#include "ui/views/TestsView.h"

#include "core/engine/EngineTests.h"
#include "ui/WorkbenchRangeFetcher.h"
#include "ui/models/TestsModel.h"
#include "ui/widgets/BufferViewer.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace kernelpad {

TestsView::TestsView(const ViewContext& context)
    : m_workbench(context.workbench)
    , m_tabs(context.resultTabs)
    , m_widget(new QWidget)
    , m_run(new QPushButton(tr("Run Tests")))
    , m_cancel(new QPushButton(tr("Cancel")))
    , m_status(new QLabel)
    , m_table(new QTableView)
    , m_details(new QPlainTextEdit)
    , m_buffers(new BufferViewer)
    , m_model(new TestsModel(this)) {
    m_widget->setObjectName(QStringLiteral("tests"));
    m_run->setObjectName(QStringLiteral("runTestsButton"));
    m_cancel->setObjectName(QStringLiteral("cancelTestsButton"));
    m_status->setObjectName(QStringLiteral("testsStatus"));
    m_table->setObjectName(QStringLiteral("testsTable"));
    m_details->setObjectName(QStringLiteral("testsDetails"));
    m_buffers->setObjectName(QStringLiteral("testsBuffers"));
    m_status->setWordWrap(true);
    m_status->setText(tr("Run Tests runs every case of the project's \"tests\" section (or its "
                         "own size) and checks each: verify, determinism."));
    m_cancel->setEnabled(false);
    m_details->setReadOnly(true);
    m_details->setPlaceholderText(tr("Select a case to see its checks and first mismatches."));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    if (m_workbench)
        m_buffers->setRangeFetcher(new WorkbenchRangeFetcher(m_workbench, m_buffers));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_status, 1);
    auto* lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(m_details);
    lower->addWidget(m_buffers);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_table);
    split->addWidget(lower);
    auto* layout = new QVBoxLayout(m_widget);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);

    connect(m_run, &QPushButton::clicked, this, &TestsView::runTests);
    connect(m_cancel, &QPushButton::clicked, this, &TestsView::cancelTests);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showCase(current.row()); });
}

QWidget* TestsView::widget() const {
    return m_widget;
}

void TestsView::runTests() {
    bringToFront();
    if (!m_workbench || !m_workbench->engine()) {
        m_status->setText(tr("Tests cannot run: no engine."));
        return;
    }
    if (const QString why = m_workbench->runBlockedReason(); !why.isEmpty()) {
        m_status->setText(tr("Tests cannot run: %1").arg(why));
        return;
    }
    if (!m_tests) {
        m_tests = new EngineTests(m_workbench->engine(), this);
        connect(m_tests, &EngineTests::caseFinished, this, &TestsView::onCaseFinished);
        connect(m_tests, &EngineTests::finished, this, &TestsView::onFinished);
        connect(m_tests, &EngineTests::progress, this,
                [this](int index, int total, const QString& name, const QString& stage) {
                    m_status->setText(
                        tr("Case %1 of %2: %3 (%4)…").arg(index + 1).arg(total).arg(name, stage));
                });
    }
    m_model->clear();
    m_details->clear();
    m_buffers->clear();
    TestOrder order;
    order.base = m_workbench->baseRequest();
    m_tests->start(order);
    setRunning(true);
    m_status->setText(tr("Starting the tests…"));
}

void TestsView::cancelTests() {
    if (m_tests)
        m_tests->cancel();
}

void TestsView::workbenchCleared(const Workbench&) {
    cancelTests();
    m_model->clear();
    m_details->clear();
    m_buffers->clear();
}

void TestsView::onCaseFinished(int, const TestCaseResult& result) {
    m_model->append(result);
    // The first failing case is the one to look at.
    const int row = m_model->rowCount() - 1;
    if (result.failed() && !m_table->currentIndex().isValid())
        m_table->setCurrentIndex(m_model->index(row, 0));
}

void TestsView::onFinished(const TestReport& report) {
    setRunning(false);
    QString text = tr("%1 passed, %2 failed, %3 warnings, %4 skipped")
                       .arg(report.count(CheckOutcome::Passed))
                       .arg(report.count(CheckOutcome::Failed))
                       .arg(report.count(CheckOutcome::Warning))
                       .arg(report.count(CheckOutcome::Skipped));
    if (!report.error.isEmpty())
        text = tr("Tests stopped: %1").arg(report.error.section(QLatin1Char('\n'), 0, 0)) +
               QStringLiteral(" (") + text + QLatin1Char(')');
    if (!report.note.isEmpty())
        text += QStringLiteral(" — ") + report.note;
    m_status->setText(text);
}

void TestsView::showCase(int row) {
    if (row < 0 || row >= m_model->cases().size()) {
        m_details->clear();
        m_buffers->clear();
        return;
    }
    const TestCaseResult& c = m_model->cases()[row];
    QStringList lines{QStringLiteral("%1 (%2)").arg(c.name, c.launch)};
    for (const TestCheck& check : c.checks) {
        lines << QStringLiteral("%1: %2%3")
                     .arg(check.name, checkOutcomeName(check.outcome),
                          check.message.isEmpty() ? QString()
                                                  : QStringLiteral(" — ") + check.message);
        for (const QString& detail : check.details)
            lines << QStringLiteral("    ") + detail;
    }
    m_details->setPlainText(lines.join(QLatin1Char('\n')));
    if (c.run.outputs.isEmpty()) {
        m_buffers->clear();
        return;
    }
    m_buffers->setOutputs(c.run.outputs);
    // The first buffer that failed verification, at its first mismatch.
    for (const BufferVerification& v : c.run.verification) {
        if (v.passed || v.firstMismatches.isEmpty())
            continue;
        auto* combo = m_buffers->findChild<QComboBox*>(QStringLiteral("bufferCombo"));
        if (const int item = combo ? combo->findData(v.buffer) : -1; item >= 0)
            combo->setCurrentIndex(item);
        m_buffers->goToIndex(v.firstMismatches.first().index);
        break;
    }
}

void TestsView::bringToFront() {
    if (!m_tabs)
        return;
    for (int i = 0; i < m_tabs->count(); ++i) {
        QWidget* page = m_tabs->widget(i);
        if (page == m_widget || page->isAncestorOf(m_widget)) {
            m_tabs->setCurrentIndex(i);
            return;
        }
    }
}

void TestsView::setRunning(bool running) {
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
}

} // namespace kernelpad
