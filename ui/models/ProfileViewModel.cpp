#include "ui/models/ProfileViewModel.h"

#include "core/run/Summary.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>

namespace kernelpad {

namespace {

/// The tooltip names this many of a line's stall reasons; the rest are in the stall chart.
constexpr int kTopLineStalls = 3;
constexpr double kNsPerSecond = 1e9;

QString profileTr(const char* text) {
    return QCoreApplication::translate("ProfileViewModel", text);
}

QString count(qint64 n) {
    return QLocale().toString(n);
}

QString percentText(double share) {
    return QStringLiteral("%1 %").arg(share, 0, 'f', 1);
}

} // namespace

QString formatBytes(double bytes) {
    static const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB"};
    int unit = 0;
    while (bytes >= 1000 && unit < 4) {
        bytes /= 1000;
        ++unit;
    }
    return QStringLiteral("%1 %2")
        .arg(bytes, 0, 'f', unit == 0 ? 0 : 2)
        .arg(QLatin1String(kUnits[unit]));
}

QString lineToolTip(const LineProfile& line, qint64 totalSamples) {
    QStringList parts;
    const double share = totalSamples > 0 ? 100.0 * double(line.stallSamples) / totalSamples : 0;
    parts << profileTr("Line %1: %2 warp stall samples (%3 of the kernel's)")
                 .arg(line.line)
                 .arg(count(line.stallSamples), percentText(share));
    if (!line.stalls.isEmpty()) {
        QStringList top;
        for (int i = 0; i < std::min<int>(kTopLineStalls, int(line.stalls.size())); ++i) {
            const LineStall& stall = line.stalls.at(i);
            const QString meaning = stallReasonDescription(stall.name);
            top << (meaning.isEmpty()
                        ? QStringLiteral("  %1: %2").arg(stall.name, count(stall.samples))
                        : QStringLiteral("  %1: %2 (%3)")
                              .arg(stall.name, count(stall.samples), meaning));
        }
        parts << profileTr("Top stall reasons:\n%1").arg(top.join(QLatin1Char('\n')));
    }
    if (line.instructionsExecuted > 0)
        parts << profileTr("Instructions executed (warp-level): %1")
                     .arg(count(line.instructionsExecuted));
    if (line.l2SectorsGlobalIdeal > 0) {
        const double ratio = double(line.l2SectorsGlobal) / double(line.l2SectorsGlobalIdeal);
        const QString flag = line.uncoalesced ? profileTr(" (uncoalesced)") : QString();
        if (line.globalRequests > 0) {
            const double requests = double(line.globalRequests);
            parts << profileTr("Global memory: %1 sectors per request where %2 are ideal (%3 L2 "
                               "sectors for %4 requests)%5")
                         .arg(double(line.l2SectorsGlobal) / requests, 0, 'f', 1)
                         .arg(double(line.l2SectorsGlobalIdeal) / requests, 0, 'f', 1)
                         .arg(count(line.l2SectorsGlobal), count(line.globalRequests), flag);
        } else {
            // Without request counts, the ratio of the totals is the ratio per request.
            parts << profileTr("Global memory: %1 L2 sectors where %2 are ideal: %3x the ideal "
                               "sectors per request%4")
                         .arg(count(line.l2SectorsGlobal), count(line.l2SectorsGlobalIdeal))
                         .arg(ratio, 0, 'f', 2)
                         .arg(flag);
        }
    }
    if (line.sharedWavefronts > 0 || line.sharedConflictsNWay > 1) {
        parts << profileTr("Shared memory: %1-way bank conflicts, %2 wavefronts where %3 are ideal "
                           "(%4 excessive)")
                     .arg(line.sharedConflictsNWay, 0, 'g', 3)
                     .arg(count(line.sharedWavefronts), count(line.sharedWavefrontsIdeal),
                          count(line.sharedWavefrontsExcessive));
    }
    for (const QString& flag : line.flagMessages())
        parts << QStringLiteral("⚑ ") + flag;
    return parts.join(QLatin1Char('\n'));
}

QVector<MarginLine> marginLines(const ProfileReport& report) {
    qint64 total = 0;
    for (const LineProfile& line : report.lines)
        total += line.stallSamples;
    QVector<MarginLine> out;
    for (const LineProfile& line : report.lines) {
        if (line.stallSamples <= 0 && !line.uncoalesced && !line.bankConflicts &&
            line.instructionsExecuted <= 0)
            continue;
        MarginLine margin;
        margin.line = line.line;
        margin.samples = double(line.stallSamples);
        margin.uncoalesced = line.uncoalesced;
        margin.bankConflicts = line.bankConflicts;
        margin.toolTip = lineToolTip(line, total);
        out.append(margin);
    }
    return out;
}

QVector<StallBar> stallBars(const ProfileReport& report) {
    QVector<StallBar> bars;
    for (const StallReason& stall : report.stalls) {
        const QString description =
            stall.description.isEmpty() ? stallReasonDescription(stall.name) : stall.description;
        bars.append({stall.name, double(stall.samples), description});
    }
    return bars;
}

QVector<PercentRow> throughputRows(const SpeedOfLight& sol) {
    return {
        {QStringLiteral("compute"), profileTr("Compute (SM) throughput"), sol.computeThroughputPct,
         profileTr("The busiest of the SM's pipelines and units, as a share of its peak")},
        {QStringLiteral("memory"), profileTr("Memory throughput"), sol.memoryThroughputPct,
         profileTr("The busiest of DRAM, L2 and L1, as a share of its peak")},
        {QStringLiteral("dram"), profileTr("DRAM throughput"), sol.dramThroughputPct,
         profileTr("Device memory traffic as a share of its peak bandwidth")},
        {QStringLiteral("l2"), profileTr("L2 cache throughput"), sol.l2ThroughputPct,
         profileTr("L2 traffic as a share of its peak")},
        {QStringLiteral("l1"), profileTr("L1/TEX cache throughput"), sol.l1ThroughputPct,
         profileTr("L1 and texture traffic as a share of its peak")},
    };
}

QVector<PercentRow> occupancyRows(const SpeedOfLight& sol) {
    return {
        {QStringLiteral("occupancy.achieved"), profileTr("Achieved occupancy"),
         sol.achievedOccupancyPct,
         profileTr(
             "Warps resident per SM on average while the kernel ran, as a share of the most an "
             "SM can hold")},
        {QStringLiteral("occupancy.theoretical"), profileTr("Theoretical occupancy"),
         sol.theoreticalOccupancyPct,
         profileTr("The most the launch's block size, registers and shared memory allow")},
    };
}

QVector<MemoryRow> memoryRows(const SpeedOfLight& sol) {
    return {{QStringLiteral("DRAM"), sol.dramBytes, std::nullopt},
            {QStringLiteral("L2"), sol.l2Bytes, sol.l2HitRatePct},
            {QStringLiteral("L1/TEX"), sol.l1Bytes, sol.l1HitRatePct}};
}

QVector<RooflineRoof> rooflineRoofs(const ProfileReport& report) {
    QVector<RooflineRoof> roofs;
    if (report.roofline.peakFp32FlopsPerSecond)
        roofs.append({QStringLiteral("FP32"), *report.roofline.peakFp32FlopsPerSecond});
    if (report.roofline.peakFp64FlopsPerSecond)
        roofs.append({QStringLiteral("FP64"), *report.roofline.peakFp64FlopsPerSecond});
    return roofs;
}

QVector<RooflinePoint> rooflinePoints(const QVector<ProfiledRun>& runs) {
    QVector<RooflinePoint> points;
    for (const ProfiledRun& run : runs) {
        if (!run.report)
            continue;
        const Roofline& r = run.report->roofline;
        RooflinePoint point;
        point.flopsPerByte = r.arithmeticIntensity.value_or(0);
        point.flopsPerSecond =
            r.achievedFp32FlopsPerSecond.value_or(0) + r.achievedFp64FlopsPerSecond.value_or(0);
        QStringList lines;
        lines << profileTr("Run %1, finished %2")
                     .arg(run.runNumber)
                     .arg(QLocale().toString(run.finishedAt.time(), QLocale::LongFormat));
        if (run.medianSeconds)
            lines << profileTr("Median time %1").arg(formatDuration(*run.medianSeconds));
        if (run.report->durationNs)
            lines << profileTr("Profiled launch %1")
                         .arg(formatDuration(*run.report->durationNs / kNsPerSecond));
        lines << (run.changes.isEmpty() ? profileTr("Source version: as first run")
                                        : profileTr("Changed: %1").arg(run.changes));
        point.toolTip = lines.join(QLatin1Char('\n'));
        points.append(point);
    }
    return points;
}

QString profileHeadline(const ProfileReport& report) {
    QStringList parts;
    parts << (report.device.isEmpty() ? report.kernel
                                      : profileTr("%1 on %2").arg(report.kernel, report.device));
    parts << profileTr("%1 set").arg(report.set);
    if (report.durationNs)
        parts << formatDuration(*report.durationNs / kNsPerSecond);
    if (!report.gridSize.isEmpty())
        parts << profileTr("grid %1 block %2").arg(report.gridSize, report.blockSize);
    if (!report.ncuVersion.isEmpty())
        parts << profileTr("Nsight Compute %1").arg(report.ncuVersion);
    return parts.join(QStringLiteral(" · "));
}

} // namespace kernelpad
