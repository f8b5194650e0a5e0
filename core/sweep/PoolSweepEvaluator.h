#pragma once
// A sweep's configurations spread over a RunnerPool: one warm runner per entry (every local
// device, every device of several runners, or one device several times), each taking the next
// configuration when it is free, so a faster GPU evaluates more of them. A runner lost
// mid-configuration hands that configuration to the others (RunnerPool); the sweep sees one answer
// per configuration.

#include "core/runner/RunnerPool.h"
#include "core/sweep/SweepEvaluator.h"

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
    [[nodiscard]] RunnerPool* pool() const { return m_pool; }

private:
    RunnerPool* m_pool;
};

} // namespace kernelpad
