#pragma once
// The Versions tab: every run of the project as a timeline (newest first), two selected
// versions compared below it, and Restore / PTX/SASS Diff for the selection.

#include "core/run/VersionHistory.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace kernelpad {

class VersionCompareView;
class VersionsModel;

/// A plain widget: its binding (bind::versions) fills it and acts on its requests. Child
/// object names: versionsTable, versionsRestore, versionsCompileDiff, versionsAbCompare,
/// versionsMessage, versionCompare.
class VersionsPanel : public QWidget {
    Q_OBJECT
public:
    explicit VersionsPanel(QWidget* parent = nullptr);

    [[nodiscard]] VersionsModel* model() const { return m_model; }
    [[nodiscard]] VersionCompareView* compareView() const { return m_compare; }
    /// Selects the rows of these versions (the first becomes current); unknown numbers are
    /// skipped.
    void selectVersions(const QList<int>& numbers);
    /// The selected versions' numbers, oldest first.
    [[nodiscard]] QList<int> selectedNumbers() const;
    /// The pair compared below the table (older, newer), or {0, 0} when none is.
    [[nodiscard]] std::pair<int, int> comparedNumbers() const { return m_compared; }
    /// A line above the table (a versions file that could not be read, a restore's outcome).
    void setMessage(const QString& message);
    [[nodiscard]] QString message() const;
    /// While an A/B comparison runs, its button stops it instead of starting one.
    void setAbRunning(bool running);
    /// Small: the dock column shares its height by the hints of its docks' contents.
    [[nodiscard]] QSize sizeHint() const override;

signals:
    /// Restore asked for version `number` (one row selected).
    void restoreRequested(int number);
    /// The PTX/SASS diff of the compared versions asked for.
    void compileDiffRequested(int beforeNumber, int afterNumber);
    /// Compare with…: an interleaved A/B timing of version `number` (A) against the editor (B).
    void abCompareRequested(int number);
    /// Stop Comparing while an A/B comparison runs.
    void abCancelRequested();

private:
    void selectionChanged();
    void showContextMenu(const QPoint& at);

    VersionsModel* m_model;
    QTableView* m_table;
    QPushButton* m_restore;
    QPushButton* m_compileDiff;
    QPushButton* m_abCompare;
    bool m_abRunning = false;
    QLabel* m_message;
    VersionCompareView* m_compare;
    std::pair<int, int> m_compared{0, 0};
};

} // namespace kernelpad
