#pragma once
// The Diff tab: the comparisons of a CompileHistory that follows the Workbench's compiles. Made
// with the window, so that the compile before the one looked at is there to compare with. Once
// shown for a project, its compiles are disassembled as they come (CompileDiffView).

#include "ui/ResultView.h"

namespace kernelpad {

class CompileDiffView;
class CompileHistory;

class DiffView : public ResultView {
    Q_OBJECT
public:
    explicit DiffView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;
    [[nodiscard]] CompileDiffView* diff() const { return m_view; }
    [[nodiscard]] CompileHistory* history() const { return m_history; }

    void workbenchCleared(const Workbench& workbench) override;

private:
    CompileDiffView* m_view;
    CompileHistory* m_history;
};

} // namespace kernelpad
