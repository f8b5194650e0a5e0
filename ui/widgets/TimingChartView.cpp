#include "ui/widgets/TimingChartView.h"
#include "ui/widgets/TimingChartSupport.h"

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
/// Columns of the summary table.
enum SummaryColumn { NameColumn, ValueColumn, SummaryColumns };
/// Where a row's summary key is kept, on its name cell.
constexpr int kKeyRole = Qt::UserRole;

} // namespace

using timingchart::makeChartView;
using timingchart::setPaddedRange;
using timingchart::unitFor;

TimingChartView::TimingChartView(QWidget* parent)
    : QWidget(parent) {
    m_stack = new QStackedWidget(this);
    m_charts = new QWidget(m_stack);
    // Empty charts would show axes of "0 0 0 0 1": say what a run will show.
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
    m_telemetryNote = new QLabel(m_summary);
    m_telemetryNote->setObjectName(QStringLiteral("telemetryNote"));
    m_telemetryNote->setWordWrap(true);
    m_telemetryNote->setTextInteractionFlags(Qt::TextSelectableByMouse); // the command is copied
    m_telemetryNote->hide();
    m_libraryRatio = new QLabel(m_summary);
    m_libraryRatio->setObjectName(QStringLiteral("libraryRatio"));
    m_libraryRatio->setWordWrap(true);
    m_libraryRatio->hide();
    auto* summaryLayout = new QVBoxLayout(m_summary);
    summaryLayout->setContentsMargins(0, 0, 0, 0);
    summaryLayout->addWidget(m_libraryRatio);
    summaryLayout->addWidget(m_summaryTable, 1);
    summaryLayout->addWidget(m_throttleNote);
    summaryLayout->addWidget(m_telemetryNote);

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
    // The SM clock under the times: a clock that moved explains a step in them.
    m_clockTrace = new QLineSeries(chart);
    m_clockTrace->setObjectName(QStringLiteral("smClockTrace"));
    m_clockTrace->setName(tr("SM clock"));
    m_clockTrace->setPen(QPen(QColor(46, 125, 50), 1.5));
    m_clockAxis = new QValueAxis(chart);
    m_clockAxis->setTitleText(tr("SM clock (MHz)"));
    m_clockAxis->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(m_clockAxis, Qt::AlignRight);
    chart->addSeries(m_clockTrace);
    m_clockTrace->attachAxis(m_repX);
    m_clockTrace->attachAxis(m_clockAxis);
    m_clockTrace->hide();
    m_clockAxis->hide();
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

void TimingChartView::showLibraryRatio(const RunResult& result) {
    const BaselineResult& b = result.baseline;
    const QString ratio = b.ratioText(result.timing.medianMs);
    if (!ratio.isEmpty())
        // The library's time over the kernel's, so a kernel that beats it reads above 1.
        m_libraryRatio->setText(tr("<b>%1</b>: %2's median %3 over this kernel's (above 1 the "
                                   "kernel is faster)")
                                    .arg(ratio.toHtmlEscaped(), b.library.toHtmlEscaped(),
                                         formatDurationMs(b.timing.medianMs)));
    else if (!b.error.isEmpty())
        m_libraryRatio->setText(
            tr("%1 not measured: %2").arg(b.library.toHtmlEscaped(), b.error.toHtmlEscaped()));
    m_libraryRatio->setVisible(!ratio.isEmpty() || !b.error.isEmpty());
}

void TimingChartView::showRun(const RunResult& result, const QString& whatChanged, quint64 serial) {
    m_last = result.timing;
    m_runSummaries = summarize(result);
    showLibraryRatio(result);
    updateRepetitions(m_last);
    updateHistogram(m_last);
    updateClockTrace(m_last);
    updateSummary();
    if (!m_last.timesMs.isEmpty()) { // a run that never launched has nothing to compare
        TimingHistoryPoint point;
        point.medianMs = m_last.medianMs;
        point.minMs = m_last.minMs;
        point.maxMs = m_last.maxMs;
        point.whatChanged = whatChanged;
        point.verified = result.verified();
        point.ok = result.status == RunStatus::Ok;
        point.interval = medianInterval(m_last.timesMs);
        point.serial = serial;
        m_history.append(point);
        updateHistory();
    }
    updateEmptyState();
}

void TimingChartView::clearHistory() {
    m_history.clear();
    m_baselineSerial = 0;
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
    if (const QString why = textOf("timing.unstable"); !why.isEmpty())
        notes << tr("Unstable timing: %1. A difference of 1-3 % from another run may be the "
                    "GPU's, not the kernel's.")
                     .arg(why);
    m_throttleNote->setText(notes.join(QLatin1Char('\n')));
    m_throttleNote->setVisible(!notes.isEmpty());
    const QString telemetry = telemetryText();
    m_telemetryNote->setText(telemetry);
    m_telemetryNote->setVisible(!telemetry.isEmpty());
}

QString TimingChartView::telemetryText() const {
    const auto textOf = [this](const char* key) {
        const Summary* s = findSummary(m_summaries, QLatin1String(key));
        return s ? formatSummaryValue(*s) : QString();
    };
    QStringList lines;
    if (!textOf("telemetry").isEmpty())
        return tr("No NVML: the clocks, power, temperature and energy of this run are unknown.");
    const QString locked = textOf("clock.locked");
    if (locked.isEmpty())
        return {}; // no timed samples
    if (const QString refused = textOf("clock.lockError"); !refused.isEmpty())
        lines << tr("Lock Clocks refused: %1.").arg(refused);
    if (locked == QLatin1String("yes")) {
        lines << tr("Clocks locked.");
    } else {
        QString line = tr("Clocks not locked: timings may move with boost and heat. Lock them "
                          "with Device ▸ Lock Clocks");
        if (const QString command = textOf("clock.lockCommand"); !command.isEmpty())
            line += tr(", or by hand: %1").arg(command);
        if (m_last.telemetry.smClockMaxMHz > 0)
            line += tr(" (the GPU supports up to %1 MHz)").arg(m_last.telemetry.smClockMaxMHz);
        lines << line + QLatin1Char('.');
    }
    const QString power = textOf("power.max"), heat = textOf("temperature.max");
    if (!power.isEmpty() || !heat.isEmpty())
        lines << tr("Power up to %1, temperature up to %2.")
                     .arg(power.isEmpty() ? tr("unknown") : power,
                          heat.isEmpty() ? tr("unknown") : heat);
    if (const QString energy = textOf("energy.perLaunch"); !energy.isEmpty()) {
        QString line = tr("Energy: %1 per launch, %2 average").arg(energy, textOf("energy.power"));
        for (const char* key : {"energy.bytesPerJoule", "energy.flopsPerJoule"})
            if (const QString v = textOf(key); !v.isEmpty())
                line += QStringLiteral(", ") + v;
        lines << line + QLatin1Char('.');
    } else if (const QString note = textOf("energy.note"); !note.isEmpty()) {
        lines << tr("Energy: %1.").arg(note);
    }
    return lines.join(QLatin1Char('\n'));
}

QString TimingChartView::telemetryNote() const {
    return m_telemetryNote->isHidden() ? QString() : m_telemetryNote->text();
}

void TimingChartView::updateClockTrace(const TimingStats& stats) {
    QList<QPointF> points;
    int first = 1, lo = 0, hi = 0;
    for (const ChunkTelemetry& c : stats.telemetry.chunks) {
        const int last = first + std::max(c.samples, 1) - 1;
        if (c.smClockMHz > 0) {
            points << QPointF(first, c.smClockMHz) << QPointF(last, c.smClockMHz);
            lo = lo > 0 ? std::min(lo, c.smClockMHz) : c.smClockMHz;
            hi = std::max(hi, c.smClockMHz);
        }
        first = last + 1;
    }
    m_clockTrace->replace(points);
    const bool shown = !points.isEmpty();
    m_clockTrace->setVisible(shown);
    m_clockAxis->setVisible(shown);
    if (shown)
        setPaddedRange(m_clockAxis, lo, hi);
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
