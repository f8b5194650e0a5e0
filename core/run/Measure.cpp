#include "core/run/Measure.h"

#include "core/cuda/Nvml.h"
#include "core/io/Trace.h"
#include "core/run/StoppingCriterion.h"
#include "core/run/TelemetryClockLock.h"

#include <QDateTime>

#include <algorithm>
#include <memory>
#include <vector>

namespace kernelpad {
namespace {

/// Samples are queued in chunks of about this much GPU time, so Cancel, the time limit and
/// the stopping criterion are checked often without host gaps between most launches.
constexpr double kChunkTargetMs = 100.0;
/// Most samples queued behind one blocking kernel. Each is three or four commands (events,
/// launch, L2 flush); a queue that fills makes the host wait inside a launch, and the
/// blocking kernel would then have to time out before anything ran.
constexpr int kMaxBlockedChunk = 128;
/// nvbench flags samples taken while the SM clock is under 75 % of its default.
constexpr double kThrottleFraction = 0.75;
/// The shortest time a launch is taken to need when sizing chunks (a warm-up of 0 ns).
constexpr double kShortestLaunchMs = 1e-3;
constexpr double kMeasureMsPerSecond = 1000.0;
constexpr double kNanosPerMs = 1e6;

/// One measurement, phase by phase (nvbench's measure_cold): check, initialise, warm up,
/// trials, summarise. Nothing here runs inside the timed loop but the launches and events.
class Measurement {
public:
    Measurement(const MeasureTarget& target, const TimingSpec& spec,
                std::optional<int> fixedSamples, const std::atomic_bool& cancel,
                const QElapsedTimer& runClock, const ProgressFn& progress)
        : m_t(target)
        , m_spec(spec)
        , m_fixedSamples(fixedSamples)
        , m_cancel(cancel)
        , m_runClock(runClock)
        , m_progress(progress) {}

    MeasureOutcome run() {
        check();
        initialise();
        tracePhase("measure: telemetry limits read");
        warmUp();
        tracePhase("measure: warmed up");
        trials();
        tracePhase("measure: trials done");
        summarise();
        return std::move(m_out);
    }

private:
    void launchOnce() {
        if (m_t.enqueue)
            m_t.enqueue();
        else
            m_t.kernel->launch(m_t.launch, m_t.stream, m_t.params);
    }

    /// What the spec and the target allow: the sample budget, the mode and the criterion.
    void check() {
        m_wanted = m_fixedSamples.value_or(m_spec.repetitions);
        if (m_spec.adaptive && !m_fixedSamples) {
            m_criterion = std::make_unique<NoiseCriterion>(NoiseCriterion::settingsOf(m_spec));
            m_budget = kMaxAdaptiveSamples;
        } else {
            m_budget = m_wanted;
        }
        m_cold = m_spec.mode == TimingSpec::Mode::Cold && m_t.l2Flush;
    }

    void initialise() {
        m_nvml = Nvml::instance();
        if (!m_nvml)
            return;
        const Nvml::Limits limits = m_nvml->limits(m_t.device.pciBusId);
        m_smClockDefaultMHz = limits.smDefaultMHz > 0 ? limits.smDefaultMHz : limits.smMaxMHz;
        Telemetry& t = m_out.timing.telemetry;
        t.smClockMaxMHz = limits.smMaxMHz;
        t.smClockDefaultMHz = limits.smDefaultMHz;
        t.memClockMaxMHz = limits.memMaxMHz;
        t.memClockDefaultMHz = limits.memDefaultMHz;
        t.powerLimitMw = limits.powerLimitMw;
        t.lockedByKernelPad = clocksLockedByKernelPad(m_t.device.pciBusId);
    }

    /// Untimed launches (timed as a whole) that also size the chunks of the trials.
    void warmUp() {
        if (m_progress)
            m_progress(RunStage::WarmingUp, 0, m_spec.warmupLaunches);
        Event warmStart, warmStop;
        warmStart.record(m_t.stream);
        for (int i = 0; i < m_spec.warmupLaunches; ++i)
            launchOnce();
        warmStop.record(m_t.stream);
        warmStop.synchronize();
        m_perLaunchMs = m_spec.warmupLaunches > 0
                            ? warmStop.elapsedMsSince(warmStart) / m_spec.warmupLaunches
                            : kChunkTargetMs;
    }

