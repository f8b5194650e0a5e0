#pragma once
// The Resources tab: the driver's figures for the compiled kernel on the chosen device, or,
// without a device, what the compile knows; a run shows the figures it launched with.

#include "ui/ResultView.h"

namespace kernelpad {

class ResourcesPanel;

class ResourcesView : public ResultView {
    Q_OBJECT
public:
    explicit ResourcesView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override;
    void compiled(const Workbench& workbench) override;
    void resourcesChanged(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;
    void projectEdited(const Workbench& workbench, ProjectPart part) override;

private:
    void showCompile(const Workbench& workbench);

    ResourcesPanel* m_panel;
};

} // namespace kernelpad
