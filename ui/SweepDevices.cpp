#include "ui/SweepDevices.h"

#include "core/engine/RunnerProbe.h"

namespace kernelpad {

SweepDevices::SweepDevices(SweepPanel* panel)
    : QObject(panel)
    , m_panel(panel)
    , m_survey(new RunnerProbe(this)) {
    connect(m_survey, &RunnerProbe::surveyed, this, &SweepDevices::onSurveyed);
    connect(panel, &SweepPanel::deviceScopeChanged, this, &SweepDevices::refresh);
}

void SweepDevices::setChosen(const RunnerSpec& runner, int device, const QString& name) {
    if (!m_panel)
        return;
    SweepPanel::DeviceChoice chosen;
    chosen.entries = {PoolEntry{runner, device, name}};
    m_panel->setDeviceChoice(SweepPanel::DeviceScope::Chosen, chosen);
}

void SweepDevices::setRunners(const QVector<RunnerSpec>& runners) {
    if (runners == m_runners && (m_known || m_survey->isSurveying()))
        return;
    m_runners = runners;
    m_known = false;
    refresh();
}

bool SweepDevices::isAsking() const {
    return m_survey->isSurveying();
}

void SweepDevices::refresh() {
    if (!m_panel || m_panel->deviceScope() == SweepPanel::DeviceScope::Chosen || m_known ||
        m_survey->isSurveying())
        return;
    SweepPanel::DeviceChoice asking;
    asking.pending = true;
    m_panel->setDeviceChoice(SweepPanel::DeviceScope::ThisComputer, asking);
    m_panel->setDeviceChoice(SweepPanel::DeviceScope::EveryRunner, asking);
    // This computer first, so its devices lead the pool.
    QVector<RunnerSpec> all{RunnerSpec::local()};
    all += m_runners;
    m_survey->survey(all);
}

void SweepDevices::onSurveyed() {
    m_known = true;
    if (!m_panel)
        return;
    SweepPanel::DeviceChoice here, every;
    every.entries = m_survey->entries();
    every.why = m_survey->problems().join(QStringLiteral("; "));
    for (const PoolEntry& e : std::as_const(every.entries))
        if (e.spec.isLocal())
            here.entries.push_back(e);
    // The survey's first runner is this computer; its problem, if any, is the first line.
    const QString localName = RunnerSpec::local().displayName() + QStringLiteral(": ");
    for (const QString& problem : m_survey->problems())
        if (problem.startsWith(localName))
            here.why = problem;
    m_panel->setDeviceChoice(SweepPanel::DeviceScope::ThisComputer, here);
    m_panel->setDeviceChoice(SweepPanel::DeviceScope::EveryRunner, every);
    emit surveyed();
}

} // namespace kernelpad
