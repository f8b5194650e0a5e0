#include "app/cli/CliProfile.h"

#include "core/profile/ProfileAdvice.h"
#include "core/run/Summary.h"

#include <QLocale>

#include <cmath>

namespace kernelpad::cli {
namespace {

QString percent(const std::optional<double>& v) {
    return v ? QStringLiteral("%1 %").arg(*v, 0, 'f', 2) : QStringLiteral("-");
}

/// 2.62e12 -> "2.62 T" (decimal prefixes, as ncu prints its units).
QString si(double v) {
    static const char* const kPrefixes[] = {"", "K", "M", "G", "T", "P"};
    int i = 0;
    while (std::abs(v) >= 1000 && i < 5) {
        v /= 1000;
        ++i;
    }
    return QStringLiteral("%1 %2").arg(v, 0, 'f', 2).arg(QLatin1String(kPrefixes[i]));
}

QString rate(const std::optional<double>& v, const char* unit) {
    return v ? si(*v) + QLatin1String(unit) : QStringLiteral("-");
}

/// "4,063,232": the C locale omits group separators unless asked.
QString grouped(qint64 n) {
    QLocale c = QLocale::c();
    c.setNumberOptions(QLocale::DefaultNumberOptions);
    return c.toString(n);
}

/// `text` broken into lines of at most `width` characters at spaces, each after `indent`.
QString wrapped(const QString& text, int width, const QString& indent) {
    QString out;
    QString line;
    for (const QString& word : text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
            out += indent + line + QLatin1Char('\n');
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        out += indent + line + QLatin1Char('\n');
    return out;
}

/// ncu's rules, most useful first, each with the source lines it is about.
void printAdvice(QTextStream& out, const ProfileReport& r) {
    const QList<ProfileAdvice> advice = profileAdvice(r);
    if (advice.isEmpty())
        return;
    const QString file = r.sourceName.isEmpty() ? QStringLiteral("kernel.cu") : r.sourceName;
    out << "\nNsight Compute's advice (estimated speedup of the kernel's time first; \"local\" "
           "is of one unit's share):\n";
    for (const ProfileAdvice& a : advice) {
        QString speedup = QStringLiteral("[%1]").arg(a.rule.type);
        if (a.rule.estimatedSpeedup)
            speedup =
                QStringLiteral("%1 %%2")
                    .arg(*a.rule.estimatedSpeedup, 0, 'f', 1)
                    .arg(a.rule.speedupType == QLatin1String("global") ? QString()
                                                                       : QStringLiteral(" local"));
        out << "  " << QStringLiteral("%1").arg(speedup, -13) << a.sectionTitle << ": "
            << a.rule.name;
        QStringList where;
        for (int line : a.lines)
            where << QStringLiteral("%1:%2").arg(file).arg(line);
        if (!where.isEmpty())
            out << " (" << where.join(QStringLiteral(", ")) << ')';
        out << '\n' << wrapped(a.rule.description, 84, QString(15, QLatin1Char(' ')));
    }
}

QString rateOfPeak(const RateAndPeak& r, const char* unit) {
    QString text = rate(r.achieved, unit);
    if (r.peak)
        text += QStringLiteral(" of ") + rate(r.peak, unit);
    if (r.achieved && r.peak && *r.peak > 0)
        text += QStringLiteral(" (%1 %)").arg(100.0 * *r.achieved / *r.peak, 0, 'f', 1);
    return text;
}

/// The roofs of each level and precision with what the kernel reached of them, a line per
/// point, and the bound in words.
void printHierarchy(QTextStream& out, const HierarchicalRoofline& h) {
    if (h.isEmpty()) {
        out << "Hierarchical roofline: not collected (the raw page has none of the "
               "SpeedOfLight_Hierarchical*RooflineChart sections' metrics)\n";
        return;
    }
    out << "Hierarchical roofline (achieved of the peak at the profiled clocks):\n";
    for (MemoryLevel level : kMemoryLevels)
        out << "  " << QStringLiteral("%1").arg(memoryLevelName(level), -14)
            << rateOfPeak(h.memory(level), "B/s") << '\n';
    for (Precision p : kPrecisions) {
        out << "  " << QStringLiteral("%1").arg(precisionName(p), -14)
            << rateOfPeak(h.compute(p), "FLOP/s");
        if (p == Precision::Tensor && !h.tensorPath.isEmpty())
            out << " (" << h.tensorPath << "'s peak)";
        out << '\n';
    }
    for (const HierarchyPoint& point : h.points()) {
        out << "  "
            << QStringLiteral("%1 at %2")
                   .arg(precisionName(point.precision), memoryLevelName(point.level))
                   .leftJustified(18)
            << QString::number(point.flopsPerByte, 'g', 3) << " FLOP/byte, "
            << si(point.flopsPerSecond) << "FLOP/s";
        if (const std::optional<double> f = point.fractionOfRoof())
            out << ", " << QString::number(100.0 * *f, 'f', 1) << " % of the "
                << (point.underMemoryRoof ? memoryLevelName(point.level)
                                          : h.roofName(point.precision))
                << " roof";
        out << '\n';
    }
    if (const std::optional<RooflineBound> b = h.bound())
        out << "  " << b->sentence << '\n';
}

} // namespace

QStringList profileWarnings(const ProfileReport& report) {
    QStringList out;
    const QString file =
        report.sourceName.isEmpty() ? QStringLiteral("kernel.cu") : report.sourceName;
    for (const LineProfile& l : report.flaggedLines()) {
        const QString where = QStringLiteral("%1:%2: warning: ").arg(file).arg(l.line);
        if (l.uncoalesced) {
            if (l.globalRequests > 0)
                out << where +
                           QStringLiteral("uncoalesced global access: %1 sectors per request, "
                                          "ideal %2")
                               .arg(double(l.l2SectorsGlobal) / double(l.globalRequests), 0, 'g', 4)
                               .arg(double(l.l2SectorsGlobalIdeal) / double(l.globalRequests), 0,
                                    'g', 4);
            else
                out << where +
                           QStringLiteral("uncoalesced global access: %1 sectors, ideal %2")
                               .arg(grouped(l.l2SectorsGlobal), grouped(l.l2SectorsGlobalIdeal));
        }
        if (l.bankConflicts)
            out << where + QStringLiteral("shared-memory bank conflicts: %1-way, %2 excessive "
                                          "wavefronts")
                               .arg(l.sharedConflictsNWay, 0, 'g', 4)
                               .arg(grouped(l.sharedWavefrontsExcessive));
    }
    return out;
}

void printProfile(QTextStream& out, const ProfileReport& r) {
    out << "Profile of " << r.kernel << " on " << r.device << " (ncu "
        << (r.ncuVersion.isEmpty() ? QStringLiteral("?") : r.ncuVersion) << ", " << r.set
        << " set)";
    if (r.durationNs)
        out << ": " << formatDuration(*r.durationNs * 1e-9);
    out << ", grid " << r.gridSize << " of blocks " << r.blockSize << "\n\n";

    const SpeedOfLight& s = r.speedOfLight;
    out << "Speed of light (% of peak):\n"
        << "  compute (SM) throughput  " << percent(s.computeThroughputPct) << '\n'
        << "  memory throughput        " << percent(s.memoryThroughputPct) << '\n'
        << "  DRAM throughput          " << percent(s.dramThroughputPct) << '\n'
        << "  L1/TEX throughput        " << percent(s.l1ThroughputPct) << '\n'
        << "  L2 throughput            " << percent(s.l2ThroughputPct) << '\n'
        << "  occupancy                " << percent(s.achievedOccupancyPct) << " achieved of "
        << percent(s.theoreticalOccupancyPct) << " theoretical\n"
        << "  DRAM                     " << rate(s.dramBytes, "B") << '\n'
        << "  L2                       " << rate(s.l2Bytes, "B") << ", hit rate "
        << percent(s.l2HitRatePct) << '\n'
        << "  L1/TEX                   " << rate(s.l1Bytes, "B") << ", hit rate "
        << percent(s.l1HitRatePct) << '\n';

    const Roofline& roof = r.roofline;
    out << "\nRoofline: FP32 " << rate(roof.achievedFp32FlopsPerSecond, "FLOP/s") << " of "
        << rate(roof.peakFp32FlopsPerSecond, "FLOP/s") << ", FP64 "
        << rate(roof.achievedFp64FlopsPerSecond, "FLOP/s") << " of "
        << rate(roof.peakFp64FlopsPerSecond, "FLOP/s") << ", DRAM "
        << rate(roof.dramBytesPerSecond, "B/s") << " of "
        << rate(roof.peakDramBytesPerSecond, "B/s") << ", arithmetic intensity "
        << (roof.arithmeticIntensity ? QString::number(*roof.arithmeticIntensity, 'g', 3)
                                     : QStringLiteral("-"))
        << " FLOP/byte\n";
    printHierarchy(out, r.hierarchy);

    if (!r.stalls.isEmpty()) {
        qint64 total = 0;
        for (const StallReason& st : r.stalls)
            total += st.samples;
        out << "\nTop stall reasons (share of " << grouped(total) << " warp samples):\n";
        for (qsizetype i = 0; i < r.stalls.size() && i < kTopStallReasons; ++i) {
            const StallReason& st = r.stalls[i];
            out << "  " << QStringLiteral("%1").arg(st.name, -20) << ' '
                << QStringLiteral("%1 %").arg(100.0 * double(st.samples) / double(total), 5, 'f', 1)
                << "  " << st.description << '\n';
        }
    }
    const QStringList warnings = profileWarnings(r);
    if (!warnings.isEmpty()) {
        out << '\n';
        for (const QString& w : warnings)
            out << w << '\n';
    } else if (r.lines.isEmpty()) {
        out << "\nNo per-line counters (ncu gave no source page).\n";
    } else {
        out << "\nNo line is flagged: global accesses are coalesced and shared memory has no bank "
               "conflicts.\n";
    }
    printAdvice(out, r);
    for (const QString& w : r.warnings)
        out << "note: " << w << '\n';
}

void printComparison(QTextStream& out, const ProfileComparison& comparison,
                     const ProfileReport& baseline) {
    out << "\nAgainst the baseline (" << baseline.kernel << " on " << baseline.device << ", "
        << baseline.set << " set):\n";
    for (const QString& line : comparison.headline)
        out << "  " << line << '\n';
    out << "\nMetrics that changed by " << kNotableChangePct
        << " % or more (baseline -> this profile):\n";
    QString section;
    int unchanged = 0;
    for (const MetricChange& c : comparison.metrics) {
        const std::optional<double> pct = c.changePct();
        const bool oneSided = c.currentText.isEmpty() || c.baselineText.isEmpty();
        if (!oneSided && (!pct || std::abs(*pct) < kNotableChangePct)) {
            ++unchanged;
            continue;
        }
        if (c.section != section) {
            section = c.section;
            out << "  " << section << '\n';
        }
        out << "    " << QStringLiteral("%1").arg(c.name, -36) << ' '
            << (c.baselineText.isEmpty() ? QStringLiteral("(absent)") : c.baselineText) << " -> "
            << (c.currentText.isEmpty() ? QStringLiteral("(absent)") : c.currentText);
        if (pct)
            out << QStringLiteral("  %1%2 %")
                       .arg(*pct >= 0 ? QStringLiteral("+") : QStringLiteral("-"))
                       .arg(std::abs(*pct), 0, 'f', 1);
        out << '\n';
    }
    out << "  (" << unchanged << " metrics within " << kNotableChangePct
        << " % or not numbers; --json lists every one)\n";
}

} // namespace kernelpad::cli
