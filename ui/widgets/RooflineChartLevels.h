#pragma once
// The hierarchical roofline of one profile on log-log axes: a slanted roof per memory level
// (L1, L2, DRAM), a flat roof per kind of arithmetic (FP32, FP64, FP16/BF16, the tensor path
// the kernel used), the kernel's points labelled by level, and above them the bound in words
// (HierarchicalRoofline::bound). Shown by RooflineChart in its "memory levels" mode. The
// points' labels are placed by placeChartLabels (ui/widgets/RooflineLabels.h), never on one
// another.

#include "core/profile/HierarchicalRoofline.h"
#include "ui/widgets/RooflineLabels.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <functional>

class QChart;
class QChartView;
class QGraphicsItem;
class QLabel;
class QLogValueAxis;
class QScatterSeries;
class QXYSeries;

namespace kernelpad {

/// A chart with base-10 log axes titled `xTitle` (bottom) and `yTitle` (left), the legend
/// below, no animation: both roofline views draw on one (*x, *y are the axes, owned by it).
[[nodiscard]] QChart* makeLogLogChart(const QString& xTitle, const QString& yTitle,
                                      QLogValueAxis** x, QLogValueAxis** y);

/// Shows `toolTip()` over `view` while the cursor is on `point`'s marker: both roofline views'
/// points name their run or level this way.
void showToolTipOnHover(QScatterSeries* point, QWidget* view, std::function<QString()> toolTip);

/// Named "rooflineLevels"; children by name: "rooflineVerdict" (the sentence),
/// "rooflineLevelsChart" (the view).
class RooflineLevelsChart : public QWidget {
    Q_OBJECT
public:
    explicit RooflineLevelsChart(QWidget* parent = nullptr);
    ~RooflineLevelsChart() override;

    /// The roofs and points of `roofline`; `title` names the profile ("Run 3 · saxpy").
    void setRoofline(const HierarchicalRoofline& roofline, const QString& title = {});
    void clear();

    [[nodiscard]] const HierarchicalRoofline& roofline() const { return m_roofline; }
    [[nodiscard]] QChart* chart() const { return m_chart; }
    /// The sentence above the chart: the bound, or why there is none.
    [[nodiscard]] QString verdict() const;
    /// The drawn points' labels in roofline().points() order: "L1", "L2", "DRAM" (with the
    /// kind of arithmetic, "DRAM FP32", when more than one ran).
    [[nodiscard]] QStringList pointLabels() const;
    /// Point `index` of roofline().points() as its tooltip says it; empty when out of range.
    [[nodiscard]] QString pointToolTip(int index) const;
    /// The labels as drawn, in the chart's coordinates: one per group of coinciding points;
    /// empty until the chart has a plot area.
    [[nodiscard]] const QVector<ChartLabelPlacement>& labelPlacements() const { return m_placed; }

private:
    void rebuild();
    /// Places and draws the points' labels for the current plot area.
    void placeLabels();
    /// The axes' ranges: every point and every ridge with a decade of room.
    void fitAxes(double* xMin, double* xMax, double* yMin, double* yMax) const;
    void addSeries(QXYSeries* series);
    void addRoofs(double xMin, double xMax);
    void addPoints();

    HierarchicalRoofline m_roofline;
    QLabel* m_verdict = nullptr;
    QChartView* m_view = nullptr;
    QChart* m_chart = nullptr;
    QLogValueAxis* m_x = nullptr;
    QLogValueAxis* m_y = nullptr;
    QVector<QScatterSeries*> m_points; ///< one per point of roofline().points(), in order
    QVector<QGraphicsItem*>
        m_labelItems; ///< the labels and leader lines drawn, children of m_chart
    QVector<ChartLabelPlacement> m_placed;
};

} // namespace kernelpad
