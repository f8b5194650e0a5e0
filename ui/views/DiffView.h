#pragma once
// The Diff tab: the comparisons of a CompileHistory that follows the Workbench's compiles. Made
// with the window, so that the compile before the one looked at is there to compare with.

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

private:
    CompileDiffView* m_view;
    CompileHistory* m_history;
};

} // namespace kernelpad
