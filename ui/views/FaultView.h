#pragma once
// The fault banner above the editor: a run that ends in a kernel fault shows its explanation
// and offers one run under memcheck (or, with Preferences::memcheckAfterFault, starts it at
// once); what memcheck finds ends the message with the faulting line, thread and block, and the
// editor's cursor goes to that line.

#include "ui/ResultView.h"

#include <QPointer>

namespace kernelpad {

class CodeEditor;
class FaultBanner;

class FaultView : public ResultView {
    Q_OBJECT
public:
    explicit FaultView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;

    void workbenchCleared(const Workbench& workbench) override;
    void runStarted(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;
    void stateReplayed(const Workbench& workbench) override;

private:
    void startMemcheck();
    /// The memcheck run this view started came back: its finding, and the editor at its line.
    void showFinding(const RunRecord& run);

    Workbench* m_workbench;
    FaultBanner* m_banner;
    QPointer<CodeEditor> m_editor;
    /// Off while the current state is replayed to the view: a replayed fault starts nothing.
    bool m_live = false;
    /// The memcheck run this view started is under way; its answer is the finding.
    bool m_following = false;
    QString m_fault; ///< the explanation of the fault being followed
};

} // namespace kernelpad
