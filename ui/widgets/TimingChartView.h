#pragma once
// Timing of the last run (every repetition, a histogram) and of the session (one point per
// run), with the run's summaries (core/run/Summary.h) in a table beside the charts.

#include "core/run/RunTypes.h"
#include "core/run/Significance.h"
#include "core/run/Summary.h"

#include <QString>
#include <QVector>
#include <QWidget>

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QBarSeries;
class QCandlestickSeries;
class QValueAxis;
class QBarCategoryAxis;
class QStackedWidget;
class QTabWidget;
class QTableWidget;
class QMenu;

namespace kernelpad {

/// One run of the session history.
struct TimingHistoryPoint {
    double medianMs = 0;
    double minMs = 0;
    double maxMs = 0;
    QString whatChanged;
    bool verified = true; ///< false when a verified buffer failed in that run
    bool ok = true;       ///< the run ended with RunStatus::Ok
    /// The median's 95 % interval (core/run/Significance.h); invalid under 6 samples.
    MedianInterval interval;
    quint64 serial = 0; ///< the session's RunRecord::serial, 0 when not from a session
};

/// Three charts in tabs (repetitions, histogram, history) and a table of the run's summaries
/// (child "timingSummary": every entry of summarize(), named and formatted as the CLI shows
/// it, its description as the tooltip); before any run with timings, a sentence of what they
/// will show instead (child "timingEmptyState").
class TimingChartView : public QWidget {
    Q_OBJECT
public:
    explicit TimingChartView(QWidget* parent = nullptr);

    /// Shows the run's repetitions and summaries and adds it to the session history (runs
    /// without timings, e.g. compile errors, only clear the per-run charts).
    void showRun(const RunResult& result, const QString& whatChanged, quint64 serial = 0);
    void clearHistory();
    /// Draws the baseline's median across the history chart (child series "baselineLine"),
    /// or none when `serial` is 0 or names no run shown.
    void setBaseline(quint64 serial);
    [[nodiscard]] quint64 baseline() const { return m_baselineSerial; }
    /// The history chart's context menu, for the run nearest `x` on its run axis (1-based):
    /// "Set Run N as Baseline" (when it succeeded) and "Clear Baseline" (when one is set).
    [[nodiscard]] QMenu* historyMenu(double x, QWidget* parent);

signals:
    /// The history chart's context menu asked to pin the run `serial` as the baseline.
    void baselineRequested(quint64 serial);
    void baselineClearRequested();

public:
    /// The device's theoretical DRAM bandwidth; 0 or less: unknown (no "share of peak" row).
    void setPeakBandwidthGBs(double gbs);

    [[nodiscard]] const QVector<TimingHistoryPoint>& history() const { return m_history; }
    /// The unit the repetition chart and histogram use for the last run
    /// (durationUnitSymbol(): "ns", "µs", "ms" or "s").
    [[nodiscard]] QString timeUnit() const { return durationUnitSymbol(m_unit); }
    /// Milliseconds per chart unit (1 for ms, 0.001 for µs).
    [[nodiscard]] double unitMs() const { return unitMsOf(m_unit); }
    /// The rows of the summary table: summarize() of the last run, and the share of the
    /// device's peak bandwidth when both are known.
    [[nodiscard]] const QVector<Summary>& summaries() const { return m_summaries; }
    /// The value the summary table shows for `key` ("time.median", "samples",
    /// "bandwidth.peakShare", ...), or an empty string when it has no such row.
    [[nodiscard]] QString summaryText(const QString& key) const;
    /// The "GPU was throttling" warning when the last run had throttled samples, or its
    /// telemetry marks it unstable (the SM clock moved more than 2 %, a throttle reason), else
    /// empty.
    [[nodiscard]] QString throttleNote() const;
    /// The GPU's state under the summary (child "telemetryNote"): "no NVML", whether the clocks
    /// were locked and how to lock them, the energy per launch or why there is none.
    [[nodiscard]] QString telemetryNote() const;
    /// True once a run has timings to chart; before, the empty state is shown instead.
    [[nodiscard]] bool showsCharts() const;

private:
    void showLibraryRatio(const RunResult& result);
    void buildRepetitionChart();
    void buildHistogramChart();
    void buildHistoryChart();
    void updateRepetitions(const TimingStats& stats);
    void updateHistogram(const TimingStats& stats);
    /// The SM clock of every chunk as a step line on the repetition chart's right axis
    /// (series "smClockTrace"), hidden without telemetry.
    void updateClockTrace(const TimingStats& stats);
    /// The telemetry note's text from the summaries and the last run's telemetry.
    [[nodiscard]] QString telemetryText() const;
    void updateHistory();
    /// Fills the table from m_runSummaries and the peak, and the throttling note.
    void updateSummary();
    [[nodiscard]] static double unitMsOf(DurationUnit unit);
    /// The charts when there is something to chart, else the sentence saying what will be.
    void updateEmptyState();

    QVector<TimingHistoryPoint> m_history;
    TimingStats m_last;
    QVector<Summary> m_runSummaries; ///< summarize() of the last run
    QVector<Summary> m_summaries;    ///< the table's rows
    double m_peakGBs = 0;
    DurationUnit m_unit = DurationUnit::Milliseconds;

    QStackedWidget* m_stack = nullptr; ///< the empty state, or the charts and the summary
    QLabel* m_emptyState = nullptr;
    QWidget* m_charts = nullptr;
    QTabWidget* m_tabs = nullptr;
    QChartView* m_repView = nullptr;
    QLineSeries* m_repLine = nullptr;
    QScatterSeries* m_repPoints = nullptr;
    QLineSeries* m_medianLine = nullptr;
    QValueAxis* m_repX = nullptr;
    QValueAxis* m_repY = nullptr;
    QLineSeries* m_clockTrace = nullptr;
    QValueAxis* m_clockAxis = nullptr;
    QChartView* m_histView = nullptr;
    QBarSeries* m_histSeries = nullptr;
    QBarCategoryAxis* m_histX = nullptr;
    QValueAxis* m_histY = nullptr;
    QChartView* m_historyView = nullptr;
    QLineSeries* m_historyLine = nullptr;
    QScatterSeries* m_historyPoints = nullptr;
    QCandlestickSeries* m_historyRange = nullptr;
    QLineSeries* m_baselineLine = nullptr;
    quint64 m_baselineSerial = 0;
    QValueAxis* m_historyX = nullptr;
    QValueAxis* m_historyY = nullptr;
    DurationUnit m_historyUnit = DurationUnit::Milliseconds;
    QWidget* m_summary = nullptr;
    QTableWidget* m_summaryTable = nullptr;
    QLabel* m_throttleNote = nullptr;
    QLabel* m_telemetryNote = nullptr;
    /// The kernel against the project's library baseline ("0.82× cuBLAS"; child
    /// "libraryRatio"), hidden when the project has none.
    QLabel* m_libraryRatio = nullptr;
};

} // namespace kernelpad
