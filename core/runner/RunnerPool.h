#pragma once
// Several warm runners at once (every GPU, the devices of every runner): one
// RunnerClient per entry, an entry being a runner (this computer, ssh, a command) and one of its
// devices, fed from one work queue, so a sweep's configurations spread over every GPU of every
// runner (or over two runners on one GPU). A runner that dies is replaced a bounded number of
// times and the job it held runs once more on another; a kernel fault is the job's answer, not
// a loss.

#include "core/project/RunnerSpec.h"
#include "core/run/RunTypes.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QVector>

#include <optional>

namespace kernelpad {

class RunnerClient;

/// A pool of runner processes; lives on one thread with an event loop (never blocks it but
/// for RunnerClient's short wait after a poisoned runner). Every submitted job is answered by
/// exactly one finished(), whatever happens to the runners.
class RunnerPool : public QObject {
    Q_OBJECT
public:
    /// One runner per entry (a device of a runner; the same one may appear twice). The
    /// runners start with the first jobs, or at once with warmUp().
    explicit RunnerPool(const QVector<PoolEntry>& entries, QObject* parent = nullptr);
    /// One runner on this computer per device ordinal.
    explicit RunnerPool(const QVector<int>& devices, QObject* parent = nullptr);
    ~RunnerPool() override;

    /// One entry per local device (its ordinal), in the order listed.
    [[nodiscard]] static QVector<int> allDevices(const QVector<DeviceInfo>& devices);
    /// One entry per device of `runner`, in the order listed, each with its name.
    [[nodiscard]] static QVector<PoolEntry> entriesOf(const RunnerSpec& runner,
                                                      const QVector<DeviceInfo>& devices);
    /// One entry on this computer per ordinal.
    [[nodiscard]] static QVector<PoolEntry> localEntries(const QVector<int>& devices);
    /// How a result names its device: "NAME (device N)", or "device N" without a name.
    [[nodiscard]] static QString deviceLabel(const QString& name, int ordinal);
    /// deviceLabel() after the runner's name ("gpu-box: NAME (device N)") when `named`.
    [[nodiscard]] static QString deviceLabel(const RunnerSpec& runner, const QString& name,
                                             int ordinal, bool named);
    /// Whether a pool of `entries` names each result's runner: when one of them is not this
    /// computer's, or they are of different runners.
    [[nodiscard]] static bool namesRunners(const QVector<PoolEntry>& entries);

    /// Overrides every runner's command (tests, the benchmark), making each a runner of this
    /// computer; before the first job.
    void setCommand(const QString& program, const QStringList& arguments);
    /// Time each runner allows for compilation and set-up (RunnerClient's).
    void setPreparationLimitMs(int ms);
    /// How often a lost runner is started again before it stays out (default kMaxRestarts).
    void setMaxRestarts(int restarts) { m_maxRestarts = restarts; }
    /// Names for the devices, for answers that carry none (a job that never ran); a result
    /// from a runner names its own device.
    void setDevices(const QVector<DeviceInfo>& devices);
    /// Names each runner's device as `entries` (the same entries, in order, with names) do:
    /// a pool made before its devices were listed learns their names.
    void nameDevices(const QVector<PoolEntry>& entries);
    /// Starts every runner that is not running, so the first jobs do not wait for them.
    void warmUp();
    /// warmUp(), and each runner lists its devices, which initialises its driver before its
    /// first job (the answer is not needed: a result names its own device).
    void warmUpDrivers();

    /// Queues a job; the runner that takes it sets request.device. Answered by finished().
    /// `runner` >= 0: only that runner takes it while it lives (a sweep's A/B runs where its
    /// programs are compiled); once that runner is lost, any.
    void submit(quint64 tag, const RunRequest& request, int runner = -1);
    /// Has `runner` compile `request` (kept in its compile cache) without running it, ahead of
    /// a job that will need it; nothing when the runner is out. Its jobs queue behind it.
    void precompile(int runner, const RunRequest& request);
    /// precompile() without the compiler: `runner` takes the program `donor` compiled for
    /// `request` for `arch` (the arch of both runners' devices), which the donor hands out at
    /// once, even during a run (Protocol.h, "program"). Where the donor holds none, or it is not
    /// the compile `runner` would make (another compiler, another header on another computer),
    /// `runner` compiles it itself. Its jobs queue behind it (none starts there until the donor
    /// has answered, or kHandOverWaitMs have passed without an answer: then `runner` compiles
    /// it itself and a late answer is dropped). Returns an id for handedOver().
    quint64 handOver(int donor, int runner, const RunRequest& request, const QString& arch);
    /// Answers every queued job as cancelled and cancels the running ones (their answers
    /// follow from the runners); drained() follows once every runner is idle.
    void cancelAll();

