#include "ui/widgets/TimingChartView.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCandlestickSeries>
#include <QCandlestickSet>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QCursor>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

/// What the Mode figure means; `blocking`: the samples were queued behind the blocking kernel.
QString modeToolTip(bool blocking) {
    QString text = QCoreApplication::translate(
        "kernelpad::TimingChartView",
        "hot: back-to-back launches, caches warm; cold: L2 flushed before every timed launch");
    if (blocking)
        text += QCoreApplication::translate(
            "kernelpad::TimingChartView",
            "\nblocking kernel: each chunk of samples waited behind a kernel until the host had "
            "queued all of it, then ran back to back on the GPU, so the times are the GPU's alone");
    return text;
}

/// About 20 bins: enough to show two modes, few enough that each holds several samples.
constexpr int kHistogramBins = 20;
/// Space above and below the data so points on the extremes stay visible.
constexpr double kAxisMargin = 0.05;

/// The unit whose values for `ms` read best: µs below 1 ms, s from 1000 ms.
std::pair<QString, double> unitFor(double ms) {
    if (ms >= 1000.0)
        return {QStringLiteral("s"), 1000.0};
    if (ms < 1.0)
        return {QStringLiteral("µs"), 0.001};
    return {QStringLiteral("ms"), 1.0};
}

QString formatMs(double ms) {
    const auto [unit, unitMs] = unitFor(ms);
    return QStringLiteral("%1 %2").arg(QString::number(ms / unitMs, 'f', 3), unit);
}

QChartView* makeChartView(QWidget* parent, QChart* chart) {
    chart->setAnimationOptions(QChart::NoAnimation); // redraws must keep up with Run
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(280, 200);
    return view;
}

void setPaddedRange(QValueAxis* axis, double low, double high) {
    if (!(high > low)) {
        const double pad = low != 0 ? std::abs(low) * 0.1 : 1.0;
        low -= pad;
        high += pad;
    }
    const double pad = (high - low) * kAxisMargin;
    axis->setRange(std::max(0.0, low - pad), high + pad);
}

} // namespace

TimingChartView::TimingChartView(QWidget* parent)
    : QWidget(parent) {
    m_stack = new QStackedWidget(this);
    m_charts = new QWidget(m_stack);
    // Empty charts would show axes of "0 0 0 0 1" (issue 11): say what a run will show.
    m_emptyState =
        new QLabel(tr("No timings yet. After a run, this tab shows the time of every "
                      "repetition, a histogram of them and one point per run of the session, "
                      "with the median, min, max, noise, bandwidth and GFLOP/s beside them."),
                   m_stack);
    m_emptyState->setObjectName(QStringLiteral("timingEmptyState"));
    m_emptyState->setWordWrap(true);
    m_emptyState->setAlignment(Qt::AlignCenter);
    m_emptyState->setMargin(12);
    m_stack->addWidget(m_emptyState);
    m_stack->addWidget(m_charts);
    m_tabs = new QTabWidget(m_charts);
    buildRepetitionChart();
    buildHistogramChart();
    buildHistoryChart();
    m_tabs->addTab(m_repView, tr("Repetitions"));
    m_tabs->addTab(m_histView, tr("Histogram"));
    m_tabs->addTab(m_historyView, tr("Session history"));

    m_summary = new QWidget(m_charts);
    auto* form = new QFormLayout(m_summary);
    const QList<QPair<QString, QString>> rows{
        {QStringLiteral("mode"), tr("Mode")},
        {QStringLiteral("stop"), tr("Stopped by")},
        {QStringLiteral("reps"), tr("Repetitions")},
        {QStringLiteral("median"), tr("Median")},
        {QStringLiteral("min"), tr("Min")},
        {QStringLiteral("max"), tr("Max")},
        {QStringLiteral("noise"), tr("Noise")},
        {QStringLiteral("bandwidth"), tr("Bandwidth")},
        {QStringLiteral("peak"), tr("Of peak")},
        {QStringLiteral("ceiling"), tr("Of copy ceiling")},
        {QStringLiteral("gflops"), tr("GFLOP/s")},
    };
    for (const auto& [key, label] : rows) {
        auto* value = new QLabel(QStringLiteral("—"), m_summary);
        value->setObjectName(key);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        form->addRow(label, value);
        m_summaryValues.insert(key, value);
    }
    m_summaryValues.value(QStringLiteral("mode"))->setToolTip(modeToolTip(false));
    m_summaryValues.value(QStringLiteral("stop"))
        ->setToolTip(tr("Why the measurement took as many repetitions as it did"));
    m_summaryValues.value(QStringLiteral("noise"))
        ->setToolTip(tr("Sample standard deviation over the mean of the repetitions"));
    // Throttled samples make every figure above pessimistic: say so where the numbers are.
    m_throttleNote = new QLabel(m_summary);
    m_throttleNote->setObjectName(QStringLiteral("throttleNote"));
    m_throttleNote->setWordWrap(true);
    m_throttleNote->setStyleSheet(QStringLiteral("color: #c62828; font-weight: bold;"));
    m_throttleNote->hide();
    form->addRow(m_throttleNote);
    m_summaryValues.value(QStringLiteral("bandwidth"))
        ->setToolTip(tr("Bytes moved per launch over the median time"));

    auto* chartsLayout = new QHBoxLayout(m_charts);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    chartsLayout->addWidget(m_tabs, 1);
    chartsLayout->addWidget(m_summary);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_stack);
    updateSummary(TimingStats{});
    updateEmptyState();
}

