#pragma once
// Which PTX lines and SASS instructions each source line became, and back (Compiler
// Explorer's matching colours), from PTX `.loc` directives and nvdisasm's `//## File` lines.
// Both need the source compiled with -lineinfo.

#include "core/compile/Sass.h"

#include <QMap>
#include <QString>
#include <QVector>

namespace kernelpad {

/// One PTX instruction line and the source it comes from, innermost first (a `.loc` with
/// `inlined_at` gives the header's line, then the line that inlined it).
struct PtxLocation {
    int ptxLine = 0; ///< 1-based line of the PTX text
    QVector<SourcePos> source;
};

/// The PTX lines that hold instructions under a `.loc`, in order, with the `.file` names
/// resolved. Lines before any `.loc` in a function are left out. Never fails.
[[nodiscard]] QVector<PtxLocation> parsePtxLocations(const QString& ptx);

/// True when `file` (as `.file` or nvdisasm names it: "/tmp/rec/saxpy.cu", "saxpy.cu") is the
/// source called `sourceName`: the same path, or the same file name when either has no folder.
[[nodiscard]] bool isSameSourceFile(const QString& file, const QString& sourceName);

/// One SASS instruction of a listing: function index, instruction index.
struct SassRef {
    int function = 0;
    int instruction = 0;
    friend bool operator==(const SassRef& a, const SassRef& b) {
        return a.function == b.function && a.instruction == b.instruction;
    }
};

/// A run of consecutive lines, both ends included (1-based).
struct LineRange {
    int first = 0;
    int last = 0;
    friend bool operator==(const LineRange& a, const LineRange& b) {
        return a.first == b.first && a.last == b.last;
    }
};

/// Source line <-> PTX lines <-> SASS instructions for one source file of one compile.
/// An instruction inlined from a header maps to the line of the source that inlined it.
class LineMap {
public:
    LineMap() = default;
    /// `sourceName` picks the file (isSameSourceFile) among those the PTX and SASS name.
    [[nodiscard]] static LineMap build(const QString& ptx, const SassListing& sass,
                                       const QString& sourceName);

    [[nodiscard]] bool isEmpty() const;
    /// Every source line that produced PTX or SASS, ascending.
    [[nodiscard]] QVector<int> sourceLines() const;
    /// The PTX lines (1-based, ascending) of `sourceLine`.
    [[nodiscard]] QVector<int> ptxLines(int sourceLine) const;
    /// ptxLines() joined into runs of consecutive lines.
    [[nodiscard]] QVector<LineRange> ptxRanges(int sourceLine) const;
    /// The SASS instructions of `sourceLine`, in listing order.
    [[nodiscard]] QVector<SassRef> sassInstructions(int sourceLine) const;
    /// The indices of the instructions of `sourceLine` within function `function`.
    [[nodiscard]] QVector<int> sassInstructions(int sourceLine, int function) const;
    /// The source line of a PTX line; 0 when it has none.
    [[nodiscard]] int sourceLineOfPtx(int ptxLine) const;
    /// The source line of an instruction; 0 when it has none (or is out of range).
    [[nodiscard]] int sourceLineOfSass(int function, int instruction) const;

private:
    QMap<int, QVector<int>> m_ptxBySource;
    QMap<int, int> m_sourceByPtx;
    QMap<int, QVector<SassRef>> m_sassBySource;
    QVector<QVector<int>> m_sourceBySass; ///< [function][instruction] -> line, 0 for none
};

/// Runs of consecutive values of an ascending list: {3,4,5,9} -> {3-5, 9-9}.
[[nodiscard]] QVector<LineRange> toRanges(const QVector<int>& ascending);

} // namespace kernelpad
