#pragma once
// How one project differs from another, in a few words: the note under a timing ("source
// edited, block 256→128") that says what changed since the previous run.

#include "core/project/Project.h"

#include <QString>

#include <optional>

namespace kernelpad {

/// "first run" without `before`, "no change", or the changes from `before` to `after` joined by
/// ", ": source, kernel, compile options, grid, block, shared memory, each argument's value,
/// count or settings, then the timing settings; at most four, then "N more".
[[nodiscard]] QString describeProjectChanges(const std::optional<Project>& before,
                                             const Project& after);

} // namespace kernelpad
