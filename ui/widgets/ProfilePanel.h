#pragma once
// The Profile tab: what Nsight Compute measured of one launch (speed of light, occupancy, the
// memory hierarchy, warp stall reasons), the roofline of the session's profiled runs, and a
// clear sentence instead when there is no profile or it failed.

#include "core/profile/ProfileReport.h"
#include "ui/widgets/ProfileAdviceList.h"
#include "ui/widgets/ProfileComparisonPane.h"
#include "ui/widgets/RooflineChart.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QTableWidget;

namespace kernelpad {

class StallChart;

/// Children by name: "profileHistory" (the profiled runs), "profileHeadline",
/// "profileEmptyState", "profileError", "profileStale", "profileMemory" (DRAM, L2, L1 rows),
/// "sol.compute", "sol.memory", "sol.dram", "sol.l2", "sol.l1", "sol.occupancy.achieved",
/// "sol.occupancy.theoretical" (bars), "solValue.<key>" (their values), the stall chart, ncu's
/// advice (ProfileAdviceList), the comparison with another run
/// (ProfileComparisonPane) and the roofline.
class ProfilePanel : public QWidget {
    Q_OBJECT
public:
    /// What the panel shows.
    enum class State { Empty, Report, Error };
    enum MemoryColumn { LevelColumn, BytesColumn, HitRateColumn, MemoryColumns };

    explicit ProfilePanel(QWidget* parent = nullptr);

    /// The sentence shown before any profile.
    void showEmpty();
    void showReport(const ProfileReport& report);
    /// A failed profile: a title for `status` and `error` (which says where ncu was looked for,
    /// or how to allow counters).
    void showError(ProfileStatus status, const QString& error);
    /// The profiled runs to choose from (newest last) and which one is shown.
    void setHistory(const QStringList& entries, int current);
    /// Empty: the shown profile matches the editor's source; else why it does not.
    void setStaleNote(const QString& note);

    [[nodiscard]] State state() const { return m_state; }
    /// The bar of `key` ("compute", "dram", "occupancy.achieved", ...), null when unknown.
    [[nodiscard]] QProgressBar* bar(const QString& key) const { return m_bars.value(key); }
    /// The labels beside the bars ("solValue.<key>") that show each value in full.
    [[nodiscard]] QList<QLabel*> valueLabels() const;
    [[nodiscard]] StallChart* stallChart() const { return m_stalls; }
    [[nodiscard]] ProfileAdviceList* advice() const { return m_advice; }
    [[nodiscard]] ProfileComparisonPane* comparison() const { return m_comparison; }
    [[nodiscard]] RooflineChart* roofline() const { return m_roofline; }
    /// The title and the error text shown in the error state.
    [[nodiscard]] QString errorText() const;
    /// The title of the error state for `status`.
    [[nodiscard]] static QString errorTitle(ProfileStatus status);

signals:
    /// The user chose entry `index` of setHistory()'s list.
    void historyEntryChosen(int index);

private:
    QWidget* makeSpeedOfLight(QWidget* parent);
    /// A row of the bar of `key` and the label with its value.
    QWidget* addBar(const QString& key, QWidget* parent);

    State m_state = State::Empty;
    QComboBox* m_history = nullptr;
    QLabel* m_headline = nullptr;
    QLabel* m_stale = nullptr;
    QStackedWidget* m_stack = nullptr;
    QLabel* m_empty = nullptr;
    QLabel* m_error = nullptr;
    QWidget* m_content = nullptr;
    QHash<QString, QProgressBar*> m_bars;
    QHash<QString, QLabel*> m_values;
    QTableWidget* m_memory = nullptr;
    ProfileAdviceList* m_advice = nullptr;
    ProfileComparisonPane* m_comparison = nullptr;
    QLabel* m_warnings = nullptr;
    StallChart* m_stalls = nullptr;
    RooflineChart* m_roofline = nullptr;
};

} // namespace kernelpad
