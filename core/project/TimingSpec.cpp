#include "core/project/TimingSpec.h"

#include "core/io/JsonFields.h"

#include <QJsonValue>

#include <cmath>
#include <limits>

namespace kernelpad {

namespace {

constexpr int kMaxRepetitions = 100000;
/// Below this the watchdog would fire before a context is even created.
constexpr int kMinTimeLimitMs = 100;

/// JSON has no NaN or infinity: they are written as null and read back as NaN.
QJsonValue jsonDouble(double value) {
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

} // namespace

QString timingModeName(TimingSpec::Mode mode) {
    return mode == TimingSpec::Mode::Cold ? QStringLiteral("cold") : QStringLiteral("hot");
}

QString TimingSpec::validate() const {
    if (warmupLaunches < 0)
        return QStringLiteral("warmupLaunches must be >= 0 (got %1)").arg(warmupLaunches);
    if (repetitions < 1 || repetitions > kMaxRepetitions)
        return QStringLiteral("repetitions must be between 1 and %1 (got %2)")
            .arg(kMaxRepetitions)
            .arg(repetitions);
    if (timeLimitMs < kMinTimeLimitMs)
        return QStringLiteral("timeLimitMs must be >= %1 (got %2)")
            .arg(kMinTimeLimitMs)
            .arg(timeLimitMs);
    if (!(targetNoise > 0 && targetNoise < 1))
        return QStringLiteral("targetNoise must be between 0 and 1 (got %1)").arg(targetNoise);
    if (minTimeMs < 0 || maxTimeMs < 1 || minTimeMs > maxTimeMs)
        return QStringLiteral("minTimeMs and maxTimeMs must satisfy 0 <= minTimeMs <= maxTimeMs, "
                              "maxTimeMs >= 1 (got %1, %2)")
            .arg(minTimeMs)
            .arg(maxTimeMs);
    if (bytesOverride && *bytesOverride < 0)
        return QStringLiteral("bytesOverride must be >= 0 (got %1)").arg(*bytesOverride);
    if (flopsPerLaunch && !(*flopsPerLaunch >= 0 && std::isfinite(*flopsPerLaunch)))
        return QStringLiteral("flopsPerLaunch must be a finite number >= 0 (got %1)")
            .arg(*flopsPerLaunch);
    return {};
}

QJsonObject TimingSpec::toJson() const {
    QJsonObject json{{QStringLiteral("warmupLaunches"), warmupLaunches},
                     {QStringLiteral("repetitions"), repetitions},
                     {QStringLiteral("timeLimitMs"), timeLimitMs},
                     {QStringLiteral("mode"), timingModeName(mode)},
                     {QStringLiteral("adaptive"), adaptive},
                     {QStringLiteral("targetNoise"), targetNoise},
                     {QStringLiteral("minTimeMs"), minTimeMs},
                     {QStringLiteral("maxTimeMs"), maxTimeMs},
                     {QStringLiteral("blockingKernel"), blockingKernel}};
    if (bytesOverride)
        json.insert(QStringLiteral("bytesOverride"), double(*bytesOverride));
    if (flopsPerLaunch)
        json.insert(QStringLiteral("flopsPerLaunch"), jsonDouble(*flopsPerLaunch));
    return json;
}

std::optional<TimingSpec> TimingSpec::fromJson(const QJsonObject& json, QString* error) {
    TimingSpec spec;
    const json::FieldReader fields(json, error);
    if (!fields.readInt(QStringLiteral("warmupLaunches"), &spec.warmupLaunches) ||
        !fields.readInt(QStringLiteral("repetitions"), &spec.repetitions) ||
        !fields.readInt(QStringLiteral("timeLimitMs"), &spec.timeLimitMs) ||
        !fields.readInt(QStringLiteral("minTimeMs"), &spec.minTimeMs) ||
        !fields.readInt(QStringLiteral("maxTimeMs"), &spec.maxTimeMs))
        return std::nullopt;
    QString mode = timingModeName(spec.mode);
    if (!fields.readString(QStringLiteral("mode"), &mode))
        return std::nullopt;
    if (mode == QLatin1String("hot")) {
        spec.mode = Mode::Hot;
    } else if (mode == QLatin1String("cold")) {
        spec.mode = Mode::Cold;
    } else {
        fields.fail(QStringLiteral("mode: must be \"hot\" or \"cold\" (got \"%1\")").arg(mode));
        return std::nullopt;
    }
    if (!fields.readBool(QStringLiteral("adaptive"), &spec.adaptive) ||
        !fields.readBool(QStringLiteral("blockingKernel"), &spec.blockingKernel) ||
        !fields.readNumber(QStringLiteral("targetNoise"), &spec.targetNoise))
        return std::nullopt;
    if (fields.has(QStringLiteral("bytesOverride"))) {
        qint64 bytes = 0;
        if (!fields.readWholeNumber(QStringLiteral("bytesOverride"), &bytes))
            return std::nullopt;
        spec.bytesOverride = bytes;
    }
    if (fields.has(QStringLiteral("flopsPerLaunch"))) {
        double flops = 0;
        if (!fields.readNumber(QStringLiteral("flopsPerLaunch"), &flops))
            return std::nullopt;
        spec.flopsPerLaunch = flops;
    }
    const QString invalid = spec.validate();
    if (!invalid.isEmpty()) {
        if (error)
            *error = invalid;
        return std::nullopt;
    }
    return spec;
}

bool operator==(const TimingSpec& a, const TimingSpec& b) {
    return a.warmupLaunches == b.warmupLaunches && a.repetitions == b.repetitions &&
           a.bytesOverride == b.bytesOverride && a.flopsPerLaunch == b.flopsPerLaunch &&
           a.timeLimitMs == b.timeLimitMs && a.mode == b.mode && a.adaptive == b.adaptive &&
           a.targetNoise == b.targetNoise && a.minTimeMs == b.minTimeMs &&
           a.maxTimeMs == b.maxTimeMs && a.blockingKernel == b.blockingKernel;
}

} // namespace kernelpad
