#include "core/run/Measure.h"

#include "core/cuda/Nvml.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kernelpad {
namespace {

/// Samples are queued in chunks of about this much GPU time, so Cancel, the time limit and
/// the stopping rule are checked often without host gaps between most launches.
constexpr double kChunkTargetMs = 100.0;
/// Most samples queued behind one blocking kernel. Each is three or four commands (events,
/// launch, L2 flush); a queue that fills makes the host wait inside a launch, and the
/// blocking kernel would then have to time out before anything ran.
constexpr int kMaxBlockedChunk = 128;
/// nvbench flags samples taken while the SM clock is under 75 % of its default.
constexpr double kThrottleFraction = 0.75;

/// Running sums for the relative standard deviation of all samples so far.
struct Noise {
    double n = 0, sum = 0, sumSquares = 0;
    void add(double x) {
        n += 1;
        sum += x;
        sumSquares += x * x;
    }
    [[nodiscard]] double relative() const {
        if (n < 2 || sum <= 0)
            return 1.0;
        const double mean = sum / n;
        const double variance = std::max(0.0, (sumSquares - n * mean * mean) / (n - 1));
        return std::sqrt(variance) / mean;
    }
};

} // namespace

MeasureOutcome measure(const MeasureTarget& t, const TimingSpec& spec,
                       std::optional<int> fixedSamples, const std::atomic_bool& cancel,
                       const QElapsedTimer& runClock, const ProgressFn& progress) {
    MeasureOutcome out;
    const bool adaptive = spec.adaptive && !fixedSamples;
    const int wanted = fixedSamples.value_or(spec.repetitions);
    const int cap = adaptive ? kMaxAdaptiveSamples : wanted;
    const bool cold = spec.mode == TimingSpec::Mode::Cold && t.l2Flush;
    const Nvml* nvml = Nvml::instance();
    if (nvml)
        out.smClockDefaultMHz = nvml->defaultSmClockMHz(t.device.pciBusId);

    if (progress)
        progress(QStringLiteral("warming up"), 0, spec.warmupLaunches);
    Event warmStart, warmStop;
    warmStart.record(t.stream);
    for (int i = 0; i < spec.warmupLaunches; ++i)
        t.kernel.launch(t.launch, t.stream, t.params);
    warmStop.record(t.stream);
    warmStop.synchronize();
    const double perLaunchMs = spec.warmupLaunches > 0
                                   ? warmStop.elapsedMsSince(warmStart) / spec.warmupLaunches
                                   : kChunkTargetMs;
    const int chunk = std::clamp(int(kChunkTargetMs / std::max(perLaunchMs, 1e-3)), 1,
                                 std::max(t.blocker ? std::min(cap, kMaxBlockedChunk) : cap, 1));
    const int progressTotal =
        adaptive ? std::clamp(int(spec.maxTimeMs / std::max(perLaunchMs, 1e-3)), wanted, cap)
                 : wanted;

    std::vector<Event> starts(static_cast<size_t>(chunk));
    std::vector<Event> stops(static_cast<size_t>(chunk));
    QVector<int> smReadings;
    Noise noise;
    double gpuMs = 0;
    QElapsedTimer timingClock;
    timingClock.start();
    unsigned char flushValue = 0;
    out.timesMs.reserve(std::min(cap, 100000));
    while (out.timesMs.size() < cap) {
        const int n = std::min(chunk, cap - int(out.timesMs.size()));
        {
            const BlockingScope blocked(t.blocker, t.stream);
            for (int i = 0; i < n; ++i) {
                if (cold)
                    t.l2Flush->fillBytesAsync(++flushValue, t.stream); // outside the events
                starts[size_t(i)].record(t.stream);
                t.kernel.launch(t.launch, t.stream, t.params);
                stops[size_t(i)].record(t.stream);
            }
        }
        // Read the clocks while the queued launches keep the GPU busy (idle clocks are low).
        int smNow = 0;
        if (nvml) {
            if (const std::optional<Nvml::Clocks> c = nvml->currentClocks(t.device.pciBusId)) {
                smNow = c->smMHz;
                out.memClockMHz = c->memMHz;
                smReadings.push_back(c->smMHz);
            }
        }
        stops[size_t(n - 1)].synchronize();
        if (t.blocker && t.blocker->timedOut())
            ++out.blockingTimeouts;
        for (int i = 0; i < n; ++i) {
            const double ms = stops[size_t(i)].elapsedMsSince(starts[size_t(i)]);
            out.timesMs.push_back(ms);
            noise.add(ms);
            gpuMs += ms;
        }
        if (smNow > 0 && out.smClockDefaultMHz > 0 &&
            smNow < kThrottleFraction * out.smClockDefaultMHz)
            out.throttledSamples += n;
        const int done = int(out.timesMs.size());
        if (progress)
            progress(QStringLiteral("timing"), done, std::max(progressTotal, done));
        if (done >= cap) {
            out.stopReason =
                adaptive ? QStringLiteral("sample cap") : QStringLiteral("fixed count");
            break;
        }
        if (cancel.load(std::memory_order_relaxed)) {
            out.status = RunStatus::Cancelled;
            break;
        }
        if (runClock.elapsed() > spec.timeLimitMs) {
            out.status = RunStatus::Timeout;
            break;
        }
        if (adaptive) {
            if (done >= wanted && gpuMs >= spec.minTimeMs && noise.relative() <= spec.targetNoise) {
                out.stopReason = QStringLiteral("noise target reached");
                break;
            }
            if (timingClock.elapsed() >= spec.maxTimeMs && done >= 1) {
                out.stopReason = QStringLiteral("time budget");
                break;
            }
        }
    }
    if (!smReadings.isEmpty()) {
        std::sort(smReadings.begin(), smReadings.end());
        out.smClockMHz = smReadings[smReadings.size() / 2];
    }
    return out;
}

} // namespace kernelpad
