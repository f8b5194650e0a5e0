#pragma once
// A buffer painted as a width x height image with a min..max colour scale.

#include "core/run/RunTypes.h"

#include <QImage>
#include <QWidget>

namespace kernelpad {

class OutputRangeReader;

/// Paints a buffer by sampling one element per pixel: the cost of a paint depends on the
/// widget's size, never on the buffer's (100 million elements paint as fast as 100).
///
/// An output kept on the runner is drawn a window of rows at a time (windowRows() from
/// windowRow(), at most kKeptWindowBytes): the runner's protocol fetches contiguous ranges, and
/// sampling the whole of a 1 GiB buffer would touch a chunk per pixel, which is most of it.
class HeatMapView : public QWidget {
    Q_OBJECT
public:
    /// The most of a kept output one image fetches (64 of OutputRangeReader's chunks).
    static constexpr qint64 kKeptWindowBytes = qint64(4) << 20;

    explicit HeatMapView(QWidget* parent = nullptr);

    /// Reads kept buffers' elements (the table's reader, so the two share fetched chunks).
    void setReader(OutputRangeReader* reader);
    /// The first row of a kept buffer's window (clamped); the viewer follows the table with it.
    void setWindowRow(qint64 row);
    [[nodiscard]] qint64 windowRow() const { return m_windowRow; }
    /// Rows drawn: all of them, or a kept buffer's window.
    [[nodiscard]] qint64 windowRows() const;
    /// The words under a kept buffer's image ("rows 0–255 of 16,384 …"), else empty.
    [[nodiscard]] QString keptCaption() const;

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
    /// Rows of a kept buffer that fit in kKeptWindowBytes (at least one).
    [[nodiscard]] qint64 maxWindowRows() const;
    [[nodiscard]] qint64 elementAtPixel(const QPoint& pos) const;
    /// Element `element`'s value; NaN while a kept element is not here.
    [[nodiscard]] double valueAt(qint64 element) const;
    [[nodiscard]] QString textAt(qint64 element) const;

    OutputBuffer m_buffer;
    OutputRangeReader* m_reader = nullptr;
    qint64 m_windowRow = 0;
    bool m_missing = false; ///< the last render of a kept window lacked elements
    qint64 m_width = 0;
    double m_min = 0, m_max = 0;
    QImage m_cache; ///< the last render; rebuilt on resize or new data
};

} // namespace kernelpad
