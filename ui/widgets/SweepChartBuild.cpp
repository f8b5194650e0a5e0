// SweepChart's drawings: the series and axes of the line, size-sweep and bar modes (Qt
// Charts), and the heat map's data. Each is rebuilt from the records in one pass.

#include "ui/widgets/SweepChart.h"

#include "ui/widgets/SweepHeatMap.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

/// Axis labels stay readable with this many ticks at most: a wider span of powers of two
/// takes every second (or fourth) power.
constexpr int kMaxTicks = 10;
/// Up to this value a power-of-two axis labels its values as numbers ("1024"); beyond it as
/// powers ("2^20"), which "1.04858e+06" would not be.
constexpr double kPlainLabelMax = 65536;
/// Room around the outermost points: a factor on log axes, a share of the span on linear ones.
constexpr double kLogPad = 1.4;
constexpr double kLinearPad = 0.05;
/// Headroom above the highest value on a linear objective axis.
constexpr double kHeadroom = 1.1;
constexpr int kBestBars = 10;
/// Significant digits of a bar's label: "1.601", not "1.60125".
constexpr int kBarLabelDigits = 4;
constexpr qreal kPointSize = 8.0;
constexpr qreal kBestPointSize = 14.0;
constexpr qreal kFailurePointSize = 9.0;
const QColor kFailureColour(0xd3, 0x2f, 0x2f);
const QColor kBestColour(0xf5, 0xa6, 0x23);
const QColor kCeilingColour(0xe6, 0x7e, 0x22);
const QColor kTimeColour(0x15, 0x65, 0xc0);
const QColor kBandwidthColour(0x2e, 0x7d, 0x32);

double decadeBelow(double v) {
    return std::pow(10.0, std::floor(std::log10(v)));
}

double decadeAbove(double v) {
    const double up = std::pow(10.0, std::ceil(std::log10(v)));
    return up > v ? up : up * 10;
}

void hideLegendMarker(QChart* chart, QAbstractSeries* series) {
    for (QLegendMarker* marker : chart->legend()->markers(series))
        marker->setVisible(false);
}

} // namespace

double SweepChart::ParameterAxis::x(double value) const {
    return log2Units ? std::log2(value) : value;
}

int SweepChart::failures(const QVector<SweepRecord>& records) {
    return int(std::count_if(records.begin(), records.end(),
                             [](const SweepRecord& r) { return !r.passed(); }));
}

void SweepChart::resetChart() {
    m_marks.clear();
    m_barKeys.clear();
    m_chart->removeAllSeries();
    const QList<QAbstractAxis*> axes = m_chart->axes();
    for (QAbstractAxis* axis : axes) {
        m_chart->removeAxis(axis);
        delete axis;
    }
    m_chart->legend()->setVisible(true);
}

void SweepChart::addSeries(QAbstractSeries* series, QAbstractAxis* x, QAbstractAxis* y) {
    m_chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
}

SweepChart::ParameterAxis SweepChart::parameterAxis(const SweepChartAxis& axis) {
    ParameterAxis out;
    const double lo = axis.values.first();
    const double hi = axis.values.last();
    if (axis.powersOfTwo) {
        const int powers = int(std::lround(std::log2(hi / lo)));
        const int step = std::max(1, (powers + kMaxTicks - 1) / kMaxTicks);
        if (hi <= kPlainLabelMax) {
            auto* log = new QLogValueAxis;
            log->setBase(std::pow(2.0, step));
            log->setLabelFormat(QStringLiteral("%g"));
            log->setMinorTickCount(step - 1);
            log->setTitleText(tr("%1 (log scale)").arg(axis.name));
            out.min = lo / kLogPad;
            out.max = hi * kLogPad;
            log->setRange(out.min, out.max);
            out.axis = log;
        } else {
            auto* linear = new QValueAxis;
            linear->setLabelFormat(QStringLiteral("2^%.0f"));
            linear->setTickType(QValueAxis::TicksDynamic);
            linear->setTickAnchor(0);
            linear->setTickInterval(step);
            linear->setTitleText(tr("%1 (log scale)").arg(axis.name));
            out.log2Units = true;
            out.min = std::log2(lo) - 0.5;
            out.max = std::log2(hi) + 0.5;
            linear->setRange(out.min, out.max);
            out.axis = linear;
        }
    } else {
        auto* linear = new QValueAxis;
        linear->setLabelFormat(QStringLiteral("%g"));
        linear->setTitleText(axis.name);
        const double pad = hi > lo ? (hi - lo) * kLinearPad : std::max(1.0, std::abs(lo));
        out.min = lo - pad;
        out.max = hi + pad;
        linear->setRange(out.min, out.max);
        out.axis = linear;
    }
    m_chart->addAxis(out.axis, Qt::AlignBottom);
    return out;
}

