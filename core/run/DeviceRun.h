#pragma once
// One run on the device, as ExecutionSession::runOnDevice drives it, in named phases (the shape
// of Measure.cpp and nvbench's detail/measure_cold.cuh): the kernel and its launch checked,
// memory prepared, one verified launch with its outputs checked, then the timed launches or
// the pipeline. Each phase either moves on or leaves the result failed with the reason.
// Internal to core/run.

#include "core/launch/Packing.h"
#include "core/run/BaselineCall.h"
#include "core/run/PipelineRun.h"
#include "core/run/RunGlobals.h"
#include "core/run/SessionDeviceState.h"

#include <QElapsedTimer>
#include <QHash>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace kernelpad {

class DeviceRun {
public:
    /// A run of `request` on `device`, filling `result` (which holds the compile already).
    DeviceRun(const RunRequest& request, RunResult& result, ExecutionSession::DeviceState& device,
              const std::atomic_bool& cancel, const ProgressFn& progress);

    /// The kernel (or the pipeline's first step) found in its module, its arguments, launch,
    /// globals, cluster and cooperative launch checked against the device.
    [[nodiscard]] bool prepareKernel();
    /// The run's host and device memory checked, its buffers made and uploaded, textures
    /// created, the arguments packed.
    [[nodiscard]] bool prepareMemory();
    /// One launch (or pass of the pipeline) whose outputs are copied back and verified; false
    /// when the run was cancelled meanwhile.
    [[nodiscard]] bool launchAndVerify();
    /// The timed launches, or the pipeline's timing; the run's final status.
    [[nodiscard]] RunResult time();

    /// Fails the run with `status` and `message`.
    RunResult fail(RunStatus status, const QString& message);
    /// The result as it stands (failed, or not yet finished).
    [[nodiscard]] const RunResult& result() const { return m_result; }
    void report(RunStage stage, int done = 0, int total = 1) const;

private:
    [[nodiscard]] bool checkSingleLaunch();
    /// The verified launch itself: one launch or one pass of the pipeline.
    void launchOnce();
    /// The outputs (those verified on the host or kept) copied back; verifiers set up.
    [[nodiscard]] QHash<QString, QByteArray> copyOutputs(RunVerifier& verifier,
                                                         QHash<QString, QByteArray>* globals);
    void keepOutputs(const QHash<QString, QByteArray>& outputs,
                     const QHash<QString, QByteArray>& globals);
    RunResult timePipeline();
    RunResult timeLaunches();
    /// The guards read again after the timed launches: a write outside a buffer that only a
    /// later launch made fails the run too, named as made while timing.
    void checkGuardsAfterTiming();
    /// The baseline's plan checked against the arguments; false when the run fails on it.
    [[nodiscard]] bool planBaseline();
    /// One library call, its output checked against the kernel's verified output.
    void checkBaseline();
    /// The library call timed as the kernel was, with the same flush and blocking kernel.
    void timeBaseline(DeviceBuffer* flush, BlockingKernel* blocker);

    const RunRequest& m_request;
    const Project& m_project;
    RunResult& m_result;
    ExecutionSession::DeviceState& m_s;
    const std::atomic_bool& m_cancel;
    const ProgressFn& m_progress;
    QElapsedTimer m_watchdog; ///< the run's time so far, against its time limit
    const bool m_isPipeline;
    QString m_lowered;
    const Module* m_module = nullptr;
    std::optional<PipelinePlan> m_plan;
    std::optional<Kernel> m_kernel;
    std::optional<std::vector<RunGlobal>> m_globals;
    LaunchConfig m_launch; ///< what the driver is given: less a cluster the kernel declares
    BufferUploadStats m_uploads;
    std::optional<PackedArgs> m_packed;
    double m_verifyMs = 0;
    std::optional<BaselineCallPlan> m_baselinePlan;
    std::unique_ptr<BaselineCall> m_baseline; ///< null without a baseline, or when it failed
};

} // namespace kernelpad
