#include "ui/widgets/SweepChart.h"

#include "ui/Theme.h"
#include "ui/widgets/SweepHeatMap.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QEvent>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace kernelpad {

namespace {

/// A point or failure mark answers a click or a hover this close to its centre, in pixels.
constexpr double kHitRadius = 10.0;
/// A bar answers within this much of its row's centre, in category units.
constexpr double kBarHalfHeight = 0.4;

} // namespace

SweepChart::SweepChart(QWidget* parent)
    : QWidget(parent) {
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("sweepChartTitle"));
    m_title->setWordWrap(true);
    m_modeCombo = new QComboBox(this);
    m_modeCombo->setObjectName(QStringLiteral("sweepChartMode"));
    m_modeCombo->setToolTip(tr("How the results are drawn; Automatic picks from the sweep"));
    m_modeCombo->addItem(tr("Automatic"), -1);
    m_modeCombo->addItem(tr("Line"), int(Mode::Line));
    m_modeCombo->addItem(tr("Heat map"), int(Mode::HeatMap));
    m_modeCombo->addItem(tr("Best 10 bars"), int(Mode::Bars));
    m_modeCombo->addItem(tr("Size sweep"), int(Mode::Sizes));
    connect(m_modeCombo, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int) {
        const int chosen = m_modeCombo->currentData().toInt();
        m_override = chosen < 0 ? std::nullopt : std::optional<Mode>(Mode(chosen));
        rebuild();
    });

    m_stack = new QStackedWidget(this);
    m_empty = new QLabel(tr("No results yet. Each configuration appears here as the sweep "
                            "measures it: a line for one varying parameter, a heat map for "
                            "two, the best ten as bars for more, time and GB/s against n for "
                            "a size sweep."),
                         m_stack);
    m_empty->setObjectName(QStringLiteral("sweepChartEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setMargin(12);

    m_chart = new QChart;
    // A live sweep redraws after every record: animations would never settle.
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_view = new QChartView(m_chart, m_stack);
    m_view->setObjectName(QStringLiteral("sweepChartView"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(240, 200);
    m_view->viewport()->installEventFilter(this);
    m_view->viewport()->setMouseTracking(true);

    m_heatMap = new SweepHeatMap(m_stack);
    connect(m_heatMap, &SweepHeatMap::cellClicked, this, &SweepChart::configurationChosen);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_view);
    m_stack->addWidget(m_heatMap);

    auto* top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(m_modeCombo);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);
    applyTheme();
    rebuild();
}

void SweepChart::setSweep(const SweepSpec& spec, const QVector<SweepRecord>& records) {
    m_spec = spec;
    m_records = records;
    rebuild();
}

void SweepChart::setCopyCeiling(std::optional<double> gigabytesPerSecond) {
    if (gigabytesPerSecond && !(*gigabytesPerSecond > 0 && std::isfinite(*gigabytesPerSecond)))
        gigabytesPerSecond.reset();
    m_fallbackCeilingGBs = gigabytesPerSecond;
    rebuild();
}

void SweepChart::clear() {
    m_spec = SweepSpec{};
    m_records.clear();
    rebuild();
}

SweepChart::Mode SweepChart::mode() const {
    return m_mode;
}

SweepChart::Mode SweepChart::automaticMode() const {
    return m_automatic;
}

void SweepChart::setModeOverride(std::optional<Mode> mode) {
    {
        const QSignalBlocker blocker(m_modeCombo);
        m_modeCombo->setCurrentIndex(m_modeCombo->findData(mode ? int(*mode) : -1));
    }
    m_override = mode;
    rebuild();
}

QString SweepChart::title() const {
    return m_title->text();
}

QStringList SweepChart::barKeys() const {
    return m_mode == Mode::Bars ? m_barKeys : QStringList();
}

void SweepChart::applyTheme() {
    const bool dark = Theme::current().dark;
    // setTheme recolours every series: the series are rebuilt after it.
    m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setBackgroundRoundness(0);
}

void SweepChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange ||
        event->type() == QEvent::ApplicationPaletteChange) {
        applyTheme();
        rebuild();
    }
    QWidget::changeEvent(event);
}

