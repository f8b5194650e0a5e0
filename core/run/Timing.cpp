#include "core/run/Timing.h"

#include "core/io/JsonFields.h"
#include "core/io/JsonValues.h"

#include <QJsonArray>
#include <QJsonValue>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace kernelpad {

constexpr auto timingJsonDouble = json::fromDouble;

QJsonObject TimingStats::toJson() const {
    QJsonArray times;
    for (double t : timesMs)
        times.append(timingJsonDouble(t));
    QJsonObject json{{QStringLiteral("reps"), reps()},
                     {QStringLiteral("timesMs"), times},
                     {QStringLiteral("minMs"), timingJsonDouble(minMs)},
                     {QStringLiteral("medianMs"), timingJsonDouble(medianMs)},
                     {QStringLiteral("meanMs"), timingJsonDouble(meanMs)},
                     {QStringLiteral("maxMs"), timingJsonDouble(maxMs)},
                     {QStringLiteral("stddevMs"), timingJsonDouble(stddevMs)},
                     {QStringLiteral("relNoise"), timingJsonDouble(relNoise)},
                     {QStringLiteral("bytesMoved"), double(bytesMoved)},
                     {QStringLiteral("bandwidthGBs"), timingJsonDouble(bandwidthGBs)},
                     {QStringLiteral("flopsPerLaunch"), timingJsonDouble(flopsPerLaunch)},
                     {QStringLiteral("gflops"), timingJsonDouble(gflops)},
                     {QStringLiteral("mode"), mode},
                     {QStringLiteral("stopReason"), stopReason},
                     {QStringLiteral("smClockMHz"), smClockMHz},
                     {QStringLiteral("smClockDefaultMHz"), smClockDefaultMHz},
                     {QStringLiteral("memClockMHz"), memClockMHz},
                     {QStringLiteral("throttledSamples"), throttledSamples},
                     {QStringLiteral("blockingKernel"), blockingKernel},
                     {QStringLiteral("blockingTimeouts"), blockingTimeouts},
                     {QStringLiteral("verifyMs"), timingJsonDouble(verifyMs)},
                     {QStringLiteral("buffersReused"), buffersReused},
                     {QStringLiteral("uploadsSkipped"), uploadsSkipped},
                     {QStringLiteral("uploadBytesSkipped"), double(uploadBytesSkipped)}};
    if (ceilingGBs > 0) { // optional: absent until the device's ceiling has been measured
        json.insert(QStringLiteral("ceilingGBs"), timingJsonDouble(ceilingGBs));
        json.insert(QStringLiteral("ceilingShare"), timingJsonDouble(ceilingShare()));
    }
    if (telemetry.available) // optional: absent without NVML and in older results
        json.insert(QStringLiteral("telemetry"), telemetry.toJson());
    return json;
}

std::optional<TimingStats> TimingStats::fromJson(const QJsonObject& json, QString* error,
                                                 const QString& path) {
    const json::FieldReader fields(json, error, path);
    constexpr auto required = json::Presence::Required;
    // NaN and infinity travel as null (JsonValues.h): a statistic without a value.
    constexpr auto nullIsNaN = json::NullNumber::IsNaN;
    constexpr json::WholeRange count{0, std::numeric_limits<int>::max()};
    constexpr json::WholeRange bytes{0, json::WholeRange{}.max};
    TimingStats stats;
    if (!fields.readNumbers(QStringLiteral("timesMs"), &stats.timesMs, required, nullIsNaN))
        return std::nullopt;
    for (const auto& [key, target] :
         {std::pair{QStringLiteral("minMs"), &stats.minMs},
          std::pair{QStringLiteral("medianMs"), &stats.medianMs},
          std::pair{QStringLiteral("meanMs"), &stats.meanMs},
          std::pair{QStringLiteral("maxMs"), &stats.maxMs},
          std::pair{QStringLiteral("stddevMs"), &stats.stddevMs},
          std::pair{QStringLiteral("relNoise"), &stats.relNoise},
          std::pair{QStringLiteral("bandwidthGBs"), &stats.bandwidthGBs},
          std::pair{QStringLiteral("flopsPerLaunch"), &stats.flopsPerLaunch},
          std::pair{QStringLiteral("gflops"), &stats.gflops},
          std::pair{QStringLiteral("verifyMs"), &stats.verifyMs}})
        if (!fields.readNumber(key, target, required, nullIsNaN))
            return std::nullopt;
    for (const auto& [key, target] :
         {std::pair{QStringLiteral("smClockMHz"), &stats.smClockMHz},
          std::pair{QStringLiteral("smClockDefaultMHz"), &stats.smClockDefaultMHz},
          std::pair{QStringLiteral("memClockMHz"), &stats.memClockMHz},
          std::pair{QStringLiteral("throttledSamples"), &stats.throttledSamples},
          std::pair{QStringLiteral("blockingTimeouts"), &stats.blockingTimeouts},
          std::pair{QStringLiteral("buffersReused"), &stats.buffersReused},
          std::pair{QStringLiteral("uploadsSkipped"), &stats.uploadsSkipped}})
        if (!fields.readInt(key, target, required, count))
            return std::nullopt;
    if (!fields.readWholeNumber(QStringLiteral("bytesMoved"), &stats.bytesMoved, required, bytes) ||
        !fields.readWholeNumber(QStringLiteral("uploadBytesSkipped"), &stats.uploadBytesSkipped,
                                required, bytes) ||
        !fields.readString(QStringLiteral("mode"), &stats.mode, required) ||
        !fields.readString(QStringLiteral("stopReason"), &stats.stopReason, required) ||
        !fields.readBool(QStringLiteral("blockingKernel"), &stats.blockingKernel, required) ||
        // Written only once the device's ceiling has been measured.
        !fields.readNumber(QStringLiteral("ceilingGBs"), &stats.ceilingGBs,
                           json::Presence::Optional, nullIsNaN))
        return std::nullopt;
    QJsonObject telemetry;
    if (!fields.readObject(QStringLiteral("telemetry"), &telemetry))
        return std::nullopt;
    if (fields.has(QStringLiteral("telemetry"))) {
        std::optional<Telemetry> t =
            Telemetry::fromJson(telemetry, error, fields.path(QStringLiteral("telemetry")));
        if (!t)
            return std::nullopt;
        stats.telemetry = std::move(*t);
    }
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
