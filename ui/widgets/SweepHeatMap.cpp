#include "ui/widgets/SweepHeatMap.h"

#include "core/sweep/SweepSpace.h"
#include "ui/Theme.h"

#include <QEvent>
#include <QHelpEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

/// Viridis (matplotlib's default map) at five stops, as HeatMapView uses it: ordered in
/// lightness, readable with the common colour-vision deficiencies.
constexpr int kStops = 5;
const QColor kViridis[kStops] = {QColor(68, 1, 84), QColor(59, 82, 139), QColor(33, 145, 140),
                                 QColor(94, 201, 98), QColor(253, 231, 37)};
/// Room for the row labels (left), the column labels (below), the legend (right).
constexpr int kLeftMargin = 64;
constexpr int kBottomMargin = 40;
constexpr int kRightMargin = 76;
constexpr int kTopMargin = 6;
constexpr int kLegendWidth = 14;
/// A cell carries its value as text from this size on (transpose's 11 × 11 grid at the
/// panel's usual size does; a 32 × 32 one in a small panel does not).
constexpr int kMinTextCellWidth = 40;
constexpr int kMinTextCellHeight = 16;
constexpr int kBestPenWidth = 3;
/// Luminance (Rec. 709, 0..255) above which a cell's text is black rather than white.
constexpr double kLightCell = 128;

double luminance(const QColor& c) {
    return 0.2126 * c.red() + 0.7152 * c.green() + 0.0722 * c.blue();
}

QColor viridis(double t) {
    t = std::clamp(t, 0.0, 1.0) * (kStops - 1);
    const int i = std::min(int(t), kStops - 2);
    const double f = t - i;
    const QColor& a = kViridis[i];
    const QColor& b = kViridis[i + 1];
    return QColor(int(a.red() + f * (b.red() - a.red())),
                  int(a.green() + f * (b.green() - a.green())),
                  int(a.blue() + f * (b.blue() - a.blue())));
}

/// Time, energy and their product are best low; bandwidth and the baseline ratio high.
bool lowerIsBetter(SweepObjective objective) {
    return objective == SweepObjective::Time || objective == SweepObjective::Energy ||
           objective == SweepObjective::Edp;
}

/// A cell's text: short enough for a 40-pixel cell.
QString cellText(double value, SweepObjective objective) {
    if (objective == SweepObjective::Baseline)
        return QString::number(value, 'f', 2);
    if (objective == SweepObjective::Bandwidth || value >= 100)
        return QString::number(value, 'f', 0);
    return QString::number(value, 'g', 3);
}

} // namespace

SweepHeatMap::SweepHeatMap(QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("sweepHeatMap"));
    setMinimumSize(240, 160);
}

void SweepHeatMap::setData(const SweepChartAxis& columns, const SweepChartAxis& rows,
                           const QVector<SweepRecord>& records, SweepObjective objective,
                           const QString& bestKey) {
    m_columns = columns;
    m_rows = rows;
    m_records = records;
    m_objective = objective;
    m_bestKey = bestKey;
    m_cells.clear();
    m_cells.reserve(records.size());
    m_byKey.clear();
    m_min = m_max = 0;
    bool any = false;
    for (int i = 0; i < m_records.size(); ++i) {
        const SweepRecord& record = m_records.at(i);
        const int column = int(m_columns.values.indexOf(parameterValue(record, m_columns.name)));
        const int row = int(m_rows.values.indexOf(parameterValue(record, m_rows.name)));
        m_cells.append(column >= 0 && row >= 0 ? QPoint(column, row) : QPoint(-1, -1));
        m_byKey.insert(record.key, i);
        const double v = objectiveValue(record, objective);
        if (std::isfinite(v)) {
            m_min = any ? std::min(m_min, v) : v;
            m_max = any ? std::max(m_max, v) : v;
            any = true;
        }
    }
    update();
}

void SweepHeatMap::clear() {
    setData({}, {}, {}, SweepObjective::Time, QString());
}

QRect SweepHeatMap::gridRect() const {
    return rect().adjusted(kLeftMargin, kTopMargin, -kRightMargin, -kBottomMargin);
}

