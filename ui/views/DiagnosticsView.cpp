#include "ui/views/DiagnosticsView.h"

#include "ui/ProjectDocument.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/DiagnosticsList.h"

#include <QTabWidget>

namespace kernelpad {

QVector<Diagnostic> diagnosticMarks(const RunRecord& run) {
    QVector<Diagnostic> marks = run.result.compile.diagnostics;
    for (const SanitizerReport& report : run.result.sanitizer)
        marks.push_back(report.diagnostic());
    return marks;
}

DiagnosticsView::DiagnosticsView(const ViewContext& context)
    : m_list(new DiagnosticsList)
    , m_tabs(context.resultTabs) {
    m_list->setObjectName(QStringLiteral("diagnostics"));
    const QPointer<CodeEditor> editor(context.editor);
    connect(m_list, &DiagnosticsList::jumpRequested, this, [editor](int line, int column) {
        if (editor)
            editor->goToLine(line, column);
    });
}

QWidget* DiagnosticsView::widget() const {
    return m_list;
}

void DiagnosticsView::workbenchCleared(const Workbench&) {
    m_list->clearDiagnostics();
    setResultTabTitle(m_tabs, m_list, tr("Diagnostics"));
}

void DiagnosticsView::compiled(const Workbench& workbench) {
    const QVector<Diagnostic>& diagnostics = workbench.lastCompile()->diagnostics;
    m_list->setDiagnostics(diagnostics, workbench.document()->project().sourceName);
    setResultTabTitle(m_tabs, m_list,
                      diagnostics.isEmpty() ? tr("Diagnostics")
                                            : tr("Diagnostics (%1)").arg(diagnostics.size()));
}

void DiagnosticsView::runFinished(const Workbench&, const RunRecord& run) {
    if (run.sanitized())
        m_list->setDiagnostics(diagnosticMarks(run), run.project.sourceName);
}

} // namespace kernelpad
