#pragma once
// The project File ▸ New starts from: a complete kernel that compiles, runs and verifies as it
// is, so that a newcomer's first Run shows every view working.

#include "core/project/Project.h"

#include <QString>

namespace kernelpad {

/// A 1D map over n = 1024 floats: every thread writes its index, checked against the
/// expression `i`; the launch covers n exactly (4 blocks of 256).
[[nodiscard]] Project starterProject(const QString& name);

} // namespace kernelpad
