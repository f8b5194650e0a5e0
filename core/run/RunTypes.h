#pragma once
// RunRequest -> ExecutionSession -> RunResult: plain, JSON-serialisable values (DESIGN.md).

#include "core/compile/CompileResult.h"
#include "core/cuda/DeviceInfo.h"
#include "core/cuda/JitLog.h"
#include "core/launch/ArgumentSpec.h"
#include "core/project/Project.h"
#include "core/run/Sanitizer.h"
#include "core/run/Timing.h"
#include "core/verify/VerificationReport.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One request to compile, run and verify a project.
struct RunRequest {
    Project project;
    QString projectDir; ///< resolves relative paths (.npy files, include dirs)
    int device = 0;
    std::optional<int> repetitions; ///< overrides project.timing.repetitions
    bool keepOutputs = true;        ///< copy output buffers into the result
    /// Run once under compute-sanitizer with this tool (a separate, one-off runner process).
    SanitizerTool sanitizer = SanitizerTool::None;
    /// Time the device-to-device copy ceiling again before the run (it is otherwise measured
    /// once per device and kept on disk); the result's timing shows the share of it.
    bool measureCeiling = false;

    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<RunRequest> fromJson(const QJsonObject& json, QString* error);
};

/// Resources of the compiled kernel as the driver reports them.
struct KernelResources {
    int registers = 0;
    int staticSharedBytes = 0;
    int localBytes = 0;
    int constBytes = 0;
    int maxThreadsPerBlock = 0;
    int ptxVersion = 0;
    int binaryVersion = 0;
    int occupancyBlocksPerSm = 0; ///< at the launch's block size and shared memory
    double occupancy = 0;         ///< active warps / max warps per SM, 0..1

    [[nodiscard]] QJsonObject toJson() const;
    static KernelResources fromJson(const QJsonObject& json);
};

/// An output buffer's contents after the run.
struct OutputBuffer {
    QString name;
    ValueType type;
    qint64 count = 0;
    QByteArray data; ///< count * type.sizeBytes() bytes; not part of the JSON form
};

/// What the kernel printed (device printf) during one run, as text, bounded: the output of
/// the verified launch (the first), of which the first kMaxConsoleBytes are kept; what the
/// launches after it printed (reference, warm-up, timed) is only counted, since every
/// repetition prints the same again.
struct ConsoleOutput {
    QString text;
    qint64 totalBytes = 0; ///< everything the verified launch printed, kept or not
    qint64 laterBytes = 0; ///< printed by the launches after it

    [[nodiscard]] bool isEmpty() const { return totalBytes == 0 && laterBytes == 0; }
    [[nodiscard]] qint64 droppedBytes() const;
};
/// Kernel output kept per run: 10,000 lines of printf fit with room to spare.
inline constexpr qint64 kMaxConsoleBytes = qint64(1) << 20;

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

/// Everything one run produced; `error` is a sentence a person can act on.
struct RunResult {
    RunStatus status = RunStatus::Ok;
    QString error;
    CompileResult compile;
    DeviceInfo device;
    QString kernelLowered;
    LaunchConfig launch;
    KernelResources resources;
    TimingStats timing;
    QVector<BufferVerification> verification;
    QVector<OutputBuffer> outputs;
    double totalMs = 0; ///< wall time of the whole request
    /// The compute-sanitizer tool the run went through (None: a normal run).
    SanitizerTool sanitizerTool = SanitizerTool::None;
    QVector<SanitizerReport> sanitizer; ///< merged reports, in order of first appearance
    /// The tool's own error total (may exceed the reports: merged or not printed); -1 when
    /// its log had no summary.
    int sanitizerErrors = 0;
    QString sanitizerNote; ///< e.g. why the timing of a sanitized run means nothing
    /// The kernel's printf output (JSON: "stdout", "stdoutBytes", "stdoutLaterBytes").
    ConsoleOutput console;
    /// The driver JIT's logs and time when the module was loaded from PTX (a virtual arch,
    /// "compute_90"); `used` is false for a CUBIN (JSON: "jit").
    JitLog jit;

    [[nodiscard]] bool verified() const;
    /// Reports of severity error, counting merged ones, or the tool's total if larger.
    [[nodiscard]] int
    sanitizerErrorCount() const; ///< every verified buffer passed (true if none checked)
    [[nodiscard]] QJsonObject toJson(bool withPtx = true) const;
    static RunResult fromJson(const QJsonObject& json);
};

} // namespace kernelpad
