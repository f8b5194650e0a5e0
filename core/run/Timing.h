#pragma once
// The statistics of one measurement (the settings, TimingSpec, are part of the project).

#include "core/project/TimingSpec.h"
#include "core/run/Telemetry.h"

#include <QJsonObject>
#include <QVector>

#include <optional>

namespace kernelpad {

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
    /// NVML's readings with every chunk of samples and the energy around them (Telemetry.h);
    /// `available` false without NVML or in results written before it was recorded.
    Telemetry telemetry;
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
    /// Reads the JSON form; nullopt, with a message naming the field under `path`, when a
    /// field is missing or malformed.
    static std::optional<TimingStats> fromJson(const QJsonObject& json, QString* error,
                                               const QString& path = {});
};

/// Min, median (mean of the middle two for even counts), mean, max, stddev and noise of
/// `timesMs`; bandwidth and GFLOP/s from the median. Empty input gives zeros.
[[nodiscard]] TimingStats computeStats(QVector<double> timesMs, qint64 bytesMoved = 0,
                                       double flopsPerLaunch = 0);

} // namespace kernelpad
