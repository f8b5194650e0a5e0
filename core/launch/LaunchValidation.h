#pragma once
// Launch configuration checked against the device's and the kernel's limits.

#include "core/launch/ArgumentSpec.h"

#include <QString>

#include <array>

namespace kernelpad {

/// The limits a launch must respect; zero means "unknown, not checked".
struct LaunchLimits {
    int maxThreadsPerBlock = 0; ///< device
    std::array<int, 3> maxBlockDim{0, 0, 0};
    std::array<int, 3> maxGridDim{0, 0, 0};
    int maxSharedPerBlockBytes = 0; ///< without opt-in
    int maxSharedPerBlockOptinBytes = 0;
    int kernelMaxThreadsPerBlock = 0; ///< the kernel's (registers may lower it)
    int kernelStaticSharedBytes = 0;
    std::array<int, 3> kernelMaxntid{0, 0, 0}; ///< `.maxntid` in the PTX (__launch_bounds__)
    std::array<int, 3> kernelReqntid{0, 0, 0}; ///< `.reqntid`: the block must be exactly this
    QString kernelName;
};

/// Limits every CUDA device has (compute capability 5.0 and later): block 1024 threads,
/// block dims 1024 x 1024 x 64, grid 2^31-1 x 65535 x 65535, 48 KiB shared memory.
[[nodiscard]] LaunchLimits genericLaunchLimits();

/// Empty when the configuration can be launched, else one message naming the field and the
/// limit: "block: 2048 threads per block (32 x 64 x 1) exceed the device's limit of 1024".
[[nodiscard]] QString validateLaunch(const LaunchConfig& config, const LaunchLimits& limits);

/// The grid.x that covers `elements` with `blockX` threads per block (ceil division).
[[nodiscard]] qint64 gridToCover(qint64 elements, int blockX);

} // namespace kernelpad
