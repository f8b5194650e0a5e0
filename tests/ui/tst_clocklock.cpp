// Device > Lock Clocks: the action sets the flag every run request carries to its runner
// (RunRequest::lockClocks; the window never calls NVML), and a refusal that comes back with a
// run's telemetry turns it off again and says why in the status bar.

#include "core/engine/Engine.h"
#include "ui/Workbench.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"

#include <QAction>
#include <QStatusBar>
#include <QtTest>

namespace tst_clocklock {

using namespace kernelpad;

class TestClockLock : public QObject {
    Q_OBJECT

private slots:
    void lockTravelsWithTheRequestAndARefusalTurnsItOff() {
        Engine engine(nullptr, Engine::Isolation::InProcess);
        MainWindow window(&engine);
        window.setPromptsEnabled(false);
        auto* action = window.findChild<QAction*>(QStringLiteral("lockClocksAction"));
        QVERIFY(action);
        QVERIFY(action->isCheckable());
        QVERIFY(!action->isChecked());
        Workbench* workbench = window.workbench();
        QVERIFY(!workbench->baseRequest().lockClocks);

        action->setChecked(true);
        QVERIFY(workbench->lockClocks());
        QVERIFY(workbench->baseRequest().lockClocks);
        // What the runner is sent carries the flag (RunRequest's JSON, tst_telemetrystats).
        QVERIFY(workbench->baseRequest().toJson().value(QStringLiteral("lockClocks")).toBool());

        // A run that locked them changes nothing.
        RunResult locked;
        locked.timing.telemetry.available = true;
        locked.timing.telemetry.lockedByKernelPad = true;
        emit workbench->runShown(locked);
        QVERIFY(action->isChecked());

        RunResult refused;
        refused.timing.telemetry.available = true;
        refused.timing.telemetry.lockError =
            QStringLiteral("locking clocks needs root or the GPU's admin setting: run `sudo "
                           "nvidia-smi --lock-gpu-clocks=1755,1755` (NVML: no permission)");
        emit workbench->runShown(refused);
        QVERIFY(!action->isChecked());
        QVERIFY(!workbench->lockClocks());
        QVERIFY(!workbench->baseRequest().lockClocks);
        const QString message = window.statusBar()->currentMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Lock Clocks: locking clocks needs root")),
                 qPrintable(message));
    }
};

KERNELPAD_TEST_MAIN(TestClockLock)
} // namespace tst_clocklock
#include "tst_clocklock.moc"
