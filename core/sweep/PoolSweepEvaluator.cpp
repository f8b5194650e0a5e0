#include "core/sweep/PoolSweepEvaluator.h"

#include <algorithm>

namespace kernelpad {

PoolSweepEvaluator::PoolSweepEvaluator(RunnerPool* pool, QObject* parent)
    : SweepEvaluator(parent)
    , m_pool(pool) {
    connect(m_pool, &RunnerPool::finished, this,
            [this](quint64 tag, const RunResult& result, int, int, const QString& deviceName) {
                emit finished(tag, result, deviceName);
            });
}

std::unique_ptr<PoolSweepEvaluator> PoolSweepEvaluator::over(const QVector<PoolEntry>& entries) {
    auto* pool = new RunnerPool(entries);
    auto evaluator = std::make_unique<PoolSweepEvaluator>(pool);
    pool->setParent(evaluator.get());
    pool->warmUp();
    return evaluator;
}

void PoolSweepEvaluator::start(quint64 tag, const RunRequest& request) {
    m_pool->submit(tag, request);
}

int PoolSweepEvaluator::capacity() const {
    return std::max(1, m_pool->liveRunners());
}

void PoolSweepEvaluator::cancel() {
    m_pool->cancelAll();
}

} // namespace kernelpad
