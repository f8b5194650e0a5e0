#include "ui/widgets/OccupancyView.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>

namespace kernelpad {

namespace {

constexpr int kAxes = 3;
constexpr OccupancyAxis kAxisOrder[kAxes] = {OccupancyAxis::BlockSize, OccupancyAxis::Registers,
                                             OccupancyAxis::DynamicShared};
constexpr double kBytesPerKiB = 1024.0;
constexpr double kMarkerSize = 11.0;
constexpr double kYMarginPercent = 4.0;

int occupancyIndexOf(OccupancyAxis axis) {
    return axis == OccupancyAxis::BlockSize ? 0 : axis == OccupancyAxis::Registers ? 1 : 2;
}

/// The axis value of `x` as drawn: shared memory in KiB, the rest as they are.
double drawnX(OccupancyAxis axis, int x) {
    return axis == OccupancyAxis::DynamicShared ? x / kBytesPerKiB : double(x);
}

QString chartTitle(OccupancyAxis axis) {
    switch (axis) {
    case OccupancyAxis::BlockSize:
        return QObject::tr("Block size (threads)");
    case OccupancyAxis::Registers:
        return QObject::tr("Registers per thread");
    case OccupancyAxis::DynamicShared:
        return QObject::tr("Dynamic shared (KiB)");
    }
    return {};
}

QString xText(OccupancyAxis axis, int x) {
    const QLocale c = QLocale(QLocale::English);
    switch (axis) {
    case OccupancyAxis::BlockSize:
        return QObject::tr("%1 threads").arg(c.toString(x));
    case OccupancyAxis::Registers:
        return QObject::tr("%1 registers per thread").arg(x);
    case OccupancyAxis::DynamicShared:
        return QObject::tr("%1 B of dynamic shared memory").arg(c.toString(x));
    }
    return {};
}

} // namespace

OccupancyView::OccupancyView(QWidget* parent)
    : QWidget(parent) {
    m_stack = new QStackedWidget(this);
    m_emptyState = new QLabel(m_stack);
    m_emptyState->setObjectName(QStringLiteral("occupancyEmptyState"));
    m_emptyState->setWordWrap(true);
    m_emptyState->setAlignment(Qt::AlignCenter);

    auto* page = new QWidget(m_stack);
    m_title = new QLabel(page);
    m_title->setObjectName(QStringLiteral("occupancyTitle"));
    m_title->setWordWrap(true);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    auto* charts = new QHBoxLayout;
    charts->setSpacing(2);
    for (const OccupancyAxis axis : kAxisOrder)
        charts->addWidget(buildChart(axis), 1);
    m_limiter = new QLabel(page);
    m_limiter->setObjectName(QStringLiteral("occupancyLimiter"));
    m_limiter->setWordWrap(true);
    m_limiter->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* pageLayout = new QVBoxLayout(page);
    pageLayout->setContentsMargins(4, 4, 4, 4);
    pageLayout->addWidget(m_title);
    pageLayout->addLayout(charts, 1);
    pageLayout->addWidget(m_limiter);

    m_stack->addWidget(m_emptyState);
    m_stack->addWidget(page);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    showMessage(tr("Nothing compiled yet: after a compile, this tab shows the kernel's "
                   "occupancy against block size, registers per thread and dynamic shared "
                   "memory, with the current launch marked and what limits it."));
}

QWidget* OccupancyView::buildChart(OccupancyAxis axis) {
    Chart& c = m_charts[occupancyIndexOf(axis)];
    c.chart = new QChart;
    c.chart->setAnimationOptions(QChart::NoAnimation);
    // Room on the right for the last x label.
    c.chart->setMargins(QMargins(2, 2, 14, 2));
    c.chart->legend()->hide();
    c.chart->setTitle(chartTitle(axis));
    QFont titleFont = c.chart->titleFont();
    titleFont.setBold(true);
    c.chart->setTitleFont(titleFont);
    c.line = new QLineSeries(c.chart);
    c.marker = new QScatterSeries(c.chart);
    c.marker->setMarkerSize(kMarkerSize);
    c.marker->setColor(QColor(0xd6, 0x27, 0x28));
    c.chart->addSeries(c.line);
    c.chart->addSeries(c.marker);
    c.x = new QValueAxis(c.chart);
    c.x->setLabelFormat(QStringLiteral("%.0f"));
    c.x->setTickType(QValueAxis::TicksDynamic);
    c.x->setTickAnchor(0);
    c.y = new QValueAxis(c.chart);
    // A little room above 100 % and below 0 keeps a marker there whole; the ticks stay at
    // 0, 20, ..., 100.
    c.y->setRange(-kYMarginPercent, 100 + kYMarginPercent);
    c.y->setTickType(QValueAxis::TicksDynamic);
    c.y->setTickAnchor(0);
    c.y->setTickInterval(20);
    c.y->setLabelFormat(QStringLiteral("%.0f %%"));
    c.chart->addAxis(c.x, Qt::AlignBottom);
    c.chart->addAxis(c.y, Qt::AlignLeft);
    for (auto* series : {static_cast<QXYSeries*>(c.line), static_cast<QXYSeries*>(c.marker)}) {
        series->attachAxis(c.x);
        series->attachAxis(c.y);
    }
    auto showTip = [this, axis](const QPointF& point, bool state) {
        if (state)
            QToolTip::showText(QCursor::pos(), pointToolTip(axis, point.x()));
        else
            QToolTip::hideText();
    };
    connect(c.line, &QLineSeries::hovered, this, showTip);
    connect(c.marker, &QScatterSeries::hovered, this, showTip);
    auto* view = new QChartView(c.chart, this);
    view->setObjectName(QStringLiteral("occupancyChart%1").arg(occupancyIndexOf(axis)));
    view->setRenderHint(QPainter::Antialiasing);
    // Three side by side must fit the editor's half of a 1280x800 window (tst_windowlayout).
    view->setMinimumSize(150, 140);
    return view;
}

void OccupancyView::showMessage(const QString& text) {
    m_report = OccupancyReport{};
    m_emptyState->setText(text);
    m_stack->setCurrentWidget(m_emptyState);
}

bool OccupancyView::showsCharts() const {
    return m_stack->currentWidget() != m_emptyState;
}

void OccupancyView::showReport(const OccupancyReport& report, const QString& kernel,
                               const QString& deviceName) {
    if (!report.error.isEmpty() || report.curves.isEmpty()) {
        showMessage(tr("No occupancy curves for '%1': %2.")
                        .arg(kernel, report.error.isEmpty() ? tr("the limits are not known")
                                                            : report.error));
        return;
    }
    m_report = report;
    const OccupancyCurves& c = report.curves;
    // The kernel's figures name their source, as the Resources tab does (one source of
    // truth: OccupancyInputs.h).
    const QString figuresFrom =
        resourceSourceName(report.fromDriver ? ResourceSource::Driver : ResourceSource::Cubin);
    m_title->setText(tr("%1: %2 registers per thread, %3 B static shared memory%4 (from %5); %6")
                         .arg(kernel)
                         .arg(c.kernel.registersPerThread)
                         .arg(QLocale(QLocale::English).toString(c.kernel.staticSharedBytes))
                         .arg(c.kernel.barriers == 1  ? tr(", 1 barrier")
                              : c.kernel.barriers > 1 ? tr(", %1 barriers").arg(c.kernel.barriers)
                                                      : QString())
                         .arg(figuresFrom, report.sourceText(deviceName)));
    m_title->setToolTip(tr("Kernel figures from %1.").arg(figuresFrom));
    for (const OccupancyAxis axis : kAxisOrder)
        fill(axis);
    m_limiter->setText(
        occupancyExplanation(c.current, c.limits, c.kernel, c.blockThreads, c.dynamicSharedBytes));
    m_stack->setCurrentIndex(1);
}

void OccupancyView::fill(OccupancyAxis axis) {
    Chart& chart = m_charts[occupancyIndexOf(axis)];
    const OccupancyCurves& c = m_report.curves;
    const QVector<OccupancyPoint>& curve = c.curve(axis);
    QList<QPointF> points;
    points.reserve(curve.size());
    for (const OccupancyPoint& p : curve)
        points.append({drawnX(axis, p.x), p.occupancy.occupancy * 100.0});
    chart.line->replace(points);
    const double first = points.isEmpty() ? 0 : points.first().x();
    const double last = points.isEmpty() ? 1 : points.last().x();
    // The axis starts at 0 so that the shapes of the three charts compare.
    // Two or three labelled steps from 0, powers of two (512 threads, 128 registers, KiB),
    // the range ending on a step: the charts are narrow at 1280x800.
    const double high = std::max(last, drawnX(axis, c.currentX(axis)));
    double step = 1;
    while (step * 3 < high)
        step *= 2;
    chart.x->setRange(std::min(0.0, first), std::ceil(high / step) * step);
    chart.x->setTickInterval(step);

    // The marker is the launch itself; on the register chart, at the kernel's own registers.
    chart.marker->replace(
        QList<QPointF>{{drawnX(axis, c.currentX(axis)), c.current.occupancy * 100.0}});
    chart.marker->setName(tr("current launch"));
}

QPointF OccupancyView::markerPoint(OccupancyAxis axis) const {
    const QScatterSeries* marker = m_charts[occupancyIndexOf(axis)].marker;
    return marker->count() > 0 ? marker->at(0) : QPointF();
}

QList<QPointF> OccupancyView::curvePoints(OccupancyAxis axis) const {
    return m_charts[occupancyIndexOf(axis)].line->points();
}

QString OccupancyView::titleText() const {
    return m_title->text();
}

QString OccupancyView::limiterText() const {
    return m_limiter->text();
}

QString OccupancyView::pointToolTip(OccupancyAxis axis, double x) const {
    const QVector<OccupancyPoint>& curve = m_report.curves.curve(axis);
    if (curve.isEmpty())
        return {};
    const OccupancyPoint* nearest = &curve.first();
    for (const OccupancyPoint& p : curve)
        if (std::abs(drawnX(axis, p.x) - x) < std::abs(drawnX(axis, nearest->x) - x))
            nearest = &p;
    const Occupancy& o = nearest->occupancy;
    QString text = tr("%1: %2 % (%3 %4, %5 warps per SM)")
                       .arg(xText(axis, nearest->x))
                       .arg(QString::number(o.occupancy * 100.0, 'f', 1))
                       .arg(o.activeBlocksPerSm)
                       .arg(o.activeBlocksPerSm == 1 ? tr("block") : tr("blocks"))
                       .arg(o.activeWarpsPerSm);
    text += tr("\nlimited by %1").arg(occupancyLimiterName(o.limiter));
    if (nearest->x == m_report.curves.currentX(axis))
        text += tr("\nthe current launch");
    return text;
}

} // namespace kernelpad