QRect SweepHeatMap::cellRect(int column, int row) const {
    const QRect grid = gridRect();
    const int columns = int(m_columns.values.size());
    const int rows = int(m_rows.values.size());
    if (columns == 0 || rows == 0 || grid.width() <= 0 || grid.height() <= 0)
        return {};
    const int left = grid.left() + column * grid.width() / columns;
    const int right = grid.left() + (column + 1) * grid.width() / columns;
    const int top = grid.top() + row * grid.height() / rows;
    const int bottom = grid.top() + (row + 1) * grid.height() / rows;
    return QRect(QPoint(left, top), QPoint(right - 1, bottom - 1));
}

QRect SweepHeatMap::cellRect(const QString& key) const {
    const int i = m_byKey.value(key, -1);
    if (i < 0 || m_cells.at(i).x() < 0)
        return {};
    return cellRect(m_cells.at(i).x(), m_cells.at(i).y());
}

double SweepHeatMap::goodness(double value) const {
    // Log scale: a sweep's times span orders of magnitude (a 1 × 1 block against a 32 × 8
    // one), and a linear scale would paint every good cell the same colour.
    if (!(m_max > m_min) || m_min <= 0)
        return 1.0;
    const double t = (std::log(value) - std::log(m_min)) / (std::log(m_max) - std::log(m_min));
    return lowerIsBetter(m_objective) ? 1.0 - t : t;
}

QColor SweepHeatMap::colourOf(const SweepRecord& record) const {
    const double v = objectiveValue(record, m_objective);
    return std::isfinite(v) ? viridis(goodness(v)) : kFailedColour;
}

QColor SweepHeatMap::cellColour(const QString& key) const {
    const int i = m_byKey.value(key, -1);
    return i < 0 ? QColor() : colourOf(m_records.at(i));
}

bool SweepHeatMap::valuesShown() const {
    const QRect cell = cellRect(0, 0);
    return cell.width() >= kMinTextCellWidth && cell.height() >= kMinTextCellHeight;
}

int SweepHeatMap::recordAt(const QPoint& pos) const {
    const QRect grid = gridRect();
    const int columns = int(m_columns.values.size());
    const int rows = int(m_rows.values.size());
    if (!grid.contains(pos) || columns == 0 || rows == 0)
        return -1;
    const int column = std::min(columns - 1, (pos.x() - grid.left()) * columns / grid.width());
    const int row = std::min(rows - 1, (pos.y() - grid.top()) * rows / grid.height());
    for (int i = 0; i < m_cells.size(); ++i)
        if (m_cells.at(i) == QPoint(column, row))
            return i;
    return -1;
}

QString SweepHeatMap::keyAt(const QPoint& pos) const {
    const int i = recordAt(pos);
    return i < 0 ? QString() : m_records.at(i).key;
}

QString SweepHeatMap::toolTipAt(const QPoint& pos) const {
    const int i = recordAt(pos);
    if (i < 0)
        return QString();
    QString text = recordToolTip(m_records.at(i));
    if (m_records.at(i).key == m_bestKey)
        text += QLatin1Char('\n') + tr("the best");
    return text;
}

