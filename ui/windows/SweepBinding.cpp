// bind::sweep: the Sweep dock edits the document's sweep section and runs it on the device
// the window has chosen; without a driver or a device, Run Sweep says so instead of starting.

#include "ui/Session.h"
#include "ui/widgets/SweepChart.h"
#include "ui/widgets/SweepPanel.h"
#include "ui/windows/PanelBindings.h"

namespace kernelpad::bind {

void sweep(Session* session, SweepPanel* panel) {
    panel->setDocument(session->document());
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
    viewer->onRunFinished = [chart](const Session&, const RunRecord& run) {
        if (run.result.timing.ceilingGBs > 0)
            chart->setCopyCeiling(run.result.timing.ceilingGBs);
    };
    viewer->onDevices = [panel](const Session& s) {
        QString noDevice = s.driverError();
        if (noDevice.isEmpty() && s.devicesKnown() && s.devices().isEmpty())
            noDevice = QObject::tr("the driver found no device");
        // The device's name keys the results file, as kernelpad-cli's does.
        const QString name = s.deviceIndex() >= 0 && s.deviceIndex() < s.devices().size()
                                 ? s.devices()[s.deviceIndex()].name
                                 : QString();
        panel->setDevice(s.deviceIndex(), noDevice, name);
    };
    session->addViewer(viewer);
}

} // namespace kernelpad::bind
