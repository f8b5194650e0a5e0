#pragma once
// The Occupancy tab: the occupancy curves of the project's kernel at its launch, following the
// last compile, the driver's figures for the kernel, the chosen device and the launch and
// kernel the project names. Made when the tab is first shown.

#include "ui/ResultView.h"

namespace kernelpad {

class OccupancyView;

class OccupancyResultView : public ResultView {
    Q_OBJECT
public:
    explicit OccupancyResultView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override { update(workbench); }
    void devicesChanged(const Workbench& workbench) override { update(workbench); }
    void compiled(const Workbench& workbench) override { update(workbench); }
    void resourcesChanged(const Workbench& workbench) override { update(workbench); }
    void projectEdited(const Workbench& workbench, ProjectPart part) override;

private:
    /// Pure arithmetic over at most a few thousand points: cheap enough to redo on each edit.
    void update(const Workbench& workbench);

    OccupancyView* m_view;
};

} // namespace kernelpad
