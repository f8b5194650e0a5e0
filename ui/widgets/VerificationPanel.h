#pragma once
// Whether the run's outputs are right: one row per verified buffer and the first
// mismatches of the selected one.

#include "core/run/RunTypes.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace kernelpad {

/// Pass/fail per buffer and per module global (green/red) with error sizes, counts and the
/// first mismatches; a global's row says "(global)".
/// Child object names: summaryTable, mismatchTable, messageLabel.
class VerificationPanel : public QWidget {
    Q_OBJECT
public:
    explicit VerificationPanel(QWidget* parent = nullptr);

    void showResult(const RunResult& result);
    void clear();

    [[nodiscard]] QTableWidget* summaryTable() const { return m_summary; }
    [[nodiscard]] QTableWidget* mismatchTable() const { return m_mismatches; }
    [[nodiscard]] QString message() const;

private:
    void showMismatches(int row);

    QVector<BufferVerification> m_reports;
    QLabel* m_message = nullptr;
    QTableWidget* m_summary = nullptr;
    QLabel* m_mismatchTitle = nullptr;
    QTableWidget* m_mismatches = nullptr;
};

} // namespace kernelpad
