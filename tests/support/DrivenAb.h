#pragma once
// An A/B comparison driven to its end without a runner (tests/core/tst_abrun.cpp,
// tests/core/tst_editverdict.cpp): each run the driver starts is answered a turn of the event
// loop later with what the test makes of its request.

#include "core/run/AbDriver.h"

#include <QSignalSpy>
#include <QTimer>

#include <functional>
#include <optional>

namespace kernelpad::test {

/// The comparison's result, or nothing when it did not finish within 20 s.
inline std::optional<AbResult> driveAb(const AbOrder& order,
                                       const std::function<RunResult(const RunRequest&)>& answer) {
    AbDriver* driver = nullptr;
    AbDriver ab(order, [&driver, &answer](const RunRequest& request) {
        const RunResult result = answer(request);
        QTimer::singleShot(0, driver, [driver, result] { driver->take(result); });
    });
    driver = &ab;
    QSignalSpy finished(&ab, &AbDriver::finished);
    ab.start();
    if (!finished.wait(20000))
        return std::nullopt;
    return finished.at(0).at(0).value<AbResult>();
}

} // namespace kernelpad::test
