#pragma once
// The run pipeline (docs/ARCHITECTURE.md, "Data flow of one run"): compile -> load CUBIN -> buffers
// -> poison -> correctness launch -> verify -> warm-up -> timed repetitions -> RunResult.

#include "core/compile/CompileCache.h"
#include "core/run/DeviceCeiling.h"
#include "core/run/RunStage.h"
#include "core/run/RunTypes.h"

#include <QString>
#include <QVector>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace kernelpad {

/// Reports a stage of a run: (RunStage::Timing, 5, 20).
using ProgressFn = std::function<void(RunStage stage, int done, int total)>;

/// Compiles a project's source for `arch` through `cache` (nullptr: no cache); the result's
/// includeFingerprint names the project headers it was compiled with.
[[nodiscard]] CompileResult compileProject(const Project& project, const QString& projectDir,
                                           const QString& arch, CompileCache* cache);
/// What compileProject keys the compile of `project` for `arch` by in a CompileCache: every
/// input that changes the compiler's output, the project headers' contents included (their
/// digest in `includes` when not null, empty when there are none).
[[nodiscard]] QByteArray compileCacheKey(const Project& project, const QString& projectDir,
                                         const QString& arch, QByteArray* includes = nullptr);

/// The GPU side of KernelPad: owns the context, the stream and the last module between
/// runs, so a warm session starts each run at once. Used by one thread only (the GPU
/// worker); not thread-safe.
class ExecutionSession {
public:
    explicit ExecutionSession(CompileCache* cache);
    ~ExecutionSession();
    ExecutionSession(const ExecutionSession&) = delete;
    ExecutionSession& operator=(const ExecutionSession&) = delete;

    /// Runs one request; never throws: every failure is a RunResult with a message.
    [[nodiscard]] RunResult run(const RunRequest& request, const std::atomic_bool& cancel,
                                const ProgressFn& progress = {});

    /// The devices, or an empty list with the reason in `error` (no driver: compile-only).
    [[nodiscard]] QVector<DeviceInfo> devices(QString* error);

    /// Resources and occupancy of `kernel` of an already compiled module at `launch`.
    [[nodiscard]] std::optional<KernelResources> kernelResources(const CompileResult& compiled,
                                                                 const QString& kernel,
                                                                 const LaunchConfig& launch,
                                                                 int device, QString* error);

    /// The device-to-device copy ceiling of `device` (DeviceCeiling.h): measured on the first
    /// call (about a second) unless `remeasure` is false and one is known from an earlier
    /// call or from the disk cache; a new measurement is stored there. Later runs report it
    /// as TimingStats::ceilingGBs. Nothing, with the reason in `error`, without a driver.
    [[nodiscard]] std::optional<CopyCeiling> deviceCeiling(int device, bool remeasure,
                                                           QString* error);

    /// True after a sticky CUDA error: this process cannot use the GPU again.
    [[nodiscard]] bool isPoisoned() const { return !m_poisonReason.isEmpty(); }

private:
    friend class DeviceRun; // the run's phases use the device state
    struct DeviceState;
    DeviceState& deviceState(int ordinal);
    RunResult runOnDevice(const RunRequest& request, RunResult& result,
                          const std::atomic_bool& cancel, const ProgressFn& progress);

    CompileCache* m_cache;
    std::unique_ptr<DeviceState> m_state;
    QString m_poisonReason; ///< the sticky error that ended this session's GPU use
};

} // namespace kernelpad
