#pragma once
// Timing settings of a project and the statistics of one measurement.

#include <QJsonObject>
#include <QVector>

#include <optional>

namespace kernelpad {

/// How a run is timed (project setting).
struct TimingSpec {
    int warmupLaunches = 3;
    int repetitions = 20;
    std::optional<qint64> bytesOverride; ///< bytes moved per launch, replaces the estimate
    std::optional<double> flopsPerLaunch;
    int timeLimitMs = 10000;             ///< watchdog limit for the whole run

    [[nodiscard]] QString validate() const; ///< empty or a message naming the field
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<TimingSpec> fromJson(const QJsonObject& json, QString* error);
    friend bool operator==(const TimingSpec& a, const TimingSpec& b);
};

/// Statistics over the per-repetition times of one run; times in milliseconds at this edge.
struct TimingStats {
    QVector<double> timesMs;
    double minMs = 0, medianMs = 0, meanMs = 0, maxMs = 0;
    double stddevMs = 0;  ///< sample standard deviation (n-1), 0 for fewer than 2 samples
    double relNoise = 0;  ///< stddev / mean
    qint64 bytesMoved = 0;   ///< per launch
    double bandwidthGBs = 0; ///< bytesMoved / median
    double flopsPerLaunch = 0;
    double gflops = 0;       ///< flops / median, 0 when no FLOP count was given

    [[nodiscard]] int reps() const { return int(timesMs.size()); }
    [[nodiscard]] QJsonObject toJson() const;
    static TimingStats fromJson(const QJsonObject& json);
};

/// Min, median (mean of the middle two for even counts), mean, max, stddev and noise of
/// `timesMs`; bandwidth and GFLOP/s from the median. Empty input gives zeros.
[[nodiscard]] TimingStats computeStats(QVector<double> timesMs, qint64 bytesMoved = 0,
                                       double flopsPerLaunch = 0);

} // namespace kernelpad
