#pragma once
// A sweep's configurations spread over a RunnerPool: one warm runner per device entry (every
// local device, or one device several times), each taking the next configuration when it is
// free, so a faster GPU evaluates more of them. A runner lost mid-configuration hands that
// configuration to the others (RunnerPool); the sweep sees one answer per configuration.

#include "core/sweep/SweepEvaluator.h"

namespace kernelpad {

class RunnerPool;

class PoolSweepEvaluator : public SweepEvaluator {
    Q_OBJECT
public:
    /// Uses `pool` (not owned; must outlive this).
    explicit PoolSweepEvaluator(RunnerPool* pool, QObject* parent = nullptr);

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
