#pragma once
// The profile in the editor's margin: a heat of warp-stall samples per source line and a flag
// on lines whose memory accesses are uncoalesced or whose shared-memory accesses conflict,
// with the numbers in the line's tooltip.

#include <QColor>
#include <QHash>
#include <QObject>
#include <QString>
#include <QVector>

class QsciScintilla;

namespace kernelpad {

/// What the margin shows for one source line.
struct MarginLine {
    int line = 0; ///< 1-based, as -lineinfo and Nsight Compute number them
    double samples = 0;
    bool uncoalesced = false;
    bool bankConflicts = false;
    QString toolTip;
};

/// Owns one margin of an editor (its fourth, after line numbers, symbols and folding). The
/// markers are Scintilla's, so they move with their lines while the source is edited; the
/// owner marks the margin stale then, and it turns grey and says so in its tooltips.
class ProfileMargin : public QObject {
    Q_OBJECT
public:
    /// Heat steps, from a few samples to the hottest line; more would not read apart.
    static constexpr int kHeatLevels = 6;
    /// The margin's index in the editor.
    static constexpr int kMargin = 3;
    /// Marker numbers: the heat steps, then the flag (drawn above the heat). Diagnostics use
    /// 1..3 and folding 25..31.
    static constexpr int kFirstHeatMarker = 12;
    static constexpr int kFlagMarker = kFirstHeatMarker + kHeatLevels;

    explicit ProfileMargin(QsciScintilla* editor);
    ~ProfileMargin() override;

    /// Shows `lines`, replacing what was shown; the margin appears. Not stale.
    void show(const QVector<MarginLine>& lines);
    /// Removes every marker and hides the margin.
    void clear();
    /// Greys the heat and prefixes each tooltip with `reason` (empty: fresh again).
    void setStale(const QString& reason);
    [[nodiscard]] bool isStale() const { return !m_staleReason.isEmpty(); }
    [[nodiscard]] bool isShown() const { return !m_entries.isEmpty(); }

    /// The heat step of 0-based editor line `line` (following edits): 0 for none.
    [[nodiscard]] int heatLevelAt(int line) const;
    /// Whether 0-based editor line `line` carries a flag.
    [[nodiscard]] bool flaggedAt(int line) const;
    /// The tooltip of 0-based editor line `line`, empty when the margin shows nothing there.
    [[nodiscard]] QString toolTipAt(int line) const;
    /// The step for `samples` when the hottest line has `maxSamples`: 1..kHeatLevels, 0 for
    /// no samples. Linear in the share of the hottest line, so the top step is always used.
    [[nodiscard]] static int heatLevelFor(double samples, double maxSamples);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Entry {
        MarginLine line;
        int heatHandle = -1; ///< Scintilla's marker handle, followed as lines move
        int flagHandle = -1;
        int level = 0;
    };
    void defineMarkers();
    [[nodiscard]] const Entry* entryAt(int line) const;
    [[nodiscard]] QColor heatColour(int level) const;

    QsciScintilla* m_editor;
    QVector<Entry> m_entries;
    QString m_staleReason;
};

} // namespace kernelpad
