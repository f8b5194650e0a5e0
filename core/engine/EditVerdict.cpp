#include "core/engine/EditVerdict.h"

#include "core/compile/KernelFacts.h"
#include "core/run/AbVerdict.h"
#include "core/run/RunResult.h"
#include "core/run/Significance.h"

#include <QJsonArray>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

/// Beyond these ratios a change reads better as a factor ("3.2× faster") than in per cent.
constexpr double kVerdictFactorBelow = 0.5;
constexpr double kVerdictFactorAbove = 2.0;
/// A profile figure must change by at least this much (per cent) to be named.
constexpr double kVerdictProfileMinPct = 1.0;

/// "1.8", "94": one decimal under 10, none from there on.
QString verdictPercent(double percent) {
    // Decided on the rounded figure, so that 9.99996 reads "10", not "10.0".
    const double magnitude = std::round(std::abs(percent) * 10) / 10;
    return QString::number(magnitude, 'f', magnitude < 10 ? 1 : 0);
}

/// "−94 %", "+12 %".
QString verdictSignedPercent(double percent) {
    return QStringLiteral("%1%2 %").arg(
        percent < 0 ? QStringLiteral("\u2212") : QStringLiteral("+"), verdictPercent(percent));
}

/// "75 %" of a 0..1 occupancy.
QString verdictOccupancy(double occupancy) {
    return QStringLiteral("%1 %").arg(std::lround(occupancy * 100));
}

/// "1.8 % slower", "0.3 % faster", "3.2× faster", "the same time".
QString verdictTimeChange(double ratio) {
    if (ratio < kVerdictFactorBelow)
        return QStringLiteral("%1\u00d7 faster").arg(QString::number(1.0 / ratio, 'f', 1));
    if (ratio > kVerdictFactorAbove)
        return QStringLiteral("%1\u00d7 slower").arg(QString::number(ratio, 'f', 1));
    const double percent = (ratio - 1) * 100;
    if (verdictPercent(percent) == QLatin1String("0.0"))
        return QStringLiteral("the same time");
    return QStringLiteral("%1 % %2").arg(
        verdictPercent(percent), percent < 0 ? QStringLiteral("faster") : QStringLiteral("slower"));
}

/// "2 more registers", "1 fewer register", "4 more LDG.E".
QString verdictMoreOrFewer(qint64 delta, const QString& one, const QString& many) {
    const qint64 count = std::abs(delta);
    return QStringLiteral("%1 %2 %3")
        .arg(count)
        .arg(delta > 0 ? QStringLiteral("more") : QStringLiteral("fewer"), count == 1 ? one : many);
}

/// "4 KiB", "512 B".
QString verdictBytes(qint64 bytes) {
    if (bytes != 0 && bytes % 1024 == 0)
        return QStringLiteral("%1 KiB").arg(bytes / 1024);
    return QStringLiteral("%1 B").arg(bytes);
}

std::optional<KernelResources> knownResources(const VerdictSide& side) {
    if (side.resources && side.resources->registers > 0)
        return side.resources;
    return std::nullopt;
}

/// Fills the time part: the medians, the ratio and what the samples say of it.
void judgeTime(const TimingStats& before, const TimingStats& after, EditVerdict* v) {
    if (before.medianMs <= 0 || after.medianMs <= 0) {
        v->significance = VerdictSignificance::NotTimed;
        return;
    }
    v->beforeMs = before.medianMs;
    v->afterMs = after.medianMs;
    v->ratio = after.medianMs / before.medianMs;
    if (before.reps() == 0 || after.reps() == 0) {
        v->significance = VerdictSignificance::NoSamples;
        return;
    }
    // The A/B's refusal first: a clock apart or one side throttled says more about the GPU
    // than about the edit.
    QString caveat;
    if (!conditionsDiffer(AbConditions::fromTiming(before), AbConditions::fromTiming(after),
                          AbOptions(), &caveat)
             .isEmpty()) {
        v->significance = VerdictSignificance::NotComparable;
        v->reason =
            before.smClockMHz > 0 && after.smClockMHz > 0 && before.smClockMHz != after.smClockMHz
                ? QStringLiteral("SM clock %1 → %2 MHz")
                      .arg(before.smClockMHz)
                      .arg(after.smClockMHz)
                : QStringLiteral("one run throttled");
        return;
    }
    // With each run's samples one block, the A/B's within-block bootstrap is the independent
    // bootstrap of the two medians, which compareMedians() draws in O(1) per resample: the
    // same interval, cheap enough for the window's thread and a table of versions.
    const Comparison c = compareMedians(before.timesMs, after.timesMs);
    switch (c.verdict) {
    case Comparison::Verdict::RealChange:
    case Comparison::Verdict::WithinNoise:
        v->significance =
            c.isRealChange() ? VerdictSignificance::Significant : VerdictSignificance::WithinNoise;
        v->ratio = c.ratio;
        v->low = c.low;
        v->high = c.high;
        break;
    case Comparison::Verdict::TooFewSamples:
    case Comparison::Verdict::Invalid:
        v->significance = VerdictSignificance::TooFewSamples;
        v->reason = QStringLiteral("%1 and %2 samples (at least %3 each)")
                        .arg(c.oldSamples)
                        .arg(c.newSamples)
                        .arg(kMinSamples);
        break;
    }
}

