#include "ui/views/TimingView.h"

#include "ui/widgets/TimingChartView.h"

namespace kernelpad {

TimingView::TimingView(const ViewContext& context)
    : m_chart(new TimingChartView) {
    m_chart->setObjectName(QStringLiteral("timing"));
    Workbench* workbench = context.workbench;
    connect(m_chart, &TimingChartView::baselineRequested, workbench, &Workbench::setBaseline);
    connect(m_chart, &TimingChartView::baselineClearRequested, workbench,
            &Workbench::clearBaseline);
    connect(workbench, &Workbench::baselineChanged, m_chart, [chart = m_chart, workbench] {
        chart->setBaseline(workbench->baselineRun() ? workbench->baselineRun()->serial : 0);
    });
}

QWidget* TimingView::widget() const {
    return m_chart;
}

void TimingView::workbenchCleared(const Workbench&) {
    m_chart->clearHistory();
}

void TimingView::historyCleared(const Workbench&) {
    m_chart->clearHistory();
}

void TimingView::devicesChanged(const Workbench& workbench) {
    m_chart->setPeakBandwidthGBs(
        workbench.currentDevice() ? workbench.currentDevice()->peakBandwidthGBs() : 0.0);
}

void TimingView::runFinished(const Workbench&, const RunRecord& run) {
    // Times under a sanitizer mean nothing: the chart and its history are left alone.
    if (!run.sanitized())
        m_chart->showRun(run.result, run.changes, run.serial);
}

} // namespace kernelpad
