#include "core/run/Timing.h"

#include "core/io/JsonValues.h"

#include <QJsonArray>
#include <QJsonValue>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kernelpad {

using json::readDouble;
constexpr auto jsonDouble = json::fromDouble;

QJsonObject TimingStats::toJson() const {
    QJsonArray times;
    for (double t : timesMs)
        times.append(jsonDouble(t));
    QJsonObject json{{QStringLiteral("reps"), reps()},
                     {QStringLiteral("timesMs"), times},
                     {QStringLiteral("minMs"), jsonDouble(minMs)},
                     {QStringLiteral("medianMs"), jsonDouble(medianMs)},
                     {QStringLiteral("meanMs"), jsonDouble(meanMs)},
                     {QStringLiteral("maxMs"), jsonDouble(maxMs)},
                     {QStringLiteral("stddevMs"), jsonDouble(stddevMs)},
                     {QStringLiteral("relNoise"), jsonDouble(relNoise)},
                     {QStringLiteral("bytesMoved"), double(bytesMoved)},
                     {QStringLiteral("bandwidthGBs"), jsonDouble(bandwidthGBs)},
                     {QStringLiteral("flopsPerLaunch"), jsonDouble(flopsPerLaunch)},
                     {QStringLiteral("gflops"), jsonDouble(gflops)},
                     {QStringLiteral("mode"), mode},
                     {QStringLiteral("stopReason"), stopReason},
                     {QStringLiteral("smClockMHz"), smClockMHz},
                     {QStringLiteral("smClockDefaultMHz"), smClockDefaultMHz},
                     {QStringLiteral("memClockMHz"), memClockMHz},
                     {QStringLiteral("throttledSamples"), throttledSamples},
                     {QStringLiteral("blockingKernel"), blockingKernel},
                     {QStringLiteral("blockingTimeouts"), blockingTimeouts},
                     {QStringLiteral("verifyMs"), jsonDouble(verifyMs)},
                     {QStringLiteral("buffersReused"), buffersReused},
                     {QStringLiteral("uploadsSkipped"), uploadsSkipped},
                     {QStringLiteral("uploadBytesSkipped"), double(uploadBytesSkipped)}};
    if (ceilingGBs > 0) { // optional: absent until the device's ceiling has been measured
        json.insert(QStringLiteral("ceilingGBs"), jsonDouble(ceilingGBs));
        json.insert(QStringLiteral("ceilingShare"), jsonDouble(ceilingShare()));
    }
    return json;
}

TimingStats TimingStats::fromJson(const QJsonObject& json) {
    TimingStats stats;
    const QJsonArray times = json.value(QStringLiteral("timesMs")).toArray();
    stats.timesMs.reserve(times.size());
    for (const QJsonValue& t : times)
        stats.timesMs.append(t.isDouble() ? t.toDouble()
                                          : std::numeric_limits<double>::quiet_NaN());
    stats.minMs = readDouble(json, QStringLiteral("minMs"));
    stats.medianMs = readDouble(json, QStringLiteral("medianMs"));
    stats.meanMs = readDouble(json, QStringLiteral("meanMs"));
    stats.maxMs = readDouble(json, QStringLiteral("maxMs"));
    stats.stddevMs = readDouble(json, QStringLiteral("stddevMs"));
    stats.relNoise = readDouble(json, QStringLiteral("relNoise"));
    stats.bytesMoved = qint64(json.value(QStringLiteral("bytesMoved")).toDouble());
    stats.bandwidthGBs = readDouble(json, QStringLiteral("bandwidthGBs"));
    stats.flopsPerLaunch = readDouble(json, QStringLiteral("flopsPerLaunch"));
    stats.gflops = readDouble(json, QStringLiteral("gflops"));
    stats.mode = json.value(QStringLiteral("mode")).toString();
    stats.stopReason = json.value(QStringLiteral("stopReason")).toString();
    stats.smClockMHz = json.value(QStringLiteral("smClockMHz")).toInt();
    stats.smClockDefaultMHz = json.value(QStringLiteral("smClockDefaultMHz")).toInt();
    stats.memClockMHz = json.value(QStringLiteral("memClockMHz")).toInt();
    stats.throttledSamples = json.value(QStringLiteral("throttledSamples")).toInt();
    stats.blockingKernel = json.value(QStringLiteral("blockingKernel")).toBool();
    stats.blockingTimeouts = json.value(QStringLiteral("blockingTimeouts")).toInt();
    stats.ceilingGBs = readDouble(json, QStringLiteral("ceilingGBs"));
    stats.verifyMs = readDouble(json, QStringLiteral("verifyMs"));
    stats.buffersReused = json.value(QStringLiteral("buffersReused")).toInt();
    stats.uploadsSkipped = json.value(QStringLiteral("uploadsSkipped")).toInt();
    stats.uploadBytesSkipped = qint64(json.value(QStringLiteral("uploadBytesSkipped")).toDouble());
    return stats;
}

TimingStats computeStats(QVector<double> timesMs, qint64 bytesMoved, double flopsPerLaunch) {
    // A repetition without a valid time (an event that failed) is missing, not zero.
    timesMs.erase(
        std::remove_if(timesMs.begin(), timesMs.end(), [](double t) { return !std::isfinite(t); }),
        timesMs.end());

    TimingStats stats;
    stats.timesMs = timesMs;
    stats.bytesMoved = bytesMoved;
    stats.flopsPerLaunch = flopsPerLaunch;
    const qsizetype n = timesMs.size();
    if (n == 0)
        return stats;

    QVector<double> sorted = timesMs;
    std::sort(sorted.begin(), sorted.end());
    stats.minMs = sorted.front();
    stats.maxMs = sorted.back();
    stats.medianMs = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;

    double sum = 0;
    for (double t : sorted)
        sum += t;
    stats.meanMs = sum / double(n);
    if (n >= 2) {
        double squares = 0;
        for (double t : sorted)
            squares += (t - stats.meanMs) * (t - stats.meanMs);
        stats.stddevMs = std::sqrt(squares / double(n - 1));
    }
    if (stats.meanMs > 0)
        stats.relNoise = stats.stddevMs / stats.meanMs;

    if (stats.medianMs > 0) {
        const double medianSeconds = stats.medianMs * 1e-3;
        stats.bandwidthGBs = double(bytesMoved) / medianSeconds / 1e9;
        stats.gflops = flopsPerLaunch / medianSeconds / 1e9;
    }
    return stats;
}

} // namespace kernelpad
