// assembleProfileReport (NcuPages.h): ncu's pages of one launch made into a ProfileReport, in
// parts: the speed of light, the roofline, the stall reasons and the per-line counters.
#include "core/profile/NcuPages.h"

#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace kernelpad {
namespace {

/// Bytes per L2 or L1 sector: the unit of ncu's sector counts.
constexpr double kSectorBytes = 32.0;

/// A details-page metric's value scaled to its base unit.
std::optional<double> detailsValue(const DetailsPage& page, const QString& section,
                                   const QString& name) {
    for (const ProfileMetric& m : page.metrics)
        if (m.section == section && m.name == name && m.value)
            return scaleToBaseUnit(*m.value, m.unit).value;
    return std::nullopt;
}

template <typename T> std::optional<T> firstOf(std::optional<T> a, std::optional<T> b) {
    return a ? a : b;
}

std::optional<double> times(std::optional<double> a, std::optional<double> b) {
    if (a && b)
        return *a * *b;
    return std::nullopt;
}

/// The two pages' metrics by name: a details-page value, else the raw page's.
class PageMetrics {
public:
    PageMetrics(const DetailsPage& details, const RawPage& raw)
        : m_details(details)
        , m_raw(raw) {}
    [[nodiscard]] std::optional<double> details(const QString& section, const char* name) const {
        return detailsValue(m_details, section, QString::fromLatin1(name));
    }
    [[nodiscard]] std::optional<double> raw(const char* name) const {
        return m_raw.base(QString::fromLatin1(name));
    }
    [[nodiscard]] const RawPage& rawPage() const { return m_raw; }

private:
    const DetailsPage& m_details;
    const RawPage& m_raw;
};

const QString kSolSection = QStringLiteral("GPU Speed Of Light Throughput");

/// The speed-of-light section, each figure from the details page or else the raw page.
SpeedOfLight speedOfLight(const PageMetrics& m) {
    const QString& sol = kSolSection;
    const QString occupancy = QStringLiteral("Occupancy");
    const QString memory = QStringLiteral("Memory Workload Analysis");
    SpeedOfLight s;
    s.computeThroughputPct = firstOf(m.details(sol, "Compute (SM) Throughput"),
                                     m.raw("sm__throughput.avg.pct_of_peak_sustained_elapsed"));
    s.memoryThroughputPct =
        firstOf(m.details(sol, "Memory Throughput"),
                m.raw("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"));
    s.dramThroughputPct = firstOf(m.details(sol, "DRAM Throughput"),
                                  m.raw("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"));
    s.l1ThroughputPct = firstOf(m.details(sol, "L1/TEX Cache Throughput"),
                                m.raw("l1tex__throughput.avg.pct_of_peak_sustained_active"));
    s.l2ThroughputPct = firstOf(m.details(sol, "L2 Cache Throughput"),
                                m.raw("lts__throughput.avg.pct_of_peak_sustained_elapsed"));
    s.achievedOccupancyPct = firstOf(m.details(occupancy, "Achieved Occupancy"),
                                     m.raw("sm__warps_active.avg.pct_of_peak_sustained_active"));
    s.theoreticalOccupancyPct = firstOf(m.details(occupancy, "Theoretical Occupancy"),
                                        m.raw("sm__maximum_warps_per_active_cycle_pct"));
    s.l1HitRatePct =
        firstOf(m.details(memory, "L1/TEX Hit Rate"), m.raw("l1tex__t_sector_hit_rate.pct"));
    s.l2HitRatePct = firstOf(m.details(memory, "L2 Hit Rate"), m.raw("lts__t_sector_hit_rate.pct"));
    s.smFrequencyHz =
        firstOf(m.details(sol, "SM Frequency"), m.raw("sm__cycles_elapsed.avg.per_second"));
    s.dramFrequencyHz =
        firstOf(m.details(sol, "DRAM Frequency"), m.raw("dram__cycles_elapsed.avg.per_second"));
    s.elapsedCycles = m.details(sol, "Elapsed Cycles");
    s.dramBytes = m.raw("dram__bytes.sum");
    if (!s.dramBytes) {
        const std::optional<double> read = m.raw("dram__bytes_read.sum");
        const std::optional<double> write = m.raw("dram__bytes_write.sum");
        if (read && write)
            s.dramBytes = *read + *write;
    }
    s.l2Bytes =
        firstOf(m.raw("lts__t_bytes.sum"), times(m.raw("lts__t_sectors.sum"), kSectorBytes));
    s.l1Bytes =
        firstOf(m.raw("l1tex__t_bytes.sum"), times(m.raw("l1tex__t_sectors.sum"), kSectorBytes));
    return s;
}

/// The roofline as ncu's SpeedOfLight_RooflineChart computes it: thread instructions per
/// elapsed cycle (summed over the SM sub-partitions) times the cycles per second, an FMA
/// counting as two operations.
Roofline roofline(const PageMetrics& m, const SpeedOfLight& s, std::optional<double> durationNs) {
    Roofline roof;
    const std::optional<double> smspHz = m.raw("smsp__cycles_elapsed.avg.per_second");
    const auto flops = [&](const char* fma, const char* add,
                           const char* mul) -> std::optional<double> {
        const auto rate = [&](const char* op) {
            return m.rawPage().base(QStringLiteral("smsp__sass_thread_inst_executed_op_%1_pred_"
                                                   "on.sum.per_cycle_elapsed")
                                        .arg(QLatin1String(op)));
        };
        const std::optional<double> f = rate(fma), a = rate(add), p = rate(mul);
        if (!f || !a || !p || !smspHz)
            return std::nullopt;
        return (2.0 * *f + *a + *p) * *smspHz;
    };
    roof.achievedFp32FlopsPerSecond = flops("ffma", "fadd", "fmul");
    roof.achievedFp64FlopsPerSecond = flops("dfma", "dadd", "dmul");
    roof.dramBytesPerSecond = m.raw("dram__bytes.sum.per_second");
    if (!roof.dramBytesPerSecond && s.dramBytes && durationNs && *durationNs > 0)
        roof.dramBytesPerSecond = *s.dramBytes / (*durationNs * 1e-9);
    if (roof.dramBytesPerSecond && *roof.dramBytesPerSecond > 0 &&
        (roof.achievedFp32FlopsPerSecond || roof.achievedFp64FlopsPerSecond))
        roof.arithmeticIntensity = (roof.achievedFp32FlopsPerSecond.value_or(0) +
                                    roof.achievedFp64FlopsPerSecond.value_or(0)) /
                                   *roof.dramBytesPerSecond;
    const std::optional<double> smHz = m.raw("sm__cycles_elapsed.avg.per_second");
    roof.peakFp32FlopsPerSecond =
        times(times(m.raw("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"), 2.0),
              smHz);
    roof.peakFp64FlopsPerSecond =
        times(times(m.raw("sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"), 2.0),
              smHz);
    roof.peakDramBytesPerSecond = times(m.raw("dram__bytes.sum.peak_sustained"),
                                        m.raw("dram__cycles_elapsed.avg.per_second"));
    return roof;
}

/// Stall reasons over the whole kernel: the PC samples of WarpStateStats.
QList<StallReason> rawStalls(const RawPage& raw) {
    QList<StallReason> stalls;
    const QString prefix = QStringLiteral("smsp__pcsamp_warps_issue_stalled_");
    const QString notIssued = QStringLiteral("_not_issued");
    for (auto it = raw.metrics.cbegin(); it != raw.metrics.cend(); ++it) {
        if (!it.key().startsWith(prefix) || it.key().endsWith(notIssued) || !it->value)
            continue;
        StallReason reason;
        reason.name = it.key().mid(prefix.size());
        reason.samples = qint64(std::llround(*it->value));
        if (reason.samples <= 0)
            continue;
        reason.notIssuedSamples =
            qint64(std::llround(raw.base(it.key() + notIssued).value_or(0.0)));
        reason.description = stallReasonDescription(reason.name);
        stalls << reason;
    }
    return stalls;
}

/// The per-line counters of the source page for `sourceName` (or the first file ncu names,
/// with a warning), into `r`.
void addSourceLines(const QString& sourcePage, const QString& sourceName, ProfileReport* r) {
    QString why;
    const std::optional<QList<SourcePage>> source = parseSourcePage(sourcePage, &why);
    if (!source) {
        r->warnings << QStringLiteral("the per-line counters could not be read: %1").arg(why);
        return;
    }
    const SourcePage* chosen = nullptr;
    const QString wanted = QFileInfo(sourceName).fileName();
    for (const SourcePage& p : *source)
        if (!p.filePath.isEmpty() && !wanted.isEmpty() &&
            QFileInfo(p.filePath).fileName() == wanted) {
            chosen = &p;
            break;
        }
    for (const SourcePage& p : *source) {
        if (!chosen && !p.filePath.isEmpty()) {
            chosen = &p;
            r->warnings << QStringLiteral("ncu names no source file '%1'; the lines are those of "
                                          "%2")
                               .arg(wanted, p.filePath);
        }
        r->warnings << p.warnings;
    }
    if (chosen)
        r->lines = chosen->lines;
}

/// Without the raw page's samples, the per-line samples summed give the same totals.
QList<StallReason> stallsOfLines(const QList<LineProfile>& lines) {
    QHash<QString, qint64> sums;
    QStringList order;
    for (const LineProfile& l : lines)
        for (const LineStall& st : l.stalls) {
            if (!sums.contains(st.name))
                order << st.name;
            sums[st.name] += st.samples;
        }
    QList<StallReason> stalls;
    for (const QString& name : order)
        stalls << StallReason{name, stallReasonDescription(name), sums.value(name), 0};
    return stalls;
}

} // namespace