    [[nodiscard]] int runnerCount() const { return int(m_runners.size()); }
    /// Runners holding a job.
    [[nodiscard]] int busyRunners() const;
    /// Whether a runner holds a job.
    [[nodiscard]] bool runnerBusy(int runner) const { return m_runners.at(runner).job.has_value(); }
    /// Jobs waiting for a runner.
    [[nodiscard]] int pending() const { return int(m_queue.size()); }
    /// Runners not out for good.
    [[nodiscard]] int liveRunners() const;
    /// The process id of a runner, 0 while none runs (tests kill it).
    [[nodiscard]] qint64 runnerPid(int runner) const;
    [[nodiscard]] int runnerDevice(int runner) const { return m_runners.at(runner).entry.device; }
    [[nodiscard]] const PoolEntry& runnerEntry(int runner) const {
        return m_runners.at(runner).entry;
    }
    /// The runner's streamed-buffer setting and keep limit, as its spec set them (tests).
    [[nodiscard]] bool runnerStreams(int runner) const;
    [[nodiscard]] qint64 runnerKeepBeyondBytes(int runner) const;
    /// Jobs a runner has answered (any status), for the spread over runners.
    [[nodiscard]] int jobsAnswered(int runner) const { return m_runners.at(runner).answered; }

    static constexpr int kMaxRestarts = 3;
    /// How long a hand-over waits for its donor's program (answered at once, from the donor's
    /// reader thread, so only a donor that hangs or a very slow link takes this long).
    static constexpr int kHandOverWaitMs = 2000;

signals:
    /// `runner` is -1 for a job answered without running (cancelled or failed in the queue).
    void finished(quint64 tag, const kernelpad::RunResult& result, int runner, int device,
                  const QString& deviceName);
    /// A runner died during a job (crash, kill, watchdog); `reason` says why and whether it
    /// was started again or stays out. Its job was queued once more for the others, first in
    /// line; a job on its second lost runner is answered failed, naming both runners.
    void runnerLost(int runner, const QString& reason);
    /// The queue is empty and every runner idle (after the last answer).
    void drained();
    /// handOver() `id` is done: `runner` holds the program, taken from the donor without
    /// compiling when `taken`, else compiled (or failed to compile) there.
    void handedOver(quint64 id, int runner, bool taken);

private:
    struct Job {
        quint64 tag = 0;
        RunRequest request;
        int losses = 0;       ///< runners this job was on when they died
        int avoidRunner = -1; ///< the runner it was on when that died
        QString firstLoss;    ///< that runner and why it died, for a second loss's answer
        qint64 queuedNs = 0;  ///< m_clock's time when it was submitted (or queued again)
        int onlyRunner = -1;  ///< the runner it must run on while that lives (submit())
    };
    struct Runner {
        RunnerClient* client = nullptr; ///< a child; null once out for good
        PoolEntry entry;
        quint64 runId = 0;      ///< the id of the active run on the client
        std::optional<Job> job; ///< held from the start of the run until it is settled
        std::optional<RunResult> answer;
        qint64 sentNs = 0;     ///< m_clock's time when the job went to the client
        qint64 answeredNs = 0; ///< m_clock's time when its answer arrived
        QString restartReason; ///< runnerRestarted() after the answer: the process died
        bool cancelling = false;
        int losses = 0;
        int answered = 0;
        QString lastLoss;
        /// Hand-overs to this runner waiting for their donor's answer: its jobs wait too, so
        /// that they reach the runner behind the program, not before it.
        int awaitingPrograms = 0;
    };

    /// A program handed from one runner to another (handOver()).
    struct HandOver {
        quint64 id = 0;
        int runner = -1;
        int donor = -1; ///< the runner asked for the program, -1: none
        RunRequest request;
    };

    void makeClient(int index);
    void onProgramReady(quint64 id, const QByteArray& program);
    /// The hand-overs asked of `donor`, now out for good, go on without a program.
    void dropHandOversFrom(int donor);
    void onCompiled(quint64 id, const CompileResult& result);
    void dispatch();
    [[nodiscard]] bool mayRun(const Job& job, int runner) const;
    void start(int runner, Job job);
    void onRunFinished(int runner, quint64 id, const RunResult& result);
    void settle(int runner);
    void lose(int runner, Job job, const QString& reason);
    void answer(const Job& job, const RunResult& result, int runner, int device);
    void failAllPending();
    void checkDrained();
    /// "runner 1 (device 1)", or with the runner's name when the pool names runners.
    [[nodiscard]] QString runnerLabel(int runner) const;
    /// The device's label for an answer of `runner` (-1: a job answered without running).
    [[nodiscard]] QString nameOf(const RunResult& result, int runner, int device) const;

    QVector<Runner> m_runners;
    QVector<Job> m_queue;
    QHash<quint64, HandOver> m_askedFor; ///< a donor's program request id -> its hand-over
    QHash<quint64, HandOver> m_taking;   ///< the receiving runner's compile id -> its hand-over
    /// Times each job's client-side steps (RunResult::stagesMs, client): its wait in the queue
    /// and the turn of the event loop from the runner's answer to the pool's.
    QElapsedTimer m_clock;
    QString m_program;
    QStringList m_arguments;
    bool m_commandSet = false;
    int m_preparationLimitMs = -1;
    int m_maxRestarts = kMaxRestarts;
    quint64 m_nextRunId = 0;
    QVector<DeviceInfo> m_devices;
    bool m_namesRunners = false; ///< results name their runner (namesRunners())
    bool m_active = false;       ///< something was submitted since the last drained()
};

} // namespace kernelpad
