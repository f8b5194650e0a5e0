#include "ui/views/DiffView.h"

#include "ui/CompileHistory.h"
#include "ui/widgets/CompileDiffView.h"

namespace kernelpad {

DiffView::DiffView(const ViewContext& context)
    : m_view(new CompileDiffView) {
    m_view->setObjectName(QStringLiteral("compileDiff"));
    // Owned by the diff widget: the compiles kept live as long as the widget that shows them.
    // It hears the Workbench itself: it keeps the previous compile, which a replay would not
    // bring back.
    m_history = new CompileHistory(context.workbench, m_view);
    m_history->setObjectName(QStringLiteral("compileHistory"));
    m_view->setHistory(m_history);
}

void DiffView::workbenchCleared(const Workbench&) {
    m_view->forgetShown();
}

QWidget* DiffView::widget() const {
    return m_view;
}

} // namespace kernelpad
