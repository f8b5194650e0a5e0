#include "core/run/AbRun.h"

#include <QJsonArray>
#include <QStringList>

#include <algorithm>
#include <cmath>

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
