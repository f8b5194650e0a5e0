#include "core/sweep/SweepEvaluator.h"

#include "core/runner/RunnerClient.h"

#include <QMetaObject>

namespace kernelpad {

void SweepEvaluator::compareAb(quint64 tag, const AbOrder& order) {
    AbResult result;
    result.status = AbResult::Status::Error;
    result.runStatus = RunStatus::BadInput;
    result.error = QStringLiteral("this sweep's evaluator runs no A/B");
    result.a.label = order.labelA;
    result.b.label = order.labelB;
    // Answered from the event loop, as every evaluator answers.
    QMetaObject::invokeMethod(
        this, [this, tag, result] { emit abFinished(tag, result); }, Qt::QueuedConnection);
}

void SweepEvaluator::prepareFollowUp(const QVector<RunRequest>&) {}

RunnerSweepEvaluator::RunnerSweepEvaluator(RunnerClient* client, QObject* parent)
    : SweepEvaluator(parent)
    , m_client(client ? client : new RunnerClient(this)) {
    qRegisterMetaType<kernelpad::AbResult>();
    connect(m_client, &RunnerClient::runFinished, this,
            [this](quint64 id, const RunResult& result) {
                if (m_ab && id == m_abRun) {
                    m_abRun = 0;
                    m_ab->take(result);
                    return;
                }
                const auto it = m_tags.constFind(id);
                if (it == m_tags.constEnd())
                    return; // another user of a shared client
                const quint64 tag = it.value();
                m_tags.erase(it);
                emit finished(tag, result, result.device.name);
            });
}

void RunnerSweepEvaluator::start(quint64 tag, const RunRequest& request) {
    const quint64 id = m_nextId++;
    m_tags.insert(id, tag);
    m_client->run(id, request);
}

void RunnerSweepEvaluator::cancel() {
    if (m_ab && !m_ab->isDone())
        m_ab->cancel();
    if (!m_tags.isEmpty() || m_abRun != 0)
        m_client->cancel();
}

void RunnerSweepEvaluator::compareAb(quint64 tag, const AbOrder& order) {
    m_abTag = tag;
    m_abRun = 0;
    if (m_ab)
        m_ab.release()->deleteLater(); // it may be the one whose answer led here
    m_ab = std::make_unique<AbDriver>(order, [this](const RunRequest& request) {
        m_abRun = m_nextId++;
        m_client->run(m_abRun, request);
    });
    connect(m_ab.get(), &AbDriver::finished, this,
            [this](const AbResult& result) { emit abFinished(m_abTag, result); });
    m_ab->start();
}

} // namespace kernelpad
