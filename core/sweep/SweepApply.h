#pragma once
// Naming a sweep configuration applied to a project: its tunables as a person reads them, and
// which recorded configuration a project holds now, so that "Applied bx=8, by=32 (was bx=16,
// by=16)" can say what an apply replaced.

#include "core/project/Project.h"
#include "core/sweep/SweepResults.h"

#include <QString>
#include <QVector>

namespace kernelpad {

/// "bx=8, by=32": the record's tunables and values (SweepSpace::formatValue), in order.
[[nodiscard]] QString sweepConfigurationText(const SweepRecord& record);

/// The index in `records` of the first configuration of `project`'s sweep that `project`
/// holds exactly (projectWithRecord gives it back unchanged), or -1 when none does, when the
/// project has no valid sweep or when a record is not a configuration of it.
[[nodiscard]] int recordHeldBy(const Project& project, const QVector<SweepRecord>& records);

} // namespace kernelpad
