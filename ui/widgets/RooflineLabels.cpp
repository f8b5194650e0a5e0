#include "ui/widgets/RooflineLabels.h"

#include <QStringList>

#include <algorithm>
#include <array>
#include <cmath>

namespace kernelpad {

namespace {

/// Space between a marker's edge and its label, in pixels.
constexpr qreal kLabelGap = 3.0;
/// Labels keep this much space from one another and from the markers, in pixels.
constexpr qreal kLabelPadding = 1.0;
/// Rings of candidate places around a marker, each a label's height beyond the one before.
constexpr int kLabelRings = 6;

struct LabelGroup {
    QPointF centre;
    QString text;
    QVector<int> anchors;
};

/// The anchors gathered into groups of coinciding markers (transitively), each group at the
/// mean of its centres, in the order of their first anchor.
QVector<LabelGroup> coincidingGroups(const QVector<ChartLabelAnchor>& anchors, qreal markerSize) {
    const qreal within = markerSize / 2;
    QVector<bool> taken(anchors.size(), false);
    QVector<LabelGroup> groups;
    for (int first = 0; first < anchors.size(); ++first) {
        if (taken[first])
            continue;
        taken[first] = true;
        LabelGroup group;
        group.anchors << first;
        for (int next = 0; next < group.anchors.size(); ++next) {
            const QPointF at = anchors.at(group.anchors.at(next)).centre;
            for (int j = first + 1; j < anchors.size(); ++j) {
                if (!taken[j] && QLineF(at, anchors.at(j).centre).length() < within) {
                    taken[j] = true;
                    group.anchors << j;
                }
            }
        }
        std::sort(group.anchors.begin(), group.anchors.end());
        QStringList texts;
        QPointF sum;
        for (const int i : group.anchors) {
            texts << anchors.at(i).text;
            sum += anchors.at(i).centre;
        }
        group.text = texts.join(QStringLiteral(" · "));
        group.centre = sum / qreal(group.anchors.size());
        groups << group;
    }
    return groups;
}

/// A label of `size` whose nearest point lies `distance` from `centre` towards (dx, dy).
QRectF besideMarker(const QPointF& centre, const QSizeF& size, int dx, int dy, qreal distance) {
    const qreal along = dx != 0 && dy != 0 ? M_SQRT1_2 * distance : distance;
    const QPointF near = centre + QPointF(dx * along, dy * along);
    const qreal left = dx > 0   ? near.x()
                       : dx < 0 ? near.x() - size.width()
                                : near.x() - size.width() / 2;
    const qreal top = dy > 0   ? near.y()
                      : dy < 0 ? near.y() - size.height()
                               : near.y() - size.height() / 2;
    return QRectF(QPointF(left, top), size);
}

bool labelSpotFree(const QRectF& rect, const QVector<QRectF>& taken, const QVector<QRectF>& markers,
                   const QRectF* bounds) {
    if (bounds && !bounds->contains(rect))
        return false;
    const QRectF padded =
        rect.adjusted(-kLabelPadding, -kLabelPadding, kLabelPadding, kLabelPadding);
    const auto hits = [&](const QRectF& other) { return padded.intersects(other); };
    return std::none_of(taken.begin(), taken.end(), hits) &&
           std::none_of(markers.begin(), markers.end(), hits);
}

/// From the marker's edge to the label's nearest point; none when the label touches it.
std::optional<QLineF> leaderLine(const QPointF& centre, const QRectF& rect, qreal markerSize) {
    const QPointF near(std::clamp(centre.x(), rect.left(), rect.right()),
                       std::clamp(centre.y(), rect.top(), rect.bottom()));
    const QLineF line(centre, near);
    const qreal radius = markerSize / 2;
    if (line.length() <= radius + kLabelGap + 0.5)
        return std::nullopt;
    return QLineF(line.pointAt(radius / line.length()), near);
}

} // namespace

QVector<ChartLabelPlacement> placeChartLabels(const QVector<ChartLabelAnchor>& anchors,
                                              qreal markerSize, const QRectF& bounds,
                                              const ChartTextSize& measure) {
    // Right first, as one reads; then above, left, below and the corners.
    static constexpr std::array<std::array<int, 2>, 8> kDirections{
        {{1, 0}, {0, -1}, {-1, 0}, {0, 1}, {1, -1}, {1, 1}, {-1, -1}, {-1, 1}}};
    QVector<QRectF> markers;
    for (const ChartLabelAnchor& a : anchors)
        markers << QRectF(a.centre - QPointF(markerSize / 2, markerSize / 2),
                          QSizeF(markerSize, markerSize));
    QVector<QRectF> taken;
    QVector<ChartLabelPlacement> placed;
    for (const LabelGroup& group : coincidingGroups(anchors, markerSize)) {
        const QSizeF size = measure(group.text);
        std::optional<QRectF> spot;
        for (const QRectF* within : {&bounds, static_cast<const QRectF*>(nullptr)}) {
            for (int ring = 0; ring < kLabelRings && !spot; ++ring) {
                const qreal distance =
                    markerSize / 2 + kLabelGap + ring * (size.height() + kLabelGap);
                for (const auto& [dx, dy] : kDirections) {
                    const QRectF rect = besideMarker(group.centre, size, dx, dy, distance);
                    if (labelSpotFree(rect, taken, markers, within)) {
                        spot = rect;
                        break;
                    }
                }
            }
            if (spot)
                break;
        }
        if (!spot) {
            // Crowded all round: right of everything drawn, where nothing can be.
            qreal right = group.centre.x();
            for (const QVector<QRectF>* rects : {&taken, &markers})
                for (const QRectF& r : *rects)
                    right = std::max(right, r.right());
            spot = QRectF(
                QPointF(right + kLabelGap + kLabelPadding, group.centre.y() - size.height() / 2),
                size);
        }
        taken << *spot;
        placed.append(
            {group.text, *spot, group.anchors, leaderLine(group.centre, *spot, markerSize)});
    }
    return placed;
}

} // namespace kernelpad
