#pragma once
// The Profile tab's comparison: the shown profile against another profiled run, every metric
// side by side with its change (core/profile/ProfileComparison), as Nsight Compute's baseline
// shows it.

#include "core/profile/ProfileComparison.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableWidget;

namespace kernelpad {

/// Children by name: "profileBaseline" (the run to compare with: "none" first, then the
/// profiled runs), "profileComparisonHeadline", "profileComparisonChangedOnly" and
/// "profileComparison" (section, metric, baseline, this run, change).
class ProfileComparisonPane : public QWidget {
    Q_OBJECT
public:
    enum Column {
        SectionColumn,
        MetricColumn,
        BaselineColumn,
        CurrentColumn,
        ChangeColumn,
        Columns
    };

    explicit ProfileComparisonPane(QWidget* parent = nullptr);

    /// The profiled runs to compare with (the tab's list) and the chosen one, -1 for none.
    void setChoices(const QStringList& entries, int current);
    void showComparison(const ProfileComparison& comparison);
    /// No baseline chosen, or the chosen one is the shown run.
    void clearComparison(const QString& why);

    [[nodiscard]] QTableWidget* table() const { return m_table; }
    [[nodiscard]] QString headline() const;

signals:
    /// The user chose entry `index` of setChoices()'s list, -1 for none.
    void baselineChosen(int index);

private:
    void fill();

    QComboBox* m_choice = nullptr;
    QLabel* m_headline = nullptr;
    QCheckBox* m_changedOnly = nullptr;
    QTableWidget* m_table = nullptr;
    ProfileComparison m_comparison;
};

} // namespace kernelpad
