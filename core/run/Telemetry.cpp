#include "core/run/Telemetry.h"

#include "core/io/JsonFields.h"
#include "core/io/JsonValues.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace kernelpad {
namespace {

constexpr double kTelemetryPercent = 100.0;
constexpr double kMilliPerUnit = 1000.0;

/// nvidia-smi's wording for each bit (its "Clocks Event Reasons" section), lower case.
const std::pair<quint64, const char*> kClockEventNames[] = {
    {clockEvent::GpuIdle, "gpu idle"},
    {clockEvent::ApplicationsClocksSetting, "applications clocks setting"},
    {clockEvent::SwPowerCap, "sw power cap"},
    {clockEvent::HwSlowdown, "hw slowdown"},
    {clockEvent::SyncBoost, "sync boost"},
    {clockEvent::SwThermalSlowdown, "sw thermal"},
    {clockEvent::HwThermalSlowdown, "hw thermal"},
    {clockEvent::HwPowerBrakeSlowdown, "hw power brake"},
    {clockEvent::DisplayClockSetting, "display clock setting"},
};

QJsonObject chunkToJson(const ChunkTelemetry& c) {
    QJsonObject json{{QStringLiteral("samples"), c.samples},
                     {QStringLiteral("smClockMHz"), c.smClockMHz},
                     {QStringLiteral("memClockMHz"), c.memClockMHz},
                     {QStringLiteral("powerMw"), c.powerMw},
                     {QStringLiteral("temperatureC"), c.temperatureC}};
    if (c.clockEventReasons)
        json.insert(QStringLiteral("clockEventReasons"), double(*c.clockEventReasons));
    return json;
}

bool chunkFromJson(const json::FieldReader& fields, ChunkTelemetry* c) {
    constexpr auto required = json::Presence::Required;
    constexpr json::WholeRange nonNegative{0, std::numeric_limits<int>::max()};
    for (const auto& [key, target] : {std::pair{QStringLiteral("samples"), &c->samples},
                                      std::pair{QStringLiteral("smClockMHz"), &c->smClockMHz},
                                      std::pair{QStringLiteral("memClockMHz"), &c->memClockMHz},
                                      std::pair{QStringLiteral("powerMw"), &c->powerMw},
                                      std::pair{QStringLiteral("temperatureC"), &c->temperatureC}})
        if (!fields.readInt(key, target, required, nonNegative))
            return false;
    if (fields.has(QStringLiteral("clockEventReasons"))) {
        qint64 bits = 0;
        if (!fields.readWholeNumber(QStringLiteral("clockEventReasons"), &bits, required,
                                    {0, json::WholeRange{}.max}))
            return false;
        c->clockEventReasons = quint64(bits);
    }
    return true;
}

} // namespace

QStringList clockEventNames(quint64 reasons) {
    QStringList names;
    for (const auto& [bit, name] : kClockEventNames)
        if (reasons & bit) {
            names << QString::fromLatin1(name);
            reasons &= ~bit;
        }
    for (int i = 0; i < 64; ++i)
        if (reasons & (quint64(1) << i))
            names << QStringLiteral("0x%1").arg(quint64(1) << i, 0, 16);
    return names;
}

double Telemetry::smClockSpread() const {
    QVector<int> clocks;
    for (const ChunkTelemetry& c : chunks)
        if (c.smClockMHz > 0)
            clocks << c.smClockMHz;
    if (clocks.size() < 2)
        return 0;
    std::sort(clocks.begin(), clocks.end());
    const double median = clocks[clocks.size() / 2];
    return double(clocks.back() - clocks.front()) / median;
}

quint64 Telemetry::reasonsSeen() const {
    quint64 all = 0;
    for (const ChunkTelemetry& c : chunks)
        all |= c.clockEventReasons.value_or(0);
    return all;
}

ClockLock Telemetry::clockLock() const {
    if (lockedByKernelPad)
        return ClockLock::Locked;
    bool anyRead = false;
    for (const ChunkTelemetry& c : chunks) {
        if (!c.clockEventReasons)
            continue;
        anyRead = true;
        if (!(*c.clockEventReasons & clockEvent::ApplicationsClocksSetting))
            return ClockLock::NotLocked;
    }
    return anyRead ? ClockLock::Locked : ClockLock::Unknown;
}

QString Telemetry::instability() const {
    QStringList why;
    const double spread = smClockSpread();
    if (spread > kMaxClockSpread) {
        int lo = std::numeric_limits<int>::max(), hi = 0;
        for (const ChunkTelemetry& c : chunks)
            if (c.smClockMHz > 0) {
                lo = std::min(lo, c.smClockMHz);
                hi = std::max(hi, c.smClockMHz);
            }
        why << QStringLiteral("SM clock moved %1 % (%2-%3 MHz)")
                   .arg(spread * kTelemetryPercent, 0, 'f', 1)
                   .arg(lo)
                   .arg(hi);
    }
    if (const quint64 t = throttleReasons())
        why << QStringLiteral("throttled: %1").arg(clockEventNames(t).join(QStringLiteral(", ")));
    return why.join(QStringLiteral("; "));
}

