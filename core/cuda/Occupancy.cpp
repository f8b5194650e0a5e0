#include "core/cuda/Occupancy.h"

#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <climits>
#include <cuda_occupancy.h>
#include <optional>
#include <utility>

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

/// cuda_occupancy.h, cudaOccRegAllocationMaxPerThread: 255 on every architecture since cc 3.5.
constexpr int kMaxRegistersPerThread = 255;
/// The same on every architecture in the table below (Programming Guide, "Technical
/// Specifications per Compute Capability").
constexpr int kWarpSize = 32;
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kRegistersPerSm = 64 * 1024;
constexpr int kRegistersPerBlock = 64 * 1024;
constexpr int kDefaultSharedPerBlockBytes = 48 * 1024;

/// Per-architecture limits that differ, from the same table.
struct ArchRow {
    int major, minor;
    int maxThreadsPerSm;
    int maxBlocksPerSm;
    int sharedPerSmKiB;
    int sharedPerBlockOptinKiB;
};
constexpr ArchRow kArchTable[] = {
    {7, 0, 2048, 32, 96, 96},    {7, 2, 2048, 32, 96, 96},   {7, 5, 1024, 16, 64, 64},
    {8, 0, 2048, 32, 164, 163},  {8, 6, 1536, 16, 100, 99},  {8, 7, 1536, 16, 164, 163},
    {8, 9, 1536, 24, 100, 99},   {9, 0, 2048, 32, 228, 227}, {10, 0, 2048, 32, 228, 227},
    {10, 3, 2048, 32, 228, 227}, {12, 0, 1536, 24, 100, 99}, {12, 1, 1536, 24, 100, 99},
};

/// Barriers an SM has per resident-block slot (cuda_occupancy.h,
/// cudaOccMaxBlocksPerSMBlockBarrierLimit); 0 before cc 9.0, where it does not check them.
int barriersPerBlockSlot(int major, int minor) {
    if (major < 9)
        return 0;
    if ((major == 10 && minor == 1) || (major == 11 && minor == 0) || major == 12)
        return 1;
    return 2;
}

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

/// "sm_90a" -> (9, 0); nothing for a name that is not an architecture.
std::optional<std::pair<int, int>> computeCapability(const QString& arch) {
    static const QRegularExpression pattern(
        QStringLiteral("^(?:sm|compute|lto)_(\\d+)(\\d)[af]?$"));
    const QRegularExpressionMatch m = pattern.match(arch.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    return std::make_pair(m.captured(1).toInt(), m.captured(2).toInt());
}

int divideRoundUp(int x, int y) {
    return (x + y - 1) / y;
}

qint64 divideRoundUp64(qint64 x, qint64 y) {
    return (x + y - 1) / y;
}

int roundUp(int x, int y) {
    return divideRoundUp(x, y) * y;
}

} // namespace

namespace {

/// The allocation units and per-SM counts cuda_occupancy.h states for the device's compute
/// capability, over the constants above where it knows the architecture.
void applyToolkitTables(const DeviceInfo& device, OccupancyLimits* l) {
    cudaOccDeviceProp cc;
    cc.computeMajor = device.ccMajor;
    cc.computeMinor = device.ccMinor;
    int value = 0;
    if (cudaOccRegAllocationGranularity(&value, &cc) == CUDA_OCC_SUCCESS && value > 0)
        l->registerAllocationUnit = value;
    if (cudaOccSubPartitionsPerMultiprocessor(&value, &cc) == CUDA_OCC_SUCCESS && value > 0)
        l->registerSubPartitions = value;
    if (cudaOccSMemAllocationGranularity(&value, &cc) == CUDA_OCC_SUCCESS && value > 0)
        l->sharedAllocationUnitBytes = value;
    // Not cudaOccRegAllocationMaxPerThread: its 256 is the allocation's ceiling; a thread may
    // use 255 (kMaxRegistersPerThread).
    if (device.maxBlocksPerSm <= 0 &&
        cudaOccMaxBlocksPerMultiprocessor(&value, &cc) == CUDA_OCC_SUCCESS)
        l->maxBlocksPerSm = value;
}

} // namespace

