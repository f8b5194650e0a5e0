#include "ui/views/BuffersView.h"

#include "ui/WorkbenchRangeFetcher.h"
#include "ui/widgets/BufferViewer.h"

namespace kernelpad {

BuffersView::BuffersView(const ViewContext& context)
    : m_buffers(new BufferViewer) {
    m_buffers->setObjectName(QStringLiteral("buffers"));
    m_buffers->setRangeFetcher(new WorkbenchRangeFetcher(context.workbench, m_buffers));
}

QWidget* BuffersView::widget() const {
    return m_buffers;
}

void BuffersView::workbenchCleared(const Workbench&) {
    m_buffers->clear();
}

void BuffersView::runFinished(const Workbench& workbench, const RunRecord& run) {
    // Only the newest run keeps its outputs (Workbench::history()).
    if (!run.sanitized() && &run == &workbench.history().constLast())
        m_buffers->setOutputs(run.result.outputs);
}

} // namespace kernelpad
