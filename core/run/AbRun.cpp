#include "core/run/AbRun.h"

#include "core/io/JsonFields.h"

#include <QJsonArray>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kernelpad {

namespace {

/// Resamples of the interval checked after each ABBA group: enough to tell whether the
/// half-width is near the target, cheap enough to run between blocks (the final verdict
/// takes AbOptions' 2000).
constexpr int kStoppingResamples = 200;
constexpr int kGroupBlocks = 4; ///< A, B, B, A

QString jsonText(const QJsonValue& value) {
    switch (value.type()) {
    case QJsonValue::Undefined:
        return QStringLiteral("absent");
    case QJsonValue::String:
        return QStringLiteral("\"%1\"").arg(value.toString());
    case QJsonValue::Double:
        return QString::number(value.toDouble(), 'g', 12);
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    default:
        return QStringLiteral("set differently");
    }
}

/// The first key path under which `a` and `b` differ ("buffer.count"), with both values.
QString firstDifference(const QJsonObject& a, const QJsonObject& b, const QString& prefix) {
    QStringList keys = a.keys() + b.keys();
    keys.removeDuplicates();
    std::sort(keys.begin(), keys.end());
    for (const QString& key : keys) {
        const QJsonValue va = a.value(key);
        const QJsonValue vb = b.value(key);
        if (va == vb)
            continue;
        const QString path = prefix.isEmpty() ? key : prefix + QLatin1Char('.') + key;
        if (va.isObject() && vb.isObject())
            return firstDifference(va.toObject(), vb.toObject(), path);
        return QStringLiteral("%1 is %2 in B, %3 in A").arg(path, jsonText(vb), jsonText(va));
    }
    return {};
}

} // namespace

QString AbSettings::validate() const {
    if (budgetMs < 100)
        return QStringLiteral("budgetMs: at least 100 ms (got %1)").arg(budgetMs);
    if (!(targetHalfWidthPercent > 0))
        return QStringLiteral("targetHalfWidthPercent: must be above 0 (got %1)")
            .arg(targetHalfWidthPercent);
    if (minBlocks < kGroupBlocks || maxBlocks < minBlocks)
        return QStringLiteral("minBlocks, maxBlocks: at least %1 and minBlocks <= maxBlocks")
            .arg(kGroupBlocks);
    return {};
}

AbSettings AbSettings::share(int devices, int index) const {
    if (devices <= 1)
        return *this;
    AbSettings s = *this;
    const int minimumBudgetMs = 100; // validate()'s floor
    s.budgetMs = std::max(minimumBudgetMs, budgetMs / devices);
    const int groups = (minBlocks + kGroupBlocks - 1) / kGroupBlocks; // whole ABBA groups
    s.minBlocks = std::max(1, (groups + devices - 1) / devices) * kGroupBlocks;
    s.maxBlocks = std::max(s.minBlocks, maxBlocks / devices);
    s.targetHalfWidthPercent = targetHalfWidthPercent * std::sqrt(double(devices));
    s.seed = seed + quint64(index);
    return s;
}

AbArm AbSchedule::next() {
    if (m_position == 0)
        m_bFirst = std::uniform_int_distribution<int>(0, 1)(m_rng) == 1;
    // ABBA: the first and the last block of a group belong to the same arm.
    const bool first = m_position == 0 || m_position == kGroupBlocks - 1;
    m_position = (m_position + 1) % kGroupBlocks;
    return first == m_bFirst ? AbArm::B : AbArm::A;
}

int launchesPerBlock(double medianMs, const AbSettings& settings) {
    if (!(medianMs > 0))
        return settings.minLaunchesPerBlock;
    const double wanted = std::ceil(settings.blockTargetMs / medianMs);
    return int(std::clamp(wanted, double(settings.minLaunchesPerBlock),
                          double(settings.maxLaunchesPerBlock)));
}

