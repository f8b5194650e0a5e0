#pragma once
// The Verification tab (or, pinned, the pane below the results): whether each run's outputs
// matched what was expected.

#include "ui/ResultView.h"

namespace kernelpad {

class VerificationPanel;

class VerificationView : public ResultView {
    Q_OBJECT
public:
    explicit VerificationView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;
    [[nodiscard]] VerificationPanel* panel() const { return m_panel; }

    void workbenchCleared(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;

private:
    VerificationPanel* m_panel;
};

} // namespace kernelpad
