#pragma once
// The Sweep dock: edits the document's sweep section and runs it on the device the window has
// chosen, every device of this computer or every device of every runner (SweepDevices); without
// a driver or a device, Run Sweep says so instead of starting. The chart beside the results is
// redrawn with every record.

#include "ui/ResultView.h"

namespace kernelpad {

class FormScrollArea;
class SweepChart;
class SweepDevices;
class SweepPanel;

class SweepView : public ResultView {
    Q_OBJECT
public:
    explicit SweepView(const ViewContext& context);
    /// The panel in a scroll area (the dock is never narrower than the form).
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override;
    void devicesChanged(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;

private:
    SweepPanel* m_panel;
    FormScrollArea* m_area;
    SweepChart* m_chart;
    SweepDevices* m_devices;
};

} // namespace kernelpad
