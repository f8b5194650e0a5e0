#pragma once
// A buffer painted as a width x height image with a min..max colour scale.

#include "core/run/RunTypes.h"

#include <QImage>
#include <QWidget>

namespace kernelpad {

/// Paints a buffer by sampling one element per pixel: the cost of a paint depends on the
/// widget's size, never on the buffer's (100 million elements paint as fast as 100).
class HeatMapView : public QWidget {
    Q_OBJECT
public:
    explicit HeatMapView(QWidget* parent = nullptr);

    /// `width` elements per row (0: a square-ish layout, ceil(sqrt(count))).
    void setBuffer(const OutputBuffer& buffer, qint64 width = 0);
    void clear();
    [[nodiscard]] qint64 dataWidth() const { return m_width; }
    [[nodiscard]] qint64 dataHeight() const;
    /// The colour range of the last rendered image (over the sampled elements).
    [[nodiscard]] double rangeMin() const { return m_min; }
    [[nodiscard]] double rangeMax() const { return m_max; }
    /// Renders the sampled image at `size` (what paintEvent shows, without the legend).
    [[nodiscard]] QImage render(const QSize& size);
    [[nodiscard]] QSize sizeHint() const override { return {320, 240}; }

signals:
    /// The element under the mouse (for the status text), -1 when none.
    void hoveredElement(qint64 index, const QString& value);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    [[nodiscard]] QRect imageRect() const;
    [[nodiscard]] qint64 elementAtPixel(const QPoint& pos) const;

    OutputBuffer m_buffer;
    qint64 m_width = 0;
    double m_min = 0, m_max = 0;
    QImage m_cache; ///< the last render; rebuilt on resize or new data
};

} // namespace kernelpad