void SweepChart::addCeiling(double xMin, double xMax, double xLabel, QAbstractAxis* x,
                            QAbstractAxis* y) {
    const double ceiling = *m_ceilingGBs;
    auto* line = new QLineSeries;
    line->setObjectName(QStringLiteral("sweepCeiling"));
    line->setName(ceilingLabel(ceiling));
    QPen pen(kCeilingColour, 2);
    pen.setStyle(Qt::DashLine);
    line->setPen(pen);
    line->append(xMin, ceiling);
    line->append(xMax, ceiling);
    addSeries(line, x, y);
    // The label sits on the line itself, so it reads without the legend.
    auto* label = new QScatterSeries;
    label->setObjectName(QStringLiteral("sweepCeilingLabel"));
    label->setMarkerSize(1);
    label->setColor(Qt::transparent);
    label->setBorderColor(Qt::transparent);
    label->setPointLabelsFormat(ceilingLabel(ceiling));
    label->setPointLabelsColor(kCeilingColour);
    label->setPointLabelsVisible(true);
    label->setPointLabelsClipping(false);
    label->append(xLabel, ceiling);
    addSeries(label, x, y);
    hideLegendMarker(m_chart, label);
}

void SweepChart::buildLine() {
    const SweepChartAxis& axis = m_varying.first();
    const SweepObjective objective = m_spec.objective;
    const QVector<SweepRecord> slice = sliceThroughBest(m_records, m_varying, {axis.name}, m_best);
    struct Point {
        double x, y;
        int record;
    };
    QVector<Point> points, failed;
    double yMax = 0;
    for (const SweepRecord& record : slice) {
        const double x = parameterValue(record, axis.name);
        if (!std::isfinite(x))
            continue;
        const double v = objectiveValue(record, objective);
        if (std::isfinite(v)) {
            points.append({x, v, m_indexOfKey.value(record.key)});
            yMax = std::max(yMax, v);
        } else if (!record.passed()) {
            failed.append({x, 0, m_indexOfKey.value(record.key)});
        }
    }
    std::sort(points.begin(), points.end(),
              [](const Point& a, const Point& b) { return a.x < b.x; });
    const bool ceiling = objective == SweepObjective::Bandwidth && m_ceilingGBs;
    if (ceiling)
        yMax = std::max(yMax, *m_ceilingGBs);

    const ParameterAxis x = parameterAxis(axis);
    auto* y = new QValueAxis;
    y->setTitleText(objectiveTitle(objective));
    y->setLabelFormat(QStringLiteral("%g"));
    y->setRange(0, yMax > 0 ? yMax * kHeadroom : 1);
    y->applyNiceNumbers();
    m_chart->addAxis(y, Qt::AlignLeft);

    auto* line = new QLineSeries;
    line->setObjectName(QStringLiteral("sweepValues"));
    line->setName(objectiveTitle(objective));
    line->setPointsVisible(true);
    line->setMarkerSize(kPointSize);
    line->setColor(kTimeColour);
    QList<QPointF> values;
    values.reserve(points.size());
    for (const Point& p : points) {
        values.append(QPointF(x.x(p.x), p.y));
        m_marks.append({p.record, values.last(), line, false});
    }
    line->replace(values);
    addSeries(line, x.axis, y);

    if (m_best) {
        auto* best = new QScatterSeries;
        best->setObjectName(QStringLiteral("sweepBest"));
        best->setName(tr("best: %1").arg(m_best->key));
        best->setMarkerSize(kBestPointSize);
        best->setColor(kBestColour);
        best->append(x.x(parameterValue(*m_best, axis.name)), objectiveValue(*m_best, objective));
        addSeries(best, x.axis, y);
    }
    QVector<std::pair<int, double>> failures;
    for (const Point& p : failed)
        failures.append({p.record, p.x});
    addFailureMarks(failures, x, y, y->min());
    if (ceiling)
        addCeiling(x.min, x.max, x.min + (x.max - x.min) * 0.25, x.axis, y);

    QString title = tr("%1 against %2").arg(objectiveTitle(objective), axis.name);
    const QString fixed = fixedParametersText(m_varying, {axis.name}, m_best);
    if (!fixed.isEmpty())
        title += tr(", with %1 as in the best").arg(fixed);
    if (!failed.isEmpty())
        title += tr("; %1 failed, marked on the axis").arg(failed.size());
    m_title->setText(title);
}

