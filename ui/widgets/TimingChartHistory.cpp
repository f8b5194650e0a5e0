// TimingChartView's session history chart: one point per run at its median, a box over the
// median's 95 % interval (core/run/Significance.h) with whiskers to min and max, and the
// baseline's median as a line across the runs.

#include "ui/widgets/TimingChartSupport.h"
#include "ui/widgets/TimingChartView.h"

#include <QCandlestickSeries>
#include <QCandlestickSet>
#include <QCursor>
#include <QLineSeries>
#include <QMenu>
#include <QScatterSeries>
#include <QToolTip>

namespace kernelpad {

using timingchart::makeChartView;
using timingchart::setPaddedRange;
using timingchart::unitFor;

namespace {
QString intervalText(const MedianInterval& interval) {
    return interval.valid
               ? TimingChartView::tr("95 % interval of the median %1 – %2")
                     .arg(formatDurationMs(interval.lowMs), formatDurationMs(interval.highMs))
               : TimingChartView::tr("no interval: %1").arg(interval.why);
}
} // namespace

void TimingChartView::buildHistoryChart() {
    auto* chart = new QChart;
    chart->setTitle(tr("Median of every run this session (box: its 95 % interval; "
                       "whiskers: min to max)"));
    m_historyRange = new QCandlestickSeries(chart);
    m_historyRange->setObjectName(QStringLiteral("historyIntervals"));
    m_historyRange->setName(tr("95 % interval, min–max"));
    m_historyRange->setBodyOutlineVisible(true);
    m_historyRange->setBodyWidth(0.3);
    m_historyRange->setIncreasingColor(QColor(120, 144, 156));
    m_historyRange->setDecreasingColor(QColor(120, 144, 156));
    m_historyLine = new QLineSeries(chart);
    m_historyLine->setName(tr("median"));
    m_historyPoints = new QScatterSeries(chart);
    m_historyPoints->setObjectName(QStringLiteral("historyPoints"));
    m_historyPoints->setMarkerSize(9);
    m_historyPoints->setName(tr("run"));
    m_baselineLine = new QLineSeries(chart);
    m_baselineLine->setObjectName(QStringLiteral("baselineLine"));
    m_baselineLine->setName(tr("baseline"));
    QPen baselinePen(QColor(46, 125, 50));
    baselinePen.setStyle(Qt::DashLine);
    baselinePen.setWidth(2);
    m_baselineLine->setPen(baselinePen);
    m_historyX = new QValueAxis(chart);
    m_historyX->setTitleText(tr("run"));
    m_historyX->setLabelFormat(QStringLiteral("%d"));
    m_historyY = new QValueAxis(chart);
    chart->addAxis(m_historyX, Qt::AlignBottom);
    chart->addAxis(m_historyY, Qt::AlignLeft);
    chart->addSeries(m_historyRange);
    chart->addSeries(m_historyLine);
    chart->addSeries(m_historyPoints);
    chart->addSeries(m_baselineLine);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(m_historyRange),
                               static_cast<QAbstractSeries*>(m_historyLine),
                               static_cast<QAbstractSeries*>(m_historyPoints),
                               static_cast<QAbstractSeries*>(m_baselineLine)}) {
        s->attachAxis(m_historyX);
        s->attachAxis(m_historyY);
    }
    connect(m_historyPoints, &QScatterSeries::hovered, this, [this](const QPointF& p, bool state) {
        const int run = qRound(p.x()) - 1;
        if (!state || run < 0 || run >= m_history.size())
            return QToolTip::hideText();
        const TimingHistoryPoint& h = m_history.at(run);
        QString text = tr("Run %1: median %2 (min %3, max %4)\n%5")
                           .arg(run + 1)
                           .arg(formatDurationMs(h.medianMs), formatDurationMs(h.minMs),
                                formatDurationMs(h.maxMs), intervalText(h.interval));
        if (run > 0 && m_history.at(run - 1).medianMs > 0) {
            const double change = h.medianMs / m_history.at(run - 1).medianMs - 1.0;
            text += tr("\n%1%2 % against run %3")
                        .arg(change >= 0 ? QStringLiteral("+") : QString())
                        .arg(change * 100.0, 0, 'f', 1)
                        .arg(run);
        }
        if (!h.whatChanged.isEmpty())
            text += tr("\nChanged: %1").arg(h.whatChanged);
        if (!h.verified)
            text += tr("\nVerification failed");
        if (h.serial != 0 && h.serial == m_baselineSerial)
            text += tr("\nThe baseline");
        QToolTip::showText(QCursor::pos(), text);
    });
    m_historyView = makeChartView(this, chart);
    m_historyView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_historyView, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QChart* c = m_historyView->chart();
        const QPointF value =
            c->mapToValue(c->mapFromScene(m_historyView->mapToScene(pos)), m_historyPoints);
        QMenu* menu = historyMenu(value.x(), m_historyView);
        if (menu->isEmpty()) {
            delete menu;
            return;
        }
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_historyView->mapToGlobal(pos));
    });
}