    void trials() {
        const int chunk =
            std::clamp(int(kChunkTargetMs / std::max(m_perLaunchMs, kShortestLaunchMs)), 1,
                       std::max(m_t.blocker ? std::min(m_budget, kMaxBlockedChunk) : m_budget, 1));
        const int progressTotal =
            m_criterion ? m_criterion->expectedSamples(std::max(m_perLaunchMs, kShortestLaunchMs) /
                                                       kMeasureMsPerSecond)
                        : m_wanted;

        std::vector<Event> starts(static_cast<size_t>(chunk));
        std::vector<Event> stops(static_cast<size_t>(chunk));
        QVector<double>& times = m_out.timing.timesMs;
        if (m_criterion)
            m_criterion->reset(); // its time budget starts with the first sample's launch
        unsigned char flushValue = 0;
        times.reserve(std::min(m_budget, 100000));
        startEnergy();
        while (times.size() < m_budget) {
            const int n = std::min(chunk, m_budget - int(times.size()));
            {
                const BlockingScope blocked(m_t.blocker, m_t.stream);
                for (int i = 0; i < n; ++i) {
                    if (m_cold)
                        m_t.l2Flush->fillBytesAsync(++flushValue, m_t.stream); // outside events
                    starts[size_t(i)].record(m_t.stream);
                    launchOnce();
                    stops[size_t(i)].record(m_t.stream);
                }
            }
            // Read the clocks while the queued launches keep the GPU busy (idle clocks are low).
            const int smNow = readTelemetry(n);
            stops[size_t(n - 1)].synchronize();
            if (m_t.blocker && m_t.blocker->timedOut())
                ++m_out.timing.blockingTimeouts;
            for (int i = 0; i < n; ++i) {
                const double ms = stops[size_t(i)].elapsedMsSince(starts[size_t(i)]);
                times.push_back(ms);
                if (m_criterion)
                    m_criterion->addSample(ms / kMeasureMsPerSecond);
            }
            if (smNow > 0 && m_smClockDefaultMHz > 0 &&
                smNow < kThrottleFraction * m_smClockDefaultMHz)
                m_out.timing.throttledSamples += n;
            const int done = int(times.size());
            if (m_progress)
                m_progress(RunStage::Timing, done, std::max(progressTotal, done));
            // The budget first: a run that has all its samples is complete, whatever came after.
            if (done >= m_budget) {
                m_out.timing.stopReason =
                    m_criterion ? QStringLiteral("sample cap") : QStringLiteral("fixed count");
                break;
            }
            if (m_cancel.load(std::memory_order_relaxed)) {
                m_out.status = RunStatus::Cancelled;
                break;
            }
            if (m_runClock.elapsed() > m_spec.timeLimitMs) {
                m_out.status = RunStatus::Timeout;
                break;
            }
            if (m_criterion && m_criterion->isFinished()) {
                m_out.timing.stopReason = m_criterion->reason();
                break;
            }
        }
    }

    /// The SM clock now (0 without NVML); keeps the chunk's telemetry of `samples` samples.
    int readTelemetry(int samples) {
        if (!m_nvml)
            return 0;
        const std::optional<Nvml::Reading> r = m_nvml->read(m_t.device.pciBusId);
        if (!r)
            return 0;
        m_out.timing.memClockMHz = r->memMHz;
        m_smReadings.push_back(r->smMHz);
        Telemetry& t = m_out.timing.telemetry;
        t.available = true;
        t.chunks.push_back(ChunkTelemetry{samples, r->smMHz, r->memMHz, r->powerMw, r->temperatureC,
                                          r->clockEventReasons});
        return r->smMHz;
    }

    /// The energy counter before the first sample is queued (the GPU is idle after the
    /// warm-up's synchronize, so nothing before the samples is counted).
    void startEnergy() {
        if (m_nvml)
            m_energyStartMj = m_nvml->totalEnergyMj(m_t.device.pciBusId);
        m_energyClock.start();
        m_energyStartedAtMs = double(QDateTime::currentMSecsSinceEpoch());
    }

    /// The energy counter after the last sample's synchronize.
    void stopEnergy() {
        if (!m_nvml || !m_energyStartMj)
            return;
        const std::optional<quint64> end = m_nvml->totalEnergyMj(m_t.device.pciBusId);
        const double intervalMs = double(m_energyClock.nsecsElapsed()) / kNanosPerMs;
        if (!end || *end < *m_energyStartMj)
            return;
        Telemetry& t = m_out.timing.telemetry;
        t.available = true;
        t.energyMj = double(*end - *m_energyStartMj);
        t.energyIntervalMs = intervalMs;
        t.energyStartedAtMs = m_energyStartedAtMs;
        t.energyLaunches = int(m_out.timing.timesMs.size());
    }

    /// The statistics, and how the samples were taken.
    void summarise() {
        stopEnergy();
        const TimingStats taken = m_out.timing;
        m_out.timing = computeStats(taken.timesMs, m_t.bytesPerLaunch, m_t.flopsPerLaunch);
        m_out.timing.mode = timingModeName(m_cold ? TimingSpec::Mode::Cold : TimingSpec::Mode::Hot);
        m_out.timing.blockingKernel = m_t.blocker != nullptr;
        m_out.timing.stopReason = taken.stopReason;
        m_out.timing.memClockMHz = taken.memClockMHz;
        m_out.timing.throttledSamples = taken.throttledSamples;
        m_out.timing.blockingTimeouts = taken.blockingTimeouts;
        m_out.timing.smClockDefaultMHz = m_smClockDefaultMHz;
        m_out.timing.telemetry = taken.telemetry;
        if (!m_smReadings.isEmpty()) {
            std::sort(m_smReadings.begin(), m_smReadings.end());
            m_out.timing.smClockMHz = m_smReadings[m_smReadings.size() / 2];
        }
    }

    const MeasureTarget& m_t;
    const TimingSpec& m_spec;
    std::optional<int> m_fixedSamples;
    const std::atomic_bool& m_cancel;
    const QElapsedTimer& m_runClock;
    const ProgressFn& m_progress;

    int m_wanted = 0; ///< the spec's (or the caller's) count
    int m_budget = 0; ///< most samples the trials take
    bool m_cold = false;
    std::unique_ptr<StoppingCriterion> m_criterion; ///< null for a fixed count
    const Nvml* m_nvml = nullptr;
    int m_smClockDefaultMHz = 0;
    double m_perLaunchMs = 0;
    QVector<int> m_smReadings;
    std::optional<quint64> m_energyStartMj;
    QElapsedTimer m_energyClock;
    double m_energyStartedAtMs = 0;
    MeasureOutcome m_out;
};

} // namespace

MeasureOutcome measure(const MeasureTarget& target, const TimingSpec& spec,
                       std::optional<int> fixedSamples, const std::atomic_bool& cancel,
                       const QElapsedTimer& runClock, const ProgressFn& progress) {
    return Measurement(target, spec, fixedSamples, cancel, runClock, progress).run();
}

} // namespace kernelpad