void SweepChart::rebuild() {
    m_varying = varyingParameters(m_spec, m_records);
    m_best = bestRecord(m_records, m_spec.objective);
    // The records' own ceiling first: a sweep read from its file or run by kernelpad-cli has
    // no window run to take one from.
    m_ceilingGBs = recordsCeilingGBs(m_records);
    if (!m_ceilingGBs)
        m_ceilingGBs = m_fallbackCeilingGBs;
    m_indexOfKey.clear();
    m_indexOfKey.reserve(m_records.size());
    for (int i = 0; i < m_records.size(); ++i)
        m_indexOfKey.insert(m_records.at(i).key, i);
    if (isSizeSweep(m_spec, m_varying))
        m_automatic = Mode::Sizes;
    else if (m_varying.size() == 1)
        m_automatic = Mode::Line;
    else if (m_varying.size() == 2)
        m_automatic = Mode::HeatMap;
    else
        m_automatic = Mode::Bars;
    m_mode = m_automatic;
    if (m_override) {
        const bool allowed =
            *m_override == Mode::Bars || (*m_override == Mode::HeatMap && m_varying.size() >= 2) ||
            ((*m_override == Mode::Line || *m_override == Mode::Sizes) && !m_varying.isEmpty());
        if (allowed)
            m_mode = *m_override;
    }

    resetChart();
    if (m_records.isEmpty()) {
        m_title->setText(m_spec.isEmpty()
                             ? QString()
                             : tr("Sweep of %1").arg(m_spec.names().join(QStringLiteral(", "))));
        m_heatMap->clear();
        m_stack->setCurrentWidget(m_empty);
        return;
    }
    switch (m_mode) {
    case Mode::Line:
        buildLine();
        break;
    case Mode::Sizes:
        buildSizes();
        break;
    case Mode::Bars:
        buildBars();
        break;
    case Mode::HeatMap:
        buildHeatMap();
        break;
    }
    m_stack->setCurrentWidget(m_mode == Mode::HeatMap ? static_cast<QWidget*>(m_heatMap) : m_view);
}

bool SweepChart::chartShown() const {
    return !m_records.isEmpty() && m_mode != Mode::HeatMap;
}

QPointF SweepChart::toWidget(const QPointF& value, QAbstractSeries* series) const {
    // Axis ranges and the plot area settle in the chart's layout; a hit-test right after a
    // rebuild (a click racing a new record) must see the new geometry.
    if (m_chart->layout())
        m_chart->layout()->activate();
    const QPointF inChart = m_chart->mapToPosition(value, series);
    const QPoint inViewport = m_view->mapFromScene(m_chart->mapToScene(inChart));
    return m_view->viewport()->mapTo(this, inViewport);
}

QPointF SweepChart::toValue(const QPoint& pos, QAbstractSeries* series) const {
    if (m_chart->layout())
        m_chart->layout()->activate();
    const QPoint inViewport = m_view->viewport()->mapFrom(this, pos);
    const QPointF inChart = m_chart->mapFromScene(m_view->mapToScene(inViewport));
    return m_chart->mapToValue(inChart, series);
}

int SweepChart::markAt(const QPoint& pos) const {
    if (!chartShown())
        return -1;
    int found = -1;
    double nearest = kHitRadius;
    for (const Mark& mark : m_marks) {
        if (mark.bar) {
            const QPointF value = toValue(pos, mark.series);
            if (std::abs(value.y() - mark.value.y()) <= kBarHalfHeight && value.x() >= 0 &&
                value.x() <= mark.value.x())
                return mark.record;
            continue;
        }
        const QPointF at = toWidget(mark.value, mark.series);
        const double distance = std::hypot(at.x() - pos.x(), at.y() - pos.y());
        if (distance <= nearest) {
            nearest = distance;
            found = mark.record;
        }
    }
    return found;
}

QString SweepChart::keyAt(const QPoint& pos) const {
    if (m_mode == Mode::HeatMap && !m_records.isEmpty())
        return m_heatMap->keyAt(m_heatMap->mapFrom(this, pos));
    const int record = markAt(pos);
    return record < 0 ? QString() : m_records.at(record).key;
}

QString SweepChart::toolTipAt(const QPoint& pos) const {
    if (m_mode == Mode::HeatMap && !m_records.isEmpty())
        return m_heatMap->toolTipAt(m_heatMap->mapFrom(this, pos));
    const int record = markAt(pos);
    if (record < 0)
        return QString();
    QString text = recordToolTip(m_records.at(record));
    if (m_best && m_best->key == m_records.at(record).key)
        text += QLatin1Char('\n') + tr("the best");
    return text;
}

std::optional<QPoint> SweepChart::positionOf(const QString& key) const {
    if (m_mode == Mode::HeatMap && !m_records.isEmpty()) {
        const QRect cell = m_heatMap->cellRect(key);
        if (cell.isEmpty())
            return std::nullopt;
        return m_heatMap->mapTo(this, cell.center());
    }
    if (!chartShown())
        return std::nullopt;
    for (const Mark& mark : m_marks) {
        if (m_records.at(mark.record).key != key)
            continue;
        // A bar is hit at half its length, inside it whatever the axis' origin.
        const QPointF value = mark.bar ? QPointF(mark.value.x() / 2, mark.value.y()) : mark.value;
        return toWidget(value, mark.series).toPoint();
    }
    return std::nullopt;
}

bool SweepChart::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view->viewport()) {
        if (event->type() == QEvent::MouseButtonRelease) {
            auto* mouse = static_cast<QMouseEvent*>(event);
            if (mouse->button() == Qt::LeftButton) {
                const QString key =
                    keyAt(m_view->viewport()->mapTo(this, mouse->position().toPoint()));
                if (!key.isEmpty())
                    emit configurationChosen(key);
            }
        } else if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            const QString text = toolTipAt(m_view->viewport()->mapTo(this, help->pos()));
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), text, m_view);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace kernelpad
