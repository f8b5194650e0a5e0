#pragma once
// The one narrow interface between the UI (or the CLI) and the GPU: requests go in as
// values, results come back as values through queued signals (docs/ARCHITECTURE.md).

#include "core/compile/CompileResult.h"
#include "core/compile/SassReport.h"
#include "core/cuda/DeviceInfo.h"
#include "core/engine/Runners.h"
#include "core/profile/ProfileReport.h"
#include "core/run/AbDriver.h"
#include "core/run/RunTypes.h"
#include "core/sweep/SweepBalance.h"
#include "core/sweep/SweepResults.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <functional>
#include <memory>

namespace kernelpad {

class SweepEvaluator;

/// Makes what evaluates a sweep's configurations, on the sweep's thread (a stand-in in tests).
using SweepEvaluatorFactory = std::function<std::unique_ptr<SweepEvaluator>()>;

/// A parameter sweep as the Engine runs it (Engine::sweep).
struct SweepOrder {
    /// The project with its sweep section, its folder and the chosen device, built as a Run's.
    RunRequest base;
    /// The results file (sweepResultsPath): with `resume` its records are taken as done.
    QString resultsPath;
    bool resume = false;
    /// What the sweep spreads over; empty: the base request's device on the Engine's runner.
    QVector<PoolEntry> devices;
    /// Empty: a pool of warm runners over `devices`.
    SweepEvaluatorFactory evaluator;
    /// With `devices` and `evaluator` empty: one warm runner of this computer on the base
    /// request's device, each record naming the device as the run does (the command line's
    /// sweep on one device), instead of a pool of one.
    bool singleRunner = false;
    /// Confirm the winner by an interleaved A/B against the runner-up (Sweep::setConfirm).
    bool confirm = true;
    /// Records of an earlier run of the same sweep: their times order this one (SweepCost.h).
    QVector<SweepRecord> previous;
};

/// Owns the compile worker, the GPU worker and the sweeps; every call returns at once.
/// Results arrive as queued signals on the thread that owns the Engine. Timing work (runs,
/// profiles, sweeps) is scheduled per device (DeviceScheduler.h): two never time kernels on
/// the same GPU at once, and one that waits says why in runProgress() or sweepWaiting().
class Engine : public QObject {
    Q_OBJECT
public:
    /// A caller's own queue and cancel (openChannel()): a newer run replaces only the same
    /// channel's queued one, and cancel(channel) ends only that channel's requests.
    using Channel = quint64;
    /// The channel of callers that open none (the command line).
    static constexpr Channel kDefaultChannel = 0;

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
    /// Compiles the project's source (NVRTC on the compile worker, or in the runner elsewhere
    /// when this computer has none); answered by compiled() with the same id. With a driver
    /// and `queryResources`, the kernel's resources follow in resourcesReady() (the command
    /// line's compile asks for none: it would start a runner only to drop the answer).
    quint64 compile(const Project& project, const QString& projectDir, int device,
                    bool queryResources = true);
    /// The SASS of the project compiled for `arch` with -lineinfo, through nvdisasm on a
    /// worker thread of its own (never the compile worker's: a compile asked meanwhile does
    /// not wait for nvdisasm), one request at a time in the order asked; answered by
    /// sassReady() with the same id, after sassListed() (the SASS before its line map) when
    /// nvdisasm ran. A newer request with the same non-empty `tag` cancels this one
    /// (core/compile/SassJob.h): its nvdisasm processes are killed and it is answered with
    /// report.sass.cancelled set.
    quint64 disassemble(const Project& project, const QString& projectDir, const QString& arch,
                        const QString& tag = {});
    /// Cancels the unanswered disassemble request of `tag`, as a newer one would; false when
    /// there is none.
    bool cancelDisassembly(const QString& tag);
    /// A new channel for one caller (a window's Run and live mode, a lesson's checks).
    [[nodiscard]] Channel openChannel();
    /// Runs the request on the GPU worker; progress through runProgress(), the end through
    /// runFinished() with the same id. Runs of all channels take turns in the order they were
    /// asked; a newer request of `channel` replaces that channel's queued one (answered as
    /// cancelled), never another channel's. While its device is held by a sweep or a profile
    /// the run waits, and runProgress() says so ("waiting: sweep running on GPU 0", 0, 0).
    quint64 run(const RunRequest& request, Channel channel = kDefaultChannel);
    /// Profiles one launch of the request's kernel under Nsight Compute (`set`: basic or full)
    /// in a runner that ncu starts; progress through runProgress(), the end through
    /// profileFinished() with the same id. One profile at a time: a second while one is in
    /// flight is answered at once with ProfileStatus::Failed.
    quint64 profile(const RunRequest& request, ProfileSet set, Channel channel = kDefaultChannel);
    /// Runs a parameter sweep (core/sweep) on a thread of its own, recording into
    /// `order.resultsPath`; answered by sweepStarted(), sweepRecord(), sweepProgress() and
    /// sweepFinished() with the id returned. It holds its devices from its start to its end:
    /// a run on one of them waits for it, and it waits for a run in progress
    /// (sweepWaiting()).
    quint64 sweep(const SweepOrder& order);
    /// Starts the runners of a sweep over `order`'s devices now (its evaluator made, each
    /// runner initialising the driver), while the caller still lists devices and settles the
    /// results file; the next sweep() over the same devices and evaluator takes them.
    void prepareSweep(const SweepOrder& order);
    /// Compares two kernels on the same inputs, their launches interleaved in ABBA blocks on
    /// one device of the Engine's runner (core/engine/AbComparison.h); progress through
    /// abProgress(), the end through abFinished() with the id returned. Its runs take turns
    /// in the run queue with other channels' runs.
    quint64 compareAb(const AbOrder& order);
    /// Stops comparison `id` after its current block: abFinished() follows, cancelled.
    void cancelAb(quint64 id);
    /// Stops sweep `id` (a waiting one at once): sweepFinished(id, "cancelled") follows.
    void cancelSweep(quint64 id);
    /// Asks the runner for bytes [offset, offset + bytes) of output `buffer` of run `run`,
    /// an output it kept (OutputBuffer::keptRun: streamed buffers beyond their size limit);
    /// answered by rangeFetched() with the same id, with the bytes or why not (the runner
    /// restarted or a later run replaced the output: "run again to see it").
    quint64 fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes);
    /// Stops `channel`'s run between repetitions (it ends with RunStatus::Cancelled), its
    /// queued run (answered as cancelled) and its profile; other channels' requests go on.
    void cancel(Channel channel = kDefaultChannel);
    [[nodiscard]] bool isRunning() const;
    [[nodiscard]] Isolation isolation() const;
    /// With Isolation::InProcess, what kernels print (fd 1) is captured into each run's
    /// RunResult::console as a runner does, instead of reaching this process's stdout (the
    /// command line, whose own output is on stdout). Off by default; set before the first run.
    void setCaptureConsole(bool on);

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
    /// Comparison `id` is at `stage` ("block 5, B (2000 launches)"); done/total: ms of its
    /// budget spent, or the verified runs (0 or 1 of 2).
    void abProgress(quint64 id, const QString& stage, int done, int total);
    void abFinished(quint64 id, const kernelpad::AbResult& result);
    /// Sweep `id` waits for its devices ("waiting: a run in progress on GPU 0").
    void sweepWaiting(quint64 id, const QString& reason);
    /// The records a resumed sweep starts from and how many configurations it evaluates at
    /// most, before its first new record.
    void sweepStarted(quint64 id, const QVector<kernelpad::SweepRecord>& resumed, int total);
    void sweepRecord(quint64 id, const kernelpad::SweepRecord& record);
    void sweepProgress(quint64 id, int done, int total);
    /// A sweep timed with a budget other than "accurate" times its winner again with the
    /// project's timing (SweepJob::retiming, retimed) before sweepFinished().
    void sweepRetiming(quint64 id, const kernelpad::SweepRecord& record);
    void sweepRetimed(quint64 id, const kernelpad::SweepRecord& record);
    /// The winner's A/B against the runner-up (SweepJob::confirming, confirmed) before
    /// sweepFinished(), unless the order said not to.
    void sweepConfirming(quint64 id, const kernelpad::SweepRecord& best,
                         const kernelpad::SweepRecord& runnerUp);
    void sweepConfirmed(quint64 id, const kernelpad::SweepRecord& best);
    /// The end: empty when every configuration was evaluated, else why it stopped
    /// ("cancelled", "no CUDA device: ...", the results file's error).
    void sweepFinished(quint64 id, const QString& error);
    /// Each device's busy share (SweepBalance.h), right before sweepFinished().
    void sweepBalance(quint64 id, const kernelpad::SweepBalance& balance);

private:
    // The run queue and the device scheduling (EngineRuns.cpp).
    void startNextRun();
    void dispatchRun();
    void onRunFinished(quint64 id, const RunResult& result);
    void dispatchProfile();
    void onProfileFinished(quint64 id, const ProfileOutcome& outcome);
    /// Releases `ticket`'s devices and starts what was waiting for them.
    void releaseDevices(quint64 ticket);
    // Sweeps (EngineSweeps.cpp).
    void startSweep(quint64 id);
    void onSweepFinished(quint64 id, const QString& error);

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace kernelpad
