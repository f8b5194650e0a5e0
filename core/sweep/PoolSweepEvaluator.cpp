#include "core/sweep/PoolSweepEvaluator.h"

#include <QJsonDocument>

#include <algorithm>

namespace kernelpad {

namespace {

/// The A/B's runs are tagged apart from the sweep's configurations (whose tags count from 1).
constexpr quint64 kAbRunTagBit = quint64(1) << 63;

/// What a runner's compile cache keys a program by, near enough: the same source, name, options
/// and folder compile the same (the timing and the launch do not enter).
QString compileKey(const RunRequest& r) {
    const Project& p = r.project;
    return QStringList{p.sourceName, p.source,
                       QString::fromUtf8(QJsonDocument(p.options.toJson()).toJson()),
                       p.nameExpressions().join(QLatin1Char('\n')), r.projectDir}
        .join(QChar(0));
}

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
            const QString key = m_keyOf.take(tag);
            if (runner >= 0 && result.compile.ok && !key.isEmpty())
                m_compiledOn[runner].insert(key);
            emit finished(tag, result, deviceName);
        });
    m_compiledOn.resize(m_pool->runnerCount());
}

std::unique_ptr<PoolSweepEvaluator> PoolSweepEvaluator::over(const QVector<PoolEntry>& entries) {
    auto* pool = new RunnerPool(entries);
    auto evaluator = std::make_unique<PoolSweepEvaluator>(pool);
    pool->setParent(evaluator.get());
    pool->warmUp();
    return evaluator;
}

void PoolSweepEvaluator::start(quint64 tag, const RunRequest& request) {
    const QString key = compileKey(request);
    m_keyOf.insert(tag, key);
    // A program compiled already (the best, timed again) runs where it was compiled, when that
    // runner is free: elsewhere it would be compiled again with the disk cache off.
    m_pool->submit(tag, request, m_pool->pending() == 0 ? runnerWith({key}) : -1);
}

int PoolSweepEvaluator::runnerWith(const QStringList& keys) const {
    for (int i = 0; i < m_compiledOn.size() && i < m_pool->runnerCount(); ++i) {
        if (m_pool->runnerBusy(i) || m_pool->runnerPid(i) == 0)
            continue;
        if (std::all_of(keys.begin(), keys.end(),
                        [&](const QString& k) { return m_compiledOn[i].contains(k); }))
            return i;
    }
    return -1;
}

void PoolSweepEvaluator::prepareFollowUp(const QVector<RunRequest>& requests) {
    if (m_pool->pending() > 0)
        return; // not the tail yet
    for (int i = 0; i < m_compiledOn.size() && i < m_pool->runnerCount(); ++i) {
        if (m_pool->runnerBusy(i) || m_pool->runnerPid(i) == 0)
            continue;
        for (const RunRequest& request : requests) {
            const QString key = compileKey(request);
            if (m_compiledOn[i].contains(key))
                continue;
            m_compiledOn[i].insert(key); // compiling: its runs queue behind the compile
            m_pool->precompile(i, request);
        }
    }
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
    // Both arms where both are compiled; else where the best ran (the runner-up's program is
    // compiled there once, as it would be anywhere); else the first free runner.
    const QString a = compileKey(order.a);
    const QString b = compileKey(order.b);
    m_abPlaced = runnerWith({a, b});
    if (m_abPlaced < 0)
        m_abPlaced = runnerWith({b});
    if (m_ab)
        m_ab.release()->deleteLater(); // it may be the one whose answer led here
    // Each run goes to the runner of the first while it lives.
    m_ab = std::make_unique<AbDriver>(order, [this](const RunRequest& request) {
        m_abRun = kAbRunTagBit | ++m_abRuns;
        m_pool->submit(m_abRun, request, m_abRunner >= 0 ? m_abRunner : m_abPlaced);
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
