#include "core/profile/ProfileComparison.h"

#include <QJsonArray>

#include <cmath>

namespace kernelpad {
namespace {

/// The units ncu scales with a one-letter prefix ("us", "Mbyte", "Tbyte/s", "Ghz").
bool isScaledBaseUnit(const QString& unit) {
    static const QStringList bases = {
        QStringLiteral("s"),         QStringLiteral("second"),     QStringLiteral("hz"),
        QStringLiteral("byte"),      QStringLiteral("byte/s"),     QStringLiteral("byte/second"),
        QStringLiteral("inst"),      QStringLiteral("inst/cycle"), QStringLiteral("cycle"),
        QStringLiteral("sector"),    QStringLiteral("request"),    QStringLiteral("warp"),
        QStringLiteral("thread"),    QStringLiteral("flop/s"),     QStringLiteral("block"),
        QStringLiteral("byte/block")};
    return bases.contains(unit, Qt::CaseInsensitive);
}

double prefixScale(QChar prefix) {
    switch (prefix.unicode()) {
    case 'n':
        return 1e-9;
    case 'u':
        return 1e-6;
    case 'm':
        return 1e-3;
    case 'k':
    case 'K':
        return 1e3;
    case 'M':
        return 1e6;
    case 'G':
        return 1e9;
    case 'T':
        return 1e12;
    case 'P':
        return 1e15;
    default:
        return 0;
    }
}

MetricChange changeOf(const ProfileMetric* current, const ProfileMetric* baseline) {
    const ProfileMetric& any = current ? *current : *baseline;
    MetricChange c{any.section, any.name, any.unit, {}, {}, {}, {}};
    QString currentUnit, baselineUnit;
    if (current) {
        c.currentText = (current->text + QLatin1Char(' ') + current->unit).trimmed();
        currentUnit = current->unit;
        if (current->value)
            c.current = toBaseUnit(*current->value, &currentUnit);
    }
    if (baseline) {
        c.baselineText = (baseline->text + QLatin1Char(' ') + baseline->unit).trimmed();
        baselineUnit = baseline->unit;
        if (baseline->value)
            c.baseline = toBaseUnit(*baseline->value, &baselineUnit);
    }
    if (current && baseline && currentUnit != baselineUnit) {
        // Units that do not reduce to one base cannot be compared as numbers.
        c.current.reset();
        c.baseline.reset();
    }
    c.unit = current ? currentUnit : baselineUnit;
    return c;
}

const ProfileMetric* findMetric(const QList<ProfileMetric>& metrics, const ProfileMetric& m) {
    for (const ProfileMetric& other : metrics)
        if (other.section == m.section && other.name == m.name)
            return &other;
    return nullptr;
}

QString formatted(double value, const QString& unit) {
    static const char* const kPrefixes[] = {"", "K", "M", "G", "T"};
    if (unit == QLatin1String("s")) {
        if (std::abs(value) < 1e-3)
            return QStringLiteral("%1 µs").arg(value * 1e6, 0, 'g', 4);
        return QStringLiteral("%1 ms").arg(value * 1e3, 0, 'g', 4);
    }
    int i = 0;
    while (unit != QLatin1String("%") && std::abs(value) >= 1000 && i < 4) {
        value /= 1000;
        ++i;
    }
    return QStringLiteral("%1 %2%3").arg(value, 0, 'g', 4).arg(QLatin1String(kPrefixes[i]), unit);
}

} // namespace

std::optional<double> MetricChange::changePct() const {
    if (!current || !baseline || *baseline == 0)
        return std::nullopt;
    return 100.0 * (*current - *baseline) / std::abs(*baseline);
}

double toBaseUnit(double value, QString* unit) {
    if (unit->size() < 2 || isScaledBaseUnit(*unit))
        return value;
    const double scale = prefixScale(unit->at(0));
    const QString rest = unit->mid(1);
    if (scale == 0 || !isScaledBaseUnit(rest))
        return value;
    *unit = rest.toLower() == QLatin1String("second") ? QStringLiteral("s") : rest.toLower();
    return value * scale;
}

ProfileComparison compareProfiles(const ProfileReport& current, const ProfileReport& baseline) {
    ProfileComparison out;
    for (const ProfileMetric& m : current.metrics)
        out.metrics << changeOf(&m, findMetric(baseline.metrics, m));
    for (const ProfileMetric& m : baseline.metrics)
        if (!findMetric(current.metrics, m))
            out.metrics << changeOf(nullptr, &m);
    // The metrics that explain a change of time, in the order a reader follows them.
    const QList<QPair<QString, QString>> headline = {
        {QStringLiteral("GPU Speed Of Light Throughput"), QStringLiteral("Duration")},
        {QStringLiteral("Memory Workload Analysis"), QStringLiteral("Memory Throughput")},
        {QStringLiteral("GPU Speed Of Light Throughput"), QStringLiteral("DRAM Throughput")},
        {QStringLiteral("Occupancy"), QStringLiteral("Achieved Occupancy")},
        {QStringLiteral("Launch Statistics"), QStringLiteral("Registers Per Thread")}};
    for (const auto& [section, name] : headline)
        for (const MetricChange& c : std::as_const(out.metrics))
            if (c.section == section && c.name == name && c.changePct() && *c.changePct() != 0)
                out.headline << QStringLiteral("%1 %2 → %3 (%4%5 %)")
                                    .arg(name, formatted(*c.baseline, c.unit),
                                         formatted(*c.current, c.unit),
                                         *c.changePct() >= 0 ? QStringLiteral("+")
                                                             : QStringLiteral("−"))
                                    .arg(std::abs(*c.changePct()), 0, 'f', 1);
    const std::optional<double> dram = current.speedOfLight.dramBytes;
    const std::optional<double> dramBefore = baseline.speedOfLight.dramBytes;
    if (dram && dramBefore && *dramBefore > 0)
        out.headline << QStringLiteral("DRAM bytes %1 → %2 (%3%4 %)")
                            .arg(formatted(*dramBefore, QStringLiteral("B")),
                                 formatted(*dram, QStringLiteral("B")),
                                 *dram >= *dramBefore ? QStringLiteral("+") : QStringLiteral("−"))
                            .arg(100.0 * std::abs(*dram - *dramBefore) / *dramBefore, 0, 'f', 1);
    return out;
}

QJsonObject comparisonToJson(const ProfileComparison& comparison) {
    QJsonArray metrics;
    for (const MetricChange& c : comparison.metrics) {
        QJsonObject o{{QStringLiteral("section"), c.section},
                      {QStringLiteral("name"), c.name},
                      {QStringLiteral("unit"), c.unit},
                      {QStringLiteral("currentText"), c.currentText},
                      {QStringLiteral("baselineText"), c.baselineText}};
        if (c.current)
            o.insert(QStringLiteral("current"), *c.current);
        if (c.baseline)
            o.insert(QStringLiteral("baseline"), *c.baseline);
        if (const std::optional<double> pct = c.changePct())
            o.insert(QStringLiteral("changePct"), *pct);
        metrics.append(o);
    }
    return {{QStringLiteral("metrics"), metrics},
            {QStringLiteral("headline"), QJsonArray::fromStringList(comparison.headline)}};
}

} // namespace kernelpad