void SweepChart::addFailureMarks(const QVector<std::pair<int, double>>& failed,
                                 const ParameterAxis& x, QAbstractAxis* y, double yOnAxis) {
    if (failed.isEmpty())
        return;
    // On the axis, not at a value: a failure has no time, and its reason is its tooltip.
    auto* marks = new QScatterSeries;
    marks->setObjectName(QStringLiteral("sweepFailures"));
    marks->setName(tr("failed (%1), reason on hover").arg(failed.size()));
    marks->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    marks->setMarkerSize(kFailurePointSize);
    marks->setColor(kFailureColour);
    for (const auto& [record, value] : failed) {
        const QPointF at(x.x(value), yOnAxis);
        marks->append(at);
        m_marks.append({record, at, marks, false});
    }
    addSeries(marks, x.axis, y);
}

void SweepChart::buildSizes() {
    const SweepChartAxis& axis = m_varying.first();
    const QVector<SweepRecord> slice = sliceThroughBest(m_records, m_varying, {axis.name}, m_best);
    struct Point {
        double n, ms, gbs;
        int record;
    };
    QVector<Point> points, failed;
    double msLow = 0, msHigh = 0, gbsLow = 0, gbsHigh = 0;
    auto widen = [](double* low, double* high, double v) {
        if (!(v > 0) || !std::isfinite(v))
            return;
        *low = *low > 0 ? std::min(*low, v) : v;
        *high = std::max(*high, v);
    };
    for (const SweepRecord& record : slice) {
        const double n = parameterValue(record, axis.name);
        if (!(n > 0))
            continue;
        const int index = m_indexOfKey.value(record.key);
        if (!record.passed()) {
            failed.append({n, 0, 0, index});
            continue;
        }
        points.append({n, record.medianMs, record.bandwidthGBs, index});
        widen(&msLow, &msHigh, record.medianMs);
        widen(&gbsLow, &gbsHigh, record.bandwidthGBs);
    }
    std::sort(points.begin(), points.end(),
              [](const Point& a, const Point& b) { return a.n < b.n; });
    if (m_ceilingGBs)
        widen(&gbsLow, &gbsHigh, *m_ceilingGBs);
    if (msHigh <= 0)
        msLow = msHigh = 1;
    if (gbsHigh <= 0)
        gbsLow = gbsHigh = 1;

    const ParameterAxis x = parameterAxis(axis);
    auto* time = new QLogValueAxis;
    time->setBase(10);
    time->setLabelFormat(QStringLiteral("%g"));
    time->setTitleText(objectiveTitle(SweepObjective::Time));
    time->setRange(decadeBelow(msLow), decadeAbove(msHigh));
    time->setLinePenColor(kTimeColour);
    time->setLabelsColor(kTimeColour);
    m_chart->addAxis(time, Qt::AlignLeft);
    auto* bandwidth = new QLogValueAxis;
    bandwidth->setBase(10);
    bandwidth->setLabelFormat(QStringLiteral("%g"));
    bandwidth->setTitleText(objectiveTitle(SweepObjective::Bandwidth));
    bandwidth->setRange(decadeBelow(gbsLow), decadeAbove(gbsHigh));
    bandwidth->setLinePenColor(kBandwidthColour);
    bandwidth->setLabelsColor(kBandwidthColour);
    m_chart->addAxis(bandwidth, Qt::AlignRight);

    auto* timeLine = new QLineSeries;
    timeLine->setObjectName(QStringLiteral("sweepTime"));
    timeLine->setName(tr("median time (ms, left)"));
    timeLine->setPointsVisible(true);
    timeLine->setMarkerSize(kPointSize);
    timeLine->setColor(kTimeColour);
    auto* gbsLine = new QLineSeries;
    gbsLine->setObjectName(QStringLiteral("sweepBandwidth"));
    gbsLine->setName(tr("GB/s (right)"));
    gbsLine->setPointsVisible(true);
    gbsLine->setMarkerSize(kPointSize);
    gbsLine->setColor(kBandwidthColour);
    QList<QPointF> times, rates;
    for (const Point& p : points) {
        if (p.ms > 0 && std::isfinite(p.ms)) {
            times.append(QPointF(x.x(p.n), p.ms));
            m_marks.append({p.record, times.last(), timeLine, false});
        }
        if (p.gbs > 0 && std::isfinite(p.gbs)) {
            rates.append(QPointF(x.x(p.n), p.gbs));
            m_marks.append({p.record, rates.last(), gbsLine, false});
        }
    }
    timeLine->replace(times);
    gbsLine->replace(rates);
    addSeries(timeLine, x.axis, time);
    addSeries(gbsLine, x.axis, bandwidth);
    QVector<std::pair<int, double>> failures;
    for (const Point& p : failed)
        failures.append({p.record, p.n});
    addFailureMarks(failures, x, time, time->min());
    if (m_ceilingGBs) {
        // On a log2-unit axis the label's x is linear in the exponent; on a log axis, the
        // geometric point a quarter of the way along.
        const double quarter = x.log2Units || !axis.powersOfTwo
                                   ? x.min + (x.max - x.min) * 0.25
                                   : x.min * std::pow(x.max / x.min, 0.25);
        addCeiling(x.min, x.max, quarter, x.axis, bandwidth);
    }
    QString title = tr("Time and GB/s against %1 (log axes): flat time is launch-bound, GB/s "
                       "near the copy ceiling is bandwidth-bound")
                        .arg(axis.name);
    if (!failed.isEmpty())
        title += tr("; %1 failed, marked on the axis").arg(failed.size());
    m_title->setText(title);
}

