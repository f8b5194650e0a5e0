#pragma once
// The Tests tab's grid: one row per case (its name, its launch, then one column per check:
// verify, determinism, and whatever checks the cases carry, in order of first appearance).
// A cell shows the check's outcome, coloured (failed red, warning amber, passed green,
// skipped grey), with its message and first mismatches as the tooltip. Rows are appended as
// cases finish; a check seen for the first time adds its column.

#include "core/engine/TestRun.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <QVector>

namespace kernelpad {

class TestsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { CaseName, Launch, kFixedColumns };

    using QAbstractTableModel::QAbstractTableModel;

    /// No rows, no check columns.
    void clear();
    /// Appends `result` as a row, adding the columns of checks not seen before.
    void append(const TestCaseResult& result);
    [[nodiscard]] const QVector<TestCaseResult>& cases() const { return m_cases; }
    [[nodiscard]] const QStringList& checkNames() const { return m_checks; }
    /// The check shown in `column`, or null (a fixed column, or a case without that check).
    [[nodiscard]] const TestCheck* checkAt(int row, int column) const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role) const override;

private:
    QVector<TestCaseResult> m_cases;
    QStringList m_checks;
};

} // namespace kernelpad