bool TimingChartView::showsCharts() const {
    return m_stack->currentWidget() == m_charts;
}

void TimingChartView::updateEmptyState() {
    const bool charts = !m_last.timesMs.isEmpty() || !m_history.isEmpty();
    m_stack->setCurrentWidget(charts ? m_charts : static_cast<QWidget*>(m_emptyState));
}

void TimingChartView::buildRepetitionChart() {
    auto* chart = new QChart;
    chart->setTitle(tr("Time of every repetition"));
    m_repLine = new QLineSeries(chart);
    m_repLine->setName(tr("repetition"));
    m_repPoints = new QScatterSeries(chart);
    m_repPoints->setMarkerSize(6);
    m_repPoints->setName(tr("samples"));
    m_repPoints->setObjectName(QStringLiteral("repetitionPoints"));
    m_medianLine = new QLineSeries(chart);
    m_medianLine->setObjectName(QStringLiteral("medianLine"));
    m_medianLine->setName(tr("median"));
    QPen medianPen(QColor(198, 40, 40));
    medianPen.setStyle(Qt::DashLine);
    medianPen.setWidth(2);
    m_medianLine->setPen(medianPen);
    m_repX = new QValueAxis(chart);
    m_repX->setTitleText(tr("repetition"));
    m_repX->setLabelFormat(QStringLiteral("%d"));
    m_repY = new QValueAxis(chart);
    chart->addAxis(m_repX, Qt::AlignBottom);
    chart->addAxis(m_repY, Qt::AlignLeft);
    for (QXYSeries* s : {static_cast<QXYSeries*>(m_repLine), static_cast<QXYSeries*>(m_repPoints),
                         static_cast<QXYSeries*>(m_medianLine)}) {
        chart->addSeries(s);
        s->attachAxis(m_repX);
        s->attachAxis(m_repY);
    }
    chart->legend()->markers(m_repPoints).first()->setVisible(false);
    connect(m_repPoints, &QScatterSeries::hovered, this, [this](const QPointF& p, bool state) {
        if (!state)
            return QToolTip::hideText();
        QToolTip::showText(
            QCursor::pos(),
            tr("repetition %1: %2").arg(qRound(p.x())).arg(formatMs(p.y() * m_unitMs)));
    });
    m_repView = makeChartView(this, chart);
}

