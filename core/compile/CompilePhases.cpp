#include "core/compile/CompilePhases.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <sys/resource.h>

namespace kernelpad {

namespace {

thread_local CompilePhaseRecorder* t_recorder = nullptr;

double timevalMs(const timeval& t) {
    return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3;
}

} // namespace

CompilePhaseRecorder::CompilePhaseRecorder(bool nvrtcTimes)
    : m_outer(t_recorder) {
    t_recorder = this;
    if (!nvrtcTimes)
        return;
    QTemporaryDir folder(QDir::tempPath() + QStringLiteral("/kernelpad-phases-XXXXXX"));
    if (!folder.isValid())
        return;
    folder.setAutoRemove(false); // removed by this recorder's destructor
    m_folder = folder.path();
    m_timeFile = m_folder + QStringLiteral("/nvrtc-time.csv");
    m_nvrtcTimes = true;
}

CompilePhaseRecorder::~CompilePhaseRecorder() {
    t_recorder = m_outer;
    if (!m_folder.isEmpty())
        QDir(m_folder).removeRecursively();
}

CompilePhaseRecorder* CompilePhaseRecorder::current() {
    return t_recorder;
}

void CompilePhaseRecorder::append(const QVector<CompilePhase>& phases) {
    m_phases += phases;
}

PhaseClock::PhaseClock(bool enabled)
    : m_enabled(enabled) {
    if (m_enabled)
        m_last = now();
}

void PhaseClock::mark(const QString& name) {
    if (!m_enabled)
        return;
    const Sample sample = now();
    CompilePhase phase;
    phase.name = name;
    phase.wallMs = std::chrono::duration<double, std::milli>(sample.wall - m_last.wall).count();
    phase.userMs = sample.userMs - m_last.userMs;
    phase.systemMs = sample.systemMs - m_last.systemMs;
    phase.faults = sample.faults - m_last.faults;
    m_phases.append(phase);
    m_last = now(); // the mark's own cost is no phase's
}

void PhaseClock::append(const QVector<CompilePhase>& phases, const QString& indent) {
    if (!m_enabled)
        return;
    for (CompilePhase phase : phases) {
        phase.name.prepend(indent);
        m_phases.append(phase);
    }
    m_last = now();
}

PhaseClock::Sample PhaseClock::now() {
    Sample sample;
    sample.wall = std::chrono::steady_clock::now();
#ifdef RUSAGE_THREAD
    rusage usage{};
    if (getrusage(RUSAGE_THREAD, &usage) == 0) {
        sample.userMs = timevalMs(usage.ru_utime);
        sample.systemMs = timevalMs(usage.ru_stime);
        sample.faults = qint64(usage.ru_minflt) + qint64(usage.ru_majflt);
    }
#endif
    return sample;
}

QVector<CompilePhase> readNvrtcTimeFile(const QString& path) {
    QVector<CompilePhase> phases;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return phases;
    const QList<QByteArray> lines = file.readAll().split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) { // the first line is the header
        const QList<QByteArray> cells = lines.at(i).split(',');
        bool ok = false;
        const double ms = cells.size() >= 3 ? cells.at(2).trimmed().toDouble(&ok) : 0;
        if (!ok)
            continue;
        CompilePhase phase;
        phase.name = QStringLiteral("NVRTC: ") + QString::fromUtf8(cells.at(1).trimmed());
        phase.wallMs = ms;
        phases.append(phase);
    }
    return phases;
}

} // namespace kernelpad
