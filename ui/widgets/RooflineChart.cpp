#include "ui/widgets/RooflineChart.h"

#include "ui/widgets/RooflineChartLevels.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

/// The chart plots GFLOP/s: the H100's roofs read as 67,000 and 34,000 instead of 6.7e13.
constexpr double kGiga = 1e9;
/// Room left and right of the ridges and points, in decades, so nothing sits on the frame.
constexpr double kDecadeRoom = 1.0;
/// Where the intensity axis spans when nothing else decides it: SAXPY (1/6 FLOP/byte) to a
/// dense GEMM tile (tens of FLOP/byte).
constexpr double kDefaultMinIntensity = 0.01;
constexpr double kDefaultMaxIntensity = 100.0;
constexpr qreal kRooflinePointSize = 11.0;
constexpr int kRoofPenWidth = 2;

QString rateText(double flopsPerSecond) {
    return QStringLiteral("%1 GFLOP/s").arg(flopsPerSecond / kGiga, 0, 'f', 1);
}

double rooflineDecadeBelow(double v) {
    return std::pow(10.0, std::floor(std::log10(v) - kDecadeRoom + 1e-9));
}

double rooflineDecadeAbove(double v) {
    return std::pow(10.0, std::ceil(std::log10(v) + kDecadeRoom - 1e-9));
}

bool drawable(const RooflinePoint& p) {
    return p.flopsPerByte > 0 && p.flopsPerSecond > 0 && std::isfinite(p.flopsPerByte) &&
           std::isfinite(p.flopsPerSecond);
}

/// A run that counted no floating-point operation (a copy, a strided read): log axes have no
/// place for 0 FLOP/s, so it is drawn in the floor's corner with a label saying why.
bool onFloor(const RooflinePoint& p) {
    return p.flopsPerSecond == 0 && p.flopsPerByte >= 0 && std::isfinite(p.flopsPerByte);
}

/// How far inside the floor's corner such a point sits, in decades, so that its marker is
/// not cut by the frame.
constexpr double kFloorInset = 0.15;

} // namespace