/// "(significant)", "(within noise)", "(significance unknown: no samples)".
QString timeQualifier(const EditVerdict& v) {
    switch (v.significance) {
    case VerdictSignificance::Significant:
        return QStringLiteral("significant");
    case VerdictSignificance::WithinNoise:
        return QStringLiteral("within noise");
    case VerdictSignificance::NoSamples:
        return QStringLiteral("significance unknown: no samples");
    case VerdictSignificance::TooFewSamples:
        return QStringLiteral("too few samples to tell: %1").arg(v.reason);
    case VerdictSignificance::NotComparable:
        return QStringLiteral("not comparable: %1").arg(v.reason);
    case VerdictSignificance::NotTimed:
        break;
    }
    return {};
}

/// Spills (ptxas's figure) or, without it, the driver's local memory per thread.
void addSpillCause(const VerdictSide& before, const VerdictSide& after, EditVerdict* v) {
    if (before.spillBytes && after.spillBytes) {
        if (*before.spillBytes != *after.spillBytes)
            v->causes << VerdictCause{
                QStringLiteral("spills"),
                *before.spillBytes == 0
                    ? QStringLiteral("spills appear (%1)").arg(verdictBytes(*after.spillBytes))
                : *after.spillBytes == 0
                    ? QStringLiteral("no more spills (were %1)")
                          .arg(verdictBytes(*before.spillBytes))
                    : QStringLiteral("spills %1 → %2")
                          .arg(verdictBytes(*before.spillBytes), verdictBytes(*after.spillBytes)),
                QString(), double(*before.spillBytes), double(*after.spillBytes)};
        return;
    }
    const std::optional<KernelResources> b = knownResources(before);
    const std::optional<KernelResources> a = knownResources(after);
    if (!b || !a || b->localBytes == a->localBytes)
        return;
    v->causes << VerdictCause{QStringLiteral("localMemory"),
                              QStringLiteral("local memory %1 → %2 per thread (spills or a local "
                                             "array)")
                                  .arg(verdictBytes(b->localBytes), verdictBytes(a->localBytes)),
                              QString(), double(b->localBytes), double(a->localBytes)};
}

/// Registers and shared memory with the occupancy they led to. Returns the causes that left
/// the occupancy as it was, which come last.
QList<VerdictCause> addResourceCauses(const VerdictSide& before, const VerdictSide& after,
                                      EditVerdict* v) {
    const std::optional<KernelResources> b = knownResources(before);
    const std::optional<KernelResources> a = knownResources(after);
    if (!b || !a)
        return {};
    QStringList parts;
    QList<VerdictCause> figures;
    if (a->registers != b->registers) {
        parts << verdictMoreOrFewer(a->registers - b->registers, QStringLiteral("register"),
                                    QStringLiteral("registers"));
        figures << VerdictCause{QStringLiteral("registers"), parts.constLast(), QString(),
                                double(b->registers), double(a->registers)};
    }
    if (a->staticSharedBytes != b->staticSharedBytes) {
        const qint64 delta = qint64(a->staticSharedBytes) - qint64(b->staticSharedBytes);
        parts << QStringLiteral("%1 %2 shared memory")
                     .arg(verdictBytes(std::abs(delta)),
                          delta > 0 ? QStringLiteral("more") : QStringLiteral("less"));
        figures << VerdictCause{QStringLiteral("sharedMemory"), parts.constLast(), QString(),
                                double(b->staticSharedBytes), double(a->staticSharedBytes)};
    }
    const bool occupancyKnown = b->occupancy > 0 && a->occupancy > 0;
    const bool occupancyChanged =
        occupancyKnown && verdictOccupancy(b->occupancy) != verdictOccupancy(a->occupancy);
    if (!occupancyChanged)
        return figures; // named after the profile and the SASS: they did not change occupancy
    const QString occupancy =
        QStringLiteral("occupancy %1 → %2")
            .arg(verdictOccupancy(b->occupancy), verdictOccupancy(a->occupancy));
    // The launch changed the occupancy when neither resource did (another block size).
    const QString text =
        parts.isEmpty()
            ? occupancy
            : QStringLiteral("%1 → %2").arg(parts.join(QStringLiteral(", ")), occupancy);
    for (VerdictCause& f : figures)
        f.text = text;
    figures << VerdictCause{QStringLiteral("occupancy"), text, QString(), b->occupancy * 100,
                            a->occupancy * 100};
    v->causes << figures;
    return {};
}

