// bind::occupancy: the occupancy curves follow the last compile, the driver's figures for the
// kernel, the chosen device, and the launch and kernel the project names.

#include "core/run/OccupancyInputs.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/OccupancyView.h"
#include "ui/windows/PanelBindings.h"

#include <climits>

namespace kernelpad::bind {

void occupancy(Workbench* workbench, OccupancyView* view) {
    // Pure arithmetic over at most a few thousand points: cheap enough to redo on each edit.
    auto update = [=] {
        const std::optional<CompileResult>& compile = workbench->lastCompile();
        if (!compile) {
            view->showMessage(QObject::tr(
                "Nothing compiled yet: after a compile, this tab shows the kernel's occupancy "
                "against block size, registers per thread and dynamic shared memory, with the "
                "current launch marked and what limits it."));
            return;
        }
        if (!compile->ok) {
            view->showMessage(QObject::tr("The current source does not compile: the occupancy "
                                          "curves show here after a successful compile."));
            return;
        }
        const Project& project = workbench->document()->project();
        const DeviceInfo* device = workbench->currentDevice();
        // The driver's figures only when they are for this kernel and this device.
        const KernelResources* driver =
            device && workbench->kernelResources() && workbench->resourcesKernel() == project.kernel
                ? &*workbench->kernelResources()
                : nullptr;
        const qint64 threads = project.launch.threadsPerBlock();
        const OccupancyReport report = occupancyReport(*compile, project.kernel, device, driver,
                                                       threads > INT_MAX ? INT_MAX : int(threads),
                                                       project.launch.sharedMemBytes);
        view->showReport(report, project.kernel, device ? device->name : QString());
    };
    QObject::connect(workbench->document(), &ProjectDocument::launchChanged, view, update);
    QObject::connect(workbench->document(), &ProjectDocument::kernelChanged, view, update);
    PanelViewer* viewer = makeViewer(view);
    viewer->onCleared = [=](const Workbench&) { update(); };
    viewer->onDevices = viewer->onCleared;
    viewer->onCompiled = viewer->onCleared;
    viewer->onResources = viewer->onCleared;
    workbench->addViewer(viewer);
}

} // namespace kernelpad::bind
