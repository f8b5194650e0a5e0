#pragma once
// Warp stall reasons as a horizontal bar chart: where the kernel's warps spent their sampled
// cycles, largest first, each bar's tooltip saying in plain words what the reason means.

#include <QString>
#include <QVector>
#include <QWidget>

class QBarCategoryAxis;
class QChart;
class QChartView;
class QHorizontalBarSeries;
class QLabel;
class QStackedWidget;
class QValueAxis;

namespace kernelpad {

/// One stall reason: its name as Nsight Compute gives it, its samples and what it means.
struct StallBar {
    QString name;
    double samples = 0;
    QString description;
};

/// The chart (child "stallChart") or, with no samples, a sentence (child "stallEmptyState").
class StallChart : public QWidget {
    Q_OBJECT
public:
    /// Reasons beyond this many are summed into one "other" bar: the chart stays readable in
    /// a dock, and the rest are usually a fraction of a percent each.
    static constexpr int kMaxBars = 10;

    explicit StallChart(QWidget* parent = nullptr);

    /// Shows `bars` sorted by samples, largest on top; reasons without samples are left out.
    void setStalls(const QVector<StallBar>& bars);
    void clear() { setStalls({}); }

    /// The bars as drawn, largest first (with "other" last when there were more than kMaxBars).
    [[nodiscard]] const QVector<StallBar>& bars() const { return m_bars; }
    /// The sum of every reason's samples.
    [[nodiscard]] double totalSamples() const { return m_total; }
    /// The tooltip of bar `index` of bars(): name, samples, share and the description.
    [[nodiscard]] QString barToolTip(int index) const;
    [[nodiscard]] QChart* chart() const { return m_chart; }

private:
    QVector<StallBar> m_bars;
    double m_total = 0;
    QStackedWidget* m_stack = nullptr;
    QLabel* m_emptyState = nullptr;
    QChartView* m_view = nullptr;
    QChart* m_chart = nullptr;
    QHorizontalBarSeries* m_series = nullptr;
    QBarCategoryAxis* m_names = nullptr;
    QValueAxis* m_values = nullptr;
};

} // namespace kernelpad
