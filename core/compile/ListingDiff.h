#pragma once
// A line diff of two PTX or SASS listings (Myers' O(ND) algorithm over normalised lines), as
// aligned rows for a side-by-side view: what stayed, what went, what came, what changed.

#include <QString>
#include <QStringList>
#include <QVector>

namespace kernelpad {

/// What a listing is, which decides what of a line is noise to the diff.
enum class ListingKind {
    Ptx,  ///< comments, `.loc` and `.file` lines are dropped
    Sass, ///< the /*0080*/ address column, /* 0x... */ encodings and //## comments are dropped
    /// CUDA C++ source: every line counts (comments and blank lines too); only blanks at the
    /// end of a line are ignored, and lines are shown as written.
    Source,
};

/// The part of `line` that the diff compares: noise removed, blanks collapsed to one space.
/// Empty for a line that is only noise (a comment, a `.loc`), which the diff leaves out; a
/// Source line is never noise.
[[nodiscard]] QString normalizeListingLine(const QString& line, ListingKind kind);

/// One row of the side-by-side view.
struct ListingDiffRow {
    enum class Kind { Same, Removed, Added, Changed };
    Kind kind = Kind::Same;
    int before = -1; ///< index into ListingDiff::before; -1 for Added
    int after = -1;  ///< index into ListingDiff::after; -1 for Removed
};

/// The diff of two listings. `before` and `after` are the lines the diff compared, in their
/// original text for display (runs of blanks made one; an indented PTX line keeps two);
/// noise-only lines are not among them.
struct ListingDiff {
    QStringList before;
    QStringList after;
    QVector<ListingDiffRow> rows;
    int removed = 0; ///< rows of kind Removed
    int added = 0;   ///< rows of kind Added
    int changed = 0; ///< rows of kind Changed (a removed line paired with an added one)
    /// The listings differ by more edits than kMaxListingEdits: past the common start and end
    /// the rows show the rest as removed then added, not aligned.
    bool truncated = false;

    [[nodiscard]] bool identical() const { return removed == 0 && added == 0 && changed == 0; }
};

/// Myers' search keeps one row of the edit graph per edit, so its memory grows with the
/// square of the number of edits; past this many (about 16 MiB) the diff stops aligning.
inline constexpr int kMaxListingEdits = 2000;

/// The aligned rows of `before` against `after`. Runs of removed lines followed by added lines
/// are paired into Changed rows, the rest stay Removed or Added. Never fails.
[[nodiscard]] ListingDiff diffListings(const QString& before, const QString& after,
                                       ListingKind kind);

} // namespace kernelpad
