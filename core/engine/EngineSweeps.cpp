// Engine: parameter sweeps. Each runs in a SweepJob (its own thread, its own warm runners)
// once the scheduler grants it every device it spreads over, and gives them back at its end.

#include "core/engine/EnginePrivate.h"
#include "core/sweep/PoolSweepEvaluator.h"
#include "core/sweep/SweepJob.h"

#include <QMetaObject>

#include <utility>

namespace kernelpad {
namespace {

const QString kSweepHolds = QStringLiteral("sweep running");

/// `order`'s devices as the Engine sweeps over them: its entries, else the base request's
/// device on `runner`.
QVector<PoolEntry> sweepEntries(const SweepOrder& order, const RunnerSpec& runner) {
    if (order.devices.isEmpty())
        return {PoolEntry{runner, order.base.device, QString()}};
    return order.devices;
}

/// One slot per entry, repeats kept: a prepared sweep's runners are those of the same entries.
QVector<DeviceSlot> entrySlots(const QVector<PoolEntry>& entries) {
    QVector<DeviceSlot> out;
    for (const PoolEntry& entry : entries)
        out.append(DeviceSlot::of(entry.spec, entry.device));
    return out;
}

/// The job of a sweep over `entries` (its evaluator made on its thread).
SweepJob* makeSweepJob(const SweepOrder& order, const QVector<PoolEntry>& entries,
                       QObject* parent) {
    SweepEvaluatorFactory factory = order.evaluator;
    // Empty with singleRunner: SweepJob's own, one RunnerSweepEvaluator.
    if (!factory && !order.singleRunner)
        factory = [entries] {
            return std::unique_ptr<SweepEvaluator>(PoolSweepEvaluator::over(entries));
        };
    return new SweepJob(std::move(factory), parent);
}

} // namespace

void Engine::prepareSweep(const SweepOrder& order) {
    // A test's own evaluator has no runners to start early.
    if (order.evaluator)
        return;
    delete std::exchange(d->preparedSweep, nullptr);
    const QVector<PoolEntry> entries = sweepEntries(order, d->runner);
    d->preparedSweep = makeSweepJob(order, entries, this);
    d->preparedDevices = entrySlots(entries);
    d->preparedSingle = order.singleRunner;
    d->preparedSweep->warmUp();
}

quint64 Engine::sweep(const SweepOrder& order) {
    const quint64 id = d->nextId++;
    Private::Sweep sweep;
    sweep.order = order;
    sweep.order.devices = sweepEntries(order, d->runner);
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
    // The runners prepareSweep() started, when they are this sweep's; any others stop.
    SweepJob* prepared = std::exchange(d->preparedSweep, nullptr);
    if (prepared && !sweep.order.evaluator && d->preparedSingle == sweep.order.singleRunner &&
        d->preparedDevices == entrySlots(sweep.order.devices)) {
        sweep.job = prepared;
        sweep.job->nameDevices(sweep.order.devices); // listed since it was made
    } else {
        delete prepared;
        sweep.job = makeSweepJob(sweep.order, sweep.order.devices, this);
    }
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
