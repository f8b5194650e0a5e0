#include "core/profile/HierarchicalRoofline.h"

#include "core/io/JsonFields.h"

#include <QJsonArray>

#include <cmath>
#include <utility>

namespace kernelpad {
namespace {

// The JSON keys of the levels and the kinds of arithmetic, in the enums' order.
constexpr std::array<const char*, 3> kHierLevelKeys{{"l1", "l2", "dram"}};
constexpr std::array<const char*, 4> kHierPrecisionKeys{{"fp32", "fp64", "half", "tensor"}};

/// A bound within this of another is the same limit: ties go to the level nearest the SM
/// in the points' order, so the sentence does not flip on rounding.
constexpr double kHierBoundTolerance = 1e-9;

bool hierPositive(const std::optional<double>& v) {
    return v && std::isfinite(*v) && *v > 0;
}

void hierPut(QJsonObject* o, const char* key, const std::optional<double>& v) {
    if (v && std::isfinite(*v))
        o->insert(QString::fromLatin1(key), *v);
}

QJsonObject hierRateJson(const RateAndPeak& r) {
    QJsonObject o;
    hierPut(&o, "achieved", r.achieved);
    hierPut(&o, "peak", r.peak);
    return o;
}

bool hierReadOptional(const json::FieldReader& f, const char* key, std::optional<double>* out) {
    out->reset();
    const QString k = QString::fromLatin1(key);
    if (!f.has(k) || f.object().value(k).isNull())
        return true;
    double v = 0;
    if (!f.readNumber(k, &v, json::Presence::Required))
        return false;
    *out = v;
    return true;
}

bool hierReadRate(const json::FieldReader& parent, const char* key, RateAndPeak* out) {
    *out = RateAndPeak{};
    QJsonObject o;
    const QString k = QString::fromLatin1(key);
    if (!parent.readObject(k, &o))
        return false;
    const json::FieldReader f = parent.nested(k, o);
    return hierReadOptional(f, "achieved", &out->achieved) &&
           hierReadOptional(f, "peak", &out->peak);
}

QString hierPercent(double fraction) {
    return QStringLiteral("%1 %").arg(100.0 * fraction, 0, 'f', 0);
}

QString hierBoundSentence(const RooflineBound& b, const HierarchyPoint* point,
                          const HierarchicalRoofline& h) {
    const QString level = memoryLevelName(b.level);
    if (b.noFlops)
        return QStringLiteral("%1-bound: %2 of the %1 roof's bandwidth (no floating-point "
                              "work, so no point on the chart)")
            .arg(level, hierPercent(b.fraction));
    if (b.memory)
        return QStringLiteral("%1-bound: %2 of the %1 roof at this intensity (%3, %4 FLOP/byte)")
            .arg(level, hierPercent(b.fraction), precisionName(b.precision))
            .arg(point->flopsPerByte, 0, 'g', 3);
    // Under a compute roof every level's point has the same share of it: name no level.
    return QStringLiteral("Compute-bound: %1 of the %2 roof at this intensity")
        .arg(hierPercent(b.fraction), h.roofName(b.precision));
}

} // namespace

QString memoryLevelName(MemoryLevel level) {
    switch (level) {
    case MemoryLevel::L1:
        return QStringLiteral("L1");
    case MemoryLevel::L2:
        return QStringLiteral("L2");
    case MemoryLevel::Dram:
        break;
    }
    return QStringLiteral("DRAM");
}

QString precisionName(Precision precision) {
    switch (precision) {
    case Precision::Fp32:
        return QStringLiteral("FP32");
    case Precision::Fp64:
        return QStringLiteral("FP64");
    case Precision::Half:
        return QStringLiteral("FP16/BF16");
    case Precision::Tensor:
        break;
    }
    return QStringLiteral("tensor");
}

std::optional<double> HierarchyPoint::fractionOfRoof() const {
    if (!hierPositive(roofFlopsPerSecond))
        return std::nullopt;
    return flopsPerSecond / *roofFlopsPerSecond;
}

const RateAndPeak& HierarchicalRoofline::memory(MemoryLevel level) const {
    switch (level) {
    case MemoryLevel::L1:
        return l1;
    case MemoryLevel::L2:
        return l2;
    case MemoryLevel::Dram:
        break;
    }
    return dram;
}

const RateAndPeak& HierarchicalRoofline::compute(Precision precision) const {
    switch (precision) {
    case Precision::Fp32:
        return fp32;
    case Precision::Fp64:
        return fp64;
    case Precision::Half:
        return half;
    case Precision::Tensor:
        break;
    }
    return tensor;
}

QString HierarchicalRoofline::roofName(Precision precision) const {
    if (precision == Precision::Tensor && !tensorPath.isEmpty())
        return QStringLiteral("tensor %1").arg(tensorPath);
    return precisionName(precision);
}

bool HierarchicalRoofline::isEmpty() const {
    for (MemoryLevel level : kMemoryLevels)
        if (memory(level).achieved || memory(level).peak)
            return false;
    for (Precision p : kPrecisions)
        if (compute(p).achieved || compute(p).peak)
            return false;
    return true;
}

QList<Precision> HierarchicalRoofline::precisionsRun() const {
    QList<Precision> out;
    for (Precision p : kPrecisions)
        if (hierPositive(compute(p).achieved))
            out << p;
    return out;
}

QList<HierarchyPoint> HierarchicalRoofline::points() const {
    QList<HierarchyPoint> out;
    for (Precision p : precisionsRun()) {
        const RateAndPeak& work = compute(p);
        for (MemoryLevel level : kMemoryLevels) {
            const RateAndPeak& traffic = memory(level);
            if (!hierPositive(traffic.achieved))
                continue;
            HierarchyPoint point;
            point.level = level;
            point.precision = p;
            point.flopsPerSecond = *work.achieved;
            point.flopsPerByte = *work.achieved / *traffic.achieved;
            const std::optional<double> memoryRoof =
                hierPositive(traffic.peak)
                    ? std::optional<double>(*traffic.peak * point.flopsPerByte)
                    : std::nullopt;
            if (memoryRoof && (!hierPositive(work.peak) || *memoryRoof < *work.peak)) {
                point.roofFlopsPerSecond = memoryRoof;
                point.underMemoryRoof = true;
            } else if (hierPositive(work.peak)) {
                point.roofFlopsPerSecond = work.peak;
            }
            out << point;
        }
    }
    return out;
}

std::optional<RooflineBound> HierarchicalRoofline::bound() const {
    const QList<HierarchyPoint> all = points();
    const HierarchyPoint* closest = nullptr;
    double best = -1;
    for (const HierarchyPoint& p : all) {
        const std::optional<double> f = p.fractionOfRoof();
        if (f && *f > best + kHierBoundTolerance) {
            best = *f;
            closest = &p;
        }
    }
    RooflineBound b;
    if (closest) {
        b.memory = closest->underMemoryRoof;
        b.level = closest->level;
        b.precision = closest->precision;
        b.fraction = best;
        b.sentence = hierBoundSentence(b, closest, *this);
        return b;
    }
    // No point: either nothing floating-point ran (a copy, a strided read) or the peaks are
    // unknown. Without work, the level nearest its peak bandwidth is the limit.
    if (!precisionsRun().isEmpty())
        return std::nullopt;
    for (MemoryLevel level : kMemoryLevels) {
        const RateAndPeak& r = memory(level);
        if (!r.achieved || !hierPositive(r.peak))
            continue;
        const double f = *r.achieved / *r.peak;
        if (f > best + kHierBoundTolerance) {
            best = f;
            b.level = level;
        }
    }
    if (best < 0)
        return std::nullopt;
    b.memory = true;
    b.noFlops = true;
    b.fraction = best;
    b.sentence = hierBoundSentence(b, nullptr, *this);
    return b;
}

QJsonObject HierarchicalRoofline::toJson() const {
    QJsonObject o;
    for (size_t i = 0; i < kMemoryLevels.size(); ++i)
        o.insert(QString::fromLatin1(kHierLevelKeys[i]), hierRateJson(memory(kMemoryLevels[i])));
    for (size_t i = 0; i < kPrecisions.size(); ++i)
        o.insert(QString::fromLatin1(kHierPrecisionKeys[i]), hierRateJson(compute(kPrecisions[i])));
    o.insert(QStringLiteral("tensorPath"), tensorPath);
    QJsonArray points;
    for (const HierarchyPoint& p : this->points()) {
        QJsonObject point{{QStringLiteral("level"), memoryLevelName(p.level)},
                          {QStringLiteral("precision"), precisionName(p.precision)},
                          {QStringLiteral("flopsPerByte"), p.flopsPerByte},
                          {QStringLiteral("flopsPerSecond"), p.flopsPerSecond},
                          {QStringLiteral("underMemoryRoof"), p.underMemoryRoof}};
        hierPut(&point, "roofFlopsPerSecond", p.roofFlopsPerSecond);
        if (const std::optional<double> f = p.fractionOfRoof())
            point.insert(QStringLiteral("percentOfRoof"), 100.0 * *f);
        points.append(point);
    }
    o.insert(QStringLiteral("points"), points);
    if (const std::optional<RooflineBound> b = bound())
        o.insert(QStringLiteral("bound"),
                 QJsonObject{{QStringLiteral("limit"),
                              b->memory ? QStringLiteral("memory") : QStringLiteral("compute")},
                             {QStringLiteral("level"), memoryLevelName(b->level)},
                             {QStringLiteral("precision"),
                              b->noFlops ? QString() : precisionName(b->precision)},
                             {QStringLiteral("percentOfRoof"), 100.0 * b->fraction},
                             {QStringLiteral("sentence"), b->sentence}});
    return o;
}

bool HierarchicalRoofline::fromJson(const QJsonObject& json, const QString& path,
                                    HierarchicalRoofline* out, QString* error) {
    const json::FieldReader f(json, error, path);
    HierarchicalRoofline h;
    std::array<RateAndPeak*, 7> rates{
        {&h.l1, &h.l2, &h.dram, &h.fp32, &h.fp64, &h.half, &h.tensor}};
    for (size_t i = 0; i < rates.size(); ++i) {
        const char* key = i < kHierLevelKeys.size() ? kHierLevelKeys[i]
                                                    : kHierPrecisionKeys[i - kHierLevelKeys.size()];
        if (!hierReadRate(f, key, rates[i]))
            return false;
    }
    if (!f.readString(QStringLiteral("tensorPath"), &h.tensorPath))
        return false;
    *out = std::move(h);
    return true;
}

bool operator==(const HierarchicalRoofline& a, const HierarchicalRoofline& b) {
    return a.l1 == b.l1 && a.l2 == b.l2 && a.dram == b.dram && a.fp32 == b.fp32 &&
           a.fp64 == b.fp64 && a.half == b.half && a.tensor == b.tensor &&
           a.tensorPath == b.tensorPath;
}

} // namespace kernelpad
