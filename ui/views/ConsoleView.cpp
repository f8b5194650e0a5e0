#include "ui/views/ConsoleView.h"

#include "ui/widgets/ConsolePanel.h"

#include <QPointer>
#include <QTabWidget>

namespace kernelpad {

ConsoleView::ConsoleView(const ViewContext& context)
    : m_panel(new ConsolePanel) {
    m_panel->setObjectName(QStringLiteral("console"));
    const QPointer<QTabWidget> tabs(context.resultTabs);
    connect(m_panel, &ConsolePanel::titleChanged, this,
            [this, tabs](const QString& title) { setResultTabTitle(tabs, m_panel, title); });
}

QWidget* ConsoleView::widget() const {
    return m_panel;
}

void ConsoleView::workbenchCleared(const Workbench&) {
    m_panel->clear();
}

void ConsoleView::runFinished(const Workbench&, const RunRecord& run) {
    if (run.result.status != RunStatus::CompileError)
        m_panel->showRun(run.project.kernel, run.result.console, run.finishedAt);
}

} // namespace kernelpad
