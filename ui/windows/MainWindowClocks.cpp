// MainWindow: Device > Lock Clocks. The window never calls NVML: the flag travels with every
// run request (RunRequest::lockClocks) and the runner locks or releases the clocks before it
// times; a refusal comes back with the run's telemetry and turns the action off again.

#include "ui/Workbench.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QMenu>
#include <QStatusBar>

namespace kernelpad {
namespace {

/// Long enough to read the nvidia-smi command the refusal names.
constexpr int kClockLockMessageMs = 15000;

} // namespace

void MainWindow::createClockLockAction(QMenu* device) {
    m_lockClocksAction = device->addAction(tr("Lock &Clocks"));
    m_lockClocksAction->setObjectName(QStringLiteral("lockClocksAction"));
    m_lockClocksAction->setCheckable(true);
    m_lockClocksAction->setToolTip(
        tr("Hold the GPU's SM and memory clocks at their base frequencies from the next run "
           "until KernelPad quits, so that timings taken minutes apart compare at 1 %; needs "
           "root or the GPU's admin setting"));
    connect(m_lockClocksAction, &QAction::toggled, this, [this](bool on) {
        m_workbench->setLockClocks(on);
        statusBar()->showMessage(on ? tr("Clocks will be locked to their base from the next run")
                                    : tr("Clocks will be released with the next run"),
                                 kClockLockMessageMs);
    });
    connect(m_workbench, &Workbench::runShown, this, [this](const RunResult& result) {
        const QString refused = result.timing.telemetry.lockError;
        if (refused.isEmpty() || !m_lockClocksAction->isChecked())
            return;
        {
            const QSignalBlocker quiet(m_lockClocksAction);
            m_lockClocksAction->setChecked(false);
        }
        m_workbench->setLockClocks(false);
        statusBar()->showMessage(tr("Lock Clocks: %1").arg(refused), kClockLockMessageMs);
    });
}

} // namespace kernelpad
