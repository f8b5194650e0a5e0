#pragma once
// Small formatting helpers shared by the MainWindow*.cpp files and the panel bindings. Values
// are formatted by core's one formatter (core/run/Summary.h), as the CLI formats them.

#include "core/run/RunTypes.h"
#include "core/run/Summary.h"

#include <QCoreApplication>
#include <QString>

namespace kernelpad {
/// A summary as a sentence shows it, name then value: "median 1.234 ms".
inline QString summaryPhrase(const Summary& summary) {
    return summary.name + QLatin1Char(' ') + formatSummaryValue(summary);
}

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

} // namespace kernelpad
