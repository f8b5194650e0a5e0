#include "core/engine/RunnerProbe.h"

#include "core/runner/Protocol.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/RunnerPool.h"
#include "core/runner/RunnerSurvey.h"

namespace kernelpad {

RunnerProbe::RunnerProbe(QObject* parent)
    : QObject(parent)
    , m_survey(new RunnerSurvey(this)) {
    connect(m_survey, &RunnerSurvey::finished, this, &RunnerProbe::surveyed);
}

RunnerProbe::~RunnerProbe() = default;

bool RunnerProbe::test(const RunnerSpec& spec, QString* error) {
    delete m_test; // a test still waiting is abandoned (its runner stopped)
    m_test = new RunnerClient(this);
    if (!m_test->setSpec(spec, error)) {
        delete m_test;
        m_test = nullptr;
        return false;
    }
    RunnerClient* client = m_test;
    connect(client, &RunnerClient::devicesChanged, this,
            [this, client](const QVector<DeviceInfo>& devices, const QString& why) {
                // The runner's work is done; it is stopped once this answer is handled.
                client->deleteLater();
                if (m_test == client)
                    m_test = nullptr;
                emit tested(devices, why);
            });
    client->requestDevices(1);
    return true;
}

void RunnerProbe::survey(const QVector<RunnerSpec>& runners) {
    m_survey->start(runners);
}

bool RunnerProbe::isSurveying() const {
    return m_survey->isRunning();
}

QVector<PoolEntry> RunnerProbe::entries() const {
    return m_survey->entries();
}

QStringList RunnerProbe::problems() const {
    return m_survey->problems();
}

QString RunnerProbe::deviceLabel(const RunnerSpec& runner, const QString& name, int ordinal,
                                 bool named) {
    return RunnerPool::deviceLabel(runner, name, ordinal, named);
}

qint64 RunnerProbe::defaultKeepBeyondBytes() {
    return kDefaultKeepBeyondBytes;
}

} // namespace kernelpad
