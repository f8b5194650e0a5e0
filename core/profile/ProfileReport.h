#pragma once
// What a Nsight Compute profile of one launch says, as the profile view, the editor margin, the
// roofline and `kernelpad-cli profile` show it: speed of light, warp stall reasons, per source
// line counters with the coalescing and bank-conflict flags, the roofline's point and roofs.
// Read from ncu's CSV pages by core/profile/NcuPages.h; kept in the session history as JSON.

#include "core/profile/HierarchicalRoofline.h"
#include "core/run/RunStatus.h"

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// A line is flagged uncoalesced when its global accesses touch more than this many times the
/// L2 sectors an ideal (fully coalesced) pattern would. Not 1x: a misaligned base or a partial
/// last warp makes a coalesced access touch a sector more than ideal, which is no problem worth
/// a flag; a stride of 2 floats between neighbouring threads already doubles the sectors, and
/// the recorded stride-32 read touches 4.5x (4,718,592 sectors against 1,048,576), so "more
/// than twice" separates a strided pattern from rounding.
inline constexpr double kUncoalescedSectorRatio = 2.0;

/// One metric of the details page: "GPU Speed Of Light Throughput" / "DRAM Throughput" / "%".
struct ProfileMetric {
    QString section;             ///< "GPU Speed Of Light Throughput"
    QString name;                ///< "DRAM Throughput"
    QString unit;                ///< "%", "Tbyte/s", "cycle"; empty for a plain count
    QString text;                ///< the value as ncu printed it ("115,962", "PolicySpread")
    std::optional<double> value; ///< the number, when the text is one

    friend bool operator==(const ProfileMetric& a, const ProfileMetric& b);
};

/// One rule ncu's analysis reported on the details page (its advice, in its words).
struct ProfileRule {
    QString section;     ///< "SpeedOfLight" (the section's identifier, as ncu prints it)
    QString name;        ///< "SOLBottleneck"
    QString type;        ///< "OPT", "INF", "WRN", "ERR"
    QString description; ///< ncu's text
    QString speedupType; ///< "local", "global" or empty
    std::optional<double> estimatedSpeedup; ///< percent, when ncu gives one

    friend bool operator==(const ProfileRule& a, const ProfileRule& b);
};

/// The "speed of light" summary: how close the kernel came to the device's peaks. Each value is
/// absent when the profiled set did not collect it.
struct SpeedOfLight {
    std::optional<double> computeThroughputPct; ///< Compute (SM) Throughput, % of peak
    std::optional<double> memoryThroughputPct;  ///< Memory Throughput, % of peak
    std::optional<double> dramThroughputPct;    ///< DRAM Throughput, % of peak
    std::optional<double> l1ThroughputPct;      ///< L1/TEX Cache Throughput, % of peak
    std::optional<double> l2ThroughputPct;      ///< L2 Cache Throughput, % of peak
    std::optional<double> achievedOccupancyPct;
    std::optional<double> theoreticalOccupancyPct;
    std::optional<double> dramBytes; ///< bytes read and written to DRAM
    std::optional<double> l2Bytes;   ///< bytes through L2 (sectors x 32)
    std::optional<double> l1Bytes;   ///< bytes through L1/TEX (sectors x 32)
    std::optional<double> l1HitRatePct;
    std::optional<double> l2HitRatePct;
    std::optional<double> smFrequencyHz;
    std::optional<double> dramFrequencyHz;
    std::optional<double> elapsedCycles;

    friend bool operator==(const SpeedOfLight& a, const SpeedOfLight& b);
};

/// One warp stall reason over the whole kernel: where warps waited instead of issuing.
struct StallReason {
    QString name;        ///< the raw page's name: "long_scoreboard", "lg_throttle", "barrier"
    QString description; ///< what it means in plain words (stallReasonDescription)
    qint64 samples = 0;  ///< all samples with this reason
    qint64 notIssuedSamples = 0; ///< of those, samples where the warp issued nothing

    friend bool operator==(const StallReason& a, const StallReason& b);
};

/// "long_scoreboard" -> "waiting for a global, local or texture load to return (memory
/// latency)": one sentence per reason ncu samples; empty for a name it does not know.
[[nodiscard]] QString stallReasonDescription(const QString& name);

/// One SASS instruction of a source line, for the margin's tooltip.
struct ProfileSassRow {
    QString address;     ///< "0x7f079b7ac200"
    QString instruction; ///< "LDG.E R2, desc[UR4][R2.64]"
    qint64 stallSamples = 0;
    qint64 instructionsExecuted = 0;

    friend bool operator==(const ProfileSassRow& a, const ProfileSassRow& b);
};

/// Samples of one stall reason on one line.
struct LineStall {
    QString name; ///< as StallReason::name
    qint64 samples = 0;

    friend bool operator==(const LineStall& a, const LineStall& b);
};

/// What the profile says about one line of the project's source (ncu's source page with
/// `--print-source cuda,sass`; needs -lineinfo).
struct LineProfile {
    int line = 0;                         ///< 1-based line of the project's source
    qint64 stallSamples = 0;              ///< Warp Stall Sampling (All Samples)
    qint64 notIssuedStallSamples = 0;     ///< Warp Stall Sampling (Not-issued Samples)
    qint64 instructionsExecuted = 0;      ///< warp-level
    qint64 l2SectorsGlobal = 0;           ///< L2 Theoretical Sectors Global
    qint64 l2SectorsGlobalIdeal = 0;      ///< ... Ideal
    qint64 l2SectorsGlobalExcessive = 0;  ///< ... Excessive
    double sharedConflictsNWay = 0;       ///< L1 Conflicts Shared N-Way (1 = none)
    qint64 sharedWavefronts = 0;          ///< L1 Wavefronts Shared
    qint64 sharedWavefrontsIdeal = 0;     ///< L1 Wavefronts Shared Ideal
    qint64 sharedWavefrontsExcessive = 0; ///< L1 Wavefronts Shared Excessive
    /// Global sectors above kUncoalescedSectorRatio times the ideal.
    bool uncoalesced = false;
    /// Shared-memory accesses replayed: n-way > 1 or excessive wavefronts > 0.
    bool bankConflicts = false;
    /// Warp-level global memory instructions executed on this line (its SASS rows that touch
    /// L2 sectors): the requests the sectors are divided among.
    qint64 globalRequests = 0;
    QList<LineStall> stalls;    ///< reasons with samples on this line, most first
    QList<ProfileSassRow> sass; ///< the line's instructions in address order

