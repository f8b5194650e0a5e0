#pragma once
// What a window and the command line share around a sweep besides where its results file
// lives (SweepResultsPath.h): the text form of a tunable's values, and a record applied to a
// project. Plain functions of values.

#include "core/project/Project.h"
#include "core/project/SweepSpec.h"
#include "core/sweep/SweepResults.h"

#include <QString>

#include <optional>

namespace kernelpad {

/// A tunable's values as the sweep panel shows them: "8, 16, 32", "1..64 step 8",
/// "powers 2^5..2^10" (or "3..96 x2" when the ends are not powers of the base).
[[nodiscard]] QString sweepValuesText(const SweepValues& values);
/// Reads sweepValuesText()'s forms, and the command line's ("0:64:8", "1:1024:x2"); nullopt
/// with `error` saying what was expected.
[[nodiscard]] std::optional<SweepValues> sweepValuesFromText(const QString& text, QString* error);

/// `project` with `record`'s configuration applied (block, grid, defines, scalar values,
/// shared memory, kernel name), its sweep section kept; nullopt with `error` when the record
/// is not a configuration of the project's sweep or cannot launch.
[[nodiscard]] std::optional<Project> projectWithRecord(const Project& project,
                                                       const SweepRecord& record, QString* error);

} // namespace kernelpad
