#include "ui/views/PtxResultView.h"

#include "ui/widgets/PtxView.h"

namespace kernelpad {

PtxResultView::PtxResultView(const ViewContext&)
    : m_ptx(new PtxView) {
    m_ptx->setObjectName(QStringLiteral("ptx"));
}

QWidget* PtxResultView::widget() const {
    return m_ptx;
}

void PtxResultView::workbenchCleared(const Workbench&) {
    m_ptx->clear();
}

void PtxResultView::compiled(const Workbench& workbench) {
    m_ptx->showCompile(*workbench.lastCompile());
}

} // namespace kernelpad
