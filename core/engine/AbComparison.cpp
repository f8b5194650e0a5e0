#include "core/engine/AbComparison.h"

#include <QMetaObject>

namespace kernelpad {

AbComparison::AbComparison(Engine& engine, quint64 id, const AbOrder& order)
    : QObject(&engine)
    , m_engine(engine)
    , m_id(id)
    , m_channel(engine.openChannel())
    , m_driver(order, [this](const RunRequest& request) {
        m_pendingRun = m_engine.run(request, m_channel);
    }) {
    connect(&engine, &Engine::runFinished, this, &AbComparison::onRunFinished);
    connect(&engine, &Engine::runProgress, this, &AbComparison::onRunProgress);
    connect(&m_driver, &AbDriver::progress, this,
            [this](const QString& stage, int done, int total) {
                emit progress(m_id, stage, done, total);
            });
    connect(&m_driver, &AbDriver::finished, this,
            [this](const AbResult& result) { emit finished(m_id, result); });
    // Answered as every Engine request is: after the caller has the id.
    QMetaObject::invokeMethod(&m_driver, &AbDriver::start, Qt::QueuedConnection);
}

void AbComparison::cancel() {
    if (m_driver.isDone())
        return;
    m_driver.cancel();
    m_engine.cancel(m_channel);
}

void AbComparison::onRunProgress(quint64 runId, const QString& stage, int done, int total) {
    // Only a wait for the device is worth passing on: the blocks' own stages flicker.
    if (m_pendingRun == runId && stage.startsWith(QStringLiteral("waiting")))
        emit progress(m_id, stage, done, total);
}

void AbComparison::onRunFinished(quint64 runId, const RunResult& result) {
    if (m_pendingRun != runId)
        return;
    m_pendingRun.reset();
    m_driver.take(result);
}

} // namespace kernelpad