void TimingChartView::buildHistogramChart() {
    auto* chart = new QChart;
    chart->setTitle(tr("Distribution of the repetition times"));
    m_histSeries = new QBarSeries(chart);
    m_histSeries->setBarWidth(1.0); // adjacent bins, as a histogram should look
    chart->addSeries(m_histSeries);
    m_histX = new QBarCategoryAxis(chart);
    m_histY = new QValueAxis(chart);
    m_histY->setTitleText(tr("repetitions"));
    m_histY->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(m_histX, Qt::AlignBottom);
    chart->addAxis(m_histY, Qt::AlignLeft);
    m_histSeries->attachAxis(m_histX);
    m_histSeries->attachAxis(m_histY);
    chart->legend()->hide();
    m_histView = makeChartView(this, chart);
}

void TimingChartView::buildHistoryChart() {
    auto* chart = new QChart;
    chart->setTitle(tr("Median of every run this session (bars: min to max)"));
    m_historyRange = new QCandlestickSeries(chart);
    m_historyRange->setName(tr("min–max"));
    m_historyRange->setBodyOutlineVisible(true);
    m_historyRange->setBodyWidth(0.3);
    m_historyRange->setIncreasingColor(QColor(120, 144, 156));
    m_historyRange->setDecreasingColor(QColor(120, 144, 156));
    m_historyLine = new QLineSeries(chart);
    m_historyLine->setName(tr("median"));
    m_historyPoints = new QScatterSeries(chart);
    m_historyPoints->setObjectName(QStringLiteral("historyPoints"));
    m_historyPoints->setMarkerSize(9);
    m_historyPoints->setName(tr("run"));
    m_historyX = new QValueAxis(chart);
    m_historyX->setTitleText(tr("run"));
    m_historyX->setLabelFormat(QStringLiteral("%d"));
    m_historyY = new QValueAxis(chart);
    chart->addAxis(m_historyX, Qt::AlignBottom);
    chart->addAxis(m_historyY, Qt::AlignLeft);
    chart->addSeries(m_historyRange);
    chart->addSeries(m_historyLine);
    chart->addSeries(m_historyPoints);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(m_historyRange),
                               static_cast<QAbstractSeries*>(m_historyLine),
                               static_cast<QAbstractSeries*>(m_historyPoints)}) {
        s->attachAxis(m_historyX);
        s->attachAxis(m_historyY);
    }
    connect(m_historyPoints, &QScatterSeries::hovered, this, [this](const QPointF& p, bool state) {
        const int run = qRound(p.x()) - 1;
        if (!state || run < 0 || run >= m_history.size())
            return QToolTip::hideText();
        const TimingHistoryPoint& h = m_history.at(run);
        QString text = tr("Run %1: median %2 (min %3, max %4)")
                           .arg(run + 1)
                           .arg(formatMs(h.medianMs), formatMs(h.minMs), formatMs(h.maxMs));
        if (run > 0 && m_history.at(run - 1).medianMs > 0) {
            const double change = h.medianMs / m_history.at(run - 1).medianMs - 1.0;
            text += tr("\n%1%2 % against run %3")
                        .arg(change >= 0 ? QStringLiteral("+") : QString())
                        .arg(change * 100.0, 0, 'f', 1)
                        .arg(run);
        }
        if (!h.whatChanged.isEmpty())
            text += tr("\nChanged: %1").arg(h.whatChanged);
        if (!h.verified)
            text += tr("\nVerification failed");
        QToolTip::showText(QCursor::pos(), text);
    });
    m_historyView = makeChartView(this, chart);
}

void TimingChartView::showRun(const RunResult& result, const QString& whatChanged) {
    m_last = result.timing;
    updateRepetitions(m_last);
    updateHistogram(m_last);
    updateSummary(m_last);
    if (!m_last.timesMs.isEmpty()) { // a run that never launched has nothing to compare
        m_history.append(
            {m_last.medianMs, m_last.minMs, m_last.maxMs, whatChanged, result.verified()});
        updateHistory();
    }
    updateEmptyState();
}

void TimingChartView::clearHistory() {
    m_history.clear();
    updateHistory();
    updateEmptyState();
}

