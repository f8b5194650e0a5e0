#include "ui/widgets/TimingChartView.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCandlestickSeries>
#include <QCandlestickSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

/// About 20 bins: enough to show two modes, few enough that each holds several samples.
constexpr int kHistogramBins = 20;
/// Space above and below the data so points on the extremes stay visible.
constexpr double kAxisMargin = 0.05;

/// The unit a chart of durations around `ms` uses: the one formatDuration() picks, so the axis
/// reads as the summary table does.
DurationUnit unitFor(double ms) {
    return durationUnitFor(ms / 1e3);
}

/// Columns of the summary table.
enum SummaryColumn { NameColumn, ValueColumn, SummaryColumns };
/// Where a row's summary key is kept, on its name cell.
constexpr int kKeyRole = Qt::UserRole;

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
    m_summaryTable = new QTableWidget(0, SummaryColumns, m_summary);
    m_summaryTable->setObjectName(QStringLiteral("timingSummary"));
    m_summaryTable->setHorizontalHeaderLabels({tr("Figure"), tr("Value")});
    m_summaryTable->verticalHeader()->hide();
    // Compact rows: the run has some forty figures, and the charts need the height.
    m_summaryTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_summaryTable->horizontalHeader()->setStretchLastSection(true);
    m_summaryTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_summaryTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_summaryTable->setWordWrap(false);
    // Throttled samples make every figure above pessimistic: say so where the numbers are.
    m_throttleNote = new QLabel(m_summary);
    m_throttleNote->setObjectName(QStringLiteral("throttleNote"));
    m_throttleNote->setWordWrap(true);
    m_throttleNote->setStyleSheet(QStringLiteral("color: #c62828; font-weight: bold;"));
    m_throttleNote->hide();
    auto* summaryLayout = new QVBoxLayout(m_summary);
    summaryLayout->setContentsMargins(0, 0, 0, 0);
    summaryLayout->addWidget(m_summaryTable, 1);
    summaryLayout->addWidget(m_throttleNote);

    auto* chartsLayout = new QHBoxLayout(m_charts);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    chartsLayout->addWidget(m_tabs, 1);
    chartsLayout->addWidget(m_summary);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_stack);
    updateSummary();
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
            tr("repetition %1: %2").arg(qRound(p.x())).arg(formatDurationMs(p.y() * unitMs())));
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
                           .arg(formatDurationMs(h.medianMs), formatDurationMs(h.minMs),
                                formatDurationMs(h.maxMs));
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
    m_runSummaries = summarize(result);
    updateRepetitions(m_last);
    updateHistogram(m_last);
    updateSummary();
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
    updateSummary();
}

void TimingChartView::updateRepetitions(const TimingStats& stats) {
    m_unit = unitFor(stats.medianMs > 0 ? stats.medianMs : 1.0);
    const double perUnitMs = unitMs();
    QList<QPointF> points;
    points.reserve(stats.timesMs.size());
    for (int i = 0; i < stats.timesMs.size(); ++i)
        points.append(QPointF(i + 1, stats.timesMs.at(i) / perUnitMs));
    m_repLine->replace(points);
    m_repPoints->replace(points);
    const int n = int(points.size());
    if (n == 0) {
        m_medianLine->clear();
        m_repX->setRange(0, 1);
        m_repY->setRange(0, 1);
    } else {
        const double median = stats.medianMs / perUnitMs;
        m_medianLine->replace(QList<QPointF>{{1.0, median}, {double(std::max(n, 2)), median}});
        m_repX->setRange(1, std::max(n, 2));
        setPaddedRange(m_repY, stats.minMs / perUnitMs, stats.maxMs / perUnitMs);
    }
    m_medianLine->setName(n ? tr("median %1").arg(formatDurationMs(stats.medianMs)) : tr("median"));
    m_repY->setTitleText(timeUnit());
    m_repX->setTickCount(std::clamp(n, 2, 11));
}

void TimingChartView::updateHistogram(const TimingStats& stats) {
    m_histSeries->clear();
    m_histX->clear();
    if (stats.timesMs.isEmpty()) {
        m_histY->setRange(0, 1);
        return;
    }
    const double perUnitMs = unitMs();
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
        labels << QString::number(center / perUnitMs, 'g', 4);
    }
    m_histSeries->append(set);
    m_histX->append(labels);
    m_histX->setTitleText(tr("time (%1), bin centres").arg(timeUnit()));
    m_histY->setRange(0, *std::max_element(counts.cbegin(), counts.cend()) + 1);
}

