#include "ui/widgets/ConsolePanel.h"

#include "core/cuda/CudaError.h"
#include "ui/Theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

namespace kernelpad {
namespace {

/// Lines the panel keeps over all runs; older ones scroll away (QPlainTextEdit drops them
/// cheaply). Ten runs of the 10,000-line example fit.
constexpr int kMaxConsoleLines = 100000;

int lineCount(const QString& text) {
    if (text.isEmpty())
        return 0;
    return int(text.count(QLatin1Char('\n'))) + (text.endsWith(QLatin1Char('\n')) ? 0 : 1);
}

} // namespace

ConsolePanel::ConsolePanel(QWidget* parent)
    : QWidget(parent) {
    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(QStringLiteral("consoleText"));
    m_text->setReadOnly(true);
    m_text->setFont(monospaceFont());
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setMaximumBlockCount(kMaxConsoleLines);
    m_text->setPlaceholderText(
        tr("What a kernel prints with printf appears here after each run, under the kernel's "
           "name and the time. The driver writes device printf output when the launch "
           "finishes; it is kept per run up to %1.")
            .arg(formatBytes(kMaxConsoleBytes)));
    m_status = new QLabel(this);
    m_clear = new QPushButton(tr("Clear"), this);
    m_clear->setObjectName(QStringLiteral("consoleClear"));
    m_clear->setEnabled(false);
    connect(m_clear, &QPushButton::clicked, this, &ConsolePanel::clear);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 2, 6, 2);
    bar->addWidget(m_status, 1);
    bar->addWidget(m_clear);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_text, 1);
}

void ConsolePanel::showRun(const QString& kernel, const ConsoleOutput& output,
                           const QDateTime& when) {
    m_lastRunLines = lineCount(output.text);
    const QString time = when.toString(QStringLiteral("HH:mm:ss"));
    if (output.isEmpty()) {
        m_status->setText(tr("%1 printed nothing (run at %2).").arg(kernel, time));
        if (!m_text->document()->isEmpty())
            m_text->appendPlainText(tr("── %1 · %2 · printed nothing ──").arg(kernel, time));
    } else {
        m_text->appendPlainText(tr("── %1 · %2 · %n line(s), %3 ──", nullptr, m_lastRunLines)
                                    .arg(kernel, time, formatBytes(output.totalBytes)));
        QString body = output.text;
        if (body.endsWith(QLatin1Char('\n')))
            body.chop(1);
        if (!body.isEmpty())
            m_text->appendPlainText(body);
        if (output.droppedBytes() > 0)
            m_text->appendPlainText(
                tr("… %1 more not kept: the first %2 of each run are.")
                    .arg(formatBytes(output.droppedBytes()), formatBytes(kMaxConsoleBytes)));
        if (output.laterBytes > 0)
            m_text->appendPlainText(
                tr("(the warm-up, timed and reference launches after this one printed %1 more, "
                   "not shown)")
                    .arg(formatBytes(output.laterBytes)));
        m_status->setText(
            tr("%1 printed %n line(s) at %2.", nullptr, m_lastRunLines).arg(kernel, time));
        m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
    }
    m_clear->setEnabled(!m_text->document()->isEmpty());
    emit titleChanged(m_lastRunLines > 0 ? tr("Console (%1)").arg(m_lastRunLines) : tr("Console"));
}

void ConsolePanel::clear() {
    m_text->clear();
    m_status->clear();
    m_lastRunLines = 0;
    m_clear->setEnabled(false);
    emit titleChanged(tr("Console"));
}

QString ConsolePanel::text() const {
    return m_text->toPlainText();
}

} // namespace kernelpad