std::optional<ProfileReport> assembleProfileReport(const NcuPages& pages, const QString& sourceName,
                                                   const QString& set, QString* error) {
    QString why;
    const std::optional<DetailsPage> details = parseDetailsPage(pages.details, &why);
    if (!details) {
        if (error)
            *error = QStringLiteral("cannot read ncu's details page: %1").arg(why);
        return std::nullopt;
    }
    const std::optional<RawPage> raw = parseRawPage(pages.raw, &why);
    if (!raw) {
        if (error)
            *error = QStringLiteral("cannot read ncu's raw page: %1").arg(why);
        return std::nullopt;
    }
    ProfileReport r;
    r.kernel = details->kernel;
    r.blockSize = details->blockSize;
    r.gridSize = details->gridSize;
    r.set = set;
    r.sourceName = sourceName;
    r.device = raw->text(QStringLiteral("device__attribute_display_name"));
    r.metrics = details->metrics;
    r.rules = details->rules;
    if (details->launches > 1)
        r.warnings << QStringLiteral("ncu profiled %1 launches; the first is shown")
                          .arg(details->launches);

    const PageMetrics metrics(*details, *raw);
    if (const std::optional<double> seconds = firstOf(metrics.raw("gpu__time_duration.sum"),
                                                      metrics.details(kSolSection, "Duration")))
        r.durationNs = *seconds * 1e9;
    r.speedOfLight = speedOfLight(metrics);
    r.roofline = roofline(metrics, r.speedOfLight, r.durationNs);
    r.hierarchy = hierarchicalRoofline(*raw);
    r.stalls = rawStalls(*raw);
    if (!pages.source.trimmed().isEmpty())
        addSourceLines(pages.source, sourceName, &r);
    if (r.stalls.isEmpty())
        r.stalls = stallsOfLines(r.lines);
    std::stable_sort(r.stalls.begin(), r.stalls.end(),
                     [](const StallReason& a, const StallReason& b) {
                         return a.samples != b.samples ? a.samples > b.samples : a.name < b.name;
                     });
    return r;
}

} // namespace kernelpad
