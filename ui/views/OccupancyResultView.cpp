#include "ui/views/OccupancyResultView.h"

#include "core/run/OccupancyInputs.h"
#include "ui/ProjectDocument.h"
#include "ui/widgets/OccupancyView.h"

#include <climits>

namespace kernelpad {

OccupancyResultView::OccupancyResultView(const ViewContext&)
    : m_view(new OccupancyView) {
    m_view->setObjectName(QStringLiteral("occupancy"));
}

QWidget* OccupancyResultView::widget() const {
    return m_view;
}

void OccupancyResultView::projectEdited(const Workbench& workbench, ProjectPart part) {
    if (part == ProjectPart::Launch || part == ProjectPart::Kernel)
        update(workbench);
}

void OccupancyResultView::update(const Workbench& workbench) {
    const std::optional<CompileResult>& compile = workbench.lastCompile();
    if (!compile) {
        m_view->showMessage(
            tr("Nothing compiled yet: after a compile, this tab shows the kernel's occupancy "
               "against block size, registers per thread and dynamic shared memory, with the "
               "current launch marked and what limits it."));
        return;
    }
    if (!compile->ok) {
        m_view->showMessage(tr("The current source does not compile: the occupancy curves show "
                               "here after a successful compile."));
        return;
    }
    const Project& project = workbench.document()->project();
    const DeviceInfo* device = workbench.currentDevice();
    // The driver's figures only when they are for this kernel and this device.
    const KernelResources* driver =
        device && workbench.kernelResources() && workbench.resourcesKernel() == project.kernel
            ? &*workbench.kernelResources()
            : nullptr;
    const qint64 threads = project.launch.threadsPerBlock();
    const OccupancyReport report =
        occupancyReport(*compile, project.kernel, device, driver,
                        threads > INT_MAX ? INT_MAX : int(threads), project.launch.sharedMemBytes);
    m_view->showReport(report, project.kernel, device ? device->name : QString());
}

} // namespace kernelpad
