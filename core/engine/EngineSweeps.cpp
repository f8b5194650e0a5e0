// Engine: parameter sweeps. Each runs in a SweepJob (its own thread, its own warm runners)
// once the scheduler grants it every device it spreads over, and gives them back at its end.

#include "core/engine/EnginePrivate.h"
#include "core/sweep/PoolSweepEvaluator.h"
#include "core/sweep/SweepJob.h"

#include <QMetaObject>

namespace kernelpad {
namespace {

const QString kSweepHolds = QStringLiteral("sweep running");

} // namespace

quint64 Engine::sweep(const SweepOrder& order) {
    const quint64 id = d->nextId++;
    Private::Sweep sweep;
    sweep.order = order;
    if (sweep.order.devices.isEmpty())
        sweep.order.devices = {PoolEntry{d->runner, order.base.device, QString()}};
    QVector<DeviceSlot> devices;
    for (const PoolEntry& entry : std::as_const(sweep.order.devices))
        if (const DeviceSlot slot = DeviceSlot::of(entry.spec, entry.device);
            !devices.contains(slot))
            devices.append(slot);
    d->sweeps.insert(id, sweep);
    if (d->scheduler.request(id, devices, kSweepHolds)) {
        startSweep(id);
    } else {
        const QString why = d->scheduler.waitingReason(id);
        QMetaObject::invokeMethod(
            this, [this, id, why] { emit sweepWaiting(id, why); }, Qt::QueuedConnection);
    }
    return id;
}

void Engine::startSweep(quint64 id) {
    Private::Sweep& sweep = d->sweeps[id];
    SweepEvaluatorFactory factory = sweep.order.evaluator;
    // Empty with singleRunner: SweepJob's own, one RunnerSweepEvaluator.
    if (!factory && !sweep.order.singleRunner)
        factory = [entries = sweep.order.devices] {
            return std::unique_ptr<SweepEvaluator>(PoolSweepEvaluator::over(entries));
        };
    sweep.job = new SweepJob(std::move(factory), this);
    connect(sweep.job, &SweepJob::started, this,
            [this, id](const QVector<SweepRecord>& resumed, int total) {
                emit sweepStarted(id, resumed, total);
            });
    connect(sweep.job, &SweepJob::recordAdded, this,
            [this, id](const SweepRecord& record) { emit sweepRecord(id, record); });
    connect(sweep.job, &SweepJob::progress, this,
            [this, id](int done, int total) { emit sweepProgress(id, done, total); });
    connect(sweep.job, &SweepJob::retiming, this,
            [this, id](const SweepRecord& record) { emit sweepRetiming(id, record); });
    connect(sweep.job, &SweepJob::retimed, this,
            [this, id](const SweepRecord& record) { emit sweepRetimed(id, record); });
    connect(sweep.job, &SweepJob::confirming, this,
            [this, id](const SweepRecord& best, const SweepRecord& runnerUp) {
                emit sweepConfirming(id, best, runnerUp);
            });
    connect(sweep.job, &SweepJob::confirmed, this,
            [this, id](const SweepRecord& record) { emit sweepConfirmed(id, record); });
    connect(sweep.job, &SweepJob::balanced, this,
            [this, id](const SweepBalance& balance) { emit sweepBalance(id, balance); });
    connect(sweep.job, &SweepJob::finished, this,
            [this, id](const QString& error) { onSweepFinished(id, error); });
    sweep.job->setPrevious(sweep.order.previous);
    sweep.job->start(sweep.order.base, sweep.order.resultsPath, sweep.order.resume,
                     sweep.order.confirm);
}

void Engine::onSweepFinished(quint64 id, const QString& error) {
    const auto it = d->sweeps.find(id);
    if (it == d->sweeps.end())
        return;
    if (it->job)
        it->job->deleteLater(); // finished() is emitted from inside the job
    d->sweeps.erase(it);
    releaseDevices(id);
    emit sweepFinished(id, error);
}

void Engine::cancelSweep(quint64 id) {
    const auto it = d->sweeps.find(id);
    if (it == d->sweeps.end())
        return;
    if (it->job) {
        it->job->cancel(); // finished("cancelled") follows from the job
        return;
    }
    // Still waiting for its devices: it never started.
    d->sweeps.erase(it);
    releaseDevices(id);
    QMetaObject::invokeMethod(
        this, [this, id] { emit sweepFinished(id, QStringLiteral("cancelled")); },
        Qt::QueuedConnection);
}

} // namespace kernelpad
