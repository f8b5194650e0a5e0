#pragma once
// Registers per source line in the editor's margin: the most registers live at any of the
// line's instructions (nvdisasm's life ranges of the last SASS, core/compile/SassRegisters.h)
// as a number coloured from few to the kernel's register count, a mark on lines with
// local-memory instructions (spills), the figures in words in the line's tooltip.

#include "core/compile/SassRegisters.h"

#include <QColor>
#include <QObject>
#include <QString>
#include <QVector>

class QsciScintilla;

namespace kernelpad {

/// Owns one text margin of an editor (its fifth, after the profile's). The numbers are
/// Scintilla's margin text and a marker follows each line, so both move with their lines while
/// the source is edited; the owner marks the margin stale then, and it turns grey and its
/// tooltips say so. Hidden (zero width) until show().
class RegisterMargin : public QObject {
    Q_OBJECT
public:
    /// Colour steps from few live registers to the kernel's register count.
    static constexpr int kLevels = 5;
    /// The margin's index in the editor.
    static constexpr int kMargin = 4;
    /// An invisible marker on each line shown, to find the line's entry after edits. The
    /// other markers: diagnostics 1..3, line bands 4..11, profile 12..18, emphasis 19,
    /// folding 25..31.
    static constexpr int kLineMarker = 20;
    /// Scintilla style numbers of the margin text: the levels, then the spill mark, then
    /// stale (CodeEditor's annotations use 200..202).
    static constexpr int kFirstStyle = 210;

    explicit RegisterMargin(QsciScintilla* editor);
    ~RegisterMargin() override;

    /// Shows `lines` (merged over the kernels: mergedLines()), replacing what was shown; the
    /// margin appears when a line has live counts or spills. Not stale.
    void show(const QVector<LineRegisterUse>& lines);
    /// Removes every number and mark and hides the margin.
    void clear();
    /// Greys the numbers and prefixes each tooltip with `reason` (empty: fresh again).
    void setStale(const QString& reason);
    [[nodiscard]] bool isStale() const { return !m_staleReason.isEmpty(); }
    [[nodiscard]] bool isShown() const { return !m_entries.isEmpty(); }

    /// The margin's text on 0-based editor line `line` (following edits): "45", "30!" on a
    /// line that spills; empty for none.
    [[nodiscard]] QString textAt(int line) const;
    /// The colour step of 0-based `line`: 1..kLevels, 0 for none (a line without counts).
    [[nodiscard]] int levelAt(int line) const;
    /// Whether 0-based `line` is marked as spilling.
    [[nodiscard]] bool spillsAt(int line) const;
    /// The tooltip of 0-based `line`, empty when the margin shows nothing there.
    [[nodiscard]] QString toolTipAt(int line) const;
    /// The background drawn behind a step (the stale grey while stale).
    [[nodiscard]] QColor levelColour(int level) const;
    /// The step for `peak` live registers of a kernel with `registers` per thread:
    /// 1..kLevels, linear in the share; 0 for no registers.
    [[nodiscard]] static int levelFor(int peak, int registers);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Entry {
        LineRegisterUse line;
        int handle = -1; ///< Scintilla's marker handle, followed as lines move
        int level = 0;
    };
    void defineStyles();
    void drawText(const Entry& entry);
    [[nodiscard]] const Entry* entryAt(int line) const;
    [[nodiscard]] static QString marginText(const LineRegisterUse& line);

    QsciScintilla* m_editor;
    QVector<Entry> m_entries;
    QString m_staleReason;
};

} // namespace kernelpad