void TimingChartView::setPeakBandwidthGBs(double gbs) {
    m_peakGBs = gbs > 0 ? gbs : 0;
    updateSummary(m_last);
}

void TimingChartView::updateRepetitions(const TimingStats& stats) {
    std::tie(m_unit, m_unitMs) = unitFor(stats.medianMs > 0 ? stats.medianMs : 1.0);
    QList<QPointF> points;
    points.reserve(stats.timesMs.size());
    for (int i = 0; i < stats.timesMs.size(); ++i)
        points.append(QPointF(i + 1, stats.timesMs.at(i) / m_unitMs));
    m_repLine->replace(points);
    m_repPoints->replace(points);
    const int n = int(points.size());
    if (n == 0) {
        m_medianLine->clear();
        m_repX->setRange(0, 1);
        m_repY->setRange(0, 1);
    } else {
        const double median = stats.medianMs / m_unitMs;
        m_medianLine->replace(QList<QPointF>{{1.0, median}, {double(std::max(n, 2)), median}});
        m_repX->setRange(1, std::max(n, 2));
        setPaddedRange(m_repY, stats.minMs / m_unitMs, stats.maxMs / m_unitMs);
    }
    m_medianLine->setName(n ? tr("median %1").arg(formatMs(stats.medianMs)) : tr("median"));
    m_repY->setTitleText(m_unit);
    m_repX->setTickCount(std::clamp(n, 2, 11));
}

void TimingChartView::updateHistogram(const TimingStats& stats) {
    m_histSeries->clear();
    m_histX->clear();
    if (stats.timesMs.isEmpty()) {
        m_histY->setRange(0, 1);
        return;
    }
    const int bins =
        stats.maxMs > stats.minMs ? std::min<int>(kHistogramBins, int(stats.timesMs.size())) : 1;
    const double width = bins > 1 ? (stats.maxMs - stats.minMs) / bins : 1.0;
    QVector<int> counts(bins, 0);
    for (double t : stats.timesMs) {
        const int bin = bins > 1 ? std::clamp(int((t - stats.minMs) / width), 0, bins - 1) : 0;
        ++counts[bin];
    }
    auto* set = new QBarSet(tr("repetitions"));
    QStringList labels;
    for (int b = 0; b < bins; ++b) {
        *set << counts.at(b);
        const double center = bins > 1 ? stats.minMs + (b + 0.5) * width : stats.minMs;
        labels << QString::number(center / m_unitMs, 'g', 4);
    }
    m_histSeries->append(set);
    m_histX->append(labels);
    m_histX->setTitleText(tr("time (%1), bin centres").arg(m_unit));
    m_histY->setRange(0, *std::max_element(counts.cbegin(), counts.cend()) + 1);
}

void TimingChartView::updateHistory() {
    m_historyRange->clear();
    double top = 0;
    for (const TimingHistoryPoint& h : std::as_const(m_history))
        top = std::max(top, h.medianMs);
    std::tie(m_historyUnit, m_historyUnitMs) = unitFor(top > 0 ? top : 1.0);
    QList<QPointF> points;
    double low = 0, high = 0;
    for (int i = 0; i < m_history.size(); ++i) {
        const TimingHistoryPoint& h = m_history.at(i);
        const double median = h.medianMs / m_historyUnitMs;
        points.append(QPointF(i + 1, median));
        // A flat body at the median with whiskers to min and max: an error bar.
        m_historyRange->append(new QCandlestickSet(median, h.maxMs / m_historyUnitMs,
                                                   h.minMs / m_historyUnitMs, median, i + 1));
        low = i == 0 ? h.minMs : std::min(low, h.minMs);
        high = std::max(high, h.maxMs);
    }
    m_historyLine->replace(points);
    m_historyPoints->replace(points);
    const int n = int(m_history.size());
    m_historyX->setRange(0.5, std::max(n, 1) + 0.5);
    m_historyX->setTickCount(std::clamp(n + 1, 2, 11));
    if (n == 0)
        m_historyY->setRange(0, 1);
    else
        setPaddedRange(m_historyY, low / m_historyUnitMs, high / m_historyUnitMs);
    m_historyY->setTitleText(m_historyUnit);
}

