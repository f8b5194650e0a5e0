#pragma once
// What the timing charts share (TimingChartView.cpp, TimingChartHistory.cpp): the unit of an
// axis, a chart view set up alike, and an axis range with room around the data.

#include "core/run/Summary.h"

#include <QChart>
#include <QChartView>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace kernelpad::timingchart {

/// Space above and below the data so points on the extremes stay visible.
inline constexpr double kAxisMargin = 0.05;

/// The unit a chart of durations around `ms` uses: the one formatDuration() picks, so the axis
/// reads as the summary table does.
inline DurationUnit unitFor(double ms) {
    return durationUnitFor(ms / 1e3);
}

inline QChartView* makeChartView(QWidget* parent, QChart* chart) {
    chart->setAnimationOptions(QChart::NoAnimation); // redraws must keep up with Run
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(280, 200);
    return view;
}

inline void setPaddedRange(QValueAxis* axis, double low, double high) {
    if (!(high > low)) {
        const double pad = low != 0 ? std::abs(low) * 0.1 : 1.0;
        low -= pad;
        high += pad;
    }
    const double pad = (high - low) * kAxisMargin;
    axis->setRange(std::max(0.0, low - pad), high + pad);
}

} // namespace kernelpad::timingchart
