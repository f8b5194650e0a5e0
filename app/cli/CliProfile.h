#pragma once
// `kernelpad-cli profile`: a Nsight Compute profile of one launch printed as speed of light,
// the top stall reasons and the flagged source lines (FILE:LINE: warning: ...).

#include "core/profile/ProfileComparison.h"
#include "core/profile/ProfileReport.h"

#include <QTextStream>

namespace kernelpad::cli {

/// How many stall reasons the text lists.
inline constexpr int kTopStallReasons = 5;

/// The report as text: a heading, speed of light, the roofline point and roofs, the top
/// stall reasons, then one "FILE:LINE: warning: ..." line per flag, and ncu's warnings.
void printProfile(QTextStream& out, const ProfileReport& report);

/// "FILE:LINE: warning: uncoalesced global access: 36 sectors per request, ideal 8" and
/// "FILE:LINE: warning: shared-memory bank conflicts: 32-way, 4,063,232 excessive wavefronts"
/// for every flagged line, in line order.
[[nodiscard]] QStringList profileWarnings(const ProfileReport& report);

/// `profile A --baseline B`: the headline changes, then every metric that moved by at least
/// kNotableChangePct, by section, "baseline → current  change".
void printComparison(QTextStream& out, const ProfileComparison& comparison,
                     const ProfileReport& baseline);

} // namespace kernelpad::cli