void TimingChartView::updateSummary(const TimingStats& stats) {
    const bool has = !stats.timesMs.isEmpty();
    const QString none = QStringLiteral("—");
    auto set = [this](const QString& key, const QString& text) {
        m_summaryValues.value(key)->setText(text);
    };
    set(QStringLiteral("mode"),
        has && !stats.mode.isEmpty()
            ? (stats.blockingKernel ? tr("%1, blocking kernel").arg(stats.mode) : stats.mode)
            : none);
    m_summaryValues.value(QStringLiteral("mode"))
        ->setToolTip(modeToolTip(has && stats.blockingKernel));
    set(QStringLiteral("stop"), has && !stats.stopReason.isEmpty() ? stats.stopReason : none);
    set(QStringLiteral("reps"), has ? QString::number(stats.reps()) : none);
    set(QStringLiteral("median"), has ? formatMs(stats.medianMs) : none);
    set(QStringLiteral("min"), has ? formatMs(stats.minMs) : none);
    set(QStringLiteral("max"), has ? formatMs(stats.maxMs) : none);
    set(QStringLiteral("noise"),
        has ? QStringLiteral("%1 %").arg(stats.relNoise * 100.0, 0, 'f', 2) : none);
    const bool bandwidth = has && stats.bandwidthGBs > 0;
    set(QStringLiteral("bandwidth"),
        bandwidth ? QStringLiteral("%1 GB/s").arg(stats.bandwidthGBs, 0, 'f', 1) : none);
    set(QStringLiteral("peak"), bandwidth && m_peakGBs > 0
                                    ? tr("%1 % of %2 GB/s")
                                          .arg(stats.bandwidthGBs / m_peakGBs * 100.0, 0, 'f', 1)
                                          .arg(m_peakGBs, 0, 'f', 0)
                                    : none);
    // The measured device-to-device copy: what a memory-bound kernel can really reach.
    set(QStringLiteral("ceiling"), bandwidth && stats.ceilingGBs > 0
                                       ? tr("%1 % of %2 GB/s")
                                             .arg(stats.ceilingShare() * 100.0, 0, 'f', 1)
                                             .arg(stats.ceilingGBs, 0, 'f', 0)
                                       : none);
    set(QStringLiteral("gflops"),
        has && stats.gflops > 0 ? QString::number(stats.gflops, 'f', 1) : none);
    const bool throttled = has && stats.throttledSamples > 0;
    const bool gaveUp = has && stats.blockingTimeouts > 0;
    QStringList notes;
    if (throttled)
        notes << tr("GPU was throttling: %n sample(s) ran under 75 % of the default SM "
                    "clock%1",
                    nullptr, stats.throttledSamples)
                     .arg(stats.smClockMHz > 0 && stats.smClockDefaultMHz > 0
                              ? tr(" (%1 of %2 MHz)")
                                    .arg(stats.smClockMHz)
                                    .arg(stats.smClockDefaultMHz)
                              : QString());
    if (gaveUp)
        notes << tr("The blocking kernel gave up waiting %n time(s): those samples may include "
                    "host launch time",
                    nullptr, stats.blockingTimeouts);
    m_throttleNote->setText(notes.join(QLatin1Char('\n')));
    m_throttleNote->setVisible(!notes.isEmpty());
    if (auto* form = qobject_cast<QFormLayout*>(m_summary->layout()))
        form->setRowVisible(m_summaryValues.value(QStringLiteral("gflops")),
                            has && stats.gflops > 0);
}

QString TimingChartView::throttleNote() const {
    return m_throttleNote->isHidden() ? QString() : m_throttleNote->text();
}

QString TimingChartView::summaryText(const QString& key) const {
    const QLabel* label = m_summaryValues.value(key);
    return label ? label->text() : QString();
}

} // namespace kernelpad
