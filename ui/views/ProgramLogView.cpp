#include "ui/views/ProgramLogView.h"

#include "ui/Theme.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/windows/MainWindowFormat.h"

#include <QPlainTextEdit>

namespace kernelpad {

ProgramLogView::ProgramLogView(const ViewContext&)
    : m_log(new QPlainTextEdit) {
    m_log->setObjectName(QStringLiteral("programLog"));
    m_log->setReadOnly(true);
    m_log->setFont(monospaceFont());
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setPlaceholderText(tr("The NVRTC program log appears here after a compile."));
}

QWidget* ProgramLogView::widget() const {
    return m_log;
}

void ProgramLogView::workbenchCleared(const Workbench&) {
    m_log->clear();
}

void ProgramLogView::compiled(const Workbench& workbench) {
    const CompileResult& result = *workbench.lastCompile();
    QStringList header;
    header << (result.compiler.isEmpty() // PTX and NVVM IR name their own tools
                   ? tr("NVRTC %1, %2").arg(result.nvrtcVersion, result.arch)
                   : tr("%1, %2").arg(result.compiler, result.arch));
    if (!result.flags.isEmpty())
        header << tr("Flags: %1").arg(result.flags.join(QLatin1Char(' ')));
    header << (result.ok
                   ? tr("Compiled in %1%2")
                         .arg(formatDurationMs(result.compileMs),
                              result.cacheHit ? tr(" (cache)") : QString())
                   : tr("Compile failed: %1").arg(DiagnosticsList::summaryOf(result.diagnostics)));
    if (result.compilerMissing) // the message names the library and what to do
        header << result.error;
    else if (!result.error.isEmpty())
        header << tr("NVRTC could not run: %1").arg(result.error);
    m_log->setPlainText(header.join(QLatin1Char('\n')) + QStringLiteral("\n\n") +
                        (result.log.isEmpty() ? tr("(empty program log)") : result.log));
}

void ProgramLogView::runFinished(const Workbench&, const RunRecord& run) {
    const RunResult& result = run.result;
    if (run.sanitized()) {
        m_log->appendPlainText(QStringLiteral("\n") + sanitizerSummary(result));
        for (const SanitizerReport& report : result.sanitizer)
            m_log->appendPlainText(report.message());
        if (!result.sanitizerNote.isEmpty())
            m_log->appendPlainText(result.sanitizerNote);
    } else if (result.status != RunStatus::Ok && !result.error.isEmpty()) {
        m_log->appendPlainText(QStringLiteral("\n") + runEndedMessage(result));
    }
}

} // namespace kernelpad
