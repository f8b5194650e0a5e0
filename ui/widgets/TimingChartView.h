#pragma once
// Timing of the last run (every repetition, a histogram) and of the session (one point per
// run), with the summary numbers beside the charts.

#include "core/run/RunTypes.h"

#include <QHash>
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

namespace kernelpad {

/// One run of the session history.
struct TimingHistoryPoint {
    double medianMs = 0;
    double minMs = 0;
    double maxMs = 0;
    QString whatChanged;
    bool verified = true; ///< false when a verified buffer failed in that run
};

/// Three charts in tabs (repetitions, histogram, history) and a summary column; before any
/// run with timings, a sentence of what they will show instead (child "timingEmptyState").
class TimingChartView : public QWidget {
    Q_OBJECT
public:
    explicit TimingChartView(QWidget* parent = nullptr);

    /// Shows the run's repetitions and adds it to the session history (runs without
    /// timings, e.g. compile errors, only clear the per-run charts).
    void showRun(const RunResult& result, const QString& whatChanged);
    void clearHistory();
    /// The device's theoretical DRAM bandwidth; 0 or less: unknown ("—").
    void setPeakBandwidthGBs(double gbs);

    [[nodiscard]] const QVector<TimingHistoryPoint>& history() const { return m_history; }
    /// "s", "ms" or "µs": the unit the charts use for the last run.
    [[nodiscard]] QString timeUnit() const { return m_unit; }
    /// Milliseconds per chart unit (1 for ms, 0.001 for µs).
    [[nodiscard]] double unitMs() const { return m_unitMs; }
    /// The summary text of `key` ("mode", "stop", "reps", "median", "min", "max", "noise",
    /// "bandwidth", "peak", "gflops").
    [[nodiscard]] QString summaryText(const QString& key) const;
    /// The "GPU was throttling" warning when the last run had throttled samples, else empty.
    [[nodiscard]] QString throttleNote() const;
    /// True once a run has timings to chart; before, the empty state is shown instead.
    [[nodiscard]] bool showsCharts() const;

private:
    void buildRepetitionChart();
    void buildHistogramChart();
    void buildHistoryChart();
    void updateRepetitions(const TimingStats& stats);
    void updateHistogram(const TimingStats& stats);
    void updateHistory();
    void updateSummary(const TimingStats& stats);
    /// The charts when there is something to chart, else the sentence saying what will be.
    void updateEmptyState();

    QVector<TimingHistoryPoint> m_history;
    TimingStats m_last;
    double m_peakGBs = 0;
    QString m_unit = QStringLiteral("ms");
    double m_unitMs = 1.0;

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
    QChartView* m_histView = nullptr;
    QBarSeries* m_histSeries = nullptr;
    QBarCategoryAxis* m_histX = nullptr;
    QValueAxis* m_histY = nullptr;
    QChartView* m_historyView = nullptr;
    QLineSeries* m_historyLine = nullptr;
    QScatterSeries* m_historyPoints = nullptr;
    QCandlestickSeries* m_historyRange = nullptr;
    QValueAxis* m_historyX = nullptr;
    QValueAxis* m_historyY = nullptr;
    QString m_historyUnit = QStringLiteral("ms");
    double m_historyUnitMs = 1.0;
    QHash<QString, QLabel*> m_summaryValues; ///< key of summaryText() -> its label
    QWidget* m_summary = nullptr;
    QLabel* m_throttleNote = nullptr;
};

} // namespace kernelpad
