#pragma once
// Theoretical occupancy: how many blocks of a kernel fit on one SM at once, from the kernel's
// registers and shared memory and the device's per-SM limits, computed by the toolkit's own
// occupancy calculator (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor, header-only)
// for every architecture it knows, and by the same rules by hand for a newer one. Pure
// arithmetic: it needs no driver, so the window can estimate before a run and tests can check
// known answers.

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
    /// The most registers one thread may have (255); 0 where unknown (then not checked).
    int maxRegistersPerThread = 0;
    /// The most shared memory (static plus dynamic) one block may have once the kernel opts in
    /// (the executor opts in whenever a launch needs more than the default 48 KiB); 0 where
    /// unknown (then only the SM's shared memory limits a block).
    int maxSharedPerBlockBytes = 0;
    /// Block barriers one SM holds; they limit blocks from cc 9.0 on (cuda_occupancy.h,
    /// cudaOccMaxBlocksPerSMBlockBarrierLimit); 0 where barriers do not limit.
    int barriersPerSm = 0;
    /// "sm_90": the architecture the limits describe.
    QString arch;

    /// The limits of `device`: the counts from the driver's attributes, the granularities
    /// from its compute capability (the driver reports none), the block limit and the
    /// reserve from the attributes when the driver reports them, else from the tables.
    [[nodiscard]] static OccupancyLimits forDevice(const DeviceInfo& device);
    /// The limits of an architecture ("sm_86", "sm_90a", "compute_80") from the CUDA C++
    /// Programming Guide's tables, for estimates without a device; incomplete (see
    /// isComplete) for an architecture the tables do not know.
    [[nodiscard]] static OccupancyLimits forArch(const QString& arch);
    /// The device an architecture's table describes (the occupancy fields only), so that
    /// forDevice(tableDevice(a)) equals forArch(a); an empty name and ccMajor 0 when unknown.
    [[nodiscard]] static DeviceInfo tableDevice(const QString& arch);
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
    Barriers,     ///< the SM's block barriers (cc 9.0 on)
};

/// What occupancy needs to know about a kernel: what it uses per thread and per block.
struct OccupancyKernel {
    int registersPerThread = 0;
    int staticSharedBytes = 0;
    /// Block barriers the kernel uses (__syncthreads is barrier 0; named barriers add more);
    /// 0 where unknown, then barriers are not checked.
    int barriers = 0;
    /// The kernel's own block limit (__launch_bounds__, or fewer when its registers demand);
    /// 0 where unknown, then the device's limit applies.
    int maxThreadsPerBlock = 0;
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
    int blocksByBarriers = 0;
    int warpsPerBlock = 0;
    int registersPerWarp = 0;    ///< as allocated: rounded up to the allocation unit
    int sharedBytesPerBlock = 0; ///< as allocated: reserve and rounding included
    /// The block counts came from the toolkit's cuda_occupancy.h (the architecture is one it
    /// knows); false: KernelPad's own calculation of the same rules (a newer architecture).
    bool fromToolkitHeader = false;

    /// The occupancy of a kernel using `registersPerThread` and `sharedBytesPerBlock` (static
    /// plus dynamic) in blocks of `blockThreads` threads. When several factors give the same
    /// minimum, the limiter is the first of: warps, blocks, registers, shared memory, so a
    /// full SM reads "warps" rather than blaming a resource that merely fits exactly.
    [[nodiscard]] static Occupancy of(const OccupancyLimits& limits, int registersPerThread,
                                      int sharedBytesPerBlock, int blockThreads);
    /// The occupancy of `kernel` in blocks of `blockThreads` threads with
    /// `dynamicSharedBytes` of dynamic shared memory: also checks the kernel's own block limit,
    /// its barriers, and the per-block shared-memory and register limits. Barriers come last
    /// among equal factors, as cuda_occupancy.h checks them last.
    [[nodiscard]] static Occupancy of(const OccupancyLimits& limits, const OccupancyKernel& kernel,
                                      int blockThreads, int dynamicSharedBytes);
};

/// One sentence naming what limits `o` and why, in numbers ("Limited by registers: 64 per
/// thread, 2,048 per warp as allocated; ..."), for the window and the CLI.
[[nodiscard]] QString occupancyExplanation(const Occupancy& o, const OccupancyLimits& limits,
                                           const OccupancyKernel& kernel, int blockThreads,
                                           int dynamicSharedBytes);

} // namespace kernelpad
