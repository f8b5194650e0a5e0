#include "core/launch/LaunchValidation.h"

namespace kernelpad {

namespace {

// The limits of every device since compute capability 5.0 (CUDA C++ Programming Guide,
// "Features and Technical Specifications", table of technical specifications).
constexpr int kMaxThreadsPerBlock = 1024;
constexpr std::array<int, 3> kMaxBlockDim{1024, 1024, 64};
constexpr std::array<int, 3> kMaxGridDim{2147483647, 65535, 65535};
constexpr int kDefaultSharedPerBlockBytes = 48 * 1024;

const char* const kAxis[3] = {"x", "y", "z"};

QString kib(qint64 bytes) {
    return bytes % 1024 == 0 ? QStringLiteral("%1 KiB").arg(bytes / 1024)
                             : QStringLiteral("%1 bytes").arg(bytes);
}

} // namespace

LaunchLimits LaunchLimits::forDevice(const DeviceInfo& device) {
    LaunchLimits limits;
    limits.maxThreadsPerBlock = device.maxThreadsPerBlock;
    limits.maxBlockDim = device.maxBlockDim;
    limits.maxGridDim = device.maxGridDim;
    limits.maxSharedPerBlockBytes = device.sharedMemPerBlockBytes;
    limits.maxSharedPerBlockOptinBytes = device.sharedMemPerBlockOptinBytes;
    return limits;
}

LaunchLimits genericLaunchLimits() {
    LaunchLimits limits;
    limits.maxThreadsPerBlock = kMaxThreadsPerBlock;
    limits.maxBlockDim = kMaxBlockDim;
    limits.maxGridDim = kMaxGridDim;
    limits.maxSharedPerBlockBytes = kDefaultSharedPerBlockBytes;
    // The opt-in maximum differs per architecture (99 KiB to 227 KiB); unknown here.
    limits.maxSharedPerBlockOptinBytes = 0;
    return limits;
}

QString validateLaunch(const LaunchConfig& config, const LaunchLimits& limits) {
    for (int i = 0; i < 3; ++i) {
        if (config.block[size_t(i)] < 1)
            return QStringLiteral("block.%1 must be >= 1 (got %2)")
                .arg(QLatin1String(kAxis[i]))
                .arg(config.block[size_t(i)]);
        if (config.grid[size_t(i)] < 1)
            return QStringLiteral("grid.%1 must be >= 1 (got %2)")
                .arg(QLatin1String(kAxis[i]))
                .arg(config.grid[size_t(i)]);
    }
    if (config.sharedMemBytes < 0)
        return QStringLiteral("sharedMemBytes must be >= 0 (got %1)").arg(config.sharedMemBytes);

    for (int i = 0; i < 3; ++i) {
        const int limit = limits.maxBlockDim[size_t(i)];
        if (limit > 0 && config.block[size_t(i)] > limit)
            return QStringLiteral("block.%1 = %2 exceeds the device's limit of %3")
                .arg(QLatin1String(kAxis[i]))
                .arg(config.block[size_t(i)])
                .arg(limit);
    }
    const qint64 threads = config.threadsPerBlock();
    const QString blockText = QStringLiteral("block: %1 threads per block (%2 x %3 x %4)")
                                  .arg(threads)
                                  .arg(config.block[0])
                                  .arg(config.block[1])
                                  .arg(config.block[2]);
    if (limits.maxThreadsPerBlock > 0 && threads > limits.maxThreadsPerBlock)
        return QStringLiteral("%1 exceed the device's limit of %2")
            .arg(blockText)
            .arg(limits.maxThreadsPerBlock);
    // The kernel's own bounds: a launch beyond them fails with "too many resources
    // requested" (PTX ISA, "Performance-Tuning Directives: .maxntid, .reqntid").
    const std::array<int, 3>& maxntid = limits.kernelMaxntid;
    const qint64 maxntidThreads = qint64(maxntid[0]) * maxntid[1] * maxntid[2];
    if (maxntidThreads > 0 && threads > maxntidThreads)
        return QStringLiteral("%1, but the kernel '%2' declares at most %3 (.maxntid, from "
                              "__launch_bounds__)")
            .arg(blockText, limits.kernelName)
            .arg(maxntidThreads);
    const std::array<int, 3>& reqntid = limits.kernelReqntid;
    if (reqntid[0] > 0 && config.block != reqntid)
        return QStringLiteral("%1, but the kernel '%2' requires a block of exactly %3 x %4 x %5 "
                              "(.reqntid)")
            .arg(blockText, limits.kernelName)
            .arg(reqntid[0])
            .arg(reqntid[1])
            .arg(reqntid[2]);
    if (limits.kernelMaxThreadsPerBlock > 0 && threads > limits.kernelMaxThreadsPerBlock)
        return QStringLiteral("%1, but the kernel '%2' allows at most %3 threads per block (its "
                              "register use)")
            .arg(blockText, limits.kernelName)
            .arg(limits.kernelMaxThreadsPerBlock);

    for (int i = 0; i < 3; ++i) {
        const int limit = limits.maxGridDim[size_t(i)];
        if (limit > 0 && config.grid[size_t(i)] > limit)
            return QStringLiteral("grid.%1 = %2 exceeds the device's limit of %3")
                .arg(QLatin1String(kAxis[i]))
                .arg(config.grid[size_t(i)])
                .arg(limit);
    }

    const qint64 shared = qint64(config.sharedMemBytes) + limits.kernelStaticSharedBytes;
    const QString sharedText =
        QStringLiteral("shared memory: %1 bytes per block (%2 dynamic + %3 static)")
            .arg(shared)
            .arg(config.sharedMemBytes)
            .arg(limits.kernelStaticSharedBytes);
    const int defaultLimit = limits.maxSharedPerBlockBytes;
    const int optinLimit = limits.maxSharedPerBlockOptinBytes;
    if (optinLimit > 0 && shared > optinLimit)
        return QStringLiteral("%1 exceed the device's limit of %2 per block, even with opt-in")
            .arg(sharedText, kib(optinLimit));
    // Above the default, a launch needs the kernel's opt-in attribute
    // (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), which the executor sets when the
    // device's opt-in limit allows it; without a known opt-in limit it cannot be promised.
    if (optinLimit <= 0 && defaultLimit > 0 && shared > defaultLimit)
        return QStringLiteral("%1 exceed the default limit of %2 per block; more needs the "
                              "opt-in limit of a device that has one (e.g. 227 KiB on sm_90)")
            .arg(sharedText, kib(defaultLimit));
    return {};
}

std::array<int, 3> effectiveCluster(const LaunchConfig& config,
                                    const std::array<int, 3>& kernelCluster) {
    if (config.hasCluster())
        return config.cluster;
    if (kernelCluster[0] > 0)
        return kernelCluster;
    return {0, 0, 0};
}

QString validateCluster(const LaunchConfig& config, const ClusterLimits& limits) {
    const std::array<int, 3>& declared = limits.kernelCluster;
    const bool kernelDeclares = declared[0] > 0;
    const QString kernel = QStringLiteral("the kernel '%1'").arg(limits.kernelName);
    if (!config.hasCluster() && !kernelDeclares) {
        if (limits.kernelExplicitCluster)
            return QStringLiteral("%1 must be launched in clusters (.explicitcluster); set "
                                  "launch.cluster")
                .arg(kernel);
        return {};
    }
    const std::array<int, 3> cluster = effectiveCluster(config, declared);
    const QString clusterText =
        QStringLiteral("%1 x %2 x %3").arg(cluster[0]).arg(cluster[1]).arg(cluster[2]);
    if (limits.ccMajor > 0 && limits.ccMajor < 9)
        return QStringLiteral("cluster %1: thread block clusters need compute capability 9.0 "
                              "or newer; the device is %2.%3")
            .arg(clusterText)
            .arg(limits.ccMajor)
            .arg(limits.ccMinor);
    if (config.hasCluster() && kernelDeclares && config.cluster != declared)
        return QStringLiteral("launch.cluster %1 differs from %2's __cluster_dims__(%3, %4, %5) "
                              "(.reqnctapercluster); leave launch.cluster out or make it equal")
            .arg(clusterText, kernel)
            .arg(declared[0])
            .arg(declared[1])
            .arg(declared[2]);
    for (int i = 0; i < 3; ++i) {
        if (cluster[size_t(i)] < 1)
            return QStringLiteral("cluster.%1 must be >= 1 (got %2)")
                .arg(QLatin1String(kAxis[i]))
                .arg(cluster[size_t(i)]);
        if (config.grid[size_t(i)] % cluster[size_t(i)] != 0)
            return QStringLiteral("grid.%1 %2 is not a multiple of cluster.%1 %3")
                .arg(QLatin1String(kAxis[i]))
                .arg(config.grid[size_t(i)])
                .arg(cluster[size_t(i)]);
    }
    const qint64 blocks = qint64(cluster[0]) * cluster[1] * cluster[2];
    if (limits.maxClusterBlocks > 0 && blocks > limits.maxClusterBlocks)
        return QStringLiteral("cluster %1 has %2 blocks, more than %3 of %4")
            .arg(clusterText)
            .arg(blocks)
            .arg(limits.maxIsPortable ? QStringLiteral("the portable maximum")
                                      : QStringLiteral("the device's maximum for %1").arg(kernel))
            .arg(limits.maxClusterBlocks);
    return {};
}

QString validateCooperative(const LaunchConfig& config, const CooperativeLimits& limits) {
    if (!config.cooperative)
        return {};
    if (!limits.deviceSupports)
        return QStringLiteral("cooperative: the device does not support cooperative launches");
    if (limits.smCount <= 0)
        return {}; // unknown: not checked
    const qint64 blocks = config.totalBlocks();
    const qint64 resident = qint64(limits.blocksPerSm) * limits.smCount;
    if (blocks <= resident)
        return {};
    QString message = QStringLiteral("grid of %1 blocks cannot be co-resident: at most %2 (%3 per "
                                     "SM × %4 SMs)")
                          .arg(blocks)
                          .arg(resident)
                          .arg(limits.blocksPerSm)
                          .arg(limits.smCount);
    if (limits.blocksPerSm == 0)
        message += QStringLiteral("; a block of %1 threads with %2 bytes of dynamic shared memory "
                                  "does not fit on an SM")
                       .arg(config.threadsPerBlock())
                       .arg(config.sharedMemBytes);
    return message + QStringLiteral(", and a cooperative launch needs every block resident");
}

qint64 gridToCover(qint64 elements, int blockX) {
    if (elements <= 0 || blockX <= 0)
        return 0;
    // Written without elements + blockX - 1, which could overflow near the qint64 limit.
    return elements / blockX + (elements % blockX != 0 ? 1 : 0);
}

} // namespace kernelpad
