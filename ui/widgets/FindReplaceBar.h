#pragma once
// The find/replace bar under the editor (Ctrl+F, Ctrl+H): next/previous, case, whole word,
// regular expression, replace and replace all, with every match highlighted.

#include <QWidget>

class QCheckBox;
class QHBoxLayout;
class QLabel;
class QVBoxLayout;
class QLineEdit;
class QToolButton;
class QsciScintilla;

namespace kernelpad {

/// Searches a QsciScintilla through Scintilla's target search, so that positions, regular
/// expressions and undo all follow the editor's own rules.
class FindReplaceBar : public QWidget {
    Q_OBJECT
public:
    explicit FindReplaceBar(QsciScintilla* editor, QWidget* parent = nullptr);

    /// Shows the bar with the find field focused (seeded from the selection).
    void showFind();
    /// Shows the bar with the replace row too.
    void showReplace();

    void setFindText(const QString& text);
    void setReplaceText(const QString& text);
    void setCaseSensitive(bool on);
    void setWholeWord(bool on);
    void setRegularExpression(bool on);

    /// Selects the next (or previous) match, wrapping around; false when there is none.
    bool findNext();
    bool findPrevious();
    /// Replaces the selected match and moves to the next one; false when nothing matched.
    bool replaceCurrent();
    /// Replaces every match in one undo step; returns how many were replaced.
    int replaceAll();
    /// Matches of the find text in the whole document.
    [[nodiscard]] int matchCount();

    /// Narrow enough for the editor at 1280 px beside the docks: the options move to a row of
    /// their own when the find row would not fit.
    [[nodiscard]] QSize minimumSizeHint() const override;
    [[nodiscard]] QSize sizeHint() const override;

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    [[nodiscard]] int searchFlags() const;
    /// Searches [from, to) (backwards when from > to); returns the match start or -1 and
    /// leaves the match in Scintilla's target.
    long searchRange(long from, long to);
    bool find(bool forward);
    void updateHighlights();
    void clearHighlights();
    void setReplaceVisible(bool visible);
    /// The options on the find row when it fits the bar's width, else on their own row.
    void placeOptions();
    /// The width of the find row with the options on it.
    [[nodiscard]] int wideRowWidth() const;

    QsciScintilla* m_editor;
    QLineEdit* m_find;
    QLineEdit* m_replace;
    QCheckBox* m_case;
    QCheckBox* m_word;
    QCheckBox* m_regex;
    QLabel* m_status;
    QWidget* m_replaceRow;
    QWidget* m_options = nullptr; ///< Match case, Whole word, Regex
    QHBoxLayout* m_findRow = nullptr;
    QVBoxLayout* m_rows = nullptr;
};

} // namespace kernelpad
