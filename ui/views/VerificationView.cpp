#include "ui/views/VerificationView.h"

#include "ui/widgets/VerificationPanel.h"

namespace kernelpad {

VerificationView::VerificationView(const ViewContext&)
    : m_panel(new VerificationPanel) {
    m_panel->setObjectName(QStringLiteral("verification"));
}

QWidget* VerificationView::widget() const {
    return m_panel;
}

void VerificationView::workbenchCleared(const Workbench&) {
    m_panel->clear();
}

void VerificationView::runFinished(const Workbench&, const RunRecord& run) {
    m_panel->showResult(run.result);
}

} // namespace kernelpad
