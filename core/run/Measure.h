#pragma once
// The timing stage of a run, nvbench-style (nvbench/detail/measure_cold.cuh), in named phases:
// check (what the spec and the target allow), initialise, warm up, trials (samples each between
// two events on the run's stream, hot (back to back) or cold (L2 flushed before each sample),
// queued in chunks behind a blocking kernel, until a fixed count or the StoppingCriterion ends
// them, the SM clock read for throttling), summarise (TimingStats).

#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/DeviceInfo.h"
#include "core/cuda/Module.h"
#include "core/run/BlockingKernel.h"
#include "core/run/ExecutionSession.h"
#include "core/run/Timing.h"

#include <QElapsedTimer>
#include <QVector>

#include <atomic>
#include <functional>
#include <optional>

namespace kernelpad {

/// What the timing stage needs: the kernel ready to launch (or a library call) and where.
struct MeasureTarget {
    const Kernel* kernel; ///< null when `enqueue` is the call that is timed
    LaunchDims launch;
    const Stream& stream;
    void** params;
    const DeviceInfo& device;
    DeviceBuffer* l2Flush; ///< a buffer of the device's L2 size (cold mode), else nullptr
    /// Prepared blocking kernel each chunk of samples is queued behind, else nullptr.
    BlockingKernel* blocker = nullptr;
    qint64 bytesPerLaunch = 0; ///< for the bandwidth of the summary
    double flopsPerLaunch = 0; ///< for GFLOP/s; 0: not given
    /// A library call queued on `stream` instead of the kernel's launch (a baseline), timed
    /// between the same events, with the same warm-ups, flushes and stopping criterion.
    std::function<void()> enqueue;
};

/// The statistics of the samples and how the measurement ended.
struct MeasureOutcome {
    /// computeStats() of the samples plus how they were taken: mode, blocking kernel, stop
    /// reason, clocks, throttled samples and blocking timeouts (the run adds the rest).
    TimingStats timing;
    RunStatus status = RunStatus::Ok; ///< Cancelled or Timeout when stopped early
};

/// Times the kernel; `fixedSamples` overrides the spec's count and disables the stopping
/// criterion. `runClock` started with the run: past spec.timeLimitMs the stage stops (Timeout).
[[nodiscard]] MeasureOutcome measure(const MeasureTarget& target, const TimingSpec& spec,
                                     std::optional<int> fixedSamples,
                                     const std::atomic_bool& cancel, const QElapsedTimer& runClock,
                                     const ProgressFn& progress);

} // namespace kernelpad
