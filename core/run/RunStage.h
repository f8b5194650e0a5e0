#pragma once
// The stages a run reports while it goes (ExecutionSession, Measure): one enum, one spelling.
// The spelling travels in the runner protocol's "progress" message (Protocol.h) and is what the
// window and the CLI show, so toString() is the only place a stage's text is written.

#include <QString>

#include <optional>

namespace kernelpad {

/// A stage of one run, in the order a run passes through them.
enum class RunStage {
    Compiling,
    Loading,
    MeasuringCeiling,
    PreparingBuffers,
    VerifyingLaunch,
    Verifying,
    WarmingUp,
    Timing,
    TimingPipeline,
    // A profile (core/profile/ProfileRun): the run under Nsight Compute, then its report.
    Profiling,
    ReadingProfile,
};

/// The stage as the user reads it and as the protocol carries it ("timing the pipeline").
[[nodiscard]] QString toString(RunStage stage);
/// The stage toString() spells as `text`; nothing for any other text.
[[nodiscard]] std::optional<RunStage> runStageFromString(const QString& text);
/// True for the stages in which the GPU runs the user's kernel (the verifying launch, the
/// warm-up and the timed launches, single or pipeline): the kernel's time limit counts only
/// these (RunnerConnection's watchdog), not compilation or the host's checks.
[[nodiscard]] bool isKernelStage(RunStage stage);

} // namespace kernelpad
