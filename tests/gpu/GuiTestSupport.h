#pragma once
// Shared by the window's gpu-labelled tests (tst_gui*): run the window's project and wait.

#include "ui/Workbench.h"
#include "ui/windows/MainWindow.h"

#include <QSignalSpy>
#include <QTest>

namespace kernelpad::test {

/// Runs the window's project once the workbench allows it and waits for the run to be
/// recorded; null when either wait passes `timeoutMs`.
inline const RunRecord* runInWindowAndWait(MainWindow& window, int timeoutMs) {
    Workbench* workbench = window.workbench();
    const int before = int(workbench->history().size());
    QSignalSpy shown(workbench, &Workbench::runShown);
    if (!QTest::qWaitFor([&] { return workbench->runBlockedReason().isEmpty(); }, timeoutMs))
        return nullptr;
    window.run();
    while (workbench->history().size() == before)
        if (!shown.wait(timeoutMs))
            return nullptr;
    return &workbench->history().constLast();
}

} // namespace kernelpad::test