    /// "uncoalesced global access: 4,718,592 sectors where 1,048,576 are ideal (4.5x)" and/or
    /// "shared-memory bank conflicts: 32-way, 4,063,232 excessive wavefronts"; empty when the
    /// line is not flagged.
    [[nodiscard]] QStringList flagMessages() const;

    friend bool operator==(const LineProfile& a, const LineProfile& b);
};

/// Applies the two rules above to `line`'s counters (sets uncoalesced and bankConflicts).
void flagLine(LineProfile* line);

/// A roofline: the kernel as a point (arithmetic intensity, achieved FLOP/s) and the device's
/// roofs. Values are absent where the raw page lacks the metrics.
struct Roofline {
    std::optional<double> achievedFp32FlopsPerSecond; ///< (2 ffma + fadd + fmul) / duration
    std::optional<double> achievedFp64FlopsPerSecond; ///< (2 dfma + dadd + dmul) / duration
    std::optional<double> dramBytesPerSecond;         ///< achieved DRAM bandwidth
    /// (FP32 + FP64 FLOP) / DRAM bytes; absent when no DRAM byte moved.
    std::optional<double> arithmeticIntensity;
    std::optional<double> peakFp32FlopsPerSecond; ///< per-cycle peak x SM clock
    std::optional<double> peakFp64FlopsPerSecond;
    std::optional<double> peakDramBytesPerSecond; ///< per-cycle peak x DRAM clock

    friend bool operator==(const Roofline& a, const Roofline& b);
};

/// One profile of one launch of the project's kernel.
struct ProfileReport {
    QString kernel;                   ///< the kernel's name as ncu printed it ("saxpy")
    QString device;                   ///< "NVIDIA H100 80GB HBM3"
    QString set;                      ///< "basic" or "full"
    QString sourceName;               ///< the project's source, for FILE:LINE
    std::optional<double> durationNs; ///< gpu__time_duration
    QString blockSize;                ///< "(256, 1, 1)"
    QString gridSize;                 ///< "(65536, 1, 1)"
    SpeedOfLight speedOfLight;
    QList<StallReason> stalls; ///< most samples first
    QList<LineProfile> lines;  ///< by line; empty without -lineinfo
    Roofline roofline;
    HierarchicalRoofline hierarchy; ///< L1, L2 and DRAM roofs and points per precision
    QList<ProfileMetric> metrics;   ///< every metric of the details page, in its order
    QList<ProfileRule> rules;       ///< ncu's advice
    QString ncuVersion;             ///< "2025.3.1.0"
    QStringList commandLine;        ///< the profiling command, program first
    QStringList warnings;           ///< ncu's ==WARNING== lines and what the parsers skipped

    /// The record of `line`, or null.
    [[nodiscard]] const LineProfile* lineProfile(int line) const;
    /// The lines flagged uncoalesced or with bank conflicts, in line order.
    [[nodiscard]] QList<LineProfile> flaggedLines() const;

    [[nodiscard]] QJsonObject toJson() const;
    /// Fails with a message naming the field ("lines[2].line: expected a whole number, ...").
    static std::optional<ProfileReport> fromJson(const QJsonObject& json, QString* error);
    friend bool operator==(const ProfileReport& a, const ProfileReport& b);
};

/// Which Nsight Compute sections a profile collects.
enum class ProfileSet { Basic, Full };
[[nodiscard]] QString profileSetName(ProfileSet set); ///< "basic", "full"
[[nodiscard]] std::optional<ProfileSet> profileSetFromName(const QString& name);

/// How a profile ended.
enum class ProfileStatus {
    Ok,
    NcuMissing,        ///< no ncu found; the error lists where it looked
    CounterPermission, ///< ERR_NVGPUCTRPERM: the driver does not allow counters to this user
    NoKernelProfiled,  ///< the filter matched no launch; the error names it and what ran
    KernelFailed,      ///< the project did not compile, run or verify (the runner's message)
    Timeout,           ///< ncu did not finish in time and was stopped
    Cancelled,
    Failed, ///< ncu failed otherwise, or its output could not be read
};
[[nodiscard]] QString profileStatusName(ProfileStatus status); ///< "ok", "ncu-missing", ...

/// The answer to Engine::profile(): a report, or why there is none.
struct ProfileOutcome {
    ProfileStatus status = ProfileStatus::Failed;
    QString error;        ///< the sentence to show when status is not Ok
    ProfileReport report; ///< filled when status is Ok
    QString ncuOutput;    ///< ncu's own output (bounded), for a details pane
    /// With KernelFailed, Timeout and Cancelled: how the profiled run (or its compile) ended,
    /// so a caller maps it as it maps a run's (kernelpad-cli's exit codes).
    RunStatus runStatus = RunStatus::Ok;

    [[nodiscard]] bool ok() const { return status == ProfileStatus::Ok; }
};

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::ProfileReport)
Q_DECLARE_METATYPE(kernelpad::ProfileOutcome)
Q_DECLARE_METATYPE(kernelpad::ProfileSet)
