#include "core/project/TimingSpec.h"

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

/// Reads an optional integer field; false (with a message naming the field) when it is
/// present but not an integer.
bool readInteger(const QJsonObject& json, const QString& key, qint64* out, QString* error) {
    const QJsonValue value = json.value(key);
    if (value.isUndefined())
        return true;
    const double d = value.toDouble(std::numeric_limits<double>::quiet_NaN());
    // 2^53: the largest range in which a JSON double still holds every integer exactly.
    constexpr double kMaxExactInteger = 9007199254740992.0;
    if (!value.isDouble() || d != std::floor(d) || std::abs(d) > kMaxExactInteger) {
        if (error)
            *error = QStringLiteral("%1: must be an integer").arg(key);
        return false;
    }
    *out = qint64(d);
    return true;
}

bool readInt(const QJsonObject& json, const QString& key, int* out, QString* error) {
    qint64 value = *out;
    if (!readInteger(json, key, &value, error))
        return false;
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
        if (error)
            *error = QStringLiteral("%1: %2 is out of range").arg(key).arg(value);
        return false;
    }
    *out = int(value);
    return true;
}

/// Reads an optional boolean field; false (with a message naming the field) when it is
/// present but not true or false.
bool readBool(const QJsonObject& json, const QString& key, bool* out, QString* error) {
    const QJsonValue value = json.value(key);
    if (value.isUndefined())
        return true;
    if (!value.isBool()) {
        if (error)
            *error = QStringLiteral("%1: must be true or false").arg(key);
        return false;
    }
    *out = value.toBool();
    return true;
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
    if (!readInt(json, QStringLiteral("warmupLaunches"), &spec.warmupLaunches, error) ||
        !readInt(json, QStringLiteral("repetitions"), &spec.repetitions, error) ||
        !readInt(json, QStringLiteral("timeLimitMs"), &spec.timeLimitMs, error) ||
        !readInt(json, QStringLiteral("minTimeMs"), &spec.minTimeMs, error) ||
        !readInt(json, QStringLiteral("maxTimeMs"), &spec.maxTimeMs, error))
        return std::nullopt;
    const QJsonValue mode = json.value(QStringLiteral("mode"));
    if (!mode.isUndefined()) {
        if (mode.toString() == QLatin1String("hot")) {
            spec.mode = Mode::Hot;
        } else if (mode.toString() == QLatin1String("cold")) {
            spec.mode = Mode::Cold;
        } else {
            if (error)
                *error = QStringLiteral("mode: must be \"hot\" or \"cold\"");
            return std::nullopt;
        }
    }
    if (!readBool(json, QStringLiteral("adaptive"), &spec.adaptive, error) ||
        !readBool(json, QStringLiteral("blockingKernel"), &spec.blockingKernel, error))
        return std::nullopt;
    const QJsonValue noise = json.value(QStringLiteral("targetNoise"));
    if (!noise.isUndefined()) {
        if (!noise.isDouble()) {
            if (error)
                *error = QStringLiteral("targetNoise: must be a number");
            return std::nullopt;
        }
        spec.targetNoise = noise.toDouble();
    }
    if (json.contains(QStringLiteral("bytesOverride"))) {
        qint64 bytes = 0;
        if (!readInteger(json, QStringLiteral("bytesOverride"), &bytes, error))
            return std::nullopt;
        spec.bytesOverride = bytes;
    }
    if (json.contains(QStringLiteral("flopsPerLaunch"))) {
        const QJsonValue flops = json.value(QStringLiteral("flopsPerLaunch"));
        if (!flops.isDouble()) {
            if (error)
                *error = QStringLiteral("flopsPerLaunch: must be a number");
            return std::nullopt;
        }
        spec.flopsPerLaunch = flops.toDouble();
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
