#include "core/profile/ProfileAdvice.h"

#include <QHash>
#include <QJsonObject>

#include <algorithm>

namespace kernelpad {
namespace {

/// Where a rule sits in the order: the lower, the earlier.
int adviceRank(const ProfileRule& rule) {
    if (rule.estimatedSpeedup && rule.speedupType == QLatin1String("global"))
        return 0;
    if (rule.estimatedSpeedup)
        return 1;
    if (rule.type == QLatin1String("OPT"))
        return 2;
    if (rule.type == QLatin1String("WRN") || rule.type == QLatin1String("ERR"))
        return 3;
    return 4;
}

/// How many of the lines with the most stall samples a stall rule points at.
constexpr int kStallLines = 3;

QList<int> stallLines(const ProfileReport& report) {
    QList<const LineProfile*> lines;
    for (const LineProfile& l : report.lines)
        if (l.stallSamples > 0)
            lines << &l;
    std::stable_sort(lines.begin(), lines.end(), [](const LineProfile* a, const LineProfile* b) {
        return a->stallSamples > b->stallSamples;
    });
    QList<int> out;
    for (int i = 0; i < int(lines.size()) && i < kStallLines; ++i)
        out << lines[i]->line;
    std::sort(out.begin(), out.end());
    return out;
}

QList<int> ruleLines(const ProfileRule& rule, const ProfileReport& report) {
    // The rules whose subject is a kind of access that the per-line counters flag.
    static const QStringList globalRules = {QStringLiteral("UncoalescedGlobalAccess"),
                                            QStringLiteral("MemoryCacheAccessPattern")};
    static const QStringList sharedRules = {QStringLiteral("UncoalescedSharedAccess"),
                                            QStringLiteral("SharedMemoryConflicts")};
    QList<int> lines;
    if (globalRules.contains(rule.name) || sharedRules.contains(rule.name)) {
        const bool global = globalRules.contains(rule.name);
        for (const LineProfile& l : report.flaggedLines())
            if (global ? l.uncoalesced : l.bankConflicts)
                lines << l.line;
    } else if (rule.name == QLatin1String("CPIStall")) {
        lines = stallLines(report);
    }
    return lines;
}

} // namespace

QString profileSectionTitle(const QString& sectionId) {
    static const QHash<QString, QString> titles = {
        {QStringLiteral("SpeedOfLight"), QStringLiteral("GPU Speed Of Light Throughput")},
        {QStringLiteral("ComputeWorkloadAnalysis"), QStringLiteral("Compute Workload Analysis")},
        {QStringLiteral("MemoryWorkloadAnalysis"), QStringLiteral("Memory Workload Analysis")},
        {QStringLiteral("SchedulerStats"), QStringLiteral("Scheduler Statistics")},
        {QStringLiteral("WarpStateStats"), QStringLiteral("Warp State Statistics")},
        {QStringLiteral("InstructionStats"), QStringLiteral("Instruction Statistics")},
        {QStringLiteral("LaunchStats"), QStringLiteral("Launch Statistics")},
        {QStringLiteral("Occupancy"), QStringLiteral("Occupancy")},
        {QStringLiteral("SourceCounters"), QStringLiteral("Source Counters")},
        {QStringLiteral("PmSampling"), QStringLiteral("PM Sampling")},
    };
    // "SpeedOfLight_RooflineChart" belongs to "SpeedOfLight"'s page.
    const QString base = sectionId.section(QLatin1Char('_'), 0, 0);
    if (const auto it = titles.constFind(base); it != titles.constEnd())
        return it.value();
    // An unknown section: "NvlinkTopology" -> "Nvlink Topology".
    QString title;
    for (int i = 0; i < base.size(); ++i) {
        if (i > 0 && base[i].isUpper() && base[i - 1].isLower())
            title += QLatin1Char(' ');
        title += base[i];
    }
    return title;
}

QString adviceSpeedupText(const ProfileRule& rule) {
    if (!rule.estimatedSpeedup)
        return {};
    const QString pct = QStringLiteral("%1 %").arg(*rule.estimatedSpeedup, 0, 'f', 1);
    return rule.speedupType == QLatin1String("global")
               ? QStringLiteral("up to %1 of the kernel's time").arg(pct)
               : QStringLiteral("up to %1 of one unit's share").arg(pct);
}

QList<ProfileAdvice> profileAdvice(const ProfileReport& report) {
    QList<ProfileAdvice> advice;
    for (const ProfileRule& rule : report.rules)
        advice.append({rule, profileSectionTitle(rule.section), ruleLines(rule, report)});
    std::stable_sort(
        advice.begin(), advice.end(), [](const ProfileAdvice& a, const ProfileAdvice& b) {
            const int ra = adviceRank(a.rule), rb = adviceRank(b.rule);
            if (ra != rb)
                return ra < rb;
            return a.rule.estimatedSpeedup.value_or(0) > b.rule.estimatedSpeedup.value_or(0);
        });
    return advice;
}

QJsonArray adviceToJson(const QList<ProfileAdvice>& advice) {
    QJsonArray out;
    for (const ProfileAdvice& a : advice) {
        QJsonArray lines;
        for (int line : a.lines)
            lines.append(line);
        QJsonObject o{{QStringLiteral("section"), a.rule.section},
                      {QStringLiteral("sectionTitle"), a.sectionTitle},
                      {QStringLiteral("name"), a.rule.name},
                      {QStringLiteral("type"), a.rule.type},
                      {QStringLiteral("description"), a.rule.description},
                      {QStringLiteral("lines"), lines}};
        if (a.rule.estimatedSpeedup) {
            o.insert(QStringLiteral("estimatedSpeedupPct"), *a.rule.estimatedSpeedup);
            o.insert(QStringLiteral("speedupType"), a.rule.speedupType);
        }
        out.append(o);
    }
    return out;
}

} // namespace kernelpad