/// The profile figure that changed most, among those that explain a time.
void addProfileCause(const VerdictSide& before, const VerdictSide& after, EditVerdict* v) {
    if (!before.profile || !after.profile)
        return;
    const SpeedOfLight& b = before.profile->speedOfLight;
    const SpeedOfLight& a = after.profile->speedOfLight;
    struct Figure {
        QString name;
        std::optional<double> SpeedOfLight::*field;
    };
    const Figure figures[] = {
        {QStringLiteral("DRAM bytes"), &SpeedOfLight::dramBytes},
        {QStringLiteral("L2 bytes"), &SpeedOfLight::l2Bytes},
        {QStringLiteral("L1 bytes"), &SpeedOfLight::l1Bytes},
        {QStringLiteral("L1 hit rate"), &SpeedOfLight::l1HitRatePct},
        {QStringLiteral("L2 hit rate"), &SpeedOfLight::l2HitRatePct},
        {QStringLiteral("DRAM throughput"), &SpeedOfLight::dramThroughputPct},
        {QStringLiteral("memory throughput"), &SpeedOfLight::memoryThroughputPct},
        {QStringLiteral("compute throughput"), &SpeedOfLight::computeThroughputPct},
        {QStringLiteral("achieved occupancy"), &SpeedOfLight::achievedOccupancyPct},
    };
    const Figure* most = nullptr;
    double mostPct = 0;
    for (const Figure& f : figures) {
        const std::optional<double>& was = b.*f.field;
        const std::optional<double>& now = a.*f.field;
        if (!was || !now || *was == 0)
            continue;
        const double pct = 100.0 * (*now - *was) / std::abs(*was);
        if (std::abs(pct) >= kVerdictProfileMinPct && std::abs(pct) > std::abs(mostPct)) {
            most = &f;
            mostPct = pct;
        }
    }
    if (!most)
        return;
    v->causes << VerdictCause{
        QStringLiteral("profile"),
        QStringLiteral("%1 %2").arg(most->name, verdictSignedPercent(mostPct)), most->name,
        *(b.*most->field), *(a.*most->field)};
}

/// The 1–3 opcodes whose counts changed most (ties: the first in name order).
void addSassCauses(const VerdictSide& before, const VerdictSide& after, EditVerdict* v) {
    if (!before.sassOpcodes || !after.sassOpcodes)
        return;
    QMap<QString, int> deltas;
    for (auto it = after.sassOpcodes->cbegin(); it != after.sassOpcodes->cend(); ++it)
        deltas[it.key()] += it.value();
    for (auto it = before.sassOpcodes->cbegin(); it != before.sassOpcodes->cend(); ++it)
        deltas[it.key()] -= it.value();
    QList<std::pair<QString, int>> changed;
    for (auto it = deltas.cbegin(); it != deltas.cend(); ++it)
        if (it.value() != 0)
            changed << std::pair{it.key(), it.value()};
    std::stable_sort(changed.begin(), changed.end(), [](const auto& x, const auto& y) {
        return std::abs(x.second) > std::abs(y.second);
    });
    QStringList parts;
    for (int i = 0; i < std::min<int>(kMaxVerdictOpcodes, int(changed.size())); ++i) {
        const auto& [opcode, delta] = changed.at(i);
        parts << verdictMoreOrFewer(delta, opcode, opcode);
        v->causes << VerdictCause{QStringLiteral("sass"), parts.constLast(), opcode,
                                  double(before.sassOpcodes->value(opcode)),
                                  double(after.sassOpcodes->value(opcode))};
    }
}

} // namespace

QString verdictSignificanceName(VerdictSignificance significance) {
    switch (significance) {
    case VerdictSignificance::NotTimed:
        return QStringLiteral("not timed");
    case VerdictSignificance::NoSamples:
        return QStringLiteral("no samples");
    case VerdictSignificance::TooFewSamples:
        return QStringLiteral("too few samples");
    case VerdictSignificance::Significant:
        return QStringLiteral("significant");
    case VerdictSignificance::WithinNoise:
        return QStringLiteral("within noise");
    case VerdictSignificance::NotComparable:
        return QStringLiteral("not comparable");
    }
    return {};
}

