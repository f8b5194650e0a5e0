#include "core/cuda/Occupancy.h"

#include <algorithm>
#include <climits>

namespace kernelpad {

namespace {

/// From cc 3.0 on every architecture allocates registers to warps in units of 256
/// (cuda_occupancy.h, cudaOccRegAllocationGranularity).
constexpr int kRegisterAllocationUnit = 256;
/// Four warp schedulers, each with its quarter of the register file; cc 6.0 (GP100) has two
/// (cuda_occupancy.h, cudaOccSubPartitionsPerMultiprocessor).
constexpr int kRegisterSubPartitions = 4;
constexpr int kRegisterSubPartitionsSm60 = 2;
/// Shared memory allocation unit: 128 B from cc 8.0 on, 256 B before
/// (cuda_occupancy.h, cudaOccSMemAllocationGranularity).
constexpr int kSharedAllocationUnitSm80 = 128;
constexpr int kSharedAllocationUnitOlder = 256;
/// Shared memory the driver reserves per block from cc 8.0 on (CUDA C++ Programming Guide,
/// compute capability 8.x, "Shared Memory"; CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK).
constexpr int kReservedSharedPerBlockSm80 = 1024;

/// Maximum resident blocks per SM (CUDA C++ Programming Guide, "Technical Specifications per
/// Compute Capability"); the driver has no attribute for it before CUDA 11.
int residentBlockLimit(int major, int minor) {
    if (major == 7 && minor == 5)
        return 16;
    if (major == 8 && (minor == 6 || minor == 7))
        return 16;
    if (major == 8 && minor == 9)
        return 24;
    if (major == 12)
        return 24;
    return 32;
}

int divideRoundUp(int x, int y) {
    return (x + y - 1) / y;
}

int roundUp(int x, int y) {
    return divideRoundUp(x, y) * y;
}

} // namespace

OccupancyLimits OccupancyLimits::forDevice(const DeviceInfo& device) {
    OccupancyLimits l;
    l.warpSize = device.warpSize;
    l.maxThreadsPerBlock = device.maxThreadsPerBlock;
    l.maxWarpsPerSm = device.warpSize > 0 ? device.maxThreadsPerSm / device.warpSize : 0;
    l.maxBlocksPerSm = device.ccMajor > 0 ? residentBlockLimit(device.ccMajor, device.ccMinor) : 0;
    l.registersPerSm = device.registersPerSm;
    l.registersPerBlock = device.registersPerBlock;
    l.registerAllocationUnit = kRegisterAllocationUnit;
    l.registerSubPartitions = device.ccMajor == 6 && device.ccMinor == 0
                                  ? kRegisterSubPartitionsSm60
                                  : kRegisterSubPartitions;
    l.sharedPerSmBytes = device.sharedMemPerSmBytes;
    l.sharedAllocationUnitBytes =
        device.ccMajor >= 8 ? kSharedAllocationUnitSm80 : kSharedAllocationUnitOlder;
    l.reservedSharedPerBlockBytes = device.ccMajor >= 8 ? kReservedSharedPerBlockSm80 : 0;
    return l;
}

bool OccupancyLimits::isComplete() const {
    return warpSize > 0 && maxThreadsPerBlock > 0 && maxWarpsPerSm > 0 && maxBlocksPerSm > 0 &&
           registersPerSm > 0 && registersPerBlock > 0 && registerAllocationUnit > 0 &&
           registerSubPartitions > 0 && sharedPerSmBytes > 0 && sharedAllocationUnitBytes > 0;
}

QString occupancyLimiterName(OccupancyLimiter limiter) {
    switch (limiter) {
    case OccupancyLimiter::None:
        return QStringLiteral("unknown");
    case OccupancyLimiter::BlockSize:
        return QStringLiteral("block size");
    case OccupancyLimiter::Warps:
        return QStringLiteral("warps per SM");
    case OccupancyLimiter::Blocks:
        return QStringLiteral("blocks per SM");
    case OccupancyLimiter::Registers:
        return QStringLiteral("registers");
    case OccupancyLimiter::SharedMemory:
        return QStringLiteral("shared memory");
    }
    return QStringLiteral("unknown");
}

Occupancy Occupancy::of(const OccupancyLimits& limits, int registersPerThread,
                        int sharedBytesPerBlock, int blockThreads) {
    Occupancy o;
    if (!limits.isComplete())
        return o;
    if (blockThreads < 1 || blockThreads > limits.maxThreadsPerBlock) {
        o.limiter = OccupancyLimiter::BlockSize;
        return o;
    }
    const int warpsPerBlock = divideRoundUp(blockThreads, limits.warpSize);
    o.blocksByWarps = limits.maxWarpsPerSm / warpsPerBlock;
    o.blocksByBlockLimit = limits.maxBlocksPerSm;

    // Registers (cudaOccMaxBlocksPerSMRegsLimit): each warp gets its registers rounded up to
    // the allocation unit, from one sub-partition of the register file, so an SM holds
    // (registers per sub-partition / registers per warp) warps per sub-partition.
    o.blocksByRegisters = INT_MAX;
    if (registersPerThread > 0) {
        const int perWarp =
            roundUp(registersPerThread * limits.warpSize, limits.registerAllocationUnit);
        // The launch check assumes the block's warps spread over every sub-partition, so a
        // block is also refused when its warps, rounded up to a multiple of the
        // sub-partitions, need more than a block may have.
        const qint64 assumedPerBlock =
            qint64(perWarp) * roundUp(warpsPerBlock, limits.registerSubPartitions);
        if (assumedPerBlock > limits.registersPerBlock ||
            qint64(perWarp) * warpsPerBlock > limits.registersPerBlock) {
            o.blocksByRegisters = 0;
        } else {
            const int warpsPerSubPartition =
                (limits.registersPerSm / limits.registerSubPartitions) / perWarp;
            o.blocksByRegisters =
                warpsPerSubPartition * limits.registerSubPartitions / warpsPerBlock;
        }
    }

    // Shared memory (cudaOccMaxBlocksPerSMSmemLimit): the block's bytes plus the driver's
    // reserve, rounded up to the allocation unit; the SM's whole shared memory is assumed
    // available (the driver picks the carveout that fits when the kernel states no preference).
    const int sharedPerBlock =
        roundUp(std::max(0, sharedBytesPerBlock) + limits.reservedSharedPerBlockBytes,
                limits.sharedAllocationUnitBytes);
    o.blocksBySharedMemory =
        sharedPerBlock > 0 ? limits.sharedPerSmBytes / sharedPerBlock : INT_MAX;

    const std::pair<OccupancyLimiter, int> factors[] = {
        {OccupancyLimiter::Warps, o.blocksByWarps},
        {OccupancyLimiter::Blocks, o.blocksByBlockLimit},
        {OccupancyLimiter::Registers, o.blocksByRegisters},
        {OccupancyLimiter::SharedMemory, o.blocksBySharedMemory},
    };
    const auto* least =
        std::min_element(std::begin(factors), std::end(factors),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    o.limiter = least->first;
    o.activeBlocksPerSm = std::max(0, least->second);
    o.activeWarpsPerSm = o.activeBlocksPerSm * warpsPerBlock;
    o.occupancy = double(o.activeWarpsPerSm) / limits.maxWarpsPerSm;
    return o;
}

} // namespace kernelpad
