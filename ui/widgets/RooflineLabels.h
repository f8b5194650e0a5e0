#pragma once
// Where a chart's point labels go: beside their markers, never on one another nor on a marker;
// markers drawn on top of one another share one label naming them all. Qt Charts' own point
// labels sit centred above each marker, so the L1 and L2 labels of a kernel whose two points
// are close (tests/data/ncu/wmma_gemm_bf16.hier.*) were drawn over each other.

#include <QLineF>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QVector>

#include <functional>
#include <optional>

namespace kernelpad {

/// One marker to label, in the chart's coordinates.
struct ChartLabelAnchor {
    QPointF centre;
    QString text; ///< "L1"
};

/// A label as placed: its text, its rectangle, the markers it names (indices of the anchors),
/// and a leader line from its marker's edge to the label when it sits away from the marker.
struct ChartLabelPlacement {
    QString text;
    QRectF rect;
    QVector<int> anchors;
    std::optional<QLineF> leader;
};

/// The size a text takes when drawn.
using ChartTextSize = std::function<QSizeF(const QString&)>;

/// Places one label per group of coinciding markers (centres closer than half `markerSize`,
/// texts joined with " · "), in the order of their first anchor: next to the marker where
/// that is free, else farther out with a leader line; inside `bounds` where possible. No two
/// labels' rectangles intersect, and none covers a marker.
[[nodiscard]] QVector<ChartLabelPlacement>
placeChartLabels(const QVector<ChartLabelAnchor>& anchors, qreal markerSize, const QRectF& bounds,
                 const ChartTextSize& measure);

} // namespace kernelpad
