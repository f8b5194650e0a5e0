#pragma once
// Small formatting helpers shared by the MainWindow*.cpp files and the panel bindings.

#include "core/run/RunTypes.h"

#include <QCoreApplication>
#include <QString>

namespace kernelpad {
namespace mainwindow {

/// "470.3 µs", "12.5 ms", "1.20 s".
inline QString formatMs(double ms) {
    if (ms <= 0)
        return QStringLiteral("0 ms");
    if (ms < 1.0)
        return QStringLiteral("%1 µs").arg(ms * 1e3, 0, 'f', ms < 0.01 ? 2 : 1);
    if (ms < 1000.0)
        return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 10 ? 3 : 1);
    return QStringLiteral("%1 s").arg(ms / 1e3, 0, 'f', 2);
}

} // namespace mainwindow

/// "Run ended (timed out): the kernel ran longer than 2000 ms".
inline QString runEndedMessage(const RunResult& result) {
    return QCoreApplication::translate("MainWindow", "Run ended (%1): %2")
        .arg(runStatusName(result.status), result.error);
}

/// What a sanitized run found: "memcheck found 2 errors; they are marked in the editor".
inline QString sanitizerSummary(const RunResult& result) {
    const QString tool = sanitizerToolName(result.sanitizerTool);
    const int errors = result.sanitizerErrorCount();
    if (result.status == RunStatus::BadInput ||
        (errors == 0 && !result.error.isEmpty() && result.status != RunStatus::Ok &&
         result.status != RunStatus::VerificationFailed))
        return QCoreApplication::translate("MainWindow", "%1 could not check the run: %2")
            .arg(tool, result.error);
    if (errors == 0)
        return QCoreApplication::translate("MainWindow", "%1 found no errors").arg(tool);
    return QCoreApplication::translate(
               "MainWindow", "%1 found %n error(s); they are marked in the editor", nullptr, errors)
        .arg(tool);
}

using mainwindow::formatMs;

} // namespace kernelpad