QString abArgumentMismatch(const Project& a, const Project& b) {
    if (a.arguments.size() != b.arguments.size())
        return QStringLiteral("B's kernel takes %1 arguments, A's %2: both must run on the same "
                              "buffers and scalars")
            .arg(b.arguments.size())
            .arg(a.arguments.size());
    for (qsizetype i = 0; i < a.arguments.size(); ++i) {
        const QString where = QStringLiteral("arguments[%1] (%2)").arg(i).arg(a.arguments[i].name);
        const QString difference =
            firstDifference(a.arguments[i].toJson(), b.arguments[i].toJson(), QString());
        if (!difference.isEmpty())
            return QStringLiteral("%1: %2").arg(where, difference);
    }
    if (a.globals.size() != b.globals.size())
        return QStringLiteral("B writes %1 globals, A %2")
            .arg(b.globals.size())
            .arg(a.globals.size());
    for (qsizetype i = 0; i < a.globals.size(); ++i) {
        const QString difference =
            firstDifference(a.globals[i].toJson(), b.globals[i].toJson(), QString());
        if (!difference.isEmpty())
            return QStringLiteral("globals[%1] (%2): %3").arg(i).arg(a.globals[i].name, difference);
    }
    return {};
}

QJsonObject AbArmSummary::toJson() const {
    QJsonObject o{{QStringLiteral("label"), label},
                  {QStringLiteral("medianMs"), medianMs},
                  {QStringLiteral("launches"), launches},
                  {QStringLiteral("blocks"), blocks},
                  {QStringLiteral("verified"), verified},
                  {QStringLiteral("buffersChecked"), buffersChecked},
                  {QStringLiteral("conditions"), conditions.toJson()}};
    if (resources)
        o.insert(QStringLiteral("resources"), resources->toJson());
    return o;
}

QJsonObject AbDeviceEstimate::toJson() const {
    const auto number = [](double v) {
        return v > 0 ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
    };
    QJsonObject o{{QStringLiteral("device"), device},
                  {QStringLiteral("verdict"), verdict},
                  {QStringLiteral("ratio"), number(ratio)},
                  {QStringLiteral("interval"), QJsonArray{number(low), number(high)}},
                  {QStringLiteral("blocks"), blocks}};
    if (!reason.isEmpty())
        o.insert(QStringLiteral("reason"), reason);
    return o;
}

std::optional<AbDeviceEstimate> AbDeviceEstimate::fromJson(const QJsonObject& json,
                                                           const QString& path, QString* error) {
    const json::FieldReader fields(json, error, path);
    AbDeviceEstimate e;
    QVector<double> interval;
    if (!fields.readString(QStringLiteral("device"), &e.device) ||
        !fields.readString(QStringLiteral("verdict"), &e.verdict, json::Presence::Required) ||
        !fields.readNumber(QStringLiteral("ratio"), &e.ratio, json::Presence::Optional,
                           json::NullNumber::IsNaN) ||
        !fields.readNumbers(QStringLiteral("interval"), &interval, json::Presence::Optional,
                            json::NullNumber::IsNaN) ||
        !fields.readInt(QStringLiteral("blocks"), &e.blocks, json::Presence::Optional,
                        {0, std::numeric_limits<int>::max()}) ||
        !fields.readString(QStringLiteral("reason"), &e.reason))
        return std::nullopt;
    if (!interval.isEmpty() && interval.size() != 2) {
        fields.fail(QStringLiteral("%1: expected [low, high]")
                        .arg(fields.path(QStringLiteral("interval"))));
        return std::nullopt;
    }
    // null (no estimate) reads as NaN; the struct keeps 0 for "none".
    const auto orZero = [](double v) { return std::isfinite(v) ? v : 0.0; };
    e.ratio = orZero(e.ratio);
    if (interval.size() == 2) {
        e.low = orZero(interval[0]);
        e.high = orZero(interval[1]);
    }
    return e;
}

namespace {

AbDeviceEstimate estimateOf(const AbResult& r) {
    AbDeviceEstimate e;
    e.device = r.device;
    e.blocks = r.blocks;
    switch (r.status) {
    case AbResult::Status::Verdict:
        e.verdict = r.verdict.kindName();
        e.ratio = r.verdict.ratio;
        e.low = r.verdict.low;
        e.high = r.verdict.high;
        break;
    case AbResult::Status::Refused:
        e.verdict = r.verdict.kindName();
        e.reason = r.verdict.reason;
        break;
    case AbResult::Status::Error:
    case AbResult::Status::Cancelled:
        e.verdict = QStringLiteral("error");
        e.reason = r.error;
        break;
    }
    return e;
}

} // namespace

