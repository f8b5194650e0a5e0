#pragma once
// The Console tab: what the kernel printed with printf in each run; the tab's title counts it.

#include "ui/ResultView.h"

namespace kernelpad {

class ConsolePanel;

class ConsoleView : public ResultView {
    Q_OBJECT
public:
    explicit ConsoleView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;

private:
    ConsolePanel* m_panel;
};

} // namespace kernelpad
