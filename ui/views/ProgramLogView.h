#pragma once
// The Program Log tab: the compiler's header line and log after each compile, and what a run
// under a sanitizer or a failed run adds below it.

#include "ui/ResultView.h"

class QPlainTextEdit;

namespace kernelpad {

class ProgramLogView : public ResultView {
    Q_OBJECT
public:
    explicit ProgramLogView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override;
    void compiled(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;

private:
    QPlainTextEdit* m_log;
};

} // namespace kernelpad
