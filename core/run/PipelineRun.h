#pragma once
// Running a project's pipeline: every step checked against its kernel
// before memory is taken, every launch of one pass packed once (ping-pong swaps decide which
// buffer each launch sees), the pass queued on a stream or captured as a CUDA graph, and the
// timing of steps, stream passes and graph replays.

#include "core/cuda/DeviceInfo.h"
#include "core/cuda/Module.h"
#include "core/launch/Packing.h"
#include "core/project/Project.h"
#include "core/run/PipelineTiming.h"
#include "core/run/RunBuffers.h"
#include "core/run/RunStatus.h"

#include <QElapsedTimer>
#include <QString>
#include <QVector>

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

namespace kernelpad {

/// Checks one step's launch against the device and its kernel; empty when it can run.
using LaunchCheck = std::function<QString(const Kernel& kernel, const LaunchConfig& launch)>;

/// How the timing stage of a pipeline run ended.
struct PipelineMeasurement {
    PipelineTiming timing;
    RunStatus status = RunStatus::Ok; ///< Cancelled or Timeout when stopped early
};

/// One pass over a pipeline, ready to queue.
class PipelinePlan {
public:
    /// Finds every step's kernel in `module`, checks its bindings against the kernel's
    /// parameters (cuFuncGetParamInfo, as a single launch is checked) and its launch through
    /// `checkLaunch`. The error names the step ("pipeline.steps[1]: ...").
    static std::optional<PipelinePlan> prepare(const Project& project,
                                               const CompileResult& compiled, const Module& module,
                                               const LaunchCheck& checkLaunch, QString* error);

    /// Packs every launch of one pass: buffers by the names bound at that point of the pass
    /// (each step's swaps applied after each of its repetitions), images by `imageHandles`
    /// (by argument index), tensor maps by `tensorMaps` (by argument index; a map describes
    /// its buffer's memory before any swap). False with the error naming the step.
    bool pack(const QVector<ArgumentSpec>& arguments, const std::vector<RunBuffer>& buffers,
              const QVector<quint64>& imageHandles, QString* error,
              const QVector<QByteArray>& tensorMaps = {});

    /// Queues one pass (all steps) or one step (all its repetitions) on `stream`.
    void enqueue(const Stream& stream) const;
    void enqueueStep(int step, const Stream& stream) const;

    /// After a pass: moves the buffers' device memory so that each name holds what the pass
    /// left under it (a buffer swapped an odd number of times lives in its partner's memory).
    void applyFinalBindings(std::vector<RunBuffer>& buffers) const;

    /// The first step's kernel and launch (the resources the result shows).
    [[nodiscard]] const Kernel& firstKernel() const { return m_steps.front().kernel; }
    [[nodiscard]] const LaunchConfig& firstLaunch() const { return m_steps.front().launch; }
    [[nodiscard]] int stepCount() const { return int(m_steps.size()); }

    /// Times `samples` passes with events around each step, `samples` passes with events
    /// around the pass alone, and with `graph` the pass captured once and replayed `samples`
    /// times, after `warmup` passes. Stops early on `cancel` or past `timeLimitMs` of
    /// `runClock`.
    [[nodiscard]] PipelineMeasurement measure(const Stream& stream, int samples, int warmup,
                                              bool graph, const std::atomic_bool& cancel,
                                              const QElapsedTimer& runClock, int timeLimitMs) const;

private:
    struct Step {
        Kernel kernel;
        QString name;
        LaunchConfig launch;
        int repeat = 1;
        QVector<ArgumentSpec> arguments; ///< bound in the kernel's order, step values applied
        QVector<BufferSwap> swaps;
        /// One per repetition, after pack(). Mutable: kernelParams() hands out non-const
        /// pointers, though a launch only reads through them.
        mutable std::vector<PackedArgs> launches;
    };
    PipelinePlan() = default;

    std::vector<Step> m_steps;
    /// By buffer position: the buffer whose memory holds that name's contents after a pass.
    std::vector<int> m_finalOwner;
};

} // namespace kernelpad
