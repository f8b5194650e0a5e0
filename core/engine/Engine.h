#pragma once
// The one narrow interface between the UI (or the CLI) and the GPU: requests go in as
// values, results come back as values through queued signals (docs/ARCHITECTURE.md).

#include "core/compile/CompileResult.h"
#include "core/compile/SassReport.h"
#include "core/cuda/DeviceInfo.h"
#include "core/profile/ProfileReport.h"
#include "core/run/RunTypes.h"
#include "core/runner/RunnerSpec.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <memory>

namespace kernelpad {

/// Owns the compile worker and the GPU worker; every call returns at once.
/// Results arrive as queued signals on the thread that owns the Engine.
class Engine : public QObject {
    Q_OBJECT
public:
    /// Where kernels run: in a runner process (the default: a faulting or hanging kernel
    /// cannot take the caller down) or in this process (debugging; KERNELPAD_IN_PROCESS=1).
    enum class Isolation { Process, InProcess };

    explicit Engine(QObject* parent = nullptr, Isolation isolation = defaultIsolation());
    /// Process, unless KERNELPAD_IN_PROCESS=1 or the runner executable cannot be found.
    [[nodiscard]] static Isolation defaultIsolation();
    ~Engine() override;

    /// Asks for the device list; answered by devicesChanged().
    void refreshDevices();
    /// Where kernels run from now on (a runner of another spec is stopped; a run in it ends);
    /// the new runner's devices follow in devicesChanged().
    void setRunner(const RunnerSpec& spec);
    /// The runner set last (this computer's until setRunner()).
    [[nodiscard]] const RunnerSpec& runner() const;
    /// Compiles the project's source (NVRTC on the compile worker); answered by compiled()
    /// with the same id. With a driver, the kernel's resources follow in resourcesReady().
    quint64 compile(const Project& project, const QString& projectDir, int device);
    /// The SASS of the project compiled for `arch` with -lineinfo, through nvdisasm on the
    /// compile worker; answered by sassReady() with the same id, after sassListed() (the SASS
    /// before its line map) when nvdisasm ran.
    quint64 disassemble(const Project& project, const QString& projectDir, const QString& arch);
    /// Runs the request on the GPU worker; progress through runProgress(), the end through
    /// runFinished() with the same id. A newer request replaces a queued older one.
    quint64 run(const RunRequest& request);
    /// Profiles one launch of the request's kernel under Nsight Compute (`set`: basic or full)
    /// in a runner that ncu starts; progress through runProgress(), the end through
    /// profileFinished() with the same id. One profile at a time: a second while one is in
    /// flight is answered at once with ProfileStatus::Failed.
    quint64 profile(const RunRequest& request, ProfileSet set);
    /// Asks the runner for bytes [offset, offset + bytes) of output `buffer` of run `run`,
    /// an output it kept (OutputBuffer::keptRun: streamed buffers beyond their size limit);
    /// answered by rangeFetched() with the same id, with the bytes or why not (the runner
    /// restarted or a later run replaced the output: "run again to see it").
    quint64 fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes);
    /// Stops the current run between repetitions (it ends with RunStatus::Cancelled), and the
    /// current profile.
    void cancel();
    [[nodiscard]] bool isRunning() const;
    [[nodiscard]] Isolation isolation() const;

signals:
    /// `driverError` is empty when a driver was found, else why not ("libcuda.so.1 not
    /// found: compile-only").
    void devicesChanged(const QVector<kernelpad::DeviceInfo>& devices, const QString& driverError);
    void compiled(quint64 id, const kernelpad::CompileResult& result);
    /// The SASS of a disassemble request before its line map is built (report.lines empty).
    void sassListed(quint64 id, const kernelpad::SassReport& report);
    void sassReady(quint64 id, const kernelpad::SassReport& report);
    void resourcesReady(quint64 id, const QString& kernel,
                        const kernelpad::KernelResources& resources);
    void runProgress(quint64 id, const QString& stage, int done, int total);
    void runFinished(quint64 id, const kernelpad::RunResult& result);
    void profileFinished(quint64 id, const kernelpad::ProfileOutcome& outcome);
    /// The answer to fetchRange(): the range's bytes, or an empty array and a sentence.
    void rangeFetched(quint64 id, const QByteArray& data, const QString& error);
    /// The runner process was replaced after a fault, a hang or a cancel.
    void runnerRestarted(const QString& reason);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::CompileResult)
Q_DECLARE_METATYPE(kernelpad::RunResult)
Q_DECLARE_METATYPE(kernelpad::KernelResources)
Q_DECLARE_METATYPE(kernelpad::DeviceInfo)