OccupancyLimits OccupancyLimits::forDevice(const DeviceInfo& device) {
    OccupancyLimits l;
    l.arch = device.ccMajor > 0 ? device.arch() : QString();
    l.warpSize = device.warpSize;
    l.maxThreadsPerBlock = device.maxThreadsPerBlock;
    l.maxWarpsPerSm = device.warpSize > 0 ? device.maxThreadsPerSm / device.warpSize : 0;
    l.maxBlocksPerSm = device.maxBlocksPerSm > 0 ? device.maxBlocksPerSm
                       : device.ccMajor > 0 ? residentBlockLimit(device.ccMajor, device.ccMinor)
                                            : 0;
    l.registersPerSm = device.registersPerSm;
    l.registersPerBlock = device.registersPerBlock;
    l.registerAllocationUnit = kRegisterAllocationUnit;
    l.registerSubPartitions = device.ccMajor == 6 && device.ccMinor == 0
                                  ? kRegisterSubPartitionsSm60
                                  : kRegisterSubPartitions;
    l.sharedPerSmBytes = device.sharedMemPerSmBytes;
    l.sharedAllocationUnitBytes =
        device.ccMajor >= 8 ? kSharedAllocationUnitSm80 : kSharedAllocationUnitOlder;
    l.reservedSharedPerBlockBytes = device.reservedSharedPerBlockBytes >= 0
                                        ? device.reservedSharedPerBlockBytes
                                    : device.ccMajor >= 8 ? kReservedSharedPerBlockSm80
                                                          : 0;
    l.maxRegistersPerThread = device.ccMajor > 0 ? kMaxRegistersPerThread : 0;
    l.maxSharedPerBlockBytes = device.sharedMemPerBlockOptinBytes > 0
                                   ? device.sharedMemPerBlockOptinBytes
                                   : device.sharedMemPerBlockBytes;
    if (device.ccMajor > 0)
        applyToolkitTables(device, &l);
    l.barriersPerSm = l.maxBlocksPerSm * barriersPerBlockSlot(device.ccMajor, device.ccMinor);
    return l;
}

DeviceInfo OccupancyLimits::tableDevice(const QString& arch) {
    DeviceInfo d;
    const std::optional<std::pair<int, int>> cc = computeCapability(arch);
    if (!cc)
        return d;
    // Plain ints, not a structured binding: C++17 lambdas cannot capture those (clang refuses).
    const int major = cc->first;
    const int minor = cc->second;
    const auto* row =
        std::find_if(std::begin(kArchTable), std::end(kArchTable),
                     [&](const ArchRow& r) { return r.major == major && r.minor == minor; });
    if (row == std::end(kArchTable))
        return d;
    d.name = QStringLiteral("sm_%1%2").arg(major).arg(minor);
    d.ccMajor = major;
    d.ccMinor = minor;
    d.warpSize = kWarpSize;
    d.maxThreadsPerBlock = kMaxThreadsPerBlock;
    d.maxThreadsPerSm = row->maxThreadsPerSm;
    d.maxBlocksPerSm = row->maxBlocksPerSm;
    d.registersPerSm = kRegistersPerSm;
    d.registersPerBlock = kRegistersPerBlock;
    d.sharedMemPerBlockBytes = kDefaultSharedPerBlockBytes;
    d.sharedMemPerSmBytes = row->sharedPerSmKiB * 1024;
    d.sharedMemPerBlockOptinBytes = row->sharedPerBlockOptinKiB * 1024;
    d.reservedSharedPerBlockBytes = major >= 8 ? kReservedSharedPerBlockSm80 : 0;
    return d;
}

OccupancyLimits OccupancyLimits::forArch(const QString& arch) {
    const DeviceInfo d = tableDevice(arch);
    return d.ccMajor > 0 ? forDevice(d) : OccupancyLimits{};
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
    case OccupancyLimiter::Barriers:
        return QStringLiteral("barriers");
    }
    return QStringLiteral("unknown");
}

Occupancy Occupancy::of(const OccupancyLimits& limits, int registersPerThread,
                        int sharedBytesPerBlock, int blockThreads) {
    OccupancyKernel kernel;
    kernel.registersPerThread = registersPerThread;
    kernel.staticSharedBytes = sharedBytesPerBlock;
    return of(limits, kernel, blockThreads, 0);
}