AbResult poolAbResults(const QVector<AbResult>& perDevice, const AbOptions& options) {
    if (perDevice.size() == 1)
        return perDevice.first();
    AbResult pooled;
    if (perDevice.isEmpty()) {
        pooled.runStatus = RunStatus::BadInput;
        pooled.error = QStringLiteral("the A/B ran on no device");
        return pooled;
    }
    QVector<AbDeviceEstimate> estimates;
    QVector<AbVerdict> verdicts;
    QStringList without; // devices without a verdict, and why
    const AbResult* first = nullptr;
    double elapsedMs = 0;
    for (const AbResult& r : perDevice) {
        estimates.append(estimateOf(r));
        elapsedMs = std::max(elapsedMs, r.elapsedMs);
        if (r.status == AbResult::Status::Cancelled) {
            pooled = r;
            pooled.devices = estimates;
            return pooled;
        }
        if (r.status != AbResult::Status::Verdict) {
            without << QStringLiteral("%1: %2").arg(r.device, estimates.last().reason);
            continue;
        }
        verdicts.append(r.verdict);
        if (!first)
            first = &r;
    }
    if (!first) { // no device has a verdict: the first one's end says why
        pooled = perDevice.first();
        pooled.devices = estimates;
        pooled.elapsedMs = elapsedMs;
        return pooled;
    }
    pooled = *first;
    pooled.devices = estimates;
    pooled.elapsedMs = elapsedMs;
    pooled.verdict = poolAbVerdicts(verdicts, options);
    if (!without.isEmpty()) {
        const QString note =
            QStringLiteral("without the A/B of %1").arg(without.join(QStringLiteral("; ")));
        pooled.verdict.caveat = pooled.verdict.caveat.isEmpty()
                                    ? note
                                    : pooled.verdict.caveat + QStringLiteral("; ") + note;
    }
    pooled.blocks = 0;
    pooled.a.blocks = pooled.b.blocks = pooled.a.launches = pooled.b.launches = 0;
    QStringList stops;
    for (const AbResult& r : perDevice) {
        if (r.status != AbResult::Status::Verdict)
            continue;
        pooled.blocks += r.blocks;
        pooled.a.blocks += r.a.blocks;
        pooled.b.blocks += r.b.blocks;
        pooled.a.launches += r.a.launches;
        pooled.b.launches += r.b.launches;
        pooled.a.verified = pooled.a.verified && r.a.verified;
        pooled.b.verified = pooled.b.verified && r.b.verified;
        if (!stops.contains(r.stopReason))
            stops << r.stopReason;
    }
    pooled.stopReason = stops.join(QStringLiteral("; "));
    pooled.a.medianMs = pooled.verdict.medianAMs;
    pooled.b.medianMs = pooled.verdict.medianBMs;
    pooled.status =
        pooled.verdict.hasVerdict() ? AbResult::Status::Verdict : AbResult::Status::Refused;
    return pooled;
}

QString AbResult::headline() const {
    switch (status) {
    case Status::Verdict:
    case Status::Refused:
        return verdict.text();
    case Status::Error:
    case Status::Cancelled:
        break;
    }
    return error;
}

QJsonObject AbResult::toJson() const {
    static const char* const kStatus[] = {"verdict", "refused", "error", "cancelled"};
    QJsonObject o = verdict.toJson();
    o.insert(QStringLiteral("status"), QString::fromLatin1(kStatus[int(status)]));
    o.insert(QStringLiteral("headline"), headline());
    if (status == Status::Error || status == Status::Cancelled) {
        // No comparison was finished: nothing to read as a verdict.
        o.insert(QStringLiteral("verdict"), QJsonValue(QJsonValue::Null));
        o.insert(QStringLiteral("text"), error);
        o.insert(QStringLiteral("error"), error);
        o.insert(QStringLiteral("runStatus"), runStatusName(runStatus));
    }
    o.insert(QStringLiteral("a"), a.toJson());
    o.insert(QStringLiteral("b"), b.toJson());
    o.insert(QStringLiteral("launchesPerBlock"), launchesPerBlock);
    o.insert(QStringLiteral("blocks"), blocks);
    o.insert(QStringLiteral("stopReason"), stopReason);
    o.insert(QStringLiteral("elapsedMs"), elapsedMs);
    o.insert(QStringLiteral("device"), device);
    if (!devices.isEmpty()) {
        QJsonArray each;
        for (const AbDeviceEstimate& e : devices)
            each.append(e.toJson());
        o.insert(QStringLiteral("devices"), each);
    }
    if (!oneDeviceReason.isEmpty())
        o.insert(QStringLiteral("oneDeviceReason"), oneDeviceReason);
    return o;
}

