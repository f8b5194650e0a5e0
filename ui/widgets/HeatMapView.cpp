#include "ui/widgets/HeatMapView.h"

#include "core/engine/OutputRangeReader.h"
#include "core/launch/BufferInit.h"

#include <QLinearGradient>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>
#include <limits>
#include <vector>

namespace kernelpad {

namespace {

/// Viridis (matplotlib's default map) at five stops: ordered in lightness, readable by
/// people with the common colour-vision deficiencies.
constexpr int kHeatMapStops = 5;
const QColor kViridis[kHeatMapStops] = {QColor(68, 1, 84), QColor(59, 82, 139),
                                        QColor(33, 145, 140), QColor(94, 201, 98),
                                        QColor(253, 231, 37)};
/// Elements past the end of the last row and NaNs.
const QColor kNoValue(96, 96, 96);
constexpr int kLegendHeight = 28;
constexpr int kMargin = 4;

QRgb colorAt(double t) {
    t = std::clamp(t, 0.0, 1.0) * (kHeatMapStops - 1);
    const int i = std::min(int(t), kHeatMapStops - 2);
    const double f = t - i;
    const QColor& a = kViridis[i];
    const QColor& b = kViridis[i + 1];
    return qRgb(int(a.red() + f * (b.red() - a.red())),
                int(a.green() + f * (b.green() - a.green())),
                int(a.blue() + f * (b.blue() - a.blue())));
}

} // namespace

HeatMapView::HeatMapView(QWidget* parent)
    : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(120, 80);
}

void HeatMapView::setReader(OutputRangeReader* reader) {
    if (m_reader)
        m_reader->disconnect(this);
    m_reader = reader;
    if (!reader)
        return;
    connect(reader, &OutputRangeReader::arrived, this, [this](qint64 first, qint64 last) {
        const qint64 begin = m_windowRow * m_width;
        if (m_buffer.isKept() && last >= begin && first < begin + windowRows() * m_width) {
            m_cache = QImage();
            update();
        }
    });
    connect(reader, &OutputRangeReader::failed, this, [this] {
        if (m_buffer.isKept())
            update();
    });
}

void HeatMapView::setBuffer(const OutputBuffer& buffer, qint64 width) {
    m_buffer = buffer; // shares the bytes
    const qint64 elementBytes = m_buffer.type.sizeBytes();
    if (elementBytes <= 0)
        m_buffer.count = 0;
    else if (!m_buffer.isKept()) // never beyond the bytes that are here
        m_buffer.count = std::min(m_buffer.count, qint64(m_buffer.data.size()) / elementBytes);
    if (width > 0)
        m_width = width;
    else
        m_width = m_buffer.count > 0 ? qint64(std::ceil(std::sqrt(double(m_buffer.count)))) : 0;
    m_windowRow = 0;
    m_cache = QImage();
    update();
}

qint64 HeatMapView::maxWindowRows() const {
    const qint64 rowBytes = std::max<qint64>(1, m_width * m_buffer.type.sizeBytes());
    return std::max<qint64>(1, kKeptWindowBytes / rowBytes);
}

void HeatMapView::setWindowRow(qint64 row) {
    // Near the end the window starts earlier, so that it stays full.
    row = std::clamp<qint64>(row, 0, std::max<qint64>(0, dataHeight() - maxWindowRows()));
    if (row == m_windowRow)
        return;
    m_windowRow = row;
    if (m_buffer.isKept()) {
        m_cache = QImage();
        update();
    }
}

qint64 HeatMapView::windowRows() const {
    const qint64 height = dataHeight();
    if (!m_buffer.isKept() || m_width <= 0)
        return height;
    return std::min(maxWindowRows(), height - m_windowRow);
}

QString HeatMapView::keptCaption() const {
    if (!m_buffer.isKept() || m_width <= 0)
        return {};
    if (m_reader && !m_reader->error().isEmpty())
        return m_reader->error();
    const QLocale locale;
    const QString rows =
        tr("rows %1–%2 of %3")
            .arg(locale.toString(m_windowRow), locale.toString(m_windowRow + windowRows() - 1),
                 locale.toString(dataHeight()));
    // The whole image would fetch most of the buffer (see the class comment).
    return m_missing ? tr("%1: fetching from the runner…").arg(rows)
                     : tr("%1, following the table (an output kept on the runner is drawn "
                          "%2 at a time)")
                           .arg(rows, locale.formattedDataSize(kKeptWindowBytes));
}

double HeatMapView::valueAt(qint64 element) const {
    if (element < 0 || element >= m_buffer.count)
        return std::numeric_limits<double>::quiet_NaN();
    if (!m_buffer.isKept())
        return elementAsDouble(m_buffer.type, m_buffer.data.constData(), element);
    const char* bytes = m_reader ? m_reader->element(element) : nullptr;
    return bytes ? elementAsDouble(m_buffer.type, bytes, 0)
                 : std::numeric_limits<double>::quiet_NaN();
}

