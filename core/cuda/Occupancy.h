#pragma once
// Theoretical occupancy: how many blocks of a kernel fit on one SM at once, from the kernel's
// registers and shared memory and the device's per-SM limits, by the rules of CUDA's occupancy
// calculator (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor). Pure arithmetic: it
// needs no driver, so the window can estimate before a run and tests can check known answers.

#include "core/cuda/DeviceInfo.h"

#include <QString>

namespace kernelpad {

/// The per-SM limits of a device that decide occupancy; zero means unknown.
struct OccupancyLimits {
    int warpSize = 0;
    int maxThreadsPerBlock = 0;
    int maxWarpsPerSm = 0;
    int maxBlocksPerSm = 0;
    int registersPerSm = 0;
    int registersPerBlock = 0;
    /// Registers are given to a warp in multiples of this (256 from cc 3.0 on).
    int registerAllocationUnit = 0;
    /// The register file is split into this many parts, one per warp scheduler; a warp's
    /// registers come from one part (4 from cc 7.0 on).
    int registerSubPartitions = 0;
    int sharedPerSmBytes = 0;
    /// Shared memory is given to a block in multiples of this (128 B on cc 8.x and 9.x).
    int sharedAllocationUnitBytes = 0;
    /// Shared memory the driver keeps for itself in every block (1 KiB from cc 8.0 on).
    int reservedSharedPerBlockBytes = 0;

    /// The limits of `device`: the counts from the driver's attributes, the granularities and
    /// the block limit from its compute capability (the driver reports neither).
    [[nodiscard]] static OccupancyLimits forDevice(const DeviceInfo& device);
    /// True when every field the calculation divides by is known.
    [[nodiscard]] bool isComplete() const;
};

/// What stops more blocks from being resident on an SM.
enum class OccupancyLimiter {
    None,         ///< nothing computed (limits unknown)
    BlockSize,    ///< the block has no threads or more than a block may have
    Warps,        ///< the SM's thread (warp) slots are full
    Blocks,       ///< the SM's resident-block limit
    Registers,    ///< registers per thread times the block's warps
    SharedMemory, ///< the block's shared memory, reserve and rounding included
};

/// "warps per SM", "registers", ...: for tables and tooltips.
[[nodiscard]] QString occupancyLimiterName(OccupancyLimiter limiter);

/// Resident blocks and warps per SM of one kernel at one block size; a plain value.
struct Occupancy {
    int activeBlocksPerSm = 0;
    int activeWarpsPerSm = 0; ///< a partial warp counts whole, as the hardware allocates it
    double occupancy = 0;     ///< active warps over the SM's maximum, 0..1
    OccupancyLimiter limiter = OccupancyLimiter::None;
    /// Each factor's own limit (INT_MAX where the factor does not limit), to show the margin.
    int blocksByWarps = 0;
    int blocksByBlockLimit = 0;
    int blocksByRegisters = 0;
    int blocksBySharedMemory = 0;

    /// The occupancy of a kernel using `registersPerThread` and `sharedBytesPerBlock` (static
    /// plus dynamic) in blocks of `blockThreads` threads. When several factors give the same
    /// minimum, the limiter is the first of: warps, blocks, registers, shared memory, so a
    /// full SM reads "warps" rather than blaming a resource that merely fits exactly.
    [[nodiscard]] static Occupancy of(const OccupancyLimits& limits, int registersPerThread,
                                      int sharedBytesPerBlock, int blockThreads);
};

} // namespace kernelpad
