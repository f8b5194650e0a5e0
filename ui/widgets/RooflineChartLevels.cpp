#include "ui/widgets/RooflineChartLevels.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QGraphicsLineItem>
#include <QGraphicsSimpleTextItem>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>

#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace kernelpad {

QChart* makeLogLogChart(const QString& xTitle, const QString& yTitle, QLogValueAxis** x,
                        QLogValueAxis** y) {
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    for (auto [axis, title, side] :
         {std::tuple{x, xTitle, Qt::AlignBottom}, std::tuple{y, yTitle, Qt::AlignLeft}}) {
        *axis = new QLogValueAxis(chart);
        (*axis)->setBase(10);
        (*axis)->setLabelFormat(QStringLiteral("%g"));
        (*axis)->setTitleText(title);
        chart->addAxis(*axis, side);
    }
    return chart;
}

void showToolTipOnHover(QScatterSeries* point, QWidget* view, std::function<QString()> toolTip) {
    QObject::connect(point, &QScatterSeries::hovered, view,
                     [view, toolTip = std::move(toolTip)](const QPointF&, bool state) {
                         if (state)
                             QToolTip::showText(QCursor::pos(), toolTip(), view);
                         else
                             QToolTip::hideText();
                     });
}

namespace {

/// The chart plots TFLOP/s: a tensor roof of 495,000 GFLOP/s reads as 495.
constexpr double kLevelsTera = 1e12;
/// Room around the ridges and points, in decades, so nothing sits on the frame.
constexpr double kLevelsDecadeRoom = 1.0;
constexpr qreal kLevelsPointSize = 12.0;
constexpr int kLevelsRoofPen = 2;
/// Above the series and their markers, so that a label is never hidden by a roof.
constexpr qreal kLevelsLabelZ = 20.0;

/// One colour per level, shared by its roof and its points, so a point reads against the roof
/// of its own level.
QColor levelColor(MemoryLevel level) {
    switch (level) {
    case MemoryLevel::L1:
        return QColor(0x2e, 0x7d, 0x32);
    case MemoryLevel::L2:
        return QColor(0xef, 0x6c, 0x00);
    case MemoryLevel::Dram:
        break;
    }
    return QColor(0x15, 0x65, 0xc0);
}

QColor precisionColor(Precision p) {
    switch (p) {
    case Precision::Fp32:
        return QColor(0x6a, 0x1b, 0x9a);
    case Precision::Fp64:
        return QColor(0x6d, 0x4c, 0x41);
    case Precision::Half:
        return QColor(0x00, 0x83, 0x8f);
    case Precision::Tensor:
        break;
    }
    return QColor(0xc6, 0x28, 0x28);
}

/// The points of each kind of arithmetic have their own marker shape.
QScatterSeries::MarkerShape precisionShape(Precision p) {
    switch (p) {
    case Precision::Fp32:
        return QScatterSeries::MarkerShapeCircle;
    case Precision::Fp64:
        return QScatterSeries::MarkerShapeRectangle;
    case Precision::Half:
        return QScatterSeries::MarkerShapeTriangle;
    case Precision::Tensor:
        break;
    }
    return QScatterSeries::MarkerShapeRotatedRectangle;
}

bool levelsPositive(const std::optional<double>& v) {
    return v && std::isfinite(*v) && *v > 0;
}

double levelsDecadeBelow(double v) {
    return std::pow(10.0, std::floor(std::log10(v) - kLevelsDecadeRoom + 1e-9));
}

double levelsDecadeAbove(double v) {
    return std::pow(10.0, std::ceil(std::log10(v) + kLevelsDecadeRoom - 1e-9));
}

/// "25.3 TB/s", "548 GFLOP/s": three significant digits with a decimal prefix.
QString levelsRate(double v, const char* unit) {
    static const char* const kPrefixes[] = {"", "K", "M", "G", "T", "P"};
    int i = 0;
    while (std::abs(v) >= 1000 && i < 5) {
        v /= 1000;
        ++i;
    }
    return QStringLiteral("%1 %2%3").arg(QString::number(v, 'g', 3), QLatin1String(kPrefixes[i]),
                                         QLatin1String(unit));
}

} // namespace

