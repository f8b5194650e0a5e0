// bind::compileDiff: the diff view shows the comparisons of a CompileHistory that follows the
// workbench's compiles.

#include "ui/CompileHistory.h"
#include "ui/widgets/CompileDiffView.h"
#include "ui/windows/PanelBindings.h"

namespace kernelpad::bind {

void compileDiff(Workbench* workbench, CompileDiffView* view) {
    // Owned by the view: the compiles kept live as long as the view that shows them.
    auto* history = new CompileHistory(workbench, view);
    history->setObjectName(QStringLiteral("compileHistory"));
    view->setHistory(history);
}

} // namespace kernelpad::bind
