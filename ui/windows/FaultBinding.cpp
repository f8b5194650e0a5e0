// bind::fault: a run that ends in a kernel fault shows its explanation above the editor and
// offers one run under memcheck (or, with the preference, starts it at once); what memcheck
// finds ends the message with the faulting line, thread and block, marked in the editor.

#include "core/run/ErrorText.h"
#include "ui/Preferences.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/FaultBanner.h"
#include "ui/windows/PanelBindings.h"

#include <QPointer>

#include <memory>

namespace kernelpad::bind {

namespace {

/// What the binding keeps between callbacks.
struct FaultState {
    /// Off while Workbench::addViewer() replays old runs: a replayed fault starts nothing.
    bool live = false;
    /// The memcheck run this binding started is under way; its answer is the finding.
    bool following = false;
    QString fault; ///< the explanation of the fault being followed
};

} // namespace

void fault(Workbench* workbench, FaultBanner* banner, CodeEditor* editor) {
    const auto state = std::make_shared<FaultState>();
    const QPointer<CodeEditor> sourceEditor(editor);

    const auto startMemcheck = [=] {
        if (state->following)
            return;
        RunRequest request;
        request.sanitizer = SanitizerTool::Memcheck;
        QString why;
        if (!workbench->run(request, &why)) {
            banner->showFault(state->fault + QStringLiteral("\n\n") +
                              QObject::tr("The memcheck run cannot start: %1").arg(why));
            return;
        }
        state->following = true;
        banner->showMemcheckRunning(state->fault);
    };
    QObject::connect(banner, &FaultBanner::memcheckRequested, banner, startMemcheck);

    PanelViewer* viewer = makeViewer(banner);
    viewer->onCleared = [=](const Workbench&) {
        state->following = false;
        state->fault.clear();
        banner->hide();
    };
    viewer->onRunStarted = [=](const Workbench&) {
        if (!state->following)
            banner->hide(); // a new run of the user's: the old fault is history
    };
    viewer->onRunFinished = [=](const Workbench&, const RunRecord& run) {
        const RunResult& result = run.result;
        if (state->following) {
            state->following = false;
            banner->showFinding(state->fault, memcheckFinding(result));
            // The editor marks every report (bind::editor); the cursor goes to the first.
            for (const SanitizerReport& report : result.sanitizer) {
                if (report.line > 0 && report.file == run.project.sourceName && sourceEditor) {
                    sourceEditor->goToLine(report.line);
                    break;
                }
            }
            return;
        }
        if (result.status != RunStatus::CudaError || result.faultCode == 0 ||
            result.sanitizerTool != SanitizerTool::None) {
            banner->hide();
            return;
        }
        state->fault = result.error;
        if (!memcheckCanLocateFault(result)) {
            banner->showFault(result.error);
        } else if (state->live && Preferences::load().memcheckAfterFault) {
            banner->showMemcheckRunning(result.error);
            // After every viewer has seen the fault, not in the middle of telling them.
            QMetaObject::invokeMethod(banner, startMemcheck, Qt::QueuedConnection);
        } else {
            banner->showOffer(result.error);
        }
    };
    workbench->addViewer(viewer);
    state->live = true;
}

} // namespace kernelpad::bind
