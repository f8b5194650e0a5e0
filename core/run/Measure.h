#pragma once
// The timing stage of a run, nvbench-style: warm-up, then samples each between two events
// on the run's stream, hot (back to back) or cold (L2 flushed before each sample), queued in
// chunks behind a blocking kernel, with a fixed count or nvbench's stopping rule, and the SM
// clock checked for throttling.

#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/DeviceInfo.h"
#include "core/cuda/Module.h"
#include "core/run/BlockingKernel.h"
#include "core/run/ExecutionSession.h"
#include "core/run/Timing.h"

#include <QElapsedTimer>
#include <QVector>

#include <atomic>
#include <optional>

namespace kernelpad {

/// What the timing stage needs: the kernel ready to launch and where.
struct MeasureTarget {
    const Kernel& kernel;
    LaunchDims launch;
    const Stream& stream;
    void** params;
    const DeviceInfo& device;
    DeviceBuffer* l2Flush; ///< a buffer of the device's L2 size (cold mode), else nullptr
    /// Prepared blocking kernel each chunk of samples is queued behind, else nullptr.
    BlockingKernel* blocker = nullptr;
};

/// The samples and how the measurement ended.
struct MeasureOutcome {
    QVector<double> timesMs;
    RunStatus status = RunStatus::Ok; ///< Cancelled or Timeout when stopped early
    QString stopReason;
    int smClockMHz = 0;
    int smClockDefaultMHz = 0;
    int memClockMHz = 0;
    int throttledSamples = 0;
    int blockingTimeouts = 0; ///< chunks whose blocking kernel gave up waiting
};

/// Times the kernel; `fixedSamples` overrides the spec's count and disables the stopping
/// rule. `runClock` started with the run: past spec.timeLimitMs the stage stops (Timeout).
[[nodiscard]] MeasureOutcome measure(const MeasureTarget& target, const TimingSpec& spec,
                                     std::optional<int> fixedSamples,
                                     const std::atomic_bool& cancel, const QElapsedTimer& runClock,
                                     const ProgressFn& progress);

} // namespace kernelpad
