#include "ui/views/FaultView.h"

#include "core/run/ErrorText.h"
#include "ui/Preferences.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/FaultBanner.h"

namespace kernelpad {

FaultView::FaultView(const ViewContext& context)
    : m_workbench(context.workbench)
    , m_banner(new FaultBanner)
    , m_editor(context.editor) {
    connect(m_banner, &FaultBanner::memcheckRequested, this, &FaultView::startMemcheck);
}

QWidget* FaultView::widget() const {
    return m_banner;
}

void FaultView::stateReplayed(const Workbench&) {
    m_live = true;
}

void FaultView::startMemcheck() {
    if (m_following)
        return;
    RunRequest request;
    request.sanitizer = SanitizerTool::Memcheck;
    QString why;
    if (!m_workbench->run(request, &why)) {
        m_banner->showFault(m_fault + QStringLiteral("\n\n") +
                            tr("The memcheck run cannot start: %1").arg(why));
        return;
    }
    m_following = true;
    m_banner->showMemcheckRunning(m_fault);
}

void FaultView::workbenchCleared(const Workbench&) {
    m_following = false;
    m_fault.clear();
    m_banner->hide();
}

void FaultView::runStarted(const Workbench&) {
    if (!m_following)
        m_banner->hide(); // a new run of the user's: the old fault is history
}

void FaultView::showFinding(const RunRecord& run) {
    m_following = false;
    m_banner->showFinding(m_fault, memcheckFinding(run.result));
    // The editor marks every report (bind::editor); the cursor goes to the first.
    for (const SanitizerReport& report : run.result.sanitizer) {
        if (report.line > 0 && report.file == run.project.sourceName && m_editor) {
            m_editor->goToLine(report.line);
            break;
        }
    }
}

void FaultView::runFinished(const Workbench&, const RunRecord& run) {
    if (m_following) {
        showFinding(run);
        return;
    }
    const RunResult& result = run.result;
    if (result.status != RunStatus::CudaError || result.faultCode == 0 ||
        result.sanitizerTool != SanitizerTool::None) {
        m_banner->hide();
        return;
    }
    m_fault = result.error;
    if (!memcheckCanLocateFault(result)) {
        m_banner->showFault(result.error);
    } else if (m_live && Preferences::load().memcheckAfterFault) {
        m_banner->showMemcheckRunning(result.error);
        // After every view has seen the fault, not in the middle of telling them.
        QMetaObject::invokeMethod(this, &FaultView::startMemcheck, Qt::QueuedConnection);
    } else {
        m_banner->showOffer(result.error);
    }
}

} // namespace kernelpad
