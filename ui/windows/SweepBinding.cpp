// bind::sweep: the Sweep dock edits the document's sweep section and runs it on the device
// the window has chosen, every device of this computer or every device of every runner
// (SweepDevices); without a driver or a device, Run Sweep says so instead of starting.

#include "ui/Preferences.h"
#include "ui/SweepDevices.h"
#include "ui/Workbench.h"
#include "ui/widgets/SweepChart.h"
#include "ui/widgets/SweepPanel.h"
#include "ui/windows/PanelBindings.h"

namespace kernelpad::bind {

void sweep(Workbench* workbench, SweepPanel* panel) {
    panel->setDocument(workbench->document());
    panel->setEngine(workbench->engine());
    // The chart beside the results: redrawn with every record, and a point clicked selects
    // its row (and a row selected is what Apply Selected writes).
    auto* chart = new SweepChart(panel);
    chart->setObjectName(QStringLiteral("sweepChart"));
    panel->setChartWidget(chart);
    QObject::connect(panel, &SweepPanel::recordsChanged, chart, &SweepChart::setSweep);
    QObject::connect(chart, &SweepChart::configurationChosen, panel,
                     &SweepPanel::selectConfiguration);
    PanelViewer* viewer = makeViewer(panel);
    // The size sweep's copy ceiling when its records carry none (a file written before they
    // did): the device's, as the last measured run reported it.
    viewer->onRunFinished = [chart](const Workbench&, const RunRecord& run) {
        if (run.result.timing.ceilingGBs > 0)
            chart->setCopyCeiling(run.result.timing.ceilingGBs);
    };
    auto* devices = new SweepDevices(panel);
    devices->setRunners(Preferences::load().runners);
    viewer->onDevices = [panel, devices](const Workbench& s) {
        QString noDevice = s.driverError();
        if (noDevice.isEmpty() && s.devicesKnown() && s.devices().isEmpty())
            noDevice = QObject::tr("the driver found no device");
        // The device's name keys the results file, as kernelpad-cli's does.
        const QString name = s.devices().value(s.deviceIndex()).name;
        panel->setDevice(s.deviceIndex(), noDevice, name);
        devices->setChosen(Preferences::load().chosenRunner(), s.deviceIndex(), name);
    };
    QObject::connect(PreferencesNotifier::instance(), &PreferencesNotifier::changed, devices,
                     [devices] { devices->setRunners(Preferences::load().runners); });
    workbench->addViewer(viewer);
}

} // namespace kernelpad::bind
