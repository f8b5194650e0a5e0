#pragma once
// The workers behind Engine: NVRTC on one thread, nvdisasm on another, the GPU (in this
// process or through the runner process) on a third.

#include "core/compile/CompileCache.h"
#include "core/compile/SassJob.h"
#include "core/compile/SassReport.h"
#include "core/profile/ProfileReport.h"
#include "core/run/ExecutionSession.h"
#include "core/run/RunTypes.h"
#include "core/runner/RunnerClient.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace kernelpad {

class ProfileRun;

/// Compiles on its own thread so the editor stays live. The Engine has two: one compiles, the
/// other disassembles, so that nvdisasm never stands between an edit and its compile.
class CompileWorker : public QObject {
    Q_OBJECT
public:
    /// `sassJobs` (the Engine's) holds the cancel flag of each disassemble request.
    CompileWorker(CompileCache* cache, SassJobs* sassJobs)
        : m_cache(cache)
        , m_sassJobs(sassJobs) {}

public slots:
    /// Compiles with this computer's NVRTC; without it, and with `runnerElsewhere`, hands the
    /// project to compileInRunnerWanted() instead.
    void compile(quint64 id, const kernelpad::Project& project, const QString& projectDir,
                 const QString& arch, bool runnerElsewhere);
    /// Compiles with -lineinfo and runs nvdisasm on the CUBIN.
    void disassemble(quint64 id, const kernelpad::Project& project, const QString& projectDir,
                     const QString& arch);

signals:
    void compiled(quint64 id, const kernelpad::CompileResult& result);
    /// No NVRTC here: the runner elsewhere compiles `request` (its arch set) in
    /// GpuWorker::compileInRunner.
    void compileInRunnerWanted(quint64 id, const kernelpad::RunRequest& request);
    void sassListed(quint64 id, const kernelpad::SassReport& report);
    void sassReady(quint64 id, const kernelpad::SassReport& report);

private:
    CompileCache* m_cache;
    SassJobs* m_sassJobs;
};

/// Runs requests on the GPU thread: through a RunnerClient (isolated) or an
/// ExecutionSession owning the context in this process.
class GpuWorker : public QObject {
    Q_OBJECT
public:
    GpuWorker(CompileCache* cache, std::atomic_bool* cancel, bool isolated)
        : m_cache(cache)
        , m_cancel(cancel)
        , m_isolated(isolated)
        , m_localIsolated(isolated) {}

public slots:
    void refreshDevices();
    /// Runs through `spec`'s runner from now on (one elsewhere always through a runner
    /// process) and lists its devices.
    void setRunner(const kernelpad::RunnerSpec& spec);
    /// Compiles in the runner (no NVRTC on this computer); answered by compiled().
    void compileInRunner(quint64 id, const kernelpad::RunRequest& request);
    void run(quint64 id, const kernelpad::RunRequest& request);
    void queryResources(quint64 id, const kernelpad::CompileResult& compiled,
                        const kernelpad::RunRequest& request);
    /// Finds ncu and the kernel's lowered name, then profiles through a ProfileRun.
    void profile(quint64 id, const kernelpad::RunRequest& request, kernelpad::ProfileSet set);
    /// In-process runs capture fd 1 into RunResult::console (Engine::setCaptureConsole).
    void setCaptureConsole(bool on) { m_captureConsole = on; }
    /// Stops the run in flight (a runner's; one in this process reads the Engine's flag).
    void cancelRun();
    /// Stops the profile in flight.
    void cancelProfile();
    /// A range of an output the runner kept (RunnerClient::fetch); answered by rangeFetched().
    void fetchRange(quint64 id, quint64 run, const QString& buffer, qint64 offset, qint64 bytes);

signals:
    void rangeFetched(quint64 id, const QByteArray& data, const QString& error);
    void devicesChanged(const QVector<kernelpad::DeviceInfo>& devices, const QString& driverError);
    void runProgress(quint64 id, const QString& stage, int done, int total);
    void runFinished(quint64 id, const kernelpad::RunResult& result);
    void resourcesReady(quint64 id, const QString& kernel,
                        const kernelpad::KernelResources& resources);
    void runnerRestarted(const QString& reason);
    void compiled(quint64 id, const kernelpad::CompileResult& result);
    void profileFinished(quint64 id, const kernelpad::ProfileOutcome& outcome);

private:
    RunnerClient& client();
    ExecutionSession& session();

    CompileCache* m_cache;
    std::atomic_bool* m_cancel; // owned by Engine, outlives the worker
    bool m_isolated;
    bool m_localIsolated;             ///< the isolation chosen for this computer's runner
    RunnerClient* m_client = nullptr; // child of this worker, made on its thread
    std::unique_ptr<ExecutionSession> m_session; // in-process mode only
    ProfileRun* m_profile = nullptr;             // the profile in flight, a child
    bool m_captureConsole = false;
};

} // namespace kernelpad