void SweepHeatMap::paintEvent(QPaintEvent*) {
    const Theme theme = Theme::current();
    QPainter p(this);
    p.fillRect(rect(), theme.paper);
    if (m_columns.values.isEmpty() || m_rows.values.isEmpty())
        return;
    const QRect grid = gridRect();
    if (grid.width() <= 0 || grid.height() <= 0)
        return;
    const bool text = valuesShown();
    const QColor hatch = theme.dark ? QColor(200, 200, 200) : QColor(70, 70, 70);

    // Cells not run yet (a live sweep) or removed by a restriction stay empty in a frame.
    p.setPen(theme.lineNumberPaper);
    p.drawRect(grid.adjusted(0, 0, -1, -1));
    for (int i = 0; i < m_records.size(); ++i) {
        if (m_cells.at(i).x() < 0)
            continue;
        const SweepRecord& record = m_records.at(i);
        const QRect cell = cellRect(m_cells.at(i).x(), m_cells.at(i).y());
        const QColor fill = colourOf(record);
        p.fillRect(cell, fill);
        const double v = objectiveValue(record, m_objective);
        if (!std::isfinite(v)) {
            p.fillRect(cell, QBrush(hatch, Qt::BDiagPattern));
            continue;
        }
        if (text) {
            p.setPen(luminance(fill) > kLightCell ? Qt::black : Qt::white);
            p.drawText(cell, Qt::AlignCenter, cellText(v, m_objective));
        }
    }
    const QRect best = cellRect(m_bestKey);
    if (!best.isEmpty()) {
        QPen pen(theme.text, kBestPenWidth);
        pen.setJoinStyle(Qt::MiterJoin);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRect(best.adjusted(1, 1, -1, -1));
    }

    // Labels: every value when they fit, else every other one, and so on.
    p.setPen(theme.text);
    const QFontMetrics metrics(font());
    const int columnStep = std::max<qsizetype>(
        1, (metrics.horizontalAdvance(QStringLiteral("00000")) * m_columns.values.size()) /
                   std::max(1, grid.width()) +
               1);
    for (int c = 0; c < m_columns.values.size(); c += columnStep) {
        const QRect cell = cellRect(c, int(m_rows.values.size()) - 1);
        p.drawText(QRect(cell.left(), grid.bottom() + 2, cell.width(), metrics.height()),
                   Qt::AlignHCenter | Qt::AlignTop,
                   SweepSpace::formatValue(m_columns.values.at(c)));
    }
    const int rowStep = std::max<qsizetype>(
        1, metrics.height() * m_rows.values.size() / std::max(1, grid.height()) + 1);
    for (int r = 0; r < m_rows.values.size(); r += rowStep) {
        const QRect cell = cellRect(0, r);
        p.drawText(QRect(0, cell.top(), kLeftMargin - 6, cell.height()),
                   Qt::AlignRight | Qt::AlignVCenter, SweepSpace::formatValue(m_rows.values.at(r)));
    }
    p.drawText(QRect(grid.left(), height() - metrics.height() - 2, grid.width(), metrics.height()),
               Qt::AlignHCenter, m_columns.name);
    p.save();
    p.translate(metrics.height(), grid.center().y());
    p.rotate(-90);
    p.drawText(QRect(-grid.height() / 2, -metrics.height(), grid.height(), metrics.height()),
               Qt::AlignHCenter, m_rows.name);
    p.restore();

    // The legend: the colour scale from the worst (bottom) to the best (top).
    if (m_max > 0) {
        const QRect bar(grid.right() + 10, grid.top(), kLegendWidth, grid.height());
        QLinearGradient gradient(bar.bottomLeft(), bar.topLeft());
        for (int s = 0; s < kStops; ++s)
            gradient.setColorAt(double(s) / (kStops - 1), kViridis[s]);
        p.fillRect(bar, gradient);
        const double worst = lowerIsBetter(m_objective) ? m_max : m_min;
        const double bestValue = lowerIsBetter(m_objective) ? m_min : m_max;
        const QRect labels(bar.right() + 3, grid.top(), kRightMargin - kLegendWidth - 14,
                           grid.height());
        p.drawText(labels, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                   cellText(bestValue, m_objective));
        p.drawText(labels, Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap,
                   cellText(worst, m_objective));
        p.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
                   m_objective == SweepObjective::Time        ? tr("ms")
                   : m_objective == SweepObjective::Bandwidth ? tr("GB/s")
                   : m_objective == SweepObjective::Energy    ? tr("mJ")
                   : m_objective == SweepObjective::Edp       ? tr("J s")
                                                              : tr("× baseline"));
    }
}

void SweepHeatMap::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        const QString key = keyAt(event->position().toPoint());
        if (!key.isEmpty())
            emit cellClicked(key);
    }
    QWidget::mouseReleaseEvent(event);
}

bool SweepHeatMap::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace kernelpad
