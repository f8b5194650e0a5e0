#pragma once
// What the PTX and SASS views share (and later listings will): a read-only, highlighted,
// searchable listing whose lines are coloured by the source line they come from, emphasised
// on hover, with instruction help in tooltips.

#include "core/compile/InstructionHelp.h"
#include "ui/Theme.h"

#include <QVector>
#include <QWidget>

class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTimer;
class QVBoxLayout;

namespace kernelpad {

class ListingText;
class RuleHighlighter;

/// A listing of `InstructionSet` instructions. Each text block may belong to a source line
/// (setBlockSourceLines); with line colours on, its band has that line's colour and the
/// emphasised line's blocks a stronger shade. Hovering a block reports its source line after a
/// short debounce; resting on an opcode shows its help.
class ListingView : public QWidget {
    Q_OBJECT
public:
    [[nodiscard]] QPlainTextEdit* textView() const;
    /// Selects the next (or previous) occurrence of `text`, wrapping; false when absent. A
    /// search moves the cursor without reporting a click on a line.
    bool find(const QString& text, bool backward = false);

    /// The source line of each text block (0: none), for the text shown now.
    void setBlockSourceLines(const QVector<int>& sourceLineOfBlock);
    /// The source line of text block `block`; 0 when it has none.
    [[nodiscard]] int sourceLineOfBlock(int block) const;
    /// Every block of `sourceLine`, ascending.
    [[nodiscard]] QVector<int> blocksOfSourceLine(int sourceLine) const;
    /// Colours each block by its source line (View ▸ Line Colours).
    void setLineColours(bool on);
    [[nodiscard]] bool lineColours() const { return m_lineColours; }
    /// Shows `sourceLine`'s blocks in the stronger shade (0: none); never scrolls.
    void setEmphasisedLine(int sourceLine);
    [[nodiscard]] int emphasisedLine() const { return m_emphasised; }
    /// The colour behind `block`: invalid when it has none (no source line, colours off).
    [[nodiscard]] QColor blockColour(int block) const;
    /// The instruction help at `viewportPos` of the text, as rich text; empty off an opcode.
    [[nodiscard]] QString toolTipAt(const QPoint& viewportPos) const;

    /// How long the mouse must rest on a line before it counts as hovered.
    static constexpr int kHoverDebounceMs = 40;

signals:
    /// The mouse rested on a block of `sourceLine` (0: on one without, or it left).
    void sourceLineHovered(int sourceLine);

protected:
    ListingView(InstructionSet set, QWidget* parent);

    /// Replaces the text; the blocks belong to no source line until setBlockSourceLines().
    void setListingText(const QString& text);
    void setHighlighter(RuleHighlighter* highlighter);
    /// The row above the text: subclasses add their pickers before the search field.
    [[nodiscard]] QHBoxLayout* toolBar() const { return m_bar; }
    [[nodiscard]] QVBoxLayout* mainLayout() const { return m_layout; }
    [[nodiscard]] QLabel* infoLabel() const { return m_info; }
    [[nodiscard]] QLineEdit* searchField() const { return m_search; }
    /// A banner above the text in the theme's warning colours (object name `objectName`).
    [[nodiscard]] QLabel* addBanner(const QString& objectName);
    /// Re-colours for `theme`; subclasses that override call the base.
    virtual void applyTheme(const Theme& theme);

    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void recolour();

    InstructionSet m_set;
    ListingText* m_text;
    QLineEdit* m_search;
    QLabel* m_info;
    QHBoxLayout* m_bar;
    QVBoxLayout* m_layout;
    QTimer* m_hoverTimer;
    RuleHighlighter* m_highlighter = nullptr;
    QVector<QLabel*> m_banners;
    Theme m_theme;
    QVector<int> m_sourceOfBlock;
    bool m_lineColours = true;
    int m_emphasised = 0;
    int m_pendingHover = 0;
    int m_reportedHover = 0;
};

} // namespace kernelpad