namespace {

/// The causes, then the sentence, once the time part of `v` is filled.
EditVerdict explainVerdict(EditVerdict v, const VerdictSide& before, const VerdictSide& after) {
    addSpillCause(before, after, &v);
    const QList<VerdictCause> quiet = addResourceCauses(before, after, &v);
    addProfileCause(before, after, &v);
    addSassCauses(before, after, &v);
    v.causes << quiet;

    // Causes sharing a text (registers → occupancy) are one part of the sentence.
    QStringList parts;
    for (const VerdictCause& c : std::as_const(v.causes))
        if (!parts.contains(c.text))
            parts << c.text;
    QString time;
    if (v.significance != VerdictSignificance::NotTimed)
        time = QStringLiteral("%1 (%2)").arg(verdictTimeChange(v.ratio), timeQualifier(v));
    if (parts.isEmpty())
        v.sentence = time.isEmpty() ? QStringLiteral("no change known") : time;
    else if (time.isEmpty())
        v.sentence = parts.join(QStringLiteral("; "));
    else
        v.sentence = QStringLiteral("%1: %2").arg(time, parts.join(QStringLiteral("; ")));
    return v;
}

} // namespace

EditVerdict editVerdict(const VerdictSide& before, const VerdictSide& after) {
    EditVerdict v;
    judgeTime(before.timing, after.timing, &v);
    return explainVerdict(v, before, after);
}

EditVerdict editVerdict(const AbVerdict& ab, const VerdictSide& before, const VerdictSide& after) {
    EditVerdict v;
    v.beforeMs = ab.medianAMs;
    v.afterMs = ab.medianBMs;
    v.ratio = ab.ratio; // 0 without a verdict's medians (too few launches)
    v.low = ab.low;
    v.high = ab.high;
    switch (ab.kind) {
    case AbVerdict::Kind::Faster:
    case AbVerdict::Kind::Slower:
        v.significance = VerdictSignificance::Significant;
        break;
    case AbVerdict::Kind::NoDifference:
        v.significance = VerdictSignificance::WithinNoise;
        break;
    case AbVerdict::Kind::Refused:
        v.significance = VerdictSignificance::NotComparable;
        v.reason = ab.reason;
        v.reason.remove(QStringLiteral("cannot compare: "));
        break;
    case AbVerdict::Kind::TooFewSamples:
        v.significance = VerdictSignificance::TooFewSamples;
        v.reason = ab.reason;
        break;
    }
    if (v.ratio <= 0)
        v.significance = VerdictSignificance::NotTimed;
    return explainVerdict(v, before, after);
}

QJsonObject EditVerdict::toJson() const {
    QJsonObject o{{QStringLiteral("sentence"), sentence},
                  {QStringLiteral("significance"), verdictSignificanceName(significance)}};
    if (significance != VerdictSignificance::NotTimed) {
        QJsonObject time{{QStringLiteral("beforeMs"), beforeMs},
                         {QStringLiteral("afterMs"), afterMs},
                         {QStringLiteral("ratio"), ratio},
                         {QStringLiteral("changePct"), changePercent()}};
        if (high > 0) {
            time.insert(QStringLiteral("low"), low);
            time.insert(QStringLiteral("high"), high);
        }
        if (!reason.isEmpty())
            time.insert(QStringLiteral("reason"), reason);
        o.insert(QStringLiteral("time"), time);
    }
    QJsonArray list;
    for (const VerdictCause& c : causes) {
        QJsonObject cause{{QStringLiteral("kind"), c.kind},
                          {QStringLiteral("text"), c.text},
                          {QStringLiteral("before"), c.before},
                          {QStringLiteral("after"), c.after}};
        if (!c.name.isEmpty())
            cause.insert(QStringLiteral("name"), c.name);
        list.append(cause);
    }
    o.insert(QStringLiteral("causes"), list);
    return o;
}

QMap<QString, int> sassOpcodeCounts(const SassFunction& function) {
    QMap<QString, int> counts;
    for (const SassInstruction& i : function.instructions)
        if (!i.opcode.isEmpty())
            ++counts[i.opcode];
    return counts;
}

VerdictSide verdictSideOf(const RunResult& result) {
    VerdictSide side;
    if (result.status != RunStatus::Ok || result.sanitizerTool != SanitizerTool::None)
        return side;
    side.timing = result.timing;
    if (result.resources.registers > 0)
        side.resources = result.resources;
    return side;
}

VerdictSide verdictSideOf(const CompileResult& compile, const SassListing* sass,
                          const QString& lowered) {
    VerdictSide side;
    const KernelCompileFacts facts = kernelCompileFacts(compile.ptx, compile.log, lowered);
    if (facts.ptxasReported && facts.registers > 0) {
        KernelResources r;
        r.registers = facts.registers;
        r.staticSharedBytes = int(facts.ptxasSharedBytes);
        r.localBytes = int(facts.stackBytes);
        side.resources = r;
        side.spillBytes = facts.spillStoreBytes;
    }
    if (sass)
        if (const SassFunction* f = sass->findFunction(lowered))
            side.sassOpcodes = sassOpcodeCounts(*f);
    return side;
}

} // namespace kernelpad
