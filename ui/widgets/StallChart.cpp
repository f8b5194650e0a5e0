#include "ui/widgets/StallChart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLegend>
#include <QLocale>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace kernelpad {

namespace {
/// Room right of the longest bar for its value label.
constexpr double kValueAxisRoom = 1.15;
constexpr int kMinimumHeightPx = 180;
} // namespace

StallChart::StallChart(QWidget* parent)
    : QWidget(parent) {
    m_stack = new QStackedWidget(this);
    m_emptyState = new QLabel(tr("No warp stall samples in this profile: the full set, or the "
                                 "basic set with the WarpStateStats section, samples them."),
                              m_stack);
    m_emptyState->setObjectName(QStringLiteral("stallEmptyState"));
    m_emptyState->setWordWrap(true);
    m_emptyState->setAlignment(Qt::AlignCenter);

    m_chart = new QChart;
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setMargins(QMargins(2, 2, 2, 2));
    m_chart->legend()->hide();
    m_chart->setTitle(tr("Warp stall reasons (samples)"));
    m_series = new QHorizontalBarSeries(m_chart);
    m_series->setLabelsVisible(true);
    m_series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    m_series->setLabelsFormat(QStringLiteral("@value"));
    m_chart->addSeries(m_series);
    m_names = new QBarCategoryAxis(m_chart);
    m_values = new QValueAxis(m_chart);
    m_values->setLabelFormat(QStringLiteral("%.0f"));
    m_chart->addAxis(m_names, Qt::AlignLeft);
    m_chart->addAxis(m_values, Qt::AlignBottom);
    m_series->attachAxis(m_names);
    m_series->attachAxis(m_values);
    connect(m_series, &QHorizontalBarSeries::hovered, this,
            [this](bool state, int index, QBarSet*) {
                // Categories run bottom-up; bars() is largest first, drawn on top.
                const int bar = int(m_bars.size()) - 1 - index;
                if (state)
                    QToolTip::showText(QCursor::pos(), barToolTip(bar), m_view);
                else
                    QToolTip::hideText();
            });

    m_view = new QChartView(m_chart, m_stack);
    m_view->setObjectName(QStringLiteral("stallChart"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumHeight(kMinimumHeightPx);
    m_stack->addWidget(m_emptyState);
    m_stack->addWidget(m_view);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    setStalls({});
}

void StallChart::setStalls(const QVector<StallBar>& bars) {
    QVector<StallBar> sorted;
    m_total = 0;
    for (const StallBar& bar : bars) {
        if (bar.samples > 0) {
            sorted.append(bar);
            m_total += bar.samples;
        }
    }
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const StallBar& a, const StallBar& b) { return a.samples > b.samples; });
    if (sorted.size() > kMaxBars) {
        StallBar other;
        other.name = tr("other (%1 reasons)").arg(sorted.size() - (kMaxBars - 1));
        QStringList names;
        for (int i = kMaxBars - 1; i < sorted.size(); ++i) {
            other.samples += sorted.at(i).samples;
            names << sorted.at(i).name;
        }
        other.description = names.join(QStringLiteral(", "));
        sorted.resize(kMaxBars - 1);
        sorted.append(other);
    }
    m_bars = sorted;

    m_series->clear();
    m_names->clear();
    if (m_bars.isEmpty()) {
        m_stack->setCurrentWidget(m_emptyState);
        return;
    }
    auto* set = new QBarSet(tr("Samples"));
    QStringList categories;
    // A horizontal bar chart draws its first category at the bottom: add the smallest first.
    for (auto it = m_bars.crbegin(); it != m_bars.crend(); ++it) {
        *set << it->samples;
        categories << it->name;
    }
    m_series->append(set);
    m_names->append(categories);
    m_values->setRange(0, m_bars.first().samples * kValueAxisRoom);
    m_stack->setCurrentWidget(m_view);
}

QString StallChart::barToolTip(int index) const {
    if (index < 0 || index >= m_bars.size())
        return QString();
    const StallBar& bar = m_bars.at(index);
    const double share = m_total > 0 ? 100.0 * bar.samples / m_total : 0;
    QString text = tr("%1: %2 samples, %3 % of all stall samples")
                       .arg(bar.name, QLocale().toString(bar.samples, 'f', 0))
                       .arg(share, 0, 'f', 1);
    if (!bar.description.isEmpty())
        text += QLatin1Char('\n') + bar.description;
    return text;
}

} // namespace kernelpad
