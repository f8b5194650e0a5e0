#pragma once
// The chart of a sweep's results, chosen from the spec and the
// records: a line of the objective against the one varying parameter, a heat map for two, the
// best ten as bars for more, and for a size sweep time and GB/s against n on log axes with the
// device's copy ceiling, so the launch-bound, cache-resident and bandwidth-bound regions show.
// A combo overrides the automatic choice. Redrawn from the records on every setSweep, which a
// live sweep calls after each record: the cost is one pass over them, no animation.

#include "core/project/SweepSpec.h"
#include "core/sweep/SweepResults.h"
#include "ui/widgets/SweepChartData.h"

#include <QHash>
#include <QPointF>
#include <QVector>
#include <QWidget>

#include <optional>
#include <utility>

class QAbstractAxis;
class QAbstractSeries;
class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QStackedWidget;

namespace kernelpad {

class SweepHeatMap;

/// The sweep's chart with its title and mode combo (child "sweepChartMode"); the Qt Charts
/// view is "sweepChartView", the heat map "sweepHeatMap", the empty state "sweepChartEmpty".
class SweepChart : public QWidget {
    Q_OBJECT
public:
    explicit SweepChart(QWidget* parent = nullptr);

    void setSweep(const kernelpad::SweepSpec& spec, const QVector<kernelpad::SweepRecord>& records);
    /// The device's copy ceiling in GB/s, drawn on the size sweep's GB/s axis and on a
    /// bandwidth line chart when the records carry none (SweepRecord::ceilingGBs, which
    /// wins); nullopt (or not positive) draws none.
    void setCopyCeiling(std::optional<double> gigabytesPerSecond);
    /// The ceiling drawn: the records', else setCopyCeiling's; nullopt when neither.
    [[nodiscard]] std::optional<double> copyCeiling() const { return m_ceilingGBs; }
    void clear();

    enum class Mode { Line, HeatMap, Bars, Sizes };
    /// The mode shown: the user's choice in the combo where the sweep allows it, else the
    /// automatic one.
    [[nodiscard]] Mode mode() const;
    /// The mode the spec and records call for: a size sweep, one varying parameter (line),
    /// two (heat map), none or more (bars).
    [[nodiscard]] Mode automaticMode() const;
    /// The user's choice (nullopt: automatic), as the combo sets it.
    void setModeOverride(std::optional<Mode> mode);

    /// The title above the chart (what is plotted, the parameters held at the best's values).
    [[nodiscard]] QString title() const;
    /// Line, Sizes and Bars draw with Qt Charts in this chart; HeatMap with heatMap().
    [[nodiscard]] QChart* chart() const { return m_chart; }
    [[nodiscard]] SweepHeatMap* heatMap() const { return m_heatMap; }
    /// Bars: the keys of the bars, best first.
    [[nodiscard]] QStringList barKeys() const;

    /// Hit-testing, in this widget's coordinates (what a click or a hover uses): the key of
    /// the point, cell or bar at `pos`, empty when none.
    [[nodiscard]] QString keyAt(const QPoint& pos) const;
    /// The tooltip at `pos`: the record's figures, or a failure's reason.
    [[nodiscard]] QString toolTipAt(const QPoint& pos) const;
    /// Where the mark of `key` is drawn, in this widget's coordinates; nullopt when not shown.
    [[nodiscard]] std::optional<QPoint> positionOf(const QString& key) const;

signals:
    /// A point, cell or bar was clicked.
    void configurationChosen(const QString& key);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    /// Something clickable drawn with Qt Charts: a record's point, failure mark or bar.
    struct Mark {
        int record = -1;                   ///< index into m_records
        QPointF value;                     ///< chart coordinates of the mark's centre
        QAbstractSeries* series = nullptr; ///< the series whose axes `value` is on
        bool bar = false;                  ///< a bar: hit anywhere along its row
    };

    void rebuild();
    void resetChart();
    void buildLine();
    void buildSizes();
    void buildBars();
    void buildHeatMap();
    void applyTheme();
    /// Attaches `series` to the chart and to `x` and `y`.
    void addSeries(QAbstractSeries* series, QAbstractAxis* x, QAbstractAxis* y);
    /// The x axis of a swept parameter, added to the chart at the bottom.
    struct ParameterAxis {
        QAbstractAxis* axis = nullptr;
        bool log2Units = false;  ///< the axis is in log2 of the values (labelled 2^k)
        double min = 0, max = 0; ///< its range, in its own units
        [[nodiscard]] double x(double value) const;
    };
    ParameterAxis parameterAxis(const SweepChartAxis& axis);
    /// Failed configurations (record index, parameter value) as marks on `x` at `yOnAxis` of `y`.
    void addFailureMarks(const QVector<std::pair<int, double>>& failed, const ParameterAxis& x,
                         QAbstractAxis* y, double yOnAxis);
    /// The copy ceiling as a horizontal line on `y` from `xMin` to `xMax`, its label at `xLabel`.
    void addCeiling(double xMin, double xMax, double xLabel, QAbstractAxis* x, QAbstractAxis* y);
    /// Failures in `records`, for the titles.
    [[nodiscard]] static int failures(const QVector<SweepRecord>& records);
    /// The index in m_records of the record whose mark holds `pos`, or -1.
    [[nodiscard]] int markAt(const QPoint& pos) const;
    /// Positions in this widget of a point in `series`' value coordinates, and back.
    [[nodiscard]] QPointF toWidget(const QPointF& value, QAbstractSeries* series) const;
    [[nodiscard]] QPointF toValue(const QPoint& pos, QAbstractSeries* series) const;
    [[nodiscard]] bool chartShown() const;

    SweepSpec m_spec;
    QVector<SweepRecord> m_records;
    std::optional<double> m_ceilingGBs;         ///< what is drawn (rebuild)
    std::optional<double> m_fallbackCeilingGBs; ///< setCopyCeiling's
    std::optional<Mode> m_override;
    Mode m_mode = Mode::Bars;
    Mode m_automatic = Mode::Bars;
    QVector<SweepChartAxis> m_varying;
    std::optional<SweepRecord> m_best;
    QHash<QString, int> m_indexOfKey; ///< a key's index in m_records
    QVector<Mark> m_marks;
    QStringList m_barKeys;

    QLabel* m_title = nullptr;
    QComboBox* m_modeCombo = nullptr;
    QStackedWidget* m_stack = nullptr;
    QLabel* m_empty = nullptr;
    QChartView* m_view = nullptr;
    QChart* m_chart = nullptr;
    SweepHeatMap* m_heatMap = nullptr;
};

} // namespace kernelpad
