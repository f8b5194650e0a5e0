#pragma once
// The Buffers tab: the newest run's outputs; the rows of an output the runner kept come from
// the Workbench (WorkbenchRangeFetcher) as they scroll into view.

#include "ui/ResultView.h"

namespace kernelpad {

class BufferViewer;

class BuffersView : public ResultView {
    Q_OBJECT
public:
    explicit BuffersView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;

private:
    BufferViewer* m_buffers;
};

} // namespace kernelpad