namespace {

/// The calculation by hand, for an architecture cuda_occupancy.h does not know (a newer GPU
/// than the toolkit): the same rules, with the limits the driver reported.
Occupancy handOccupancy(const OccupancyLimits& limits, const OccupancyKernel& kernel,
                        int blockThreads, int dynamicSharedBytes) {
    Occupancy o;
    const int blockLimit = kernel.maxThreadsPerBlock > 0
                               ? std::min(kernel.maxThreadsPerBlock, limits.maxThreadsPerBlock)
                               : limits.maxThreadsPerBlock;
    if (blockThreads < 1 || blockThreads > blockLimit) {
        o.limiter = OccupancyLimiter::BlockSize;
        return o;
    }
    const int warpsPerBlock = divideRoundUp(blockThreads, limits.warpSize);
    o.warpsPerBlock = warpsPerBlock;
    o.blocksByWarps = limits.maxWarpsPerSm / warpsPerBlock;
    o.blocksByBlockLimit = limits.maxBlocksPerSm;

    // Registers (cudaOccMaxBlocksPerSMRegsLimit): each warp gets its registers rounded up to
    // the allocation unit, from one sub-partition of the register file, so an SM holds
    // (registers per sub-partition / registers per warp) warps per sub-partition.
    const int registersPerThread = kernel.registersPerThread;
    o.blocksByRegisters = INT_MAX;
    if (registersPerThread > 0) {
        const int perWarp =
            roundUp(registersPerThread * limits.warpSize, limits.registerAllocationUnit);
        o.registersPerWarp = perWarp;
        // The launch check assumes the block's warps spread over every sub-partition, so a
        // block is also refused when its warps, rounded up to a multiple of the
        // sub-partitions, need more than a block may have.
        const qint64 assumedPerBlock =
            qint64(perWarp) * roundUp(warpsPerBlock, limits.registerSubPartitions);
        const bool tooManyPerThread =
            limits.maxRegistersPerThread > 0 && registersPerThread > limits.maxRegistersPerThread;
        if (tooManyPerThread || assumedPerBlock > limits.registersPerBlock ||
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
    // A block over the per-block limit (opt-in included, reserve added) does not launch.
    const qint64 sharedWanted = qint64(std::max(0, kernel.staticSharedBytes)) +
                                std::max(0, dynamicSharedBytes) +
                                limits.reservedSharedPerBlockBytes;
    const qint64 sharedPerBlock = divideRoundUp64(sharedWanted, limits.sharedAllocationUnitBytes) *
                                  limits.sharedAllocationUnitBytes;
    o.sharedBytesPerBlock = int(std::min<qint64>(sharedPerBlock, INT_MAX));
    if (limits.maxSharedPerBlockBytes > 0 &&
        sharedPerBlock > qint64(limits.maxSharedPerBlockBytes) + limits.reservedSharedPerBlockBytes)
        o.blocksBySharedMemory = 0;
    else
        o.blocksBySharedMemory =
            sharedPerBlock > 0 ? int(limits.sharedPerSmBytes / sharedPerBlock) : INT_MAX;

    o.blocksByBarriers = limits.barriersPerSm > 0 && kernel.barriers > 0
                             ? limits.barriersPerSm / kernel.barriers
                             : INT_MAX;

    const std::pair<OccupancyLimiter, int> factors[] = {
        {OccupancyLimiter::Warps, o.blocksByWarps},
        {OccupancyLimiter::Blocks, o.blocksByBlockLimit},
        {OccupancyLimiter::Registers, o.blocksByRegisters},
        {OccupancyLimiter::SharedMemory, o.blocksBySharedMemory},
        {OccupancyLimiter::Barriers, o.blocksByBarriers},
    };
    // min_element keeps the first of equal factors, which gives the documented order.
    const auto* least =
        std::min_element(std::begin(factors), std::end(factors),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    o.limiter = least->first;
    o.activeBlocksPerSm = std::max(0, least->second);
    o.activeWarpsPerSm = o.activeBlocksPerSm * warpsPerBlock;
    o.occupancy = double(o.activeWarpsPerSm) / limits.maxWarpsPerSm;
    return o;
}

/// The first factor, in the order the window names them (warps, blocks, registers, shared
/// memory, barriers), whose own limit is the answer. cuda_occupancy.h's limitingFactors bits
/// cannot say it alone: the barrier check comes after the others and adds its bit without
/// clearing theirs.
OccupancyLimiter limiterOf(const Occupancy& o) {
    const std::pair<int, OccupancyLimiter> order[] = {
        {o.blocksByWarps, OccupancyLimiter::Warps},
        {o.blocksByBlockLimit, OccupancyLimiter::Blocks},
        {o.blocksByRegisters, OccupancyLimiter::Registers},
        {o.blocksBySharedMemory, OccupancyLimiter::SharedMemory},
        {o.blocksByBarriers, OccupancyLimiter::Barriers}};
    for (const auto& [blocks, limiter] : order)
        if (blocks == o.activeBlocksPerSm)
            return limiter;
    return OccupancyLimiter::None;
}

} // namespace

Occupancy Occupancy::of(const OccupancyLimits& limits, const OccupancyKernel& kernel,
                        int blockThreads, int dynamicSharedBytes) {
    Occupancy o;
    if (!limits.isComplete())
        return o;
    const int blockLimit = kernel.maxThreadsPerBlock > 0
                               ? std::min(kernel.maxThreadsPerBlock, limits.maxThreadsPerBlock)
                               : limits.maxThreadsPerBlock;
    if (blockThreads < 1 || blockThreads > blockLimit) {
        o.limiter = OccupancyLimiter::BlockSize;
        return o;
    }
    // The hand calculation gives the allocation figures the explanation quotes and is the
    // answer where the toolkit's header does not know the architecture.
    o = handOccupancy(limits, kernel, blockThreads, dynamicSharedBytes);
    const std::optional<std::pair<int, int>> cc = computeCapability(limits.arch);
    if (!cc || o.blocksByRegisters == 0 || o.blocksBySharedMemory == 0)
        return o; // a block that cannot launch at all: the hand check says which resource
    cudaOccDeviceProp device;
    device.computeMajor = cc->first;
    device.computeMinor = cc->second;
    device.maxThreadsPerBlock = limits.maxThreadsPerBlock;
    device.maxThreadsPerMultiprocessor = limits.maxWarpsPerSm * limits.warpSize;
    device.regsPerBlock = limits.registersPerBlock;
    device.regsPerMultiprocessor = limits.registersPerSm;
    device.warpSize = limits.warpSize;
    device.sharedMemPerBlock = size_t(std::min(
        limits.maxSharedPerBlockBytes > 0 ? limits.maxSharedPerBlockBytes : limits.sharedPerSmBytes,
        kDefaultSharedPerBlockBytes));
    device.sharedMemPerMultiprocessor = size_t(limits.sharedPerSmBytes);
    device.numSms = 1;
    device.sharedMemPerBlockOptin =
        size_t(limits.maxSharedPerBlockBytes > 0 ? limits.maxSharedPerBlockBytes
                                                 : limits.sharedPerSmBytes);
    device.reservedSharedMemPerBlock = size_t(limits.reservedSharedPerBlockBytes);
    cudaOccFuncAttributes function;
    function.maxThreadsPerBlock = blockLimit;
    function.numRegs = std::max(0, kernel.registersPerThread);
    function.sharedSizeBytes = size_t(std::max(0, kernel.staticSharedBytes));
    // The executor opts every kernel in to the per-block maximum it needs.
    function.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    function.maxDynamicSharedSizeBytes = device.sharedMemPerBlockOptin;
    function.numBlockBarriers = std::max(0, kernel.barriers);
    const cudaOccDeviceState state;
    cudaOccResult result{};
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &device, &function, &state, blockThreads,
                                                size_t(std::max(0, dynamicSharedBytes))) !=
        CUDA_OCC_SUCCESS)
        return o; // an architecture the header does not know: the hand calculation stands
    o.blocksByWarps = result.blockLimitWarps;
    o.blocksByBlockLimit = result.blockLimitBlocks;
    o.blocksByRegisters = result.blockLimitRegs;
    o.blocksBySharedMemory = result.blockLimitSharedMem;
    o.blocksByBarriers = result.blockLimitBarriers;
    o.activeBlocksPerSm = std::max(0, result.activeBlocksPerMultiprocessor);
    o.limiter = limiterOf(o);
    o.activeWarpsPerSm = o.activeBlocksPerSm * o.warpsPerBlock;
    o.occupancy = double(o.activeWarpsPerSm) / limits.maxWarpsPerSm;
    o.fromToolkitHeader = true;
    return o;
}

QString occupancyExplanation(const Occupancy& o, const OccupancyLimits& limits,
                             const OccupancyKernel& kernel, int blockThreads,
                             int dynamicSharedBytes) {
    const QLocale c = QLocale(QLocale::English);
    auto n = [&](qint64 v) { return c.toString(v); };
    const QString result =
        QStringLiteral(" %1 %2 of %3 threads, %4 of %5 warps: %6 %.")
            .arg(o.activeBlocksPerSm)
            .arg(o.activeBlocksPerSm == 1 ? QStringLiteral("block") : QStringLiteral("blocks"))
            .arg(blockThreads)
            .arg(o.activeWarpsPerSm)
            .arg(limits.maxWarpsPerSm)
            .arg(QString::number(o.occupancy * 100.0, 'f', 1));
    switch (o.limiter) {
    case OccupancyLimiter::None:
        return QStringLiteral("Occupancy unknown: the device's limits are not known.");
    case OccupancyLimiter::BlockSize: {
        const int limit = kernel.maxThreadsPerBlock > 0
                              ? std::min(kernel.maxThreadsPerBlock, limits.maxThreadsPerBlock)
                              : limits.maxThreadsPerBlock;
        if (blockThreads < 1)
            return QStringLiteral("No occupancy: the block has no threads.");
        return QStringLiteral("No block fits: %1 threads exceed the %2 limit of %3 per block.")
            .arg(n(blockThreads),
                 limit < limits.maxThreadsPerBlock ? QStringLiteral("kernel's")
                                                   : QStringLiteral("device's"),
                 n(limit));
    }
    case OccupancyLimiter::Warps:
        return QStringLiteral("Limited by warps: blocks of %1 warps fill the SM's %2 warp slots.")
                   .arg(o.warpsPerBlock)
                   .arg(limits.maxWarpsPerSm) +
               result;
    case OccupancyLimiter::Blocks:
        return QStringLiteral("Limited by blocks per SM: an SM holds at most %1 blocks, so "
                              "larger blocks would fill more of its %2 warp slots.")
                   .arg(limits.maxBlocksPerSm)
                   .arg(limits.maxWarpsPerSm) +
               result;
    case OccupancyLimiter::Registers:
        if (limits.maxRegistersPerThread > 0 &&
            kernel.registersPerThread > limits.maxRegistersPerThread)
            return QStringLiteral("No block fits: %1 registers per thread exceed the %2 a "
                                  "thread may have.")
                .arg(kernel.registersPerThread)
                .arg(limits.maxRegistersPerThread);
        if (o.activeBlocksPerSm == 0)
            return QStringLiteral("No block fits: %1 registers per thread (%2 per warp as "
                                  "allocated) for %3 warps exceed the %4 registers a block "
                                  "may have.")
                .arg(kernel.registersPerThread)
                .arg(n(o.registersPerWarp))
                .arg(o.warpsPerBlock)
                .arg(n(limits.registersPerBlock));
        return QStringLiteral("Limited by registers: %1 per thread, %2 per warp as allocated (in "
                              "units of %3); the SM's %4 registers hold %5 warps.")
                   .arg(kernel.registersPerThread)
                   .arg(n(o.registersPerWarp))
                   .arg(limits.registerAllocationUnit)
                   .arg(n(limits.registersPerSm))
                   .arg(o.blocksByRegisters * o.warpsPerBlock) +
               result;
    case OccupancyLimiter::SharedMemory: {
        const QString perBlock =
            QStringLiteral("%1 B per block (%2 static + %3 dynamic + %4 reserved, in units of "
                           "%5 B)")
                .arg(n(o.sharedBytesPerBlock), n(kernel.staticSharedBytes),
                     n(std::max(0, dynamicSharedBytes)), n(limits.reservedSharedPerBlockBytes))
                .arg(limits.sharedAllocationUnitBytes);
        if (o.activeBlocksPerSm == 0)
            return QStringLiteral("No block fits: %1 exceed the %2 B a block may have.")
                .arg(perBlock,
                     n(qint64(limits.maxSharedPerBlockBytes > 0 ? limits.maxSharedPerBlockBytes
                                                                : limits.sharedPerSmBytes) +
                       limits.reservedSharedPerBlockBytes));
        return QStringLiteral("Limited by shared memory: %1; the SM's %2 B hold %3 blocks.")
                   .arg(perBlock, n(limits.sharedPerSmBytes))
                   .arg(o.blocksBySharedMemory) +
               result;
    }
    case OccupancyLimiter::Barriers:
        return QStringLiteral("Limited by barriers: the kernel uses %1 block barriers and an "
                              "SM has %2.")
                   .arg(kernel.barriers)
                   .arg(limits.barriersPerSm) +
               result;
    }
    return {};
}

} // namespace kernelpad
