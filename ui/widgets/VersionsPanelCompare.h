#pragma once
// Two versions of the project side by side: the source diff with changed lines coloured and
// both panes scrolled together, the settings that differ, and both versions' timings.

#include "core/run/VersionHistory.h"

#include <QWidget>

#include <optional>
#include <utility>

class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace kernelpad {

struct ListingDiff;

/// Child object names: versionVerdict (the edit's verdict, EditVerdict.h), versionCompareTitle,
/// versionSourceBefore, versionSourceAfter, versionSettings (setting, before, after),
/// versionTimings (figure, before, after, change).
class VersionCompareView : public QWidget {
    Q_OBJECT
public:
    explicit VersionCompareView(QWidget* parent = nullptr);

    /// Shows `before` against `after` (the older one first, as the panel passes them), with
    /// `verdict`, the sentence joining what is known of the edit, above everything.
    void compare(const Version& before, const Version& after, const QString& verdict = {});
    /// Shows nothing but `message` (why there is nothing to compare).
    void showMessage(const QString& message);
    [[nodiscard]] QString title() const;
    /// The verdict shown, empty when none is.
    [[nodiscard]] QString verdict() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void showSource(const ListingDiff& diff);
    void showSettings(const Version& before, const Version& after);
    void showTimings(const Version& before, const Version& after);

    QLabel* m_verdict;
    QLabel* m_title;
    QLabel* m_beforeTitle;
    QLabel* m_afterTitle;
    QPlainTextEdit* m_before;
    QPlainTextEdit* m_after;
    QTableWidget* m_settings;
    QTableWidget* m_timings;
    QVector<int> m_rowKinds; ///< ListingDiffRow::Kind of each row shown
    /// The versions shown, compared again when the palette (the theme's colours) changes.
    std::optional<std::pair<Version, Version>> m_shown;
};

} // namespace kernelpad
