// Engine: the run queue (one slot per channel, served in the order asked), the profile, and
// the device scheduling that keeps two timings off one GPU.

#include "core/engine/EnginePrivate.h"

#include <QMetaObject>

namespace kernelpad {
namespace {

const QString kRunHolds = QStringLiteral("a run in progress");
const QString kProfileHolds = QStringLiteral("a profile in progress");

RunResult cancelledRun(const QString& why) {
    RunResult r;
    r.status = RunStatus::Cancelled;
    r.error = why;
    return r;
}

} // namespace

QVector<DeviceSlot> engineRequestDevices(const RunnerSpec& runner, const RunRequest& request) {
    return {DeviceSlot::of(runner, request.device)};
}

Engine::Channel Engine::openChannel() {
    return d->nextChannel++;
}

quint64 Engine::run(const RunRequest& request, Channel channel) {
    const quint64 id = d->nextId++;
    Private::QueuedRun queued{id, request, channel};
    for (Private::QueuedRun& older : d->queue) {
        if (older.channel != channel)
            continue;
        // Answered at once: the caller of the older request learns it will not run.
        emit runFinished(older.id, cancelledRun(QStringLiteral("replaced by a newer run request")));
        older = std::move(queued);
        return id;
    }
    d->queue.append(std::move(queued));
    startNextRun();
    return id;
}

void Engine::startNextRun() {
    if (d->run || d->queue.isEmpty())
        return;
    d->run = d->queue.takeFirst();
    d->runDispatched = false;
    const quint64 id = d->run->id;
    if (d->scheduler.request(id, engineRequestDevices(d->runner, d->run->request), kRunHolds)) {
        dispatchRun();
        return;
    }
    // Queued, as every answer: the caller learns the id when run() returns.
    const QString why = d->scheduler.waitingReason(id);
    QMetaObject::invokeMethod(
        this, [this, id, why] { emit runProgress(id, why, 0, 0); }, Qt::QueuedConnection);
}

void Engine::dispatchRun() {
    d->runDispatched = true;
    d->cancel = false;
    QMetaObject::invokeMethod(d->gpuWorker, "run", Qt::QueuedConnection, Q_ARG(quint64, d->run->id),
                              Q_ARG(kernelpad::RunRequest, d->run->request));
}

void Engine::onRunFinished(quint64 id, const RunResult& result) {
    if (d->run && d->run->id == id)
        d->run.reset();
    releaseDevices(id);
    emit runFinished(id, result);
    startNextRun();
}

void Engine::releaseDevices(quint64 ticket) {
    for (const quint64 granted : d->scheduler.release(ticket)) {
        if (d->run && d->run->id == granted && !d->runDispatched)
            dispatchRun();
        else if (d->profile && d->profile->id == granted && !d->profile->dispatched)
            dispatchProfile();
        else if (d->sweeps.contains(granted))
            startSweep(granted);
    }
}

quint64 Engine::profile(const RunRequest& request, ProfileSet set, Channel channel) {
    const quint64 id = d->nextId++;
    if (d->profile) {
        ProfileOutcome refused;
        refused.status = ProfileStatus::Failed;
        refused.error = QStringLiteral("a profile is already running; wait for it or cancel it");
        // Queued, as every answer: the caller connects after this returns.
        QMetaObject::invokeMethod(
            this, [this, id, refused] { emit profileFinished(id, refused); }, Qt::QueuedConnection);
        return id;
    }
    d->profile = Private::Profile{id, request, set, channel, false};
    if (d->scheduler.request(id, engineRequestDevices(d->runner, request), kProfileHolds)) {
        dispatchProfile();
    } else {
        const QString why = d->scheduler.waitingReason(id);
        QMetaObject::invokeMethod(
            this, [this, id, why] { emit runProgress(id, why, 0, 0); }, Qt::QueuedConnection);
    }
    return id;
}

void Engine::dispatchProfile() {
    // d->cancel belongs to the run in flight, if any; a profile is stopped through
    // GpuWorker::cancelProfile().
    d->profile->dispatched = true;
    QMetaObject::invokeMethod(d->gpuWorker, "profile", Qt::QueuedConnection,
                              Q_ARG(quint64, d->profile->id),
                              Q_ARG(kernelpad::RunRequest, d->profile->request),
                              Q_ARG(kernelpad::ProfileSet, d->profile->set));
}

void Engine::onProfileFinished(quint64 id, const ProfileOutcome& outcome) {
    if (d->profile && d->profile->id == id)
        d->profile.reset();
    releaseDevices(id);
    emit profileFinished(id, outcome);
}

void Engine::cancel(Channel channel) {
    for (qsizetype i = 0; i < d->queue.size(); ++i) {
        if (d->queue[i].channel != channel)
            continue;
        const quint64 id = d->queue.takeAt(i).id;
        emit runFinished(id, cancelledRun(QStringLiteral("cancelled before it started")));
        break;
    }
    if (d->run && d->run->channel == channel) {
        if (d->runDispatched) {
            d->cancel = true;
            QMetaObject::invokeMethod(d->gpuWorker, &GpuWorker::cancelRun, Qt::QueuedConnection);
        } else {
            const quint64 id = d->run->id;
            d->run.reset();
            releaseDevices(id); // withdraws its wait
            emit runFinished(id,
                             cancelledRun(QStringLiteral("cancelled while waiting for the GPU")));
            startNextRun();
        }
    }
    if (d->profile && d->profile->channel == channel) {
        if (d->profile->dispatched) {
            QMetaObject::invokeMethod(d->gpuWorker, &GpuWorker::cancelProfile,
                                      Qt::QueuedConnection);
        } else {
            const quint64 id = d->profile->id;
            d->profile.reset();
            releaseDevices(id);
            ProfileOutcome cancelled;
            cancelled.status = ProfileStatus::Cancelled;
            cancelled.error = QStringLiteral("cancelled while waiting for the GPU");
            emit profileFinished(id, cancelled);
        }
    }
}

bool Engine::isRunning() const {
    return d->run.has_value() || d->profile.has_value();
}

} // namespace kernelpad
