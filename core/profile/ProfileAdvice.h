#pragma once
// Nsight Compute's own advice (its rules: ProfileReport::rules), ordered as a reader acts on
// it and linked to the source lines a rule is about, for the Profile tab and
// `kernelpad-cli profile` (docs/ARCHITECTURE.md, "Profiles").

#include "core/profile/ProfileReport.h"

#include <QJsonArray>
#include <QList>
#include <QString>

namespace kernelpad {

/// One rule with what KernelPad knows beside it.
struct ProfileAdvice {
    ProfileRule rule;
    QString sectionTitle; ///< "Memory Workload Analysis" for "MemoryWorkloadAnalysis_Tables"
    /// The project's source lines the rule is about, from the per-line counters: uncoalesced
    /// lines for the global-access rules, bank-conflict lines for the shared-memory ones, the
    /// lines with the most stall samples for the stall rules. Empty for kernel-wide advice or
    /// without -lineinfo.
    QList<int> lines;
};

/// The report's rules, most useful first: those with an estimated speedup of the whole kernel
/// ("global"), largest first; then those whose speedup is of one unit's share ("local"),
/// largest first; then optimisation advice without an estimate, warnings, errors and last the
/// informational notes. ncu's order is kept among equals.
[[nodiscard]] QList<ProfileAdvice> profileAdvice(const ProfileReport& report);

/// "MemoryWorkloadAnalysis_Tables" -> "Memory Workload Analysis": the title ncu's own report
/// gives the section a rule belongs to.
[[nodiscard]] QString profileSectionTitle(const QString& sectionId);

/// "up to 79.5 % of the kernel's time", "up to 99.2 % of one unit's share" or empty.
[[nodiscard]] QString adviceSpeedupText(const ProfileRule& rule);

/// The advice as `kernelpad-cli profile --json` gives it: every rule field, the section's
/// title and the lines.
[[nodiscard]] QJsonArray adviceToJson(const QList<ProfileAdvice>& advice);

} // namespace kernelpad
