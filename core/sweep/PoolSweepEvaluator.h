#pragma once
// A sweep's configurations spread over a RunnerPool: one warm runner per entry (every local
// device, every device of several runners, or one device several times), each taking the next
// configuration when it is free, so a faster GPU evaluates more of them. A runner lost
// mid-configuration hands that configuration to the others (RunnerPool); the sweep sees one answer
// per configuration. An A/B (compareAb) runs all its blocks on one runner: one that has compiled
// both programs (a runner keeps what it compiled in memory), else the one that ran the best, else
// the first that takes one of its runs; a run answered by another runner (the first was lost)
// ends it with an error. With the disk compile cache off, the other program would be compiled
// again there: prepareFollowUp() has runners that idle in the sweep's tail compile the likely
// pair ahead, and a re-timing goes to the runner that compiled its program.

#include "core/runner/RunnerPool.h"
#include "core/sweep/SweepEvaluator.h"

#include <QHash>
#include <QSet>

#include <memory>

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
    [[nodiscard]] RunnerPool* pool() const { return m_pool; }

private:
    void takeAbRun(quint64 tag, const RunResult& result, int runner);
    /// An idle runner that has compiled (or is compiling) every one of `keys`; -1 when none.
    [[nodiscard]] int runnerWith(const QStringList& keys) const;

    RunnerPool* m_pool;
    std::unique_ptr<AbDriver> m_ab; ///< the comparison, kept until the next one
    quint64 m_abTag = 0;
    quint64 m_abRun = 0;                 ///< the pool tag of the A/B's run in flight, 0 when none
    quint64 m_abRuns = 0;                ///< the A/B's runs so far, for their tags
    int m_abRunner = -1;                 ///< the runner that took the A/B's first run
    int m_abPlaced = -1;                 ///< the runner the A/B's runs are submitted to, -1: any
    QHash<quint64, QString> m_keyOf;     ///< a configuration in flight -> its compile key
    QVector<QSet<QString>> m_compiledOn; ///< per runner: the compile keys it holds or compiles
};

} // namespace kernelpad
