#include "core/sweep/PoolSweepEvaluator.h"

#include <algorithm>

namespace kernelpad {

namespace {

/// The A/B's runs are tagged apart from the sweep's configurations (whose tags count from 1).
constexpr quint64 kAbRunTagBit = quint64(1) << 63;

} // namespace

PoolSweepEvaluator::PoolSweepEvaluator(RunnerPool* pool, QObject* parent)
    : SweepEvaluator(parent)
    , m_pool(pool) {
    qRegisterMetaType<kernelpad::AbResult>();
    connect(
        m_pool, &RunnerPool::finished, this,
        [this](quint64 tag, const RunResult& result, int runner, int, const QString& deviceName) {
            if (tag & kAbRunTagBit)
                return takeAbRun(tag, result, runner);
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
    if (m_ab && !m_ab->isDone())
        m_ab->cancel();
    m_pool->cancelAll();
}

void PoolSweepEvaluator::compareAb(quint64 tag, const AbOrder& order) {
    m_abTag = tag;
    m_abRun = 0;
    m_abRunner = -1;
    if (m_ab)
        m_ab.release()->deleteLater(); // it may be the one whose answer led here
    // With nothing else in flight, the pool hands each run to its first free runner: the same
    // one every time while it lives.
    m_ab = std::make_unique<AbDriver>(order, [this](const RunRequest& request) {
        m_abRun = kAbRunTagBit | ++m_abRuns;
        m_pool->submit(m_abRun, request);
    });
    connect(m_ab.get(), &AbDriver::finished, this,
            [this](const AbResult& result) { emit abFinished(m_abTag, result); });
    m_ab->start();
}

void PoolSweepEvaluator::takeAbRun(quint64 tag, const RunResult& result, int runner) {
    if (!m_ab || tag != m_abRun)
        return;
    m_abRun = 0;
    if (m_abRunner < 0)
        m_abRunner = runner;
    if (runner >= 0 && runner != m_abRunner)
        return m_ab->fail(RunStatus::CudaError,
                          QStringLiteral("the runner of the A/B was lost: its blocks would "
                                         "have run on two runners"));
    m_ab->take(result);
}

} // namespace kernelpad