RooflineChart::RooflineChart(QWidget* parent)
    : QWidget(parent) {
    m_stack = new QStackedWidget(this);
    m_emptyState = new QLabel(
        tr("No profile yet. Build ▸ Profile runs the kernel once under Nsight Compute; the "
           "roofline then shows the device's memory and compute roofs and one numbered point "
           "per profiled run, joined in order."),
        m_stack);
    m_emptyState->setObjectName(QStringLiteral("rooflineEmptyState"));
    m_emptyState->setWordWrap(true);
    m_emptyState->setAlignment(Qt::AlignCenter);
    m_emptyState->setMargin(12);

    m_chart =
        makeLogLogChart(tr("Arithmetic intensity (FLOP per DRAM byte)"), tr("GFLOP/s"), &m_x, &m_y);
    m_view = new QChartView(m_chart, m_stack);
    m_view->setObjectName(QStringLiteral("rooflineChart"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(280, 200);

    m_levels = new RooflineLevelsChart(m_stack);
    m_stack->addWidget(m_emptyState);
    m_stack->addWidget(m_view);
    m_stack->addWidget(m_levels);

    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("rooflineMode"));
    m_mode->addItem(tr("Memory levels of the shown profile"), int(Mode::Levels));
    m_mode->addItem(tr("Profiled runs against DRAM"), int(Mode::Runs));
    m_mode->setToolTip(tr("The shown profile's L1, L2 and DRAM points under their roofs, or "
                          "every profiled run of the session as one point, in order"));
    m_mode->setCurrentIndex(int(Mode::Runs));
    m_mode->hide();
    connect(m_mode, qOverload<int>(&QComboBox::activated), this, [this] {
        m_modeChosen = true;
        rebuild();
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_mode);
    layout->addWidget(m_stack, 1);
    rebuild();
}

void RooflineChart::setHierarchy(const HierarchicalRoofline& roofline, const QString& title) {
    m_levels->setRoofline(roofline, title);
    if (!m_modeChosen)
        m_mode->setCurrentIndex(int(roofline.isEmpty() ? Mode::Runs : Mode::Levels));
    rebuild();
}

void RooflineChart::setMode(Mode mode) {
    m_mode->setCurrentIndex(int(mode));
    m_modeChosen = true;
    rebuild();
}

RooflineChart::Mode RooflineChart::mode() const {
    return m_mode->currentIndex() == int(Mode::Levels) ? Mode::Levels : Mode::Runs;
}

void RooflineChart::setRoofs(double dramBytesPerSecond, const QVector<RooflineRoof>& roofs) {
    m_dramBytesPerSecond = dramBytesPerSecond > 0 ? dramBytesPerSecond : 0;
    m_roofs.clear();
    for (const RooflineRoof& roof : roofs)
        if (roof.flopsPerSecond > 0)
            m_roofs.append(roof);
    std::sort(m_roofs.begin(), m_roofs.end(), [](const RooflineRoof& a, const RooflineRoof& b) {
        return a.flopsPerSecond > b.flopsPerSecond;
    });
    rebuild();
}

void RooflineChart::setPoints(const QVector<RooflinePoint>& points) {
    m_points = points;
    rebuild();
}

void RooflineChart::clear() {
    m_dramBytesPerSecond = 0;
    m_roofs.clear();
    m_points.clear();
    m_levels->clear();
    m_modeChosen = false;
    m_mode->setCurrentIndex(int(Mode::Runs));
    rebuild();
}

double RooflineChart::attainable(double flopsPerByte) const {
    double peak = m_roofs.isEmpty() ? 0 : m_roofs.first().flopsPerSecond;
    if (m_dramBytesPerSecond <= 0)
        return peak;
    const double memoryBound = m_dramBytesPerSecond * flopsPerByte;
    return peak > 0 ? std::min(peak, memoryBound) : memoryBound;
}

QString RooflineChart::pointToolTip(int index) const {
    if (index < 0 || index >= m_points.size())
        return QString();
    const RooflinePoint& p = m_points.at(index);
    QString text = tr("Profile %1: %2 FLOP/byte, %3")
                       .arg(index + 1)
                       .arg(p.flopsPerByte, 0, 'g', 3)
                       .arg(rateText(p.flopsPerSecond));
    const double roof = attainable(p.flopsPerByte);
    if (roof > 0 && p.flopsPerSecond > 0)
        text += tr(" (%1 % of the roof there)").arg(100.0 * p.flopsPerSecond / roof, 0, 'f', 1);
    if (onFloor(p))
        text += tr("\nno FP operations counted: drawn in the corner, as 0 has no place on a log "
                   "axis");
    if (!p.toolTip.isEmpty())
        text += QLatin1Char('\n') + p.toolTip;
    return text;
}

void RooflineChart::fitAxes(double* xMin, double* xMax, double* yMin, double* yMax) const {
    double lowX = kDefaultMinIntensity, highX = kDefaultMaxIntensity;
    double lowY = 0, highY = 0;
    auto takeY = [&](double y) {
        lowY = lowY > 0 ? std::min(lowY, y) : y;
        highY = std::max(highY, y);
    };
    for (const RooflinePoint& p : m_points) {
        if (!drawable(p))
            continue;
        lowX = std::min(lowX, p.flopsPerByte);
        highX = std::max(highX, p.flopsPerByte);
        takeY(p.flopsPerSecond / kGiga);
    }
    for (const RooflineRoof& roof : m_roofs) {
        takeY(roof.flopsPerSecond / kGiga);
        if (m_dramBytesPerSecond > 0) {
            const double ridge = roof.flopsPerSecond / m_dramBytesPerSecond;
            lowX = std::min(lowX, ridge);
            highX = std::max(highX, ridge);
        }
    }
    *xMin = rooflineDecadeBelow(lowX);
    *xMax = rooflineDecadeAbove(highX);
    if (m_dramBytesPerSecond > 0)
        takeY(m_dramBytesPerSecond * *xMin / kGiga);
    if (highY <= 0)
        lowY = highY = 1;
    *yMin = rooflineDecadeBelow(lowY);
    *yMax = rooflineDecadeAbove(highY);
}

void RooflineChart::rebuild() {
    m_chart->removeAllSeries();
    const bool levels = !m_levels->roofline().isEmpty();
    m_mode->setVisible(levels);
    if (levels && mode() == Mode::Levels) {
        m_stack->setCurrentWidget(m_levels);
        return;
    }
    const bool empty = m_points.isEmpty() && m_roofs.isEmpty() && m_dramBytesPerSecond <= 0;
    m_stack->setCurrentWidget(empty ? static_cast<QWidget*>(m_emptyState) : m_view);
    if (empty)
        return;
    double xMin = 0, xMax = 0, yMin = 0, yMax = 0;
    fitAxes(&xMin, &xMax, &yMin, &yMax);
    m_x->setRange(xMin, xMax);
    m_y->setRange(yMin, yMax);

    auto add = [this](QXYSeries* series) {
        m_chart->addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(m_y);
    };
    const double topPeak = m_roofs.isEmpty() ? 0 : m_roofs.first().flopsPerSecond;
    if (m_dramBytesPerSecond > 0) {
        auto* memory = new QLineSeries;
        memory->setName(tr("DRAM %1 GB/s").arg(m_dramBytesPerSecond / kGiga, 0, 'f', 0));
        const double end = topPeak > 0 ? topPeak / m_dramBytesPerSecond : xMax;
        memory->append(xMin, m_dramBytesPerSecond * xMin / kGiga);
        memory->append(end, m_dramBytesPerSecond * end / kGiga);
        QPen pen = memory->pen();
        pen.setWidth(kRoofPenWidth);
        memory->setPen(pen);
        add(memory);
    }
    for (const RooflineRoof& roof : m_roofs) {
        auto* line = new QLineSeries;
        line->setName(tr("%1 %2").arg(roof.name, rateText(roof.flopsPerSecond)));
        const double start =
            m_dramBytesPerSecond > 0 ? roof.flopsPerSecond / m_dramBytesPerSecond : xMin;
        line->append(start, roof.flopsPerSecond / kGiga);
        line->append(xMax, roof.flopsPerSecond / kGiga);
        QPen pen = line->pen();
        pen.setWidth(kRoofPenWidth);
        line->setPen(pen);
        add(line);
    }

    QVector<int> drawn;
    QVector<int> floor;
    for (int i = 0; i < m_points.size(); ++i) {
        if (drawable(m_points.at(i)))
            drawn.append(i);
        else if (onFloor(m_points.at(i)))
            floor.append(i);
    }
    if (drawn.size() > 1) {
        auto* path = new QLineSeries;
        path->setName(tr("Profiles in order"));
        QPen pen(QColor(0x60, 0x60, 0x60));
        pen.setStyle(Qt::DashLine);
        path->setPen(pen);
        for (int i : drawn)
            path->append(m_points.at(i).flopsPerByte, m_points.at(i).flopsPerSecond / kGiga);
        add(path);
    }
    // One series per point: its label is its number, and hovering it names the run.
    const double inset = std::pow(10.0, kFloorInset);
    for (int i : drawn + floor) {
        auto* point = new QScatterSeries;
        const bool current = i == m_points.size() - 1;
        const bool atFloor = onFloor(m_points.at(i));
        point->setName(tr("Profile %1").arg(i + 1));
        point->setMarkerSize(kRooflinePointSize);
        point->setColor(current ? QColor(0xd3, 0x2f, 0x2f) : QColor(0x15, 0x65, 0xc0));
        if (atFloor)
            point->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        point->setPointLabelsFormat(atFloor ? tr("%1: no FP operations counted").arg(i + 1)
                                            : QString::number(i + 1));
        point->setPointLabelsVisible(true);
        point->setPointLabelsClipping(false);
        if (atFloor)
            point->append(xMin * inset, yMin * inset);
        else
            point->append(m_points.at(i).flopsPerByte, m_points.at(i).flopsPerSecond / kGiga);
        showToolTipOnHover(point, m_view, [this, i] { return pointToolTip(i); });
        add(point);
        // The legend lists the roofs; the points carry their numbers on the chart.
        for (QLegendMarker* marker : m_chart->legend()->markers(point))
            marker->setVisible(false);
    }
}

} // namespace kernelpad
