#pragma once
// The heat map of a two-parameter sweep: one cell per configuration, the columns one
// parameter's values and the rows the other's, coloured by the objective (brighter is
// better), the best cell outlined, failed cells hatched grey with the reason on hover.
// Painted with QPainter: a paint costs one rectangle per cell, so a live sweep's redraws
// stay cheap at a thousand cells.

#include "ui/widgets/SweepChartData.h"

#include <QColor>
#include <QHash>
#include <QRect>
#include <QWidget>

namespace kernelpad {

/// The grid of cells (child of SweepChart, object name "sweepHeatMap").
class SweepHeatMap : public QWidget {
    Q_OBJECT
public:
    explicit SweepHeatMap(QWidget* parent = nullptr);

    /// `columns` and `rows` are the two plotted parameters; `records` the slice to show (the
    /// other parameters already fixed); `bestKey` the cell outlined (empty: none).
    void setData(const SweepChartAxis& columns, const SweepChartAxis& rows,
                 const QVector<SweepRecord>& records, SweepObjective objective,
                 const QString& bestKey);
    void clear();

    /// The key of the record whose cell holds `pos` (widget coordinates), empty when none.
    [[nodiscard]] QString keyAt(const QPoint& pos) const;
    /// The tooltip shown at `pos`: the record's key and figures, or a failure's reason.
    [[nodiscard]] QString toolTipAt(const QPoint& pos) const;
    /// Where the cell of `key` is drawn at the widget's current size; empty when none.
    [[nodiscard]] QRect cellRect(const QString& key) const;
    /// The cell's fill: the objective's colour, or kFailedColour for a failed record.
    [[nodiscard]] QColor cellColour(const QString& key) const;
    [[nodiscard]] QString bestKey() const { return m_bestKey; }
    /// Whether cells are large enough at the current size to carry their values as text.
    [[nodiscard]] bool valuesShown() const;
    [[nodiscard]] QSize sizeHint() const override { return {480, 360}; }

    static inline const QColor kFailedColour{128, 128, 128};

signals:
    /// A cell was clicked.
    void cellClicked(const QString& key);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    /// The cells' area (the labels and the legend around it excluded).
    [[nodiscard]] QRect gridRect() const;
    [[nodiscard]] QRect cellRect(int column, int row) const;
    /// The record drawn at `pos`, or -1.
    [[nodiscard]] int recordAt(const QPoint& pos) const;
    /// Where a value lies between the worst (0) and the best (1), on a log scale.
    [[nodiscard]] double goodness(double value) const;
    [[nodiscard]] QColor colourOf(const SweepRecord& record) const;

    SweepChartAxis m_columns, m_rows;
    QVector<SweepRecord> m_records;
    QVector<QPoint> m_cells; ///< each record's (column, row), (-1, -1) when off the grid
    QHash<QString, int> m_byKey;
    SweepObjective m_objective = SweepObjective::Time;
    QString m_bestKey;
    double m_min = 0, m_max = 0; ///< the passing values' range
};

} // namespace kernelpad
