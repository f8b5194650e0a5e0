#pragma once
// Timing settings of a project and the statistics of one measurement.

#include <QJsonObject>
#include <QVector>

#include <optional>

namespace kernelpad {

/// How a run is timed (project setting).
struct TimingSpec {
    /// Hot: back-to-back launches (nvbench's batch/hot mode). Cold: the L2 cache is flushed
    /// before each timed launch with a write over a buffer of the device's L2 size.
    enum class Mode { Hot, Cold };
    Mode mode = Mode::Hot;
    int warmupLaunches = 3;
    /// Fixed count: exactly this many samples. Adaptive: at least this many.
    int repetitions = 10;
    /// nvbench's stopping rule: after `repetitions` samples and `minTimeMs` of GPU time, stop
    /// once the relative standard deviation is under `targetNoise`, or when `maxTimeMs` of
    /// timing have passed, or at kMaxAdaptiveSamples. Defaults make a 5 µs kernel and a
    /// 200 ms kernel both finish in about a second.
    bool adaptive = true;
    double targetNoise = 0.005;
    int minTimeMs = 250;
    int maxTimeMs = 1000;
    /// Queue each chunk of samples behind nvbench's blocking kernel (BlockingKernel.h), so
    /// they run back to back on the GPU and a kernel shorter than the host's enqueue time
    /// is measured alone. Off: the host launches as the GPU runs (what a real application's
    /// launch loop sees).
    bool blockingKernel = true;
    std::optional<qint64> bytesOverride; ///< bytes moved per launch, replaces the estimate
    std::optional<double> flopsPerLaunch;
    int timeLimitMs = 10000; ///< watchdog limit for the whole run

    [[nodiscard]] QString validate() const; ///< empty or a message naming the field
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<TimingSpec> fromJson(const QJsonObject& json, QString* error);
    friend bool operator==(const TimingSpec& a, const TimingSpec& b);
};

/// Most samples an adaptive measurement takes (a 5 µs kernel reaches it in ~50 ms of GPU time).
inline constexpr int kMaxAdaptiveSamples = 10000;
[[nodiscard]] QString timingModeName(TimingSpec::Mode mode); ///< "hot", "cold"

/// Statistics over the per-repetition times of one run; times in milliseconds at this edge.
struct TimingStats {
    QVector<double> timesMs;
    double minMs = 0, medianMs = 0, meanMs = 0, maxMs = 0;
    double stddevMs = 0;     ///< sample standard deviation (n-1), 0 for fewer than 2 samples
    double relNoise = 0;     ///< stddev / mean
    qint64 bytesMoved = 0;   ///< per launch
    double bandwidthGBs = 0; ///< bytesMoved / median
    double flopsPerLaunch = 0;
    double gflops = 0;  ///< flops / median, 0 when no FLOP count was given
    QString mode;       ///< "hot" or "cold", shown beside every figure
    QString stopReason; ///< "fixed count", "noise target reached", "time budget", "sample cap"
    /// SM clock (NVML) while the timed launches ran; 0 where NVML is not available.
    int smClockMHz = 0;
    int smClockDefaultMHz = 0;
    int memClockMHz = 0;
    /// Samples taken while the SM clock was under 75 % of its default (nvbench's rule).
    int throttledSamples = 0;
    /// Whether the samples were queued behind the blocking kernel, and how many times it
    /// gave up waiting for the host (those chunks' samples may include host time).
    bool blockingKernel = false;
    int blockingTimeouts = 0;
    /// The device's measured copy ceiling (DeviceCeiling.h), GB/s read + write; 0: unknown.
    double ceilingGBs = 0;
    /// Around the timed launches (they cost nothing the kernel pays, but the edit -> result
    /// loop does): wall time of verification, and the buffers kept on the device since the
    /// previous run of the same session (RunBuffers.h) with the host-to-device bytes saved.
    double verifyMs = 0;
    int buffersReused = 0;
    int uploadsSkipped = 0;
    qint64 uploadBytesSkipped = 0;

    /// bandwidthGBs / ceilingGBs, 0 when the ceiling is unknown.
    [[nodiscard]] double ceilingShare() const {
        return ceilingGBs > 0 ? bandwidthGBs / ceilingGBs : 0;
    }
    [[nodiscard]] int reps() const { return int(timesMs.size()); }
    [[nodiscard]] QJsonObject toJson() const;
    static TimingStats fromJson(const QJsonObject& json);
};

/// Min, median (mean of the middle two for even counts), mean, max, stddev and noise of
/// `timesMs`; bandwidth and GFLOP/s from the median. Empty input gives zeros.
[[nodiscard]] TimingStats computeStats(QVector<double> timesMs, qint64 bytesMoved = 0,
                                       double flopsPerLaunch = 0);

} // namespace kernelpad
