#pragma once
// Everything one run produced (docs/ARCHITECTURE.md, "Data flow of one run"): a plain value with a
// JSON form, sent back by the runner process; output buffer contents travel beside it.

#include "core/compile/CompileResult.h"
#include "core/cuda/DeviceInfo.h"
#include "core/cuda/JitLog.h"
#include "core/launch/ArgumentSpec.h"
#include "core/run/BaselineResult.h"
#include "core/run/ConsoleOutput.h"
#include "core/run/KernelResources.h"
#include "core/run/OutputBuffer.h"
#include "core/run/PipelineTiming.h"
#include "core/run/RunStatus.h"
#include "core/run/SanitizerReport.h"
#include "core/run/Timing.h"
#include "core/verify/GuardCheck.h"
#include "core/verify/VerificationReport.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// A step of a run and how long it took (RunResult::stagesMs).
struct StageTime {
    QString stage; ///< a RunStage's toString(), or a step of the runner's own
    double ms = 0;
    /// A step on this side (RunnerPool's queue, ...), not the runner's (JSON "client": true).
    bool client = false;
};

/// Everything one run produced; `error` is a sentence a person can act on.
struct RunResult {
    RunStatus status = RunStatus::Ok;
    QString error;
    /// The CUresult of the kernel fault (a sticky error) that ended the run, 0 when none: the
    /// code itself, since `error` explains it in words (JSON: "faultCode", only when set).
    int faultCode = 0;
    CompileResult compile;
    DeviceInfo device;
    QString kernelLowered;
    LaunchConfig launch;
    KernelResources resources;
    TimingStats timing;
    QVector<BufferVerification> verification;
    /// Buffers the kernel wrote outside of (their guard bytes changed; each also adds a failed
    /// "guard bytes" row to `verification`). JSON: "guards", only when any.
    QVector<GuardFinding> guards;
    QVector<OutputBuffer> outputs;
    double totalMs = 0; ///< wall time of the whole request
    /// Where the runner's time went, in order (RunnerServer): the wait in its inbox, each stage
    /// the run reported (until the next one began), writing the outputs. JSON "stagesMs", only
    /// when any: what a sweep's per-configuration breakdown shows (SweepBalance.h).
    QVector<StageTime> stagesMs;
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
    /// A pipeline run's per-step, sequence and graph times (JSON: "pipeline", only when the
    /// project has one); `timing` then holds the sequence's samples.
    PipelineTiming pipeline;
    /// The library call the project names as its baseline, timed and checked as the kernel is
    /// (JSON: "baseline", only when the project has one).
    BaselineResult baseline;

    /// Every verified buffer passed (true if none was checked).
    [[nodiscard]] bool verified() const;
    /// Reports of severity error, counting merged ones, or the tool's total if larger.
    [[nodiscard]] int sanitizerErrorCount() const;
    [[nodiscard]] QJsonObject toJson(bool withPtx = true) const;
    /// Reads the runner's JSON form; nullopt, with a message naming the field
    /// ("timing.timesMs[3]: expected a number or null, got a string"), when a field is missing
    /// or malformed: a result the runner sent but this side cannot read is a protocol error,
    /// never a run with zeros in it.
    static std::optional<RunResult> fromJson(const QJsonObject& json, QString* error);
};

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::RunResult)
