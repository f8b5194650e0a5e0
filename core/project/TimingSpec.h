#pragma once
// How a project asks for its kernel to be timed: a plain setting, read and written with the
// project file (the measurement itself is core/run).

#include <QJsonObject>
#include <QString>

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

} // namespace kernelpad
