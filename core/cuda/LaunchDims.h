#pragma once
// The plain values a kernel launch and the driver's parameter query deal in; the launch layer
// (core/launch) builds them from a project's LaunchConfig and ArgumentSpecs.

#include <QtGlobal>

#include <array>

namespace kernelpad {

/// Grid and block dimensions and dynamic shared memory of one cuLaunchKernel call.
struct LaunchDims {
    std::array<int, 3> grid{1, 1, 1};
    std::array<int, 3> block{1, 1, 1};
    int sharedMemBytes = 0;
};

/// Offset and size of one kernel parameter (cuFuncGetParamInfo or the PTX).
struct ParamLayout {
    qint64 offsetBytes = 0;
    qint64 sizeBytes = 0;
};

} // namespace kernelpad