void TimingChartView::updateHistory() {
    m_historyRange->clear();
    double top = 0;
    for (const TimingHistoryPoint& h : std::as_const(m_history))
        top = std::max(top, h.medianMs);
    m_historyUnit = unitFor(top > 0 ? top : 1.0);
    const double perUnitMs = unitMsOf(m_historyUnit);
    QList<QPointF> points;
    double low = 0, high = 0;
    for (int i = 0; i < m_history.size(); ++i) {
        const TimingHistoryPoint& h = m_history.at(i);
        const double median = h.medianMs / perUnitMs;
        points.append(QPointF(i + 1, median));
        // A flat body at the median with whiskers to min and max: an error bar.
        m_historyRange->append(
            new QCandlestickSet(median, h.maxMs / perUnitMs, h.minMs / perUnitMs, median, i + 1));
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
        setPaddedRange(m_historyY, low / perUnitMs, high / perUnitMs);
    m_historyY->setTitleText(durationUnitSymbol(m_historyUnit));
}

double TimingChartView::unitMsOf(DurationUnit unit) {
    return durationUnitSeconds(unit) * 1e3;
}

void TimingChartView::updateSummary() {
    m_summaries = m_runSummaries;
    // The device's peak is the window's to know: its share goes right after the bandwidth.
    if (const std::optional<Summary> peak = peakBandwidthShare(m_summaries, m_peakGBs * 1e9)) {
        qsizetype at = m_summaries.size();
        for (qsizetype i = 0; i < m_summaries.size(); ++i)
            if (m_summaries.at(i).key == QLatin1String("bandwidth"))
                at = i + 1;
        m_summaries.insert(at, *peak);
    }
    m_summaryTable->setRowCount(int(m_summaries.size()));
    for (int row = 0; row < m_summaries.size(); ++row) {
        const Summary& s = m_summaries.at(row);
        auto* name = new QTableWidgetItem(s.name);
        name->setData(kKeyRole, s.key);
        auto* value = new QTableWidgetItem(formatSummaryValue(s));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        for (QTableWidgetItem* item : {name, value}) {
            item->setToolTip(s.description);
            if (s.column) { // the figures of the CLI's main table stand out here too
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
        }
        m_summaryTable->setItem(row, NameColumn, name);
        m_summaryTable->setItem(row, ValueColumn, value);
    }
    m_summaryTable->resizeColumnToContents(NameColumn);

    const auto valueOf = [this](const char* key) {
        const Summary* s = findSummary(m_summaries, QLatin1String(key));
        return s && std::isfinite(s->value) ? s->value : 0.0;
    };
    const auto textOf = [this](const char* key) {
        const Summary* s = findSummary(m_summaries, QLatin1String(key));
        return s ? formatSummaryValue(*s) : QString();
    };
    const int throttled = int(valueOf("samples.throttled"));
    const int gaveUp = int(valueOf("blocking.timeouts"));
    QStringList notes;
    if (throttled > 0)
        notes << tr("GPU was throttling: %n sample(s) ran under 75 % of the default SM "
                    "clock%1",
                    nullptr, throttled)
                     .arg(valueOf("clock.sm") > 0 && valueOf("clock.smDefault") > 0
                              ? tr(" (%1 of %2)").arg(textOf("clock.sm"), textOf("clock.smDefault"))
                              : QString());
    if (gaveUp > 0)
        notes << tr("The blocking kernel gave up waiting %n time(s): those samples may include "
                    "host launch time",
                    nullptr, gaveUp);
    m_throttleNote->setText(notes.join(QLatin1Char('\n')));
    m_throttleNote->setVisible(!notes.isEmpty());
}

QString TimingChartView::throttleNote() const {
    return m_throttleNote->isHidden() ? QString() : m_throttleNote->text();
}

QString TimingChartView::summaryText(const QString& key) const {
    for (int row = 0; row < m_summaryTable->rowCount(); ++row) {
        const QTableWidgetItem* name = m_summaryTable->item(row, NameColumn);
        if (name && name->data(kKeyRole).toString() == key)
            return m_summaryTable->item(row, ValueColumn)->text();
    }
    return {};
}

} // namespace kernelpad
