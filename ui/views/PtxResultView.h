#pragma once
// The PTX tab: the last compile's PTX (a failed compile keeps the last good one, marked stale).
// The SASS view colours its lines once the line map is known (SassResultView).

#include "ui/ResultView.h"

namespace kernelpad {

class PtxView;

class PtxResultView : public ResultView {
    Q_OBJECT
public:
    explicit PtxResultView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;
    [[nodiscard]] PtxView* ptx() const { return m_ptx; }

    void workbenchCleared(const Workbench& workbench) override;
    void compiled(const Workbench& workbench) override;

private:
    PtxView* m_ptx;
};

} // namespace kernelpad