RooflineLevelsChart::RooflineLevelsChart(QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("rooflineLevels"));
    m_verdict = new QLabel(this);
    m_verdict->setObjectName(QStringLiteral("rooflineVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);

    m_chart = makeLogLogChart(tr("Arithmetic intensity (FLOP per byte at each level)"),
                              tr("TFLOP/s"), &m_x, &m_y);
    m_view = new QChartView(m_chart, this);
    m_view->setObjectName(QStringLiteral("rooflineLevelsChart"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(280, 240);
    // Labels are laid out in pixels: again whenever the plot area moves or resizes.
    connect(m_chart, &QChart::plotAreaChanged, this, &RooflineLevelsChart::placeLabels);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 0, 0, 0);
    layout->addWidget(m_verdict);
    layout->addWidget(m_view, 1);
    rebuild();
}

// The chart goes with the view after this object's own part: it must not place labels then.
RooflineLevelsChart::~RooflineLevelsChart() {
    m_chart->disconnect(this);
}

void RooflineLevelsChart::setRoofline(const HierarchicalRoofline& roofline, const QString& title) {
    m_roofline = roofline;
    m_chart->setTitle(title);
    rebuild();
}

void RooflineLevelsChart::clear() {
    m_roofline = HierarchicalRoofline{};
    m_chart->setTitle(QString());
    rebuild();
}

QString RooflineLevelsChart::verdict() const {
    return m_verdict->text();
}

QStringList RooflineLevelsChart::pointLabels() const {
    const bool several = m_roofline.precisionsRun().size() > 1;
    QStringList out;
    for (const HierarchyPoint& p : m_roofline.points())
        out << (several ? QStringLiteral("%1 %2").arg(memoryLevelName(p.level),
                                                      precisionName(p.precision))
                        : memoryLevelName(p.level));
    return out;
}

QString RooflineLevelsChart::pointToolTip(int index) const {
    const QList<HierarchyPoint> points = m_roofline.points();
    if (index < 0 || index >= points.size())
        return QString();
    const HierarchyPoint& p = points.at(index);
    QString text = tr("%1 at %2: %3 FLOP/byte, %4")
                       .arg(precisionName(p.precision), memoryLevelName(p.level))
                       .arg(p.flopsPerByte, 0, 'g', 3)
                       .arg(levelsRate(p.flopsPerSecond, "FLOP/s"));
    if (const std::optional<double> f = p.fractionOfRoof())
        text += tr("\n%1 % of the %2 roof at this intensity")
                    .arg(100.0 * *f, 0, 'f', 1)
                    .arg(p.underMemoryRoof ? memoryLevelName(p.level)
                                           : m_roofline.roofName(p.precision));
    return text;
}

void RooflineLevelsChart::fitAxes(double* xMin, double* xMax, double* yMin, double* yMax) const {
    double lowX = 0, highX = 0, lowY = 0, highY = 0;
    const auto take = [](double* low, double* high, double v) {
        if (!(v > 0) || !std::isfinite(v))
            return;
        *low = *low > 0 ? std::min(*low, v) : v;
        *high = std::max(*high, v);
    };
    for (const HierarchyPoint& p : m_roofline.points()) {
        take(&lowX, &highX, p.flopsPerByte);
        take(&lowY, &highY, p.flopsPerSecond / kLevelsTera);
    }
    double lowestBandwidth = 0;
    for (Precision precision : kPrecisions) {
        const std::optional<double> peak = m_roofline.compute(precision).peak;
        if (!levelsPositive(peak))
            continue;
        take(&lowY, &highY, *peak / kLevelsTera);
        for (MemoryLevel level : kMemoryLevels) {
            const std::optional<double> bandwidth = m_roofline.memory(level).peak;
            if (levelsPositive(bandwidth))
                take(&lowX, &highX, *peak / *bandwidth);
        }
    }
    for (MemoryLevel level : kMemoryLevels)
        if (const std::optional<double> b = m_roofline.memory(level).peak; levelsPositive(b))
            lowestBandwidth = lowestBandwidth > 0 ? std::min(lowestBandwidth, *b) : *b;
    if (highX <= 0)
        lowX = highX = 1;
    *xMin = levelsDecadeBelow(lowX);
    *xMax = levelsDecadeAbove(highX);
    // The slowest memory roof enters at the left edge: keep that inside too.
    if (lowestBandwidth > 0)
        take(&lowY, &highY, lowestBandwidth * *xMin / kLevelsTera);
    if (highY <= 0)
        lowY = highY = 1;
    *yMin = levelsDecadeBelow(lowY);
    *yMax = levelsDecadeAbove(highY);
}

void RooflineLevelsChart::addSeries(QXYSeries* series) {
    m_chart->addSeries(series);
    series->attachAxis(m_x);
    series->attachAxis(m_y);
}

void RooflineLevelsChart::addRoofs(double xMin, double xMax) {
    double topPeak = 0;
    for (Precision p : kPrecisions)
        if (const std::optional<double> peak = m_roofline.compute(p).peak; levelsPositive(peak))
            topPeak = std::max(topPeak, *peak);
    double topBandwidth = 0;
    for (MemoryLevel level : kMemoryLevels) {
        const std::optional<double> bandwidth = m_roofline.memory(level).peak;
        if (!levelsPositive(bandwidth))
            continue;
        topBandwidth = std::max(topBandwidth, *bandwidth);
        // Each memory roof rises until it meets the highest compute roof.
        auto* line = new QLineSeries;
        line->setName(tr("%1 %2").arg(memoryLevelName(level), levelsRate(*bandwidth, "B/s")));
        const double end = topPeak > 0 ? topPeak / *bandwidth : xMax;
        line->append(xMin, *bandwidth * xMin / kLevelsTera);
        line->append(end, *bandwidth * end / kLevelsTera);
        QPen pen(levelColor(level));
        pen.setWidth(kLevelsRoofPen);
        line->setPen(pen);
        addSeries(line);
    }
    const QList<Precision> ran = m_roofline.precisionsRun();
    for (Precision p : kPrecisions) {
        const std::optional<double> peak = m_roofline.compute(p).peak;
        if (!levelsPositive(peak))
            continue;
        // Flat from where it meets the fastest memory roof; dotted for a kind that did not run.
        auto* line = new QLineSeries;
        line->setName(tr("%1 %2").arg(m_roofline.roofName(p), levelsRate(*peak, "FLOP/s")));
        const double start = topBandwidth > 0 ? *peak / topBandwidth : xMin;
        line->append(start, *peak / kLevelsTera);
        line->append(xMax, *peak / kLevelsTera);
        QPen pen(precisionColor(p));
        pen.setWidth(ran.contains(p) ? kLevelsRoofPen : 1);
        if (!ran.contains(p))
            pen.setStyle(Qt::DotLine);
        line->setPen(pen);
        addSeries(line);
    }
}

void RooflineLevelsChart::addPoints() {
    const QList<HierarchyPoint> points = m_roofline.points();
    const QStringList labels = pointLabels();
    for (int i = 0; i < points.size(); ++i) {
        const HierarchyPoint& p = points.at(i);
        auto* point = new QScatterSeries;
        point->setName(labels.at(i));
        point->setMarkerSize(kLevelsPointSize);
        point->setMarkerShape(precisionShape(p.precision));
        point->setColor(levelColor(p.level));
        point->setBorderColor(precisionColor(p.precision));
        // Its label is placed with the others' in placeLabels(), not above it by Qt Charts.
        point->append(p.flopsPerByte, p.flopsPerSecond / kLevelsTera);
        showToolTipOnHover(point, m_view, [this, i] { return pointToolTip(i); });
        addSeries(point);
        m_points << point;
        // The legend lists the roofs; the points carry their level on the chart.
        for (QLegendMarker* marker : m_chart->legend()->markers(point))
            marker->setVisible(false);
    }
}

void RooflineLevelsChart::placeLabels() {
    qDeleteAll(m_labelItems);
    m_labelItems.clear();
    m_placed.clear();
    const QRectF plot = m_chart->plotArea();
    if (m_points.isEmpty() || plot.isEmpty())
        return;
    const QList<HierarchyPoint> points = m_roofline.points();
    const QStringList texts = pointLabels();
    QVector<ChartLabelAnchor> anchors;
    for (int i = 0; i < m_points.size(); ++i)
        anchors.append(
            {m_chart->mapToPosition(m_points.at(i)->at(0), m_points.at(i)), texts.at(i)});
    const QFont font = m_chart->font();
    m_placed = placeChartLabels(anchors, kLevelsPointSize, plot, [&](const QString& text) {
        // Measured as drawn, so that the rectangle placed is the one the text covers.
        QGraphicsSimpleTextItem probe(text);
        probe.setFont(font);
        return probe.boundingRect().size();
    });
    for (const ChartLabelPlacement& label : m_placed) {
        auto* item = new QGraphicsSimpleTextItem(label.text, m_chart);
        item->setFont(font);
        item->setZValue(kLevelsLabelZ);
        // One level's label in its colour; a shared one in the text's.
        const bool one = label.anchors.size() == 1;
        item->setBrush(one ? QBrush(levelColor(points.at(label.anchors.first()).level).darker(115))
                           : m_chart->titleBrush());
        item->setPos(label.rect.topLeft());
        m_labelItems << item;
        if (label.leader) {
            auto* leader = new QGraphicsLineItem(*label.leader, m_chart);
            leader->setPen(QPen(QColor(0x80, 0x80, 0x80), 1));
            leader->setZValue(kLevelsLabelZ);
            m_labelItems << leader;
        }
    }
}

void RooflineLevelsChart::rebuild() {
    m_chart->removeAllSeries();
    m_points.clear();
    placeLabels(); // no points: the old labels go
    if (m_roofline.isEmpty()) {
        m_verdict->setText(tr("No hierarchical roofline in this profile: Nsight Compute's raw "
                              "page has none of the SpeedOfLight_Hierarchical*RooflineChart "
                              "metrics (a profile taken before KernelPad asked for them)."));
        m_view->hide();
        return;
    }
    m_view->show();
    const std::optional<RooflineBound> bound = m_roofline.bound();
    m_verdict->setText(bound ? bound->sentence
                             : tr("No bound can be named: the profile lacks the device's peaks "
                                  "or the kernel's rates."));
    double xMin = 0, xMax = 0, yMin = 0, yMax = 0;
    fitAxes(&xMin, &xMax, &yMin, &yMax);
    m_x->setRange(xMin, xMax);
    m_y->setRange(yMin, yMax);
    addRoofs(xMin, xMax);
    addPoints();
    placeLabels();
}

} // namespace kernelpad
