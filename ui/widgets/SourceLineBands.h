#pragma once
// The editor's side of the matching colours: a background band on every source line that has
// PTX or SASS, the hovered line in a stronger shade, and hover reports (debounced).

#include "ui/Theme.h"

#include <QObject>
#include <QVector>

class QsciScintilla;
class QTimer;

namespace kernelpad {

/// Owns a range of Scintilla background markers of one editor. Markers move with their lines
/// while the source is edited, which keeps the bands on the right text until the next compile.
class SourceLineBands : public QObject {
    Q_OBJECT
public:
    /// The band markers, one per palette colour. Diagnostics use 1..3, the profile margin
    /// 12..18 and folding 25..31.
    static constexpr int kFirstBandMarker = 4;
    /// The emphasised line: drawn above the bands (Scintilla lets the highest number win).
    static constexpr int kEmphasisMarker = 19;
    /// How long the mouse must rest on a line before it counts as hovered: long enough to
    /// skip the lines crossed on the way, short enough to feel immediate.
    static constexpr int kHoverDebounceMs = 40;

    explicit SourceLineBands(QsciScintilla* editor);

    /// Bands `lines` (1-based source lines with code), replacing those shown.
    void setLines(const QVector<int>& lines);
    [[nodiscard]] const QVector<int>& lines() const { return m_lines; }
    /// Shows or hides every band and the emphasis (View ▸ Line Colours).
    void setEnabled(bool enabled);
    [[nodiscard]] bool isEnabled() const { return m_enabled; }
    /// Emphasises `line` (1-based; 0: none) in its stronger shade.
    void setEmphasised(int line);
    [[nodiscard]] int emphasised() const { return m_emphasised; }
    /// The colour drawn behind 1-based `line`: the emphasis, its band, or invalid for none.
    [[nodiscard]] QColor colourOfLine(int line) const;

signals:
    /// The mouse rested on 1-based `line` of the editor (0: it left the text).
    void lineHovered(int line);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void redraw();
    void defineColours();

    QsciScintilla* m_editor;
    QTimer* m_hoverTimer;
    Theme m_theme;
    QVector<int> m_lines;
    bool m_enabled = true;
    int m_emphasised = 0;
    int m_pendingHover = 0;
    int m_reportedHover = 0;
};

} // namespace kernelpad