QString HeatMapView::textAt(qint64 element) const {
    if (!m_buffer.isKept())
        return elementToString(m_buffer.type, m_buffer.data.constData(), element);
    const char* bytes = m_reader ? m_reader->element(element) : nullptr;
    return bytes ? elementToString(m_buffer.type, bytes, 0) : tr("(being fetched)");
}

void HeatMapView::clear() {
    setBuffer(OutputBuffer{});
}

qint64 HeatMapView::dataHeight() const {
    return m_width > 0 ? (m_buffer.count + m_width - 1) / m_width : 0;
}

QRect HeatMapView::imageRect() const {
    return rect().adjusted(kMargin, kMargin, -kMargin, -kMargin - kLegendHeight);
}

QImage HeatMapView::render(const QSize& size) {
    // A kept buffer: only its window's rows, from windowRow() on.
    const qint64 height = windowRows();
    const qint64 top = m_buffer.isKept() ? m_windowRow : 0;
    if (m_buffer.count == 0 || size.isEmpty() || m_width <= 0 || height <= 0)
        return {};
    if (m_buffer.isKept() && m_reader)
        m_reader->want(top * m_width, (top + height) * m_width - 1, 1);
    m_missing = false;
    // One sample per output pixel, never more pixels than elements: the cost is bounded by
    // the widget's area however large the buffer is.
    const int w = int(std::min<qint64>(size.width(), m_width));
    const int h = int(std::min<qint64>(size.height(), height));
    std::vector<double> samples(size_t(w) * size_t(h));
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (int y = 0; y < h; ++y) {
        const qint64 row = top + qint64(y) * height / h;
        for (int x = 0; x < w; ++x) {
            const qint64 element = row * m_width + qint64(x) * m_width / w;
            const double v = valueAt(element);
            if (m_buffer.isKept() && element < m_buffer.count &&
                (!m_reader || !m_reader->contains(element)))
                m_missing = true;
            samples[size_t(y) * w + x] = v;
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
    }
    m_min = std::isfinite(lo) ? lo : 0;
    m_max = std::isfinite(hi) ? hi : 0;
    const double span = m_max > m_min ? m_max - m_min : 1.0;
    QImage image(w, h, QImage::Format_RGB32);
    for (int y = 0; y < h; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < w; ++x) {
            const double v = samples[size_t(y) * w + x];
            if (std::isnan(v))
                line[x] = kNoValue.rgb();
            else
                line[x] = colorAt(std::isinf(v) ? (v > 0 ? 1.0 : 0.0) : (v - m_min) / span);
        }
    }
    return image;
}

void HeatMapView::resizeEvent(QResizeEvent* event) {
    m_cache = QImage();
    QWidget::resizeEvent(event);
}

void HeatMapView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    const QRect target = imageRect();
    if (m_buffer.count == 0 || target.isEmpty()) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No buffer"));
        return;
    }
    if (m_cache.isNull())
        m_cache = render(target.size());
    // Nearest-neighbour scaling keeps element borders sharp when there are few elements.
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(target, m_cache);

    const QRect legend(target.left(), target.bottom() + kMargin + 2, target.width(),
                       kLegendHeight / 2 - 2);
    QLinearGradient gradient(legend.topLeft(), legend.topRight());
    for (int i = 0; i < kHeatMapStops; ++i)
        gradient.setColorAt(double(i) / (kHeatMapStops - 1), kViridis[i]);
    painter.fillRect(legend, gradient);
    const QRect labels(legend.left(), legend.bottom() + 1, legend.width(), kLegendHeight / 2);
    painter.setPen(palette().windowText().color());
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignTop, QString::number(m_min, 'g', 6));
    painter.drawText(labels, Qt::AlignRight | Qt::AlignTop, QString::number(m_max, 'g', 6));
    const QString caption = m_buffer.isKept()
                                ? keptCaption()
                                : tr("%1 × %2, %3 sampled")
                                      .arg(m_width)
                                      .arg(dataHeight())
                                      .arg(qint64(m_cache.width()) * m_cache.height());
    painter.drawText(labels, Qt::AlignHCenter | Qt::AlignTop, caption);
}

qint64 HeatMapView::elementAtPixel(const QPoint& pos) const {
    const QRect target = imageRect();
    if (!target.contains(pos) || m_width <= 0)
        return -1;
    const qint64 col = qint64(pos.x() - target.left()) * m_width / target.width();
    const qint64 row = (m_buffer.isKept() ? m_windowRow : 0) +
                       qint64(pos.y() - target.top()) * windowRows() / target.height();
    const qint64 element = row * m_width + col;
    return element < m_buffer.count ? element : -1;
}

void HeatMapView::mouseMoveEvent(QMouseEvent* event) {
    const qint64 element = elementAtPixel(event->position().toPoint());
    if (element < 0) {
        emit hoveredElement(-1, {});
        QToolTip::hideText();
        return;
    }
    const QString value = textAt(element);
    emit hoveredElement(element, value);
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("[%1] (row %2, column %3) = %4")
                           .arg(element)
                           .arg(element / m_width)
                           .arg(element % m_width)
                           .arg(value),
                       this);
}

} // namespace kernelpad