void SweepChart::buildBars() {
    const SweepObjective objective = m_spec.objective;
    const QVector<SweepRecord> sorted = sortedRecords(m_records, objective);
    QVector<const SweepRecord*> best;
    for (const SweepRecord& record : sorted) {
        if (best.size() == kBestBars)
            break;
        if (std::isfinite(objectiveValue(record, objective)))
            best.append(&record);
    }
    // Categories run from the bottom up: the best is the last, at the top.
    auto* set = new QBarSet(objectiveTitle(objective));
    set->setColor(kTimeColour);
    QStringList categories;
    double high = 0;
    for (qsizetype i = best.size() - 1; i >= 0; --i) {
        const double v = objectiveValue(*best.at(i), objective);
        set->append(v);
        categories.append(best.at(i)->key);
        high = std::max(high, v);
    }
    for (const SweepRecord* record : best)
        m_barKeys.append(record->key);

    auto* value = new QValueAxis;
    value->setTitleText(objectiveTitle(objective));
    value->setLabelFormat(QStringLiteral("%g"));
    value->setRange(0, high > 0 ? high * kHeadroom : 1);
    value->applyNiceNumbers();
    m_chart->addAxis(value, Qt::AlignBottom);
    auto* keys = new QBarCategoryAxis;
    keys->append(categories);
    m_chart->addAxis(keys, Qt::AlignLeft);
    auto* bars = new QHorizontalBarSeries;
    bars->setObjectName(QStringLiteral("sweepBars"));
    bars->append(set);
    bars->setLabelsVisible(true);
    bars->setLabelsPosition(QAbstractBarSeries::LabelsInsideEnd);
    bars->setLabelsFormat(QStringLiteral("@value"));
    bars->setLabelsPrecision(kBarLabelDigits);
    addSeries(bars, value, keys);
    for (int j = 0; j < categories.size(); ++j)
        m_marks.append({m_indexOfKey.value(categories.at(j)), QPointF(set->at(j), j), bars, true});
    m_chart->legend()->setVisible(false);

    const int failedCount = failures(m_records);
    QString title = tr("The %1 best of %2 configurations by %3")
                        .arg(best.size())
                        .arg(m_records.size())
                        .arg(objectiveTitle(objective).toLower());
    if (failedCount > 0)
        title += tr("; %1 failed, listed in the table").arg(failedCount);
    m_title->setText(title);
}

void SweepChart::buildHeatMap() {
    const SweepChartAxis& columns = m_varying.at(0);
    const SweepChartAxis& rows = m_varying.at(1);
    const QStringList plotted{columns.name, rows.name};
    const QVector<SweepRecord> slice = sliceThroughBest(m_records, m_varying, plotted, m_best);
    m_heatMap->setData(columns, rows, slice, m_spec.objective, m_best ? m_best->key : QString());
    QString title = tr("%1 over %2 × %3; brighter is better, the best outlined")
                        .arg(objectiveTitle(m_spec.objective), columns.name, rows.name);
    const QString fixed = fixedParametersText(m_varying, plotted, m_best);
    if (!fixed.isEmpty())
        title += tr(", with %1 as in the best").arg(fixed);
    const int failedCount = failures(slice);
    if (failedCount > 0)
        title += tr("; %1 failed, hatched").arg(failedCount);
    m_title->setText(title);
}

} // namespace kernelpad
