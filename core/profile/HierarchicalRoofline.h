#pragma once
// The hierarchical roofline of one profiled launch, as Nsight Compute's
// SpeedOfLight_Hierarchical*RooflineChart sections define it: a memory roof per level (L1, L2,
// DRAM: peak bytes per cycle x the level's clock), a compute roof per kind of arithmetic (FP32,
// FP64, FP16/BF16 and the tensor pipe of the data type the kernel used), and the kernel's
// points: its FLOP/s of each kind that ran against the bytes it moved at each level. Read from
// the raw page by hierarchicalRoofline() (core/profile/NcuPages.h).

#include <QJsonObject>
#include <QList>
#include <QString>

#include <array>
#include <optional>

namespace kernelpad {

/// The memory levels, nearest the SM first.
enum class MemoryLevel { L1, L2, Dram };
inline constexpr std::array<MemoryLevel, 3> kMemoryLevels{MemoryLevel::L1, MemoryLevel::L2,
                                                          MemoryLevel::Dram};
/// "L1", "L2", "DRAM": the points' labels.
[[nodiscard]] QString memoryLevelName(MemoryLevel level);

/// The kinds of arithmetic with a compute roof.
enum class Precision { Fp32, Fp64, Half, Tensor };
inline constexpr std::array<Precision, 4> kPrecisions{Precision::Fp32, Precision::Fp64,
                                                      Precision::Half, Precision::Tensor};
/// "FP32", "FP64", "FP16/BF16", "tensor".
[[nodiscard]] QString precisionName(Precision precision);

/// A rate the kernel achieved and the device's peak of it (bytes/s or FLOP/s). Each is absent
/// where the raw page lacks its metrics; 0 achieved is a measured zero.
struct RateAndPeak {
    std::optional<double> achieved;
    std::optional<double> peak;

    friend bool operator==(const RateAndPeak& a, const RateAndPeak& b) {
        return a.achieved == b.achieved && a.peak == b.peak;
    }
};

/// The kernel at one level for one kind of arithmetic.
struct HierarchyPoint {
    MemoryLevel level = MemoryLevel::Dram;
    Precision precision = Precision::Fp32;
    double flopsPerByte = 0;   ///< arithmetic intensity: FLOP/s over the level's bytes/s
    double flopsPerSecond = 0; ///< achieved
    /// The roof above the point: min(compute peak, the level's peak bandwidth x intensity);
    /// absent when neither peak is known.
    std::optional<double> roofFlopsPerSecond;
    /// The level's bandwidth, not the compute peak, is the lower roof at this intensity.
    bool underMemoryRoof = false;

    /// flopsPerSecond / roofFlopsPerSecond (0.78 for 78 %), absent without a roof.
    [[nodiscard]] std::optional<double> fractionOfRoof() const;
};

/// What limits the kernel: the roof it comes closest to, in words.
struct RooflineBound {
    bool memory = true; ///< under a memory roof (else under a compute roof)
    MemoryLevel level = MemoryLevel::Dram;
    Precision precision = Precision::Fp32;
    double fraction = 0;  ///< of that roof at the kernel's intensity (of the bandwidth
                          ///< when noFlops)
    bool noFlops = false; ///< no floating-point work: the bandwidths alone decide
    QString sentence;     ///< "DRAM-bound: 78 % of the DRAM roof at this intensity (...)"
};

/// The roofs and the kernel's rates; points() and bound() derive the rest.
struct HierarchicalRoofline {
    RateAndPeak l1;     ///< bytes/s: L1 local/global writebacks to the SM
    RateAndPeak l2;     ///< bytes/s: L2 to the crossbar (toward the SMs)
    RateAndPeak dram;   ///< bytes/s read and written
    RateAndPeak fp32;   ///< FLOP/s: FADD + FMUL + 2 x FFMA
    RateAndPeak fp64;   ///< FLOP/s: DADD + DMUL + 2 x DFMA
    RateAndPeak half;   ///< FLOP/s: 2 x HADD + 2 x HMUL + 4 x HFMA (packed pairs)
    RateAndPeak tensor; ///< FLOP/s of every floating-point tensor path; peak of the one used
    /// The tensor path whose peak is the tensor roof ("HMMA bf16→fp32"); empty when no
    /// floating-point tensor operation ran.
    QString tensorPath;

    [[nodiscard]] const RateAndPeak& memory(MemoryLevel level) const;
    [[nodiscard]] const RateAndPeak& compute(Precision precision) const;
    /// "FP32", ..., "tensor HMMA bf16→fp32": a roof's name in the legend and the CLI.
    [[nodiscard]] QString roofName(Precision precision) const;
    /// True when the raw page had none of the metrics (a basic set without the sections).
    [[nodiscard]] bool isEmpty() const;
    /// The kinds of arithmetic that ran (achieved > 0), in kPrecisions order.
    [[nodiscard]] QList<Precision> precisionsRun() const;
    /// For each kind that ran, a point per level whose bytes/s is known and positive.
    [[nodiscard]] QList<HierarchyPoint> points() const;
    /// The point closest to its roof (the limit the kernel sits under); without floating-point
    /// work, the level closest to its peak bandwidth. Absent without peaks.
    [[nodiscard]] std::optional<RooflineBound> bound() const;

    /// The roofs, and the points and bound as derived (for readers of `--json`; fromJson
    /// derives them again). Absent numbers are left out.
    [[nodiscard]] QJsonObject toJson() const;
    /// Fails with a message naming the field under `path` ("hierarchicalRoofline.l2.peak:
    /// expected a number, ...").
    static bool fromJson(const QJsonObject& json, const QString& path, HierarchicalRoofline* out,
                         QString* error);

    friend bool operator==(const HierarchicalRoofline& a, const HierarchicalRoofline& b);
};

} // namespace kernelpad
