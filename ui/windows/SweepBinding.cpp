// bind::sweep: the Sweep dock edits the document's sweep section and runs it on the device
// the window has chosen; without a driver or a device, Run Sweep says so instead of starting.

#include "ui/Session.h"
#include "ui/widgets/SweepPanel.h"
#include "ui/windows/PanelBindings.h"

namespace kernelpad::bind {

void sweep(Session* session, SweepPanel* panel) {
    panel->setDocument(session->document());
    PanelViewer* viewer = makeViewer(panel);
    viewer->onDevices = [panel](const Session& s) {
        QString noDevice = s.driverError();
        if (noDevice.isEmpty() && s.devicesKnown() && s.devices().isEmpty())
            noDevice = QObject::tr("the driver found no device");
        panel->setDevice(s.deviceIndex(), noDevice);
    };
    session->addViewer(viewer);
}

} // namespace kernelpad::bind
