#pragma once
// How a run ended: the status every RunResult carries and kernelpad-cli maps to exit codes.

#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// How a run ended; maps to kernelpad-cli's exit codes.
enum class RunStatus {
    Ok,
    CompileError,
    VerificationFailed,
    CudaError,
    DriverUnavailable,
    BadInput,
    Cancelled,
    Timeout
};
[[nodiscard]] QString runStatusName(RunStatus s);
[[nodiscard]] std::optional<RunStatus> runStatusFromName(const QString& name);
/// Every status's name, in the enum's order (for a reader's message).
[[nodiscard]] QStringList runStatusNames();

} // namespace kernelpad
