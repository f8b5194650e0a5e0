#include "ui/views/ResourcesView.h"

#include "ui/ProjectDocument.h"
#include "ui/widgets/ResourcesPanel.h"

namespace kernelpad {

ResourcesView::ResourcesView(const ViewContext&)
    : m_panel(new ResourcesPanel) {
    m_panel->setObjectName(QStringLiteral("resources"));
}

QWidget* ResourcesView::widget() const {
    return m_panel;
}

void ResourcesView::showCompile(const Workbench& workbench) {
    // Without a device no driver figures follow: show what the compile knows.
    if (workbench.lastCompile() && !workbench.currentDevice())
        m_panel->showCompileInfo(*workbench.lastCompile(), workbench.document()->project().kernel);
}

void ResourcesView::workbenchCleared(const Workbench&) {
    m_panel->clear();
}

void ResourcesView::compiled(const Workbench& workbench) {
    showCompile(workbench);
}

void ResourcesView::projectEdited(const Workbench& workbench, ProjectPart part) {
    if (part == ProjectPart::Kernel)
        showCompile(workbench);
}

void ResourcesView::resourcesChanged(const Workbench& workbench) {
    if (const DeviceInfo* device = workbench.currentDevice())
        m_panel->showResources(workbench.resourcesKernel(), *workbench.kernelResources(), *device,
                               workbench.document()->project().launch);
}

void ResourcesView::runFinished(const Workbench&, const RunRecord& run) {
    const RunResult& result = run.result;
    if (!run.sanitized() && result.status != RunStatus::CompileError &&
        !result.device.name.isEmpty())
        m_panel->showResources(run.project.kernel, result.resources, result.device, result.launch);
}

} // namespace kernelpad
