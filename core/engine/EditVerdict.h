#pragma once
// One sentence per edit: what is known of two versions of a kernel (two runs, two versions of
// the Versions tab, the two arms of an A/B) joined into "1.8 % slower (significant): 2 more
// registers → occupancy 75 % → 62 %; 4 more LDG.E" (docs/ARCHITECTURE.md, "Verdict of an
// edit"). Pure functions: the Versions tab, the status bar after a live run and kernelpad-cli
// call them with whatever each side has, and a figure one side lacks is left out, never
// guessed.
//
// The time: the ratio of medians after/before with the A/B's statistics (core/run/AbVerdict.h)
// on the two runs' samples, each run one block: its within-block bootstrap is then the
// independent percentile bootstrap of core/run/Significance.h (95 %, seeded), "significant"
// when the interval excludes 1 and the change is at least 0.5 %, else "within noise"; SM
// clocks more than 1 % apart or one side throttled give no verdict, as the A/B refuses one.
// Without samples on both sides the medians still give the change, and the sentence says that
// its significance is unknown.
//
// The causes, each only when it changed, most telling first: spills (or local memory), the
// registers or shared memory with the occupancy they led to, the profile figure that changed
// most (DRAM bytes, hit rates, throughputs), the 1–3 SASS opcodes whose counts changed most,
// and registers or shared memory that left the occupancy as it was.

#include "core/compile/CompileResult.h"
#include "core/compile/Sass.h"
#include "core/profile/ProfileReport.h"
#include "core/run/KernelResources.h"
#include "core/run/Timing.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>

namespace kernelpad {

struct AbVerdict;
struct RunResult;

/// What is known of one side of an edit; every part may be absent.
struct VerdictSide {
    /// Samples, or only the median (and min/max) when the samples were not kept; a median of 0
    /// means the side was not timed.
    TimingStats timing;
    /// The driver's figures at the run's launch; absent (or registers 0) when unknown.
    std::optional<KernelResources> resources;
    /// Spilled bytes (ptxas's stores) when ptxas's report was read; absent otherwise, and then
    /// the driver's local memory per thread stands for them.
    std::optional<qint64> spillBytes;
    /// The kernel's SASS opcodes ("LDG.E", "FFMA") with their counts, when it was disassembled.
    std::optional<QMap<QString, int>> sassOpcodes;
    /// The Nsight Compute profile of this side, when it was profiled (not owned: it must
    /// outlive the call).
    const ProfileReport* profile = nullptr;
};

/// How the time changed, as far as the samples tell.
enum class VerdictSignificance {
    NotTimed,      ///< a side has no median: no time in the sentence
    NoSamples,     ///< medians only: the change, with its significance unknown
    TooFewSamples, ///< fewer than kMinSamples on a side
    Significant,   ///< the interval excludes 1 and the change is at least 0.5 %
    WithinNoise,
    NotComparable, ///< the clocks differed or one side throttled (reason says how)
};
/// "not timed", "no samples", "too few samples", "significant", "within noise",
/// "not comparable".
[[nodiscard]] QString verdictSignificanceName(VerdictSignificance significance);

/// One cause in the sentence, with its figures for the JSON form.
struct VerdictCause {
    QString kind; ///< "spills", "localMemory", "registers", "sharedMemory", "occupancy",
                  ///< "profile", "sass"
    QString text; ///< its part of the sentence ("2 more registers → occupancy 75 % → 62 %")
    QString name; ///< the opcode or profile figure ("LDG.E", "DRAM bytes"); else empty
    double before = 0;
    double after = 0;
};

/// The sentence and what it was made of.
struct EditVerdict {
    VerdictSignificance significance = VerdictSignificance::NotTimed;
    double beforeMs = 0; ///< medians; 0 when not timed
    double afterMs = 0;
    double ratio = 0; ///< after / before; 0 when not timed
    double low = 0;   ///< the 95 % interval of the ratio; 0 without one
    double high = 0;
    QString reason; ///< TooFewSamples / NotComparable: why, in words
    QList<VerdictCause> causes;
    /// "1.8 % slower (significant): 2 more registers → occupancy 75 % → 62 %; 4 more LDG.E";
    /// "no change known" when nothing is.
    QString sentence;

    /// (after / before − 1) in per cent; 0 when not timed.
    [[nodiscard]] double changePercent() const { return ratio > 0 ? (ratio - 1) * 100 : 0; }
    /// The sentence's parts as figures: "sentence", "significance", "time" (medians, ratio,
    /// interval, changePct; only when timed) and "causes".
    [[nodiscard]] QJsonObject toJson() const;
};

/// The most SASS opcodes a sentence names.
inline constexpr int kMaxVerdictOpcodes = 3;

/// `after` against `before` (see the header comment).
[[nodiscard]] EditVerdict editVerdict(const VerdictSide& before, const VerdictSide& after);

/// The same with the time of an interleaved A/B comparison (A before, B after), whose verdict
/// stands as it is; the sides then need no timing.
[[nodiscard]] EditVerdict editVerdict(const AbVerdict& ab, const VerdictSide& before,
                                      const VerdictSide& after);

/// The opcodes of one function with their counts (modifiers kept: "LDG.E.128").
[[nodiscard]] QMap<QString, int> sassOpcodeCounts(const SassFunction& function);

/// What a compile gives of kernel `lowered`: ptxas's registers, shared memory and spills when
/// its report is in the log (withPtxasReport(), CompileComparison.h), and the SASS opcodes
/// when `sass` is given and lists the kernel. No occupancy: that needs a launch.
[[nodiscard]] VerdictSide verdictSideOf(const CompileResult& compile, const SassListing* sass,
                                        const QString& lowered);

/// What a run gives: its timing, and its resources when it ran well (a failed run's timing and
/// resources are left out, so that a failure is never called faster).
[[nodiscard]] VerdictSide verdictSideOf(const RunResult& result);

} // namespace kernelpad
