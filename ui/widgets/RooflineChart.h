#pragma once
// A log-log roofline (Williams, Waterman and Patterson, CACM 2009): the device's memory and
// compute roofs, and the profiled runs of the session as numbered points joined in order, so
// the path of the edits toward the roof is visible.

#include <QString>
#include <QVector>
#include <QWidget>

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QLogValueAxis;
class QStackedWidget;

namespace kernelpad {

/// A horizontal compute roof: the device's peak rate of one kind of arithmetic.
struct RooflineRoof {
    QString name; ///< "FP32", "FP64"
    double flopsPerSecond = 0;
};

/// One profiled run: where it sits on the chart, and what its tooltip says.
struct RooflinePoint {
    double flopsPerByte = 0;   ///< arithmetic intensity against DRAM traffic
    double flopsPerSecond = 0; ///< achieved
    QString toolTip;
};

/// The chart (child "rooflineChart") with the empty state (child "rooflineEmptyState") in its
/// place until there are roofs or points to draw.
class RooflineChart : public QWidget {
    Q_OBJECT
public:
    explicit RooflineChart(QWidget* parent = nullptr);

    /// The device's DRAM bandwidth (the slanted roof) and its compute roofs. Roofs that are
    /// not positive are left out (a device whose peaks ncu did not report).
    void setRoofs(double dramBytesPerSecond, const QVector<RooflineRoof>& computeRoofs);
    /// The runs in the order they were profiled; the last is the current one. A run with
    /// 0 FLOP/s has no place on log axes: it is drawn in the floor's corner, labelled "no FP
    /// operations counted", and left out of the path.
    void setPoints(const QVector<RooflinePoint>& points);
    void clear();

    [[nodiscard]] double dramBytesPerSecond() const { return m_dramBytesPerSecond; }
    [[nodiscard]] const QVector<RooflineRoof>& roofs() const { return m_roofs; }
    [[nodiscard]] const QVector<RooflinePoint>& points() const { return m_points; }
    /// The chart as drawn, for tests and screenshots.
    [[nodiscard]] QChart* chart() const { return m_chart; }
    /// The attainable rate at `flopsPerByte` under the highest roof: min(peak, bandwidth × I).
    [[nodiscard]] double attainable(double flopsPerByte) const;
    /// The point's tooltip as shown on hover (its number, coordinates and the given text).
    [[nodiscard]] QString pointToolTip(int index) const;

private:
    void rebuild();
    /// The axes' ranges: every point and every ridge with a decade of room.
    void fitAxes(double* xMin, double* xMax, double* yMin, double* yMax) const;

    double m_dramBytesPerSecond = 0;
    QVector<RooflineRoof> m_roofs;
    QVector<RooflinePoint> m_points;

    QStackedWidget* m_stack = nullptr;
    QLabel* m_emptyState = nullptr;
    QChartView* m_view = nullptr;
    QChart* m_chart = nullptr;
    QLogValueAxis* m_x = nullptr;
    QLogValueAxis* m_y = nullptr;
};

} // namespace kernelpad
