#pragma once
// The plain values a kernel launch and the driver's parameter query deal in; the launch layer
// (core/launch) builds them from a project's LaunchConfig and ArgumentSpecs.

#include <QtGlobal>

#include <array>

namespace kernelpad {

/// Grid and block dimensions and dynamic shared memory of one launch; with a cluster or a
/// cooperative launch it goes through cuLaunchKernelEx, otherwise through cuLaunchKernel.
struct LaunchDims {
    std::array<int, 3> grid{1, 1, 1};
    std::array<int, 3> block{1, 1, 1};
    int sharedMemBytes = 0;
    /// Thread block cluster (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION); zeros: none.
    std::array<int, 3> cluster{0, 0, 0};
    bool cooperative = false; ///< CU_LAUNCH_ATTRIBUTE_COOPERATIVE (grid-wide sync)

    [[nodiscard]] bool needsLaunchEx() const { return cluster[0] > 0 || cooperative; }
};

/// Offset and size of one kernel parameter (cuFuncGetParamInfo or the PTX).
struct ParamLayout {
    qint64 offsetBytes = 0;
    qint64 sizeBytes = 0;
};

} // namespace kernelpad