bool Telemetry::energyMeasured() const {
    return energyMj && *energyMj > 0 && energyLaunches > 0 &&
           energyIntervalMs >= kMinEnergyIntervalMs;
}

QString Telemetry::energyNote() const {
    if (energyMeasured())
        return {};
    if (!available)
        return QStringLiteral("no NVML");
    if (!energyMj)
        return QStringLiteral("no energy counter (NVML has one from Volta on)");
    return QStringLiteral("too short to measure energy (%1 ms timed; it needs %2 ms)")
        .arg(energyIntervalMs, 0, 'f', 0)
        .arg(kMinEnergyIntervalMs, 0, 'f', 0);
}

double Telemetry::energyPerLaunchJ() const {
    return energyMeasured() ? *energyMj / kMilliPerUnit / energyLaunches : std::nan("");
}

double Telemetry::averagePowerW() const {
    return energyMeasured() ? *energyMj / energyIntervalMs : std::nan("");
}

QJsonObject Telemetry::toJson() const {
    QJsonArray chunkArray;
    for (const ChunkTelemetry& c : chunks)
        chunkArray.append(chunkToJson(c));
    QJsonObject json{{QStringLiteral("chunks"), chunkArray},
                     {QStringLiteral("smClockMaxMHz"), smClockMaxMHz},
                     {QStringLiteral("smClockDefaultMHz"), smClockDefaultMHz},
                     {QStringLiteral("memClockMaxMHz"), memClockMaxMHz},
                     {QStringLiteral("memClockDefaultMHz"), memClockDefaultMHz},
                     {QStringLiteral("powerLimitMw"), powerLimitMw},
                     {QStringLiteral("lockedByKernelPad"), lockedByKernelPad},
                     {QStringLiteral("energyIntervalMs"), json::fromDouble(energyIntervalMs)},
                     {QStringLiteral("energyStartedAtMs"), json::fromDouble(energyStartedAtMs)},
                     {QStringLiteral("energyLaunches"), energyLaunches}};
    if (energyMj)
        json.insert(QStringLiteral("energyMj"), json::fromDouble(*energyMj));
    if (!lockError.isEmpty())
        json.insert(QStringLiteral("lockError"), lockError);
    return json;
}

std::optional<Telemetry> Telemetry::fromJson(const QJsonObject& json, QString* error,
                                             const QString& path) {
    const json::FieldReader fields(json, error, path);
    constexpr auto required = json::Presence::Required;
    constexpr json::WholeRange nonNegative{0, std::numeric_limits<int>::max()};
    Telemetry t;
    t.available = true;
    if (!fields.readObjects(
            QStringLiteral("chunks"),
            [&t](const json::FieldReader& chunk) {
                ChunkTelemetry c;
                if (!chunkFromJson(chunk, &c))
                    return false;
                t.chunks << c;
                return true;
            },
            required))
        return std::nullopt;
    for (const auto& [key, target] :
         {std::pair{QStringLiteral("smClockMaxMHz"), &t.smClockMaxMHz},
          std::pair{QStringLiteral("smClockDefaultMHz"), &t.smClockDefaultMHz},
          std::pair{QStringLiteral("memClockMaxMHz"), &t.memClockMaxMHz},
          std::pair{QStringLiteral("memClockDefaultMHz"), &t.memClockDefaultMHz},
          std::pair{QStringLiteral("powerLimitMw"), &t.powerLimitMw},
          std::pair{QStringLiteral("energyLaunches"), &t.energyLaunches}})
        if (!fields.readInt(key, target, required, nonNegative))
            return std::nullopt;
    if (!fields.readBool(QStringLiteral("lockedByKernelPad"), &t.lockedByKernelPad, required) ||
        !fields.readString(QStringLiteral("lockError"), &t.lockError) ||
        !fields.readNumber(QStringLiteral("energyIntervalMs"), &t.energyIntervalMs, required) ||
        !fields.readNumber(QStringLiteral("energyStartedAtMs"), &t.energyStartedAtMs))
        return std::nullopt;
    if (fields.has(QStringLiteral("energyMj"))) {
        double mj = 0;
        if (!fields.readNumber(QStringLiteral("energyMj"), &mj, required))
            return std::nullopt;
        if (mj < 0) {
            fields.fail(fields.path(QStringLiteral("energyMj")) +
                        QStringLiteral(": must not be negative"));
            return std::nullopt;
        }
        t.energyMj = mj;
    }
    return t;
}

} // namespace kernelpad
