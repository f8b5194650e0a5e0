#pragma once
// The find/replace bar under the editor (Ctrl+F, Ctrl+H): next/previous, case, whole word,
// regular expression, replace and replace all, with every match highlighted.

#include <QWidget>

class QCheckBox;
class QLabel;
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

protected:
    void keyPressEvent(QKeyEvent* event) override;
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

    QsciScintilla* m_editor;
    QLineEdit* m_find;
    QLineEdit* m_replace;
    QCheckBox* m_case;
    QCheckBox* m_word;
    QCheckBox* m_regex;
    QLabel* m_status;
    QWidget* m_replaceRow;
};

} // namespace kernelpad
