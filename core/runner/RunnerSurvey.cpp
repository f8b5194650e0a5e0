#include "core/runner/RunnerSurvey.h"

#include "core/runner/RunnerClient.h"

#include <QEventLoop>

namespace kernelpad {

RunnerSurvey::~RunnerSurvey() = default; // the clients, children, stop their runners

void RunnerSurvey::start(const QVector<RunnerSpec>& runners) {
    ++m_generation;
    for (RunnerClient* c : std::as_const(m_clients))
        delete c;
    m_runners = runners;
    m_found = QVector<QVector<PoolEntry>>(runners.size());
    m_clients = QVector<RunnerClient*>(runners.size(), nullptr);
    m_problems = QStringList(runners.size());
    m_waiting = int(runners.size());
    m_finishPending = false;
    const quint64 generation = m_generation;
    for (int i = 0; i < runners.size(); ++i) {
        auto* client = new RunnerClient(this);
        m_clients[i] = client;
        QString error;
        if (!client->setSpec(runners[i], &error)) {
            onAnswer(i, {}, error);
            continue;
        }
        connect(client, &RunnerClient::devicesChanged, this,
                [this, i, generation](const QVector<DeviceInfo>& devices, const QString& why) {
                    if (generation == m_generation)
                        onAnswer(i, devices, why);
                });
        // A runner that cannot start answers at once, inside this call.
        client->requestDevices(1);
    }
    if (runners.isEmpty())
        finishLater();
}

void RunnerSurvey::onAnswer(int index, const QVector<DeviceInfo>& devices, const QString& why) {
    if (index < 0 || index >= m_clients.size() || !m_clients[index])
        return; // answered already
    // The runner's work is done; it is stopped once this answer has been handled.
    RunnerClient* client = std::exchange(m_clients[index], nullptr);
    client->disconnect(this);
    client->deleteLater();
    const RunnerSpec& spec = m_runners[index];
    m_found[index] = RunnerPool::entriesOf(spec, devices);
    if (devices.isEmpty())
        m_problems[index] = QStringLiteral("%1: %2").arg(
            spec.displayName(), why.isEmpty() ? QStringLiteral("no CUDA device") : why);
    if (--m_waiting == 0)
        finishLater();
}

void RunnerSurvey::finishLater() {
    // Always on a later turn of the event loop, so that a caller that connects after start()
    // hears it, whichever runners answered at once.
    m_finishPending = true;
    const quint64 generation = m_generation;
    QMetaObject::invokeMethod(
        this,
        [this, generation] {
            if (generation != m_generation)
                return;
            m_finishPending = false;
            emit finished();
        },
        Qt::QueuedConnection);
}

QVector<PoolEntry> RunnerSurvey::entries() const {
    QVector<PoolEntry> all;
    for (const QVector<PoolEntry>& found : m_found)
        all += found;
    return all;
}

QStringList RunnerSurvey::problems() const {
    QStringList lines;
    for (const QString& p : m_problems)
        if (!p.isEmpty())
            lines << p;
    return lines;
}

int RunnerSurvey::runnersWithDevices() const {
    int count = 0;
    for (const QVector<PoolEntry>& found : m_found)
        count += found.isEmpty() ? 0 : 1;
    return count;
}

QVector<PoolEntry> RunnerSurvey::listDevices(const QVector<RunnerSpec>& runners,
                                             QStringList* problems) {
    RunnerSurvey survey;
    QEventLoop loop;
    connect(&survey, &RunnerSurvey::finished, &loop, &QEventLoop::quit);
    survey.start(runners);
    loop.exec();
    if (problems)
        *problems = survey.problems();
    return survey.entries();
}

} // namespace kernelpad