void AbAccumulator::add(AbArm arm, const TimingStats& block) {
    Arm& to = arm == AbArm::A ? m_a : m_b;
    to.blocksMs.append(block.timesMs);
    // The block's one SM clock reading only where NVML gave no per-chunk clocks (below).
    if (block.smClockMHz > 0 && block.telemetry.chunks.isEmpty())
        to.smClocksMHz.append(block.smClockMHz);
    if (block.memClockMHz > 0)
        to.memClockMHz = block.memClockMHz;
    to.throttledSamples += block.throttledSamples;
    // NVML's per-chunk readings, when the runner had them: the SM clock of each chunk, the
    // temperature, and the throttle reasons.
    for (const ChunkTelemetry& chunk : block.telemetry.chunks) {
        if (chunk.smClockMHz > 0)
            to.smClocksMHz.append(chunk.smClockMHz);
        if (chunk.temperatureC > 0)
            to.temperaturesC.append(chunk.temperatureC);
    }
    to.throttleReasons |= block.telemetry.throttleReasons();
    ++m_blocks;
}

AbConditions AbAccumulator::conditionsOf(const Arm& arm) {
    TimingStats summary;
    QVector<int> clocks = arm.smClocksMHz;
    std::sort(clocks.begin(), clocks.end());
    summary.smClockMHz = clocks.isEmpty() ? 0 : clocks[clocks.size() / 2];
    summary.memClockMHz = arm.memClockMHz;
    summary.throttledSamples = arm.throttledSamples;
    AbConditions c = AbConditions::fromTiming(summary);
    if (!arm.temperaturesC.isEmpty()) {
        QVector<int> temperatures = arm.temperaturesC;
        std::sort(temperatures.begin(), temperatures.end());
        c.temperatureC = temperatures[temperatures.size() / 2];
    }
    if (arm.throttleReasons) {
        c.throttled = true;
        c.throttleReasons = clockEventNames(arm.throttleReasons).join(QStringLiteral(", "));
    }
    return c;
}

AbSamples AbAccumulator::samples() const {
    AbSamples s;
    s.aBlocksMs = m_a.blocksMs;
    s.bBlocksMs = m_b.blocksMs;
    s.a = conditionsOf(m_a);
    s.b = conditionsOf(m_b);
    return s;
}

AbVerdict AbAccumulator::verdict(const AbOptions& options) const {
    return abVerdict(samples(), options);
}

QString AbAccumulator::stopReason(const AbSettings& settings, double elapsedMs) const {
    if (m_blocks % kGroupBlocks != 0)
        return {};
    if (m_blocks >= settings.maxBlocks)
        return QStringLiteral("block cap (%1 blocks)").arg(settings.maxBlocks);
    if (elapsedMs >= settings.budgetMs)
        return QStringLiteral("time budget (%1 ms)").arg(settings.budgetMs);
    if (m_blocks < settings.minBlocks)
        return {};
    AbOptions quick;
    quick.resamples = kStoppingResamples;
    quick.seed = settings.seed;
    const AbVerdict v = verdict(quick);
    // A refusal will not go away with more blocks of the same conditions: stop and say so.
    if (v.kind == AbVerdict::Kind::Refused)
        return QStringLiteral("conditions differ");
    if (v.hasInterval() && v.halfWidthPercent() < settings.targetHalfWidthPercent)
        return QStringLiteral("interval narrower than \u00b1%1 %")
            .arg(settings.targetHalfWidthPercent);
    return {};
}

} // namespace kernelpad
