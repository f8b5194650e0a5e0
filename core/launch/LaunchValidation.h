#pragma once
// Launch configuration checked against the device's and the kernel's limits.

#include "core/cuda/DeviceInfo.h"
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

    /// The device's limits (threads, block and grid dims, shared memory with and without
    /// opt-in); the kernel's stay unknown until its compile or module says them.
    [[nodiscard]] static LaunchLimits forDevice(const DeviceInfo& device);
};

/// Limits every CUDA device has (compute capability 5.0 and later): block 1024 threads,
/// block dims 1024 x 1024 x 64, grid 2^31-1 x 65535 x 65535, 48 KiB shared memory.
[[nodiscard]] LaunchLimits genericLaunchLimits();

/// Empty when the configuration can be launched, else one message naming the field and the
/// limit: "block: 2048 threads per block (32 x 64 x 1) exceed the device's limit of 1024".
[[nodiscard]] QString validateLaunch(const LaunchConfig& config, const LaunchLimits& limits);

/// What a cluster launch is checked against (CUDA C++ Programming Guide, "Thread Block
/// Clusters"); zeros mean "unknown, not checked".
struct ClusterLimits {
    int ccMajor = 0; ///< the device's compute capability; clusters need 9.0
    int ccMinor = 0;
    /// Largest cluster in blocks: 8 is portable; the device may allow more for a kernel that
    /// opts in (cuOccupancyMaxPotentialClusterSize).
    int maxClusterBlocks = kPortableClusterBlocks;
    bool maxIsPortable = true; ///< maxClusterBlocks is the portable limit, not the device's
    std::array<int, 3> kernelCluster{0, 0, 0}; ///< `.reqnctapercluster` (__cluster_dims__)
    bool kernelExplicitCluster = false;        ///< `.explicitcluster`: must use clusters
    QString kernelName;

    static constexpr int kPortableClusterBlocks = 8;
};

/// Empty when the launch's cluster (launch.cluster, else the kernel's __cluster_dims__) can be
/// launched, else one message naming the limit: "grid.x 10 is not a multiple of cluster.x 4".
/// Nothing to check without a cluster on either side.
[[nodiscard]] QString validateCluster(const LaunchConfig& config, const ClusterLimits& limits);

/// The cluster a launch uses: launch.cluster, else the kernel's __cluster_dims__, else zeros.
[[nodiscard]] std::array<int, 3> effectiveCluster(const LaunchConfig& config,
                                                  const std::array<int, 3>& kernelCluster);

/// What a cooperative launch is checked against: every block must be resident at once.
struct CooperativeLimits {
    bool deviceSupports = true; ///< CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH
    int blocksPerSm = 0;        ///< cuOccupancyMaxActiveBlocksPerMultiprocessor at this launch
    int smCount = 0;
    QString kernelName;
};

/// Empty unless `config.cooperative` asks for more than can be co-resident: "grid of 2000
/// blocks cannot be co-resident: at most 1056 (8 per SM × 132 SMs)".
[[nodiscard]] QString validateCooperative(const LaunchConfig& config,
                                          const CooperativeLimits& limits);

/// The grid.x that covers `elements` with `blockX` threads per block (ceil division).
[[nodiscard]] qint64 gridToCover(qint64 elements, int blockX);

} // namespace kernelpad
