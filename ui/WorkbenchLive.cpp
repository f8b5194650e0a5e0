// Workbench: live mode (compile and run after each pause in typing) and the baseline every run is
// compared with (core/run/Significance.h).

#include "ui/Workbench.h"

#include "core/engine/EditVerdict.h"
#include "core/engine/Engine.h"
#include "core/run/Significance.h"
#include "ui/ProjectDocument.h"

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {
/// Live mode's budget. The loop is held to 60 ms from the pause to the result for SAXPY on
/// 1M elements, NVRTC included, which leaves about ten milliseconds for timing: enough
/// samples for a verdict (kMinSamples; a 16 us kernel gives several hundred), a short minimum
/// of GPU time, and a noise target a microsecond kernel reaches (event timing quantises a 5 us
/// kernel's samples by several per cent, so 0.5 % would run to the time budget every time).
/// The verdict comes from the bootstrap interval of the medians, not from this target.
constexpr int kLiveRepetitions = 10;
constexpr int kLiveMinTimeMs = 3;
constexpr int kLiveMaxTimeMs = 10;
constexpr double kLiveTargetNoise = 0.02;
constexpr int kLiveWarmupLaunches = 1;
/// A slow kernel's budget: this many of its launches (a few over kMinSamples, for warm-up and
/// the verified launch), up to kLiveLongestMs.
constexpr double kLiveLaunchesOfSlowKernel = 12;
constexpr int kLiveLongestMs = 2000;

bool measuredOk(const RunRecord& run) {
    return !run.sanitized() && run.result.status == RunStatus::Ok && run.result.timing.reps() > 0;
}
} // namespace

TimingSpec Workbench::liveTiming(TimingSpec timing, double previousMedianMs) {
    timing.adaptive = true;
    timing.repetitions = kLiveRepetitions;
    timing.warmupLaunches = std::min(timing.warmupLaunches, kLiveWarmupLaunches);
    timing.minTimeMs = kLiveMinTimeMs;
    timing.targetNoise = std::max(timing.targetNoise, kLiveTargetNoise);
    const double slowKernelMs =
        std::isfinite(previousMedianMs) && previousMedianMs > 0
            ? std::min(previousMedianMs * kLiveLaunchesOfSlowKernel, double(kLiveLongestMs))
            : 0.0;
    timing.maxTimeMs = std::max(kLiveMaxTimeMs, int(std::ceil(slowKernelMs)));
    return timing;
}

double Workbench::previousMedianMs(const QString& kernel) const {
    for (auto it = m_history.crbegin(); it != m_history.crend(); ++it)
        if (measuredOk(*it) && it->project.kernel == kernel)
            return it->result.timing.medianMs;
    return 0;
}

void Workbench::setLiveMode(bool on) {
    if (m_liveMode == on)
        return;
    m_liveMode = on;
    if (!on) {
        m_liveTimer.stop();
        m_liveCompileId = 0;
        m_liveRunWaiting = false;
        return;
    }
    m_compileTimer.stop();
    // Switching on measures what is in the editor now, as an edit would.
    if (!m_document->project().source.trimmed().isEmpty())
        m_liveTimer.start();
}

void Workbench::liveEdited() {
    m_compileTimer.stop();
    m_liveTimer.start();
    m_liveCompileId = 0; // a live compile in flight is of older text: it starts no run
    m_liveRunWaiting = false;
    // The run in flight measures text that is gone: stop it between repetitions. Its answer
    // is dropped in onRunFinished (dropSupersededLiveRun). A run the user started is left
    // alone, and so is a profile (Engine::cancel would stop it too).
    if (isLiveRunning() && !isProfiling() && m_engine)
        m_engine->cancel(m_channel);
}

void Workbench::liveCompile() {
    compile();
    m_liveCompileId = m_compileId;
}

void Workbench::liveCompiled(quint64 id, const CompileResult& result) {
    if (id == 0 || id != m_liveCompileId)
        return;
    m_liveCompileId = 0;
    if (result.ok)
        startLiveRun();
}

void Workbench::startLiveRun() {
    m_liveRunWaiting = false;
    // An edit since the compile has its own pause running: that one runs instead.
    if (!m_liveMode || m_liveTimer.isActive() ||
        m_document->project().source != m_lastCompiledSource)
        return;
    if (isRunning() || isProfiling()) {
        m_liveRunWaiting = true;
        return;
    }
    QString why;
    if (!startRun(RunRequest(), &why, true))
        emit liveRunSkipped(why);
}

bool Workbench::dropSupersededLiveRun(const RunResult& result) {
    Q_UNUSED(result); // dropped whatever its status: it is of text the editor no longer holds
    if (!m_runIsLive || m_document->project().source == m_runningProject.source)
        return false;
    m_runIsLive = false;
    m_runIsBaseline = false;
    emit runStateChanged();
    if (m_liveRunWaiting)
        startLiveRun();
    return true;
}

bool Workbench::keepBaselineKernelRun(const RunResult& result) {
    if (!m_runIsBaseline)
        return false;
    m_runIsBaseline = false;
    m_runIsLive = false;
    RunRecord record;
    record.project = m_runningProject;
    record.result = result;
    record.result.outputs.clear(); // only compared by its times
    record.finishedAt = QDateTime::currentDateTime();
    m_baselineKernelRun = std::move(record);
    emit runStateChanged();
    emit baselineChanged();
    if (m_liveRunWaiting)
        startLiveRun();
    return true;
}

