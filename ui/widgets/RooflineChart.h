#pragma once
// A log-log roofline (Williams, Waterman and Patterson, CACM 2009) in two modes: the shown
// profile's memory levels (RooflineLevelsChart: L1, L2 and DRAM roofs and points, the bound in
// words), and the profiled runs of the session as numbered points against DRAM, joined in
// order, so the path of the edits toward the roof is visible.

#include "core/profile/HierarchicalRoofline.h"

#include <QString>
#include <QVector>
#include <QWidget>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QLogValueAxis;
class QStackedWidget;

namespace kernelpad {

class RooflineLevelsChart;

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

/// The runs' chart (child "rooflineChart") with the empty state (child "rooflineEmptyState")
/// in its place until there are roofs or points to draw, and the memory levels' chart
/// (RooflineLevelsChart); "rooflineMode" chooses between them once a profile has levels.
class RooflineChart : public QWidget {
    Q_OBJECT
public:
    /// What the chart shows.
    enum class Mode { Levels, Runs };

    explicit RooflineChart(QWidget* parent = nullptr);

    /// The shown profile's hierarchical roofline; `title` names it ("Run 3 · saxpy"). The
    /// chart turns to it unless the user chose the runs' view.
    void setHierarchy(const HierarchicalRoofline& roofline, const QString& title = {});
    /// Shows the levels or the runs (the levels only once a profile has them).
    void setMode(Mode mode);
    [[nodiscard]] Mode mode() const;
    [[nodiscard]] RooflineLevelsChart* levels() const { return m_levels; }

    /// The device's DRAM bandwidth (the slanted roof) and its compute roofs. Roofs that are
    /// not positive are left out (a device whose peaks ncu did not report).
    void setRoofs(double dramBytesPerSecond, const QVector<RooflineRoof>& computeRoofs);
    /// The runs in the order they were profiled; the last is the current one. A run with
    /// 0 FLOP/s has no place on log axes: it is drawn in the floor's corner, labelled "no FP
    /// operations counted", and left out of the path.
    void setPoints(const QVector<RooflinePoint>& points);
    /// Forgets the roofs, the points and the hierarchy.
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

    QComboBox* m_mode = nullptr;
    bool m_modeChosen = false; ///< the user picked a mode: setHierarchy() keeps it
    RooflineLevelsChart* m_levels = nullptr;
    QStackedWidget* m_stack = nullptr;
    QLabel* m_emptyState = nullptr;
    QChartView* m_view = nullptr;
    QChart* m_chart = nullptr;
    QLogValueAxis* m_x = nullptr;
    QLogValueAxis* m_y = nullptr;
};

} // namespace kernelpad