QMenu* TimingChartView::historyMenu(double x, QWidget* parent) {
    auto* menu = new QMenu(parent);
    const int run = std::clamp(qRound(x), 1, std::max(1, int(m_history.size()))) - 1;
    if (run < m_history.size()) {
        const TimingHistoryPoint& h = m_history.at(run);
        // Only a successful, verified run with a session serial can be pinned.
        if (h.serial != 0 && h.ok && h.verified) {
            const quint64 serial = h.serial;
            QAction* pin = menu->addAction(tr("Set Run %1 as Baseline").arg(run + 1));
            pin->setObjectName(QStringLiteral("setBaselineAction"));
            connect(pin, &QAction::triggered, this,
                    [this, serial] { emit baselineRequested(serial); });
        }
    }
    if (m_baselineSerial != 0) {
        QAction* clear = menu->addAction(tr("Clear Baseline"));
        clear->setObjectName(QStringLiteral("clearBaselineAction"));
        connect(clear, &QAction::triggered, this, &TimingChartView::baselineClearRequested);
    }
    return menu;
}

void TimingChartView::setBaseline(quint64 serial) {
    m_baselineSerial = serial;
    updateHistory();
}

void TimingChartView::updateHistory() {
    m_historyRange->clear();
    double top = 0;
    for (const TimingHistoryPoint& h : std::as_const(m_history))
        top = std::max(top, h.medianMs);
    m_historyUnit = unitFor(top > 0 ? top : 1.0);
    const double perUnitMs = unitMsOf(m_historyUnit);
    QList<QPointF> points;
    double low = 0, high = 0;
    const TimingHistoryPoint* baseline = nullptr;
    for (int i = 0; i < m_history.size(); ++i) {
        const TimingHistoryPoint& h = m_history.at(i);
        const double median = h.medianMs / perUnitMs;
        points.append(QPointF(i + 1, median));
        // The box spans the median's interval (flat at the median when there is none), the
        // whiskers min and max: an error bar that says how far the median can be trusted.
        const double boxLow = h.interval.valid ? h.interval.lowMs / perUnitMs : median;
        const double boxHigh = h.interval.valid ? h.interval.highMs / perUnitMs : median;
        m_historyRange->append(
            new QCandlestickSet(boxLow, h.maxMs / perUnitMs, h.minMs / perUnitMs, boxHigh, i + 1));
        low = i == 0 ? h.minMs : std::min(low, h.minMs);
        high = std::max(high, h.maxMs);
        if (h.serial != 0 && h.serial == m_baselineSerial)
            baseline = &h;
    }
    m_historyLine->replace(points);
    m_historyPoints->replace(points);
    const int n = int(m_history.size());
    if (baseline) {
        const double y = baseline->medianMs / perUnitMs;
        m_baselineLine->replace(QList<QPointF>{{0.5, y}, {std::max(n, 1) + 0.5, y}});
        m_baselineLine->setName(tr("baseline %1").arg(formatDurationMs(baseline->medianMs)));
    } else {
        m_baselineLine->clear();
        m_baselineLine->setName(tr("baseline"));
    }
    m_historyX->setRange(0.5, std::max(n, 1) + 0.5);
    m_historyX->setTickCount(std::clamp(n + 1, 2, 11));
    if (n == 0)
        m_historyY->setRange(0, 1);
    else
        setPaddedRange(m_historyY, low / perUnitMs, high / perUnitMs);
    m_historyY->setTitleText(durationUnitSymbol(m_historyUnit));
}

} // namespace kernelpad
