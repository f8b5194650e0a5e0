#include "ui/widgets/SweepChartData.h"

#include "core/run/BaselineResult.h"
#include "core/sweep/SweepSpace.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

/// From this rate on a ceiling reads in TB/s: the H100's 3,000 GB/s as "3.0 TB/s".
constexpr double kTeraInGiga = 1000.0;

QString sweepChartTr(const char* text) {
    return QCoreApplication::translate("SweepChart", text);
}

QVector<double> sortedDistinct(QVector<double> values) {
    values.erase(
        std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
        values.end());
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

SweepChartAxis axisOf(const QString& name, const QVector<double>& values) {
    SweepChartAxis axis;
    axis.name = name;
    axis.values = sortedDistinct(values);
    axis.powersOfTwo =
        !axis.values.isEmpty() && std::all_of(axis.values.begin(), axis.values.end(), isPowerOfTwo);
    return axis;
}

} // namespace

bool isPowerOfTwo(double value) {
    if (!(value > 0) || !std::isfinite(value))
        return false;
    int exponent = 0;
    return std::frexp(value, &exponent) == 0.5;
}

double parameterValue(const SweepRecord& record, const QString& name) {
    const qsizetype i = record.names.indexOf(name);
    return i >= 0 && i < record.values.size() ? record.values.at(i) : std::nan("");
}

QVector<SweepChartAxis> varyingParameters(const SweepSpec& spec,
                                          const QVector<SweepRecord>& records) {
    QVector<SweepChartAxis> out;
    if (!spec.isEmpty()) {
        for (const SweepTunable& tunable : spec.tunables) {
            const QVector<double> values = tunable.values.expand();
            SweepChartAxis axis = axisOf(tunable.name, values);
            if (axis.values.size() > 1)
                out.append(axis);
        }
        return out;
    }
    QStringList names;
    for (const SweepRecord& record : records)
        for (const QString& name : record.names)
            if (!names.contains(name))
                names.append(name);
    for (const QString& name : names) {
        QVector<double> values;
        values.reserve(records.size());
        for (const SweepRecord& record : records)
            values.append(parameterValue(record, name));
        SweepChartAxis axis = axisOf(name, values);
        if (axis.values.size() > 1)
            out.append(axis);
    }
    return out;
}

bool isSizeSweep(const SweepSpec& spec, const QVector<SweepChartAxis>& varying) {
    if (varying.size() != 1 || !varying.first().powersOfTwo)
        return false;
    const SweepTunable* tunable = spec.find(varying.first().name);
    if (tunable)
        return tunable->role == SweepTunable::Role::Scalar || tunable->name == QLatin1String("n");
    return varying.first().name == QLatin1String("n");
}

double objectiveValue(const SweepRecord& record, SweepObjective objective) {
    if (!record.passed())
        return std::nan("");
    const double v = objective == SweepObjective::Time        ? record.medianMs
                     : objective == SweepObjective::Bandwidth ? record.bandwidthGBs
                     : objective == SweepObjective::Baseline  ? record.baselineRatio
                     : objective == SweepObjective::Energy    ? record.energyJ * 1e3
                                                              : record.score(objective);
    return std::isfinite(v) && v > 0 ? v : std::nan("");
}

QVector<SweepRecord> sliceThroughBest(const QVector<SweepRecord>& records,
                                      const QVector<SweepChartAxis>& varying,
                                      const QStringList& plotted,
                                      const std::optional<SweepRecord>& best) {
    if (!best)
        return records;
    QStringList fixed;
    QVector<double> bestValues;
    for (const SweepChartAxis& axis : varying) {
        if (plotted.contains(axis.name))
            continue;
        fixed.append(axis.name);
        bestValues.append(parameterValue(*best, axis.name));
    }
    if (fixed.isEmpty())
        return records;
    QVector<SweepRecord> out;
    for (const SweepRecord& record : records) {
        bool inSlice = true;
        for (qsizetype i = 0; i < fixed.size() && inSlice; ++i)
            inSlice = parameterValue(record, fixed.at(i)) == bestValues.at(i);
        if (inSlice)
            out.append(record);
    }
    return out;
}

QString fixedParametersText(const QVector<SweepChartAxis>& varying, const QStringList& plotted,
                            const std::optional<SweepRecord>& best) {
    if (!best)
        return QString();
    QStringList parts;
    for (const SweepChartAxis& axis : varying)
        if (!plotted.contains(axis.name))
            parts.append(QStringLiteral("%1 = %2").arg(
                axis.name, SweepSpace::formatValue(parameterValue(*best, axis.name))));
    return parts.join(QStringLiteral(", "));
}

QString objectiveText(double value, SweepObjective objective) {
    if (!std::isfinite(value))
        return QStringLiteral("–");
    if (objective == SweepObjective::Bandwidth)
        return QStringLiteral("%1 GB/s").arg(value, 0, 'f', value < 10 ? 2 : 0);
    if (objective == SweepObjective::Baseline)
        return sweepChartTr("%1 the baseline").arg(formatRatio(value));
    return QStringLiteral("%1 ms").arg(value, 0, 'g', 4);
}

QString objectiveTitle(SweepObjective objective) {
    if (objective == SweepObjective::Baseline)
        return sweepChartTr("Ratio to the baseline (its time over the kernel's)");
    if (objective == SweepObjective::Energy)
        return sweepChartTr("Energy per launch (mJ)");
    if (objective == SweepObjective::Edp)
        return sweepChartTr("Energy x time (J s)");
    return objective == SweepObjective::Bandwidth ? sweepChartTr("Bandwidth (GB/s)")
                                                  : sweepChartTr("Median time (ms)");
}

QString ceilingLabel(double gigabytesPerSecond) {
    if (gigabytesPerSecond >= kTeraInGiga)
        return sweepChartTr("copy ceiling %1 TB/s")
            .arg(gigabytesPerSecond / kTeraInGiga, 0, 'f', 1);
    return sweepChartTr("copy ceiling %1 GB/s").arg(gigabytesPerSecond, 0, 'f', 0);
}

QString recordToolTip(const SweepRecord& record) {
    QString text = record.key;
    if (!record.passed()) {
        text +=
            QLatin1Char('\n') + sweepChartTr("failed (%1): %2").arg(record.status, record.error);
        return text;
    }
    text += QLatin1Char('\n') + sweepChartTr("median %1, min %2")
                                    .arg(objectiveText(record.medianMs, SweepObjective::Time),
                                         objectiveText(record.minMs, SweepObjective::Time));
    if (std::isfinite(record.bandwidthGBs))
        text += QLatin1Char('\n') + objectiveText(record.bandwidthGBs, SweepObjective::Bandwidth);
    if (!record.device.isEmpty())
        text += QLatin1Char('\n') + record.device;
    return text;
}

} // namespace kernelpad
