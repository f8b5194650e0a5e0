#pragma once
// Occupancy against block size, registers per thread and dynamic shared memory, like Nsight
// Compute's occupancy calculator: three line charts with the current launch marked on each,
// and the limiting factor named in words under them.

#include "core/run/OccupancyInputs.h"

#include <QPointF>
#include <QWidget>

class QChart;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QStackedWidget;
class QValueAxis;

namespace kernelpad {

/// The occupancy curves of the project's kernel at its launch. Child object names:
/// occupancyTitle, occupancyLimiter, occupancyEmptyState, and occupancyChart0..2 (block size,
/// registers, dynamic shared memory).
class OccupancyView : public QWidget {
    Q_OBJECT
public:
    explicit OccupancyView(QWidget* parent = nullptr);

    /// Shows `report` for `kernel`; `deviceName` names the device its limits came from. A
    /// report with an error shows that sentence instead of the charts.
    void showReport(const OccupancyReport& report, const QString& kernel,
                    const QString& deviceName);
    /// Shows a sentence instead of the charts (nothing compiled yet, ...).
    void showMessage(const QString& text);

    [[nodiscard]] const OccupancyReport& report() const { return m_report; }
    /// True while the charts (not a sentence) are shown.
    [[nodiscard]] bool showsCharts() const;
    /// Where the marker of the chart of `axis` is: the launch's value (bytes in KiB on the
    /// shared-memory chart) and its occupancy in percent.
    [[nodiscard]] QPointF markerPoint(OccupancyAxis axis) const;
    /// The points the chart of `axis` draws (x as on its axis, occupancy in percent).
    [[nodiscard]] QList<QPointF> curvePoints(OccupancyAxis axis) const;
    [[nodiscard]] QString titleText() const;
    [[nodiscard]] QString limiterText() const;
    /// The tooltip of the point of `axis` nearest to `x` (x as on the axis).
    [[nodiscard]] QString pointToolTip(OccupancyAxis axis, double x) const;

private:
    struct Chart {
        QChart* chart = nullptr;
        QLineSeries* line = nullptr;
        QScatterSeries* marker = nullptr;
        QValueAxis* x = nullptr;
        QValueAxis* y = nullptr;
    };
    QWidget* buildChart(OccupancyAxis axis);
    void fill(OccupancyAxis axis);

    QStackedWidget* m_stack = nullptr;
    QLabel* m_emptyState = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_limiter = nullptr;
    Chart m_charts[3];
    OccupancyReport m_report;
};

} // namespace kernelpad
