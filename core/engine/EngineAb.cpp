// Engine: interleaved A/B comparisons (core/engine/AbComparison.h), each a child object that
// queues its runs on a channel of its own.

#include "core/engine/AbComparison.h"
#include "core/engine/EnginePrivate.h"

namespace kernelpad {

quint64 Engine::compareAb(const AbOrder& order) {
    qRegisterMetaType<kernelpad::AbResult>();
    const quint64 id = d->nextId++;
    auto* comparison = new AbComparison(*this, id, order);
    d->comparisons.insert(id, comparison);
    connect(comparison, &AbComparison::progress, this, &Engine::abProgress);
    connect(comparison, &AbComparison::finished, this,
            [this, comparison](quint64 done, const AbResult& result) {
                d->comparisons.remove(done);
                comparison->deleteLater();
                emit abFinished(done, result);
            });
    return id;
}

void Engine::cancelAb(quint64 id) {
    if (AbComparison* comparison = d->comparisons.value(id))
        comparison->cancel();
}

} // namespace kernelpad
