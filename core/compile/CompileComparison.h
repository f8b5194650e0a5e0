#pragma once
// Two compiles of a project side by side: each kernel's instructions by class (PTX and SASS),
// its registers, spills and memory before -> after, and the line diffs of the listings.

#include "core/compile/CompileResult.h"
#include "core/compile/InstructionClasses.h"
#include "core/compile/KernelFacts.h"
#include "core/compile/ListingDiff.h"
#include "core/compile/Sass.h"

#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// What one compile holds of one kernel entry.
struct KernelSummary {
    QString name;    ///< as the user knows it ("saxpy", "scale<float>"); the symbol when unknown
    QString lowered; ///< the entry's symbol
    InstructionCounts ptx;
    bool hasSass = false;
    InstructionCounts sass; ///< valid when hasSass
    KernelCompileFacts facts;
};

/// Every kernel entry of one compile, in the PTX's order.
struct CompileSummary {
    QVector<KernelSummary> kernels;
    bool hasSass = false;

    [[nodiscard]] const KernelSummary* find(const QString& lowered) const;
};

/// Counts `compile`'s entries in its PTX and, when `sass` is given, in its parsed SASS;
/// resources come from kernelCompileFacts() (registers and spills only where the program log
/// holds ptxas's -v report).
[[nodiscard]] CompileSummary summarizeCompile(const CompileResult& compile,
                                              const SassListing* sass = nullptr);

/// One compared figure: a class count or a resource, before and after; a side is empty when
/// that compile does not know it (no such kernel, no SASS, no ptxas report).
struct ComparisonRow {
    QString key;   ///< "ptx.memory", "sass.control", "registers", "spillStoreBytes", ...
    QString label; ///< "PTX memory", "registers", "spill stores (bytes)"
    std::optional<qint64> before;
    std::optional<qint64> after;

    [[nodiscard]] bool changed() const { return before != after; }
    /// "12 -> 14 (+2)", "12 -> 12", "- -> 14"; `arrow` separates the sides.
    [[nodiscard]] QString text(const QString& arrow = QStringLiteral(" -> ")) const;
};

/// One kernel in both compiles (matched by symbol).
struct KernelComparison {
    QString name;
    QString lowered;
    bool inBefore = false;
    bool inAfter = false;
    QVector<ComparisonRow> rows;

    [[nodiscard]] const ComparisonRow* row(const QString& key) const;
};

/// The PTX (and SASS, where both compiles have it) of two compiles, compared.
struct CompileComparison {
    QVector<KernelComparison> kernels; ///< the after compile's kernels, then those it lost
    ListingDiff ptx;
    bool hasSass = false; ///< both sides were disassembled: `sass` is valid
    ListingDiff sass;

    [[nodiscard]] const KernelComparison* find(const QString& nameOrLowered) const;
    /// Kernels, rows (with deltas) and the listings' change counts; with `withPtxRows`, the
    /// PTX line diff as rows too.
    [[nodiscard]] QJsonObject toJson(bool withPtxRows = false) const;
};

/// `options` with ptxas's -v report asked for (`-Xptxas -v`, unless a verbose flag is there
/// already): ptxas then writes each kernel's registers, spills, stack and shared memory into
/// the program log, which summarizeCompile() reads; the code it makes is the same. For CUDA
/// C++ (NVRTC) compiles.
[[nodiscard]] ProgramOptions withPtxasReport(ProgramOptions options);

/// Compares two compiles. `beforeSass`/`afterSass` are their SASS where known; SASS rows and
/// the SASS diff are there only when both are.
[[nodiscard]] CompileComparison compareCompiles(const CompileResult& before,
                                                const SassListing* beforeSass,
                                                const CompileResult& after,
                                                const SassListing* afterSass);

} // namespace kernelpad
