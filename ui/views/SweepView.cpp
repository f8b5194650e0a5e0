#include "ui/views/SweepView.h"

#include "ui/Preferences.h"
#include "ui/SweepDevices.h"
#include "ui/widgets/SweepChart.h"
#include "ui/widgets/SweepPanel.h"
#include "ui/windows/FormScrollArea.h"

namespace kernelpad {

SweepView::SweepView(const ViewContext& context)
    : m_panel(new SweepPanel) {
    m_panel->setObjectName(QStringLiteral("sweepPanel"));
    m_area = new FormScrollArea(m_panel);
    m_panel->setDocument(context.workbench->document());
    m_panel->setEngine(context.workbench->engine());
    // The chart beside the results: redrawn with every record, and a point clicked selects
    // its row (and a row selected is what Apply Selected writes).
    m_chart = new SweepChart(m_panel);
    m_chart->setObjectName(QStringLiteral("sweepChart"));
    m_panel->setChartWidget(m_chart);
    connect(m_panel, &SweepPanel::recordsChanged, m_chart, &SweepChart::setSweep);
    connect(m_chart, &SweepChart::configurationChosen, m_panel, &SweepPanel::selectConfiguration);
    m_devices = new SweepDevices(m_panel);
    m_devices->setRunners(Preferences::load().runners);
    connect(PreferencesNotifier::instance(), &PreferencesNotifier::changed, m_devices,
            [devices = m_devices] { devices->setRunners(Preferences::load().runners); });
}

QWidget* SweepView::widget() const {
    return m_area;
}

void SweepView::workbenchCleared(const Workbench&) {
    m_area->scrollToTop();
}

void SweepView::devicesChanged(const Workbench& workbench) {
    QString noDevice = workbench.driverError();
    if (noDevice.isEmpty() && workbench.devicesKnown() && workbench.devices().isEmpty())
        noDevice = tr("the driver found no device");
    // The device's name keys the results file, as kernelpad-cli's does.
    const QString name = workbench.devices().value(workbench.deviceIndex()).name;
    m_panel->setDevice(workbench.deviceIndex(), noDevice, name);
    m_devices->setChosen(Preferences::load().chosenRunner(), workbench.deviceIndex(), name);
}

void SweepView::runFinished(const Workbench&, const RunRecord& run) {
    // The size sweep's copy ceiling when its records carry none (a file written before they
    // did): the device's, as the last measured run reported it.
    if (run.result.timing.ceilingGBs > 0)
        m_chart->setCopyCeiling(run.result.timing.ceilingGBs);
}

} // namespace kernelpad
