#pragma once
// The Timing tab: each measured run on the chart and in the history, compared with the
// pinned baseline (pinned from the chart's menu or Build ▸ Set as Baseline).

#include "ui/ResultView.h"

namespace kernelpad {

class TimingChartView;

class TimingView : public ResultView {
    Q_OBJECT
public:
    explicit TimingView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override;
    void historyCleared(const Workbench& workbench) override;
    void devicesChanged(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;

private:
    TimingChartView* m_chart;
};

} // namespace kernelpad
