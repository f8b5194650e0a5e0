// Workbench: Build ▸ Profile. A profile belongs to a run of the history: the newest when it ran
// the project as it is now, else a run made first; ncu then profiles one launch of the same
// project and the report is kept in that run's RunRecord (docs/ARCHITECTURE.md, "The window").

#include "ui/Workbench.h"

#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"

namespace kernelpad {

namespace {

/// Runs whose kernel ran to the end: a verification failure still launched it.
bool ranToTheEnd(const RunRecord& run) {
    return !run.sanitized() && (run.result.status == RunStatus::Ok ||
                                run.result.status == RunStatus::VerificationFailed);
}

} // namespace

QString Workbench::profileBlockedReason() const {
    if (isProfiling())
        return tr("A profile is in progress");
    if (isRunning())
        return tr("A run is in progress");
    if (m_devicesKnown && !m_driverError.isEmpty())
        return tr("No GPU: profiling needs the CUDA driver and a device");
    return runBlockedReason();
}

const RunRecord* Workbench::findRun(quint64 serial) const {
    for (const RunRecord& run : m_history)
        if (run.serial == serial)
            return &run;
    return nullptr;
}

bool Workbench::profile(ProfileSet set, QString* why) {
    const QString reason = m_engine ? profileBlockedReason() : tr("No engine");
    if (!reason.isEmpty()) {
        if (why)
            *why = reason;
        return false;
    }
    m_profileSet = set;
    const RunRecord* newest = m_history.isEmpty() ? nullptr : &m_history.constLast();
    if (newest && ranToTheEnd(*newest) && newest->project == m_document->project()) {
        startProfile(newest->serial);
        return true;
    }
    // The profile is kept with a run of this very project: make one first (the flag is set
    // after, or run() would see a profile in progress and refuse).
    if (!run(RunRequest(), why))
        return false;
    m_profileAfterRun = true;
    emit runStateChanged();
    return true;
}

void Workbench::startProfile(quint64 serial) {
    const RunRecord* target = findRun(serial);
    if (!target)
        return;
    m_profileSerial = serial;
    m_profileId = m_engine->profile(baseRequest(&target->project), m_profileSet, m_channel);
    notifyProfile(false, nullptr);
    emit runStateChanged();
}

void Workbench::continueProfile(const RunRecord& run) {
    m_profileAfterRun = false;
    if (ranToTheEnd(run)) {
        startProfile(run.serial);
        return;
    }
    ProfileOutcome outcome;
    outcome.status = run.result.status == RunStatus::Cancelled ? ProfileStatus::Cancelled
                                                               : ProfileStatus::KernelFailed;
    outcome.error = tr("The run the profile was to follow ended with %1: %2")
                        .arg(runStatusName(run.result.status), run.result.error);
    endProfile(std::move(outcome), 0);
}

void Workbench::onProfileFinished(quint64 id, const ProfileOutcome& outcome) {
    if (id != m_profileId || id == 0)
        return;
    m_profileId = 0;
    endProfile(outcome, m_profileSerial);
}

void Workbench::endProfile(ProfileOutcome outcome, quint64 serial) {
    m_profileSerial = 0;
    RunRecord* target = nullptr;
    if (outcome.ok()) {
        for (RunRecord& run : m_history)
            if (run.serial == serial)
                target = &run;
        if (target)
            target->profile = outcome.report;
    }
    m_lastProfile = std::move(outcome);
    notifyProfile(true, target);
    emit runStateChanged();
    emit profileShown(*m_lastProfile);
}

} // namespace kernelpad