void Workbench::runBaselineKernel() {
    if (m_baselineKernel.isEmpty() || m_history.isEmpty() || isRunning() || isProfiling())
        return;
    const RunRecord& last = m_history.constLast();
    if (!measuredOk(last) || last.project.kernel == m_baselineKernel ||
        last.project.source != m_document->project().source)
        return;
    Project project = last.project;
    project.kernel = m_baselineKernel;
    if (m_baselineKernelRun && m_baselineKernelRun->project == project)
        return; // kept: same source, arguments, launch and timing
    // A live edit's baseline follows it with the same short budget, and is cancelled with it.
    QString why;
    if (startRun(RunRequest(), &why, last.live, &project))
        m_runIsBaseline = true;
    else
        emit liveRunSkipped(why);
}

void Workbench::setBaselineKernel(const QString& kernel) {
    if (kernel == m_baselineKernel)
        return;
    m_baselineKernel = kernel;
    m_baselineKernelRun.reset();
    if (!kernel.isEmpty())
        m_baselineSerial = 0; // one baseline at a time
    emit baselineChanged();
    runBaselineKernel();
}

bool Workbench::setBaseline(quint64 serial) {
    const RunRecord* run = findRun(serial);
    if (!run || !measuredOk(*run))
        return false;
    m_baselineKernel.clear();
    m_baselineKernelRun.reset();
    m_baselineSerial = serial;
    emit baselineChanged();
    return true;
}

void Workbench::clearBaseline() {
    if (m_baselineSerial == 0)
        return;
    m_baselineSerial = 0;
    emit baselineChanged();
}

const RunRecord* Workbench::baselineRun() const {
    return m_baselineSerial ? findRun(m_baselineSerial) : nullptr;
}

const RunRecord* Workbench::comparedWith(const RunRecord& run) const {
    if (!measuredOk(run))
        return nullptr;
    if (!m_baselineKernel.isEmpty()) {
        if (run.project.kernel == m_baselineKernel || !m_baselineKernelRun ||
            !measuredOk(*m_baselineKernelRun))
            return nullptr;
        Project same = run.project;
        same.kernel = m_baselineKernel;
        return m_baselineKernelRun->project == same ? &*m_baselineKernelRun : nullptr;
    }
    if (const RunRecord* baseline = baselineRun())
        return baseline->serial == run.serial ? nullptr : baseline;
    const RunRecord* previous = nullptr;
    for (const RunRecord& r : m_history) {
        if (r.serial >= run.serial)
            break;
        if (measuredOk(r) && r.project.kernel == run.project.kernel)
            previous = &r;
    }
    return previous;
}

QString Workbench::comparisonText(const RunRecord& run) const {
    const RunRecord* other = comparedWith(run);
    if (!other)
        return {};
    const Comparison c = compareMedians(other->result.timing.timesMs, run.result.timing.timesMs);
    if (m_baselineKernelRun && other == &*m_baselineKernelRun)
        return tr("%1, baseline kernel %2").arg(describeSpeedup(c), m_baselineKernel);
    if (other->serial == m_baselineSerial)
        return describeSpeedup(c);
    // An edit that left the machine code and every setting as they were (a comment, a
    // renamed local) cannot have changed the kernel's speed: what the comparison sees then
    // is the variation between runs, which the bootstrap of one run's samples does not hold.
    const QString code = run.result.compile.machineCodeHash();
    Project same = other->project;
    same.source = run.project.source;
    if (!code.isEmpty() && code == other->result.compile.machineCodeHash() && same == run.project &&
        run.result.device.name == other->result.device.name)
        return c.isRealChange()
                   ? tr("this edit: %1, but the machine code and settings are those of the "
                        "previous run: variation between runs, not the edit")
                         .arg(describeChange(c))
                   : tr("this edit: %1 (the same machine code as the previous run)")
                         .arg(describeChange(c));
    return tr("this edit: %1").arg(describeChange(c));
}

QString Workbench::editVerdictText(const RunRecord& run) const {
    const RunRecord* other = comparedWith(run);
    // Against a baseline comparisonText()'s speedup is the answer; an edit that left the
    // machine code and the settings as they were changed nothing the verdict could name, and
    // comparisonText() explains its time.
    if (!other || other->serial == m_baselineSerial ||
        (m_baselineKernelRun && other == &*m_baselineKernelRun))
        return {};
    const QString code = run.result.compile.machineCodeHash();
    Project same = other->project;
    same.source = run.project.source;
    if (!code.isEmpty() && code == other->result.compile.machineCodeHash() && same == run.project)
        return {};
    VerdictSide before = verdictSideOf(other->result);
    VerdictSide after = verdictSideOf(run.result);
    if (other->profile && run.profile) {
        before.profile = &*other->profile;
        after.profile = &*run.profile;
    }
    // Each side's SASS when the window disassembled its compile (WorkbenchSass.cpp).
    before.sassOpcodes = other->sassOpcodes;
    after.sassOpcodes = run.sassOpcodes;
    return tr("this edit: %1").arg(editVerdict(before, after).sentence);
}

} // namespace kernelpad
