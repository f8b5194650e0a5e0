#pragma once
// "Save as PTX project": a CUDA C++ project's PTX becomes the source of a new PTX project,
// to edit by hand and run like any kernel (CudaPAD's idea, with a run).

#include "core/project/Project.h"

#include <QString>

namespace kernelpad {

/// A PTX project from `project` and the PTX its compile made: source `ptx`, language ptx,
/// sourceName <base>.ptx, the same arguments, globals, launch and timing, and the options that
/// apply to PTX (arch, lineInfo, deviceDebug, maxRegisters). The kernel is the entry
/// `loweredKernel` (the compile's lowered name of project.kernel) or, when empty or absent, the
/// entry whose display name is project.kernel, else the first; named as a PTX compile names it.
[[nodiscard]] Project ptxProjectFrom(const Project& project, const QString& ptx,
                                     const QString& loweredKernel = {});

} // namespace kernelpad
