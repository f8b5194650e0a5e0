#include "core/sweep/SweepEvaluator.h"

#include "core/runner/RunnerClient.h"

namespace kernelpad {

RunnerSweepEvaluator::RunnerSweepEvaluator(RunnerClient* client, QObject* parent)
    : SweepEvaluator(parent)
    , m_client(client ? client : new RunnerClient(this)) {
    connect(m_client, &RunnerClient::runFinished, this,
            [this](quint64 id, const RunResult& result) {
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
    if (!m_tags.isEmpty())
        m_client->cancel();
}

} // namespace kernelpad
