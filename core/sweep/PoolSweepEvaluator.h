#pragma once
// A sweep's configurations spread over a RunnerPool: one warm runner per entry (every local
// device, every device of several runners, or one device several times), each taking the next
// configuration when it is free, so a faster GPU evaluates more of them. A runner lost
// mid-configuration hands that configuration to the others (RunnerPool); the sweep sees one answer
// per configuration.
//
// An A/B (compareAb) runs on one runner of every device of the same model (name, compute
// capability, SM count, as the runners' answers gave them): each runs its own interleaved A/B of
// both arms with its share of the budget (AbSettings::share), so each ratio is within one device,
// and the verdict pools them (poolAbResults, core/run/AbRun.h). Devices of different models, or
// one runner, run it on one runner as before, and the result says why: one that has compiled
// both programs (a runner keeps what it compiled in memory), else the one that ran the best, else
// the first that takes one of its runs. A device's run answered by another runner (its own was
// lost) ends that device's A/B with an error. With the disk compile cache off (or runners on
// other computers), the other program would be compiled again: a runner that lacks a program
// another runner of its arch has compiled takes that runner's instead (RunnerPool::handOver, a
// transfer of milliseconds, not a compile), else compiles it; prepareFollowUp() has runners that
// idle in the sweep's tail do so for the likely pair ahead (a device still compiling counts what
// is left: compileLeftMs), the A/B
// starts on the runner with least left to compile (readiestRunner), and a re-timing goes to the
// runner that compiled its program, while the A/B starts beside it (comparesBesideRuns()): the
// re-timing's runner takes its share of the A/B once it is done.

#include "core/runner/RunnerPool.h"
#include "core/sweep/SweepEvaluator.h"

#include <QElapsedTimer>
#include <QHash>
#include <QSet>

#include <memory>
#include <optional>
#include <vector>

namespace kernelpad {

class PoolSweepEvaluator : public SweepEvaluator {
    Q_OBJECT
public:
    /// Uses `pool` (not owned; must outlive this).
    explicit PoolSweepEvaluator(RunnerPool* pool, QObject* parent = nullptr);
    /// An evaluator with a pool of its own over `entries` (a child, so made and used on the
    /// thread that calls this), its runners started at once.
    [[nodiscard]] static std::unique_ptr<PoolSweepEvaluator>
    over(const QVector<PoolEntry>& entries);

    void start(quint64 tag, const RunRequest& request) override;
    /// The runners not out for good, at least 1 (a pool whose runners are all gone answers
    /// each configuration as failed, which ends the sweep).
    [[nodiscard]] int capacity() const override;
    void cancel() override;
    void compareAb(quint64 tag, const AbOrder& order) override;
    void prepareFollowUp(const QVector<RunRequest>& requests) override;
    /// Runners on two devices or more: the A/B starts beside the best's re-timing.
    [[nodiscard]] bool comparesBesideRuns() const override;
    [[nodiscard]] RunnerPool* pool() const { return m_pool; }

private:
    /// One device's A/B of a comparison.
    struct AbLane {
        std::unique_ptr<AbDriver> driver;
        int placed = -1;  ///< the runner its runs are submitted to, -1: any
        int ranOn = -1;   ///< the runner that took its first run
        QString device;   ///< that runner's device, as the pool names it
        quint64 run = 0;  ///< the pool tag of its run in flight, 0 when none
        quint64 runs = 0; ///< its runs so far, for their tags
        std::optional<AbResult> result;
    };

    void takeAbRun(quint64 tag, const RunResult& result, int runner, const QString& device);
    void laneFinished(int lane, const AbResult& result);
    /// An idle runner that has compiled (or is compiling) every one of `keys`; -1 when none.
    [[nodiscard]] int runnerWith(const QStringList& keys) const;
    /// The idle runner with the least left to compile of `keys` (missingCompileMs), the first
    /// of those with as little; -1 when none is idle.
    [[nodiscard]] int readiestRunner(const QStringList& keys) const;
    /// The runners an A/B placed on `primary` (-1: any) runs on: every running runner of one
    /// device model, `primary` first, less those that would compile `keys` (the arms' compile
    /// keys) for longer than kMaxJoinCompileMs; only `primary` when the devices' models differ,
    /// no other is known, or every other is left out (`why` then says why).
    [[nodiscard]] QVector<int> abRunners(int primary, const QStringList& keys, QString* why) const;
    /// Whether two runners drive one device (the same runner command and ordinal).
    [[nodiscard]] bool sameDevice(int a, int b) const;
    /// `runner`, or the busy runner of its device (the A/B then queues behind its run).
    [[nodiscard]] int besideBusy(int runner) const;
    /// What compiling those of `keys` that `runner` has not compiled would cost it: what is
    /// left of a compile it has started (as long as the sweep's compile of it took, less the
    /// time since), or of one another runner of this computer has with the disk cache on
    /// (done: nothing, a load away), a hand-over's kHandOverMs where another runner of its
    /// arch has compiled it (donorOf), else the whole of the sweep's compile.
    [[nodiscard]] double missingCompileMs(int runner, const QStringList& keys) const;
    /// What is left of `key`'s compile on `runner`: none once it ran there or its compile is
    /// done; for one handed out ahead, the sweep's compiles of it and of those handed to that
    /// runner before it (it compiles them in turn) less the time since the first of them; the
    /// sweep's whole compile when `runner` was never handed it.
    [[nodiscard]] double compileLeftMs(int runner, const QString& key) const;
    /// A running runner other than `runner`, of its arch, whose compile of `key` is done (a run
    /// of it ended there); -1 when none, or while `runner`'s device is not known yet.
    [[nodiscard]] int donorOf(int runner, const QString& key) const;
    /// Has `runner` hold `request`'s program (compile key `key`) ahead of its runs: taken from
    /// a donor (donorOf) where there is one and the sweep's compile of it took longer than a
    /// hand-over, else compiled there.
    void provide(int runner, const RunRequest& request, const QString& key);
    /// `runner` is handed `key` to compile ahead of its runs; `handedOver`: taken from another
    /// runner instead of compiling.
    void startedCompiling(int runner, const QString& key, bool handedOver = false);

    RunnerPool* m_pool;
    std::vector<AbLane> m_lanes; ///< the comparison's devices, kept until the next one
    quint64 m_abTag = 0;
    QString m_oneDeviceReason;
    QHash<quint64, QString> m_keyOf;     ///< a configuration in flight -> its compile key
    QVector<QSet<QString>> m_compiledOn; ///< per runner: the compile keys it holds or compiles
    /// A program a runner was handed to compile ahead (or to take from another runner).
    struct Ahead {
        qint64 sinceMs = 0;      ///< m_clock's time when it was handed
        bool handedOver = false; ///< taken from another runner: kHandOverMs, not a compile
    };
    /// per runner: the keys it was handed ahead, until a run of it ends there
    QVector<QHash<QString, Ahead>> m_compilingOn;
    /// a hand-over in flight (RunnerPool::handOver's id) -> the key it hands
    QHash<quint64, QString> m_handOverKey;
    QElapsedTimer m_clock;                ///< since the evaluator was made
    QHash<QString, double> m_compileMsOf; ///< compile key -> its longest "compiling" step
    bool m_localDiskCache = true;         ///< this computer's runners share a disk compile cache
    QVector<DeviceInfo> m_deviceOf;       ///< per runner: its device as its answers gave it (name
                                          ///< empty: none yet)
};

} // namespace kernelpad
