#pragma once
// The sweep panel's results: one row per configuration (its parameters, status, median and
// minimum time, bandwidth, device, error), appended as records arrive. A failed row is red
// with its reason; the best passing row by the objective is marked and bold. Qt::UserRole
// gives each cell's sort key (numbers as numbers; a failure's missing times sort last).

#include "core/sweep/SweepResults.h"

#include <QAbstractTableModel>

namespace kernelpad {

class SweepResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Status, MedianMs, MinMs, Bandwidth, Device, Error, kFixedColumns };
    static constexpr int kSortRole = Qt::UserRole;

    using QAbstractTableModel::QAbstractTableModel;

    /// Starts over with `names` as the parameters' columns and `records` as the rows.
    void reset(const QStringList& names, const QVector<SweepRecord>& records,
               SweepObjective objective);
    void append(const SweepRecord& record);
    [[nodiscard]] const QVector<SweepRecord>& records() const { return m_records; }
    [[nodiscard]] const QStringList& names() const { return m_names; }
    /// The best passing row, -1 when none passed.
    [[nodiscard]] int bestRow() const { return m_best; }
    /// The column of `column` after the parameters'.
    [[nodiscard]] int column(Column column) const { return int(m_names.size()) + column; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role) const override;

private:
    void updateBest();

    QStringList m_names;
    QVector<SweepRecord> m_records;
    SweepObjective m_objective = SweepObjective::Time;
    int m_best = -1;
};

} // namespace kernelpad
