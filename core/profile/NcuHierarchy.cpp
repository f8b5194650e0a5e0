// hierarchicalRoofline (NcuPages.h): the raw page's metrics of Nsight Compute's hierarchical
// roofline sections (SpeedOfLight_Hierarchical{Single,Double,Half,Tensor}RooflineChart) made
// into roofs and rates. Every peak is a per-cycle peak times its unit's clock, as the sections
// compute it; the recordings in tests/data/ncu (*.hier.raw.csv) hold every metric used here.
#include "core/profile/NcuPages.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>

namespace kernelpad {
namespace {

/// Bytes per L1 local/global writeback cycle and per L2-to-crossbar cycle: the factors the
/// sections' derived__ metrics apply to the cycle counts, used when the page lacks those.
constexpr double kL1WritebackBytesPerCycle = 128.0;
constexpr double kL2XbarBytesPerCycle = 32.0;

/// An FMA is two operations; a packed half-precision instruction works on two values.
constexpr double kFmaFlops = 2.0;
constexpr double kHalfPairFlops = 2.0;

std::optional<double> hierTimes(std::optional<double> a, std::optional<double> b) {
    if (a && b)
        return *a * *b;
    return std::nullopt;
}

std::optional<double> hierFirstOf(std::optional<double> a, std::optional<double> b) {
    return a ? a : b;
}

/// A level whose bytes ncu derives from its active cycles: `names` pairs the sections'
/// derived__ metric of the bytes with the cycle counter it is made of (older ncu names L1's
/// `_mem_lg` where 2025.3 has `_mem_lgds`); the derived metric when the page has it, else
/// the cycles times `bytesPerCycle`.
RateAndPeak cycleLevel(const RawPage& raw,
                       std::initializer_list<std::pair<const char*, const char*>> names,
                       double bytesPerCycle, const char* clock) {
    RateAndPeak r;
    std::optional<double> peakPerCycle;
    for (const auto& [derivedName, cyclesName] : names) {
        const QString derived = QLatin1String(derivedName);
        const QString cycles = QLatin1String(cyclesName);
        if (!r.achieved)
            r.achieved = hierFirstOf(
                raw.base(derived + QStringLiteral(".sum.per_second")),
                hierTimes(raw.base(cycles + QStringLiteral(".sum.per_second")), bytesPerCycle));
        if (!peakPerCycle)
            peakPerCycle = hierFirstOf(
                raw.base(derived + QStringLiteral(".sum.peak_sustained")),
                hierTimes(raw.base(cycles + QStringLiteral(".sum.peak_sustained")), bytesPerCycle));
    }
    r.peak = hierTimes(peakPerCycle, raw.base(QLatin1String(clock)));
    return r;
}

/// FLOP/s of thread instructions: per elapsed cycle of the SM sub-partitions, summed, times
/// their clock; `ops` pairs an instruction ("ffma") with its operations. Absent when any
/// counter is missing.
std::optional<double> threadFlops(const RawPage& raw,
                                  std::initializer_list<std::pair<const char*, double>> ops) {
    const std::optional<double> hz =
        raw.base(QStringLiteral("smsp__cycles_elapsed.avg.per_second"));
    double perCycle = 0;
    for (const auto& [op, flops] : ops) {
        const std::optional<double> n =
            raw.base(QStringLiteral("smsp__sass_thread_inst_executed_op_%1_pred_on.sum."
                                    "per_cycle_elapsed")
                         .arg(QLatin1String(op)));
        if (!n)
            return std::nullopt;
        perCycle += flops * *n;
    }
    return hierTimes(perCycle, hz);
}

/// The device's peak of an FMA instruction (`op`: "ffma") as FLOP/s.
std::optional<double> fmaPeak(const RawPage& raw, const char* op, double flopsPerInstruction) {
    return hierTimes(
        hierTimes(raw.base(QStringLiteral("sm__sass_thread_inst_executed_op_%1_pred_on.sum."
                                          "peak_sustained")
                               .arg(QLatin1String(op))),
                  flopsPerInstruction),
        raw.base(QStringLiteral("sm__cycles_elapsed.avg.per_second")));
}

/// "hmma_src_bf16_dst_fp32_sparsity_off" -> "HMMA bf16→fp32"; "fp8_sparsity_on" ->
/// "fp8 sparse"; "fp64" -> "fp64".
QString tensorPathLabel(const QString& path) {
    QString rest = path;
    QString op;
    const int src = int(rest.indexOf(QLatin1String("_src_")));
    if (src >= 0) {
        op = rest.left(src).toUpper();
        rest = rest.mid(src + 5);
    }
    bool sparse = false;
    const int sparsity = int(rest.indexOf(QLatin1String("_sparsity_")));
    if (sparsity >= 0) {
        sparse = rest.mid(sparsity + 10) == QLatin1String("on");
        rest = rest.left(sparsity);
    }
    rest.replace(QLatin1String("_dst_"), QStringLiteral("→"));
    QString label = op.isEmpty() ? rest : op + QLatin1Char(' ') + rest;
    if (sparse)
        label += QStringLiteral(" sparse");
    return label;
}

/// Integer tensor paths (IMMA, BMMA and their warpgroup forms) do no floating-point work.
bool floatingTensorPath(const QString& path) {
    return !path.contains(QLatin1String("int"));
}

/// The floating-point tensor paths under `prefix` ("sm__ops_path_tensor_src_") by name
/// (after the prefix) with their operation counts.
QList<std::pair<QString, double>> tensorPaths(const RawPage& raw, const QString& prefix) {
    QList<std::pair<QString, double>> out;
    const QString sum = QStringLiteral(".sum");
    for (auto it = raw.metrics.cbegin(); it != raw.metrics.cend(); ++it) {
        const QString& key = it.key();
        if (!key.startsWith(prefix) || !key.endsWith(sum) || !it->base)
            continue;
        const QString path = key.mid(prefix.size(), key.size() - prefix.size() - sum.size());
        if (floatingTensorPath(path))
            out.append({path, *it->base});
    }
    // The hash has no order: the most operations first, then by name, so the choice is stable.
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    return out;
}

/// The tensor pipe: achieved FLOP/s over every floating-point source type; the roof is the
/// peak of the path that did the most operations, by instruction (HMMA, HGMMA) where ncu
/// splits it that way, else by source type (FP64's DMMA, FP8's QGMMA), because a type's own
/// peak is that of its fastest (warpgroup, sparse) instruction, which an HMMA kernel cannot
/// reach.
void readTensor(const RawPage& raw, HierarchicalRoofline* h) {
    const QString srcPrefix = QStringLiteral("sm__ops_path_tensor_src_");
    const QList<std::pair<QString, double>> sources = tensorPaths(raw, srcPrefix);
    if (sources.isEmpty())
        return;
    double achieved = 0;
    for (const auto& source : sources) {
        const std::optional<double> rate =
            raw.base(srcPrefix + source.first + QStringLiteral(".sum.per_second"));
        if (!rate)
            return;
        achieved += *rate;
    }
    h->tensor.achieved = achieved;
    const QString opPrefix = QStringLiteral("sm__ops_path_tensor_op_");
    const QList<std::pair<QString, double>> ops = tensorPaths(raw, opPrefix);
    QString prefix = opPrefix;
    QString used;
    if (!ops.isEmpty() && ops.first().second > 0) {
        used = ops.first().first;
    } else if (sources.first().second > 0) {
        prefix = srcPrefix;
        used = sources.first().first;
    }
    if (used.isEmpty())
        return;
    h->tensorPath = tensorPathLabel(used);
    const QString metric = prefix + used + QStringLiteral(".sum.peak_sustained");
    h->tensor.peak =
        hierTimes(raw.base(metric), raw.base(QStringLiteral("sm__cycles_elapsed.avg.per_second")));
    if (!h->tensor.peak)
        h->tensor.peak = raw.base(metric + QStringLiteral("_elapsed.per_second"));
}

} // namespace

HierarchicalRoofline hierarchicalRoofline(const RawPage& raw) {
    HierarchicalRoofline h;
    h.l1 = cycleLevel(
        raw,
        {{"derived__l1tex__lsu_writeback_bytes_mem_lgds", "l1tex__lsu_writeback_active_mem_lgds"},
         {"derived__l1tex__lsu_writeback_bytes_mem_lg", "l1tex__lsu_writeback_active_mem_lg"}},
        kL1WritebackBytesPerCycle, "l1tex__cycles_elapsed.avg.per_second");
    h.l2 = cycleLevel(raw, {{"derived__lts__lts2xbar_bytes", "lts__lts2xbar_cycles_active"}},
                      kL2XbarBytesPerCycle, "lts__cycles_elapsed.avg.per_second");
    h.dram.achieved = raw.base(QStringLiteral("dram__bytes.sum.per_second"));
    h.dram.peak = hierTimes(raw.base(QStringLiteral("dram__bytes.sum.peak_sustained")),
                            raw.base(QStringLiteral("dram__cycles_elapsed.avg.per_second")));
    h.fp32.achieved = threadFlops(raw, {{"ffma", kFmaFlops}, {"fadd", 1.0}, {"fmul", 1.0}});
    h.fp32.peak = fmaPeak(raw, "ffma", kFmaFlops);
    h.fp64.achieved = threadFlops(raw, {{"dfma", kFmaFlops}, {"dadd", 1.0}, {"dmul", 1.0}});
    h.fp64.peak = fmaPeak(raw, "dfma", kFmaFlops);
    h.half.achieved = threadFlops(
        raw,
        {{"hfma", kFmaFlops * kHalfPairFlops}, {"hadd", kHalfPairFlops}, {"hmul", kHalfPairFlops}});
    h.half.peak = fmaPeak(raw, "hfma", kFmaFlops * kHalfPairFlops);
    readTensor(raw, &h);
    return h;
}

} // namespace kernelpad
