#include "core/cuda/OccupancyCurves.h"

#include <QJsonArray>

#include <algorithm>

namespace kernelpad {

namespace {

QJsonObject pointJson(const OccupancyPoint& p) {
    return QJsonObject{{QStringLiteral("x"), p.x},
                       {QStringLiteral("blocksPerSm"), p.occupancy.activeBlocksPerSm},
                       {QStringLiteral("warpsPerSm"), p.occupancy.activeWarpsPerSm},
                       {QStringLiteral("occupancy"), p.occupancy.occupancy},
                       {QStringLiteral("limiter"), occupancyLimiterName(p.occupancy.limiter)}};
}

QJsonArray curveJson(const QVector<OccupancyPoint>& curve) {
    QJsonArray a;
    for (const OccupancyPoint& p : curve)
        a.append(pointJson(p));
    return a;
}

} // namespace

QString occupancyAxisName(OccupancyAxis axis) {
    switch (axis) {
    case OccupancyAxis::BlockSize:
        return QStringLiteral("block size (threads)");
    case OccupancyAxis::Registers:
        return QStringLiteral("registers per thread");
    case OccupancyAxis::DynamicShared:
        return QStringLiteral("dynamic shared memory (bytes)");
    }
    return {};
}

OccupancyCurves OccupancyCurves::compute(const OccupancyLimits& limits,
                                         const OccupancyKernel& kernel, int blockThreads,
                                         int dynamicSharedBytes) {
    OccupancyCurves c;
    c.limits = limits;
    c.kernel = kernel;
    c.blockThreads = blockThreads;
    c.dynamicSharedBytes = dynamicSharedBytes;
    c.current = Occupancy::of(limits, kernel, blockThreads, dynamicSharedBytes);
    if (!limits.isComplete())
        return c;

    for (int threads = limits.warpSize; threads <= limits.maxThreadsPerBlock;
         threads += limits.warpSize)
        c.byBlockSize.push_back(
            {threads, Occupancy::of(limits, kernel, threads, dynamicSharedBytes)});

    // Where the maximum is unknown, 255 is the most any architecture since cc 3.5 allows.
    constexpr int kRegisterAxisMax = 255;
    const int maxRegisters =
        limits.maxRegistersPerThread > 0 ? limits.maxRegistersPerThread : kRegisterAxisMax;
    OccupancyKernel varied = kernel;
    for (int registers = 1; registers <= maxRegisters; ++registers) {
        varied.registersPerThread = registers;
        c.byRegisters.push_back(
            {registers, Occupancy::of(limits, varied, blockThreads, dynamicSharedBytes)});
    }

    // Up to the per-block limit beside the static part; without one, up to what the SM holds
    // beside the static part and the reserve.
    const int dynamicMax =
        limits.maxSharedPerBlockBytes > 0
            ? limits.maxSharedPerBlockBytes - std::max(0, kernel.staticSharedBytes)
            : limits.sharedPerSmBytes - limits.reservedSharedPerBlockBytes -
                  std::max(0, kernel.staticSharedBytes);
    for (int bytes = 0; bytes <= dynamicMax; bytes += limits.sharedAllocationUnitBytes)
        c.byDynamicShared.push_back({bytes, Occupancy::of(limits, kernel, blockThreads, bytes)});
    return c;
}

const QVector<OccupancyPoint>& OccupancyCurves::curve(OccupancyAxis axis) const {
    switch (axis) {
    case OccupancyAxis::Registers:
        return byRegisters;
    case OccupancyAxis::DynamicShared:
        return byDynamicShared;
    case OccupancyAxis::BlockSize:
        break;
    }
    return byBlockSize;
}

int OccupancyCurves::currentX(OccupancyAxis axis) const {
    switch (axis) {
    case OccupancyAxis::Registers:
        return kernel.registersPerThread;
    case OccupancyAxis::DynamicShared:
        return dynamicSharedBytes;
    case OccupancyAxis::BlockSize:
        break;
    }
    return blockThreads;
}

QJsonObject OccupancyCurves::toJson(bool allPoints) const {
    auto points = [&](const QVector<OccupancyPoint>& curve) {
        return curveJson(allPoints ? curve : occupancySteps(curve));
    };
    return QJsonObject{
        {QStringLiteral("arch"), limits.arch},
        {QStringLiteral("limits"),
         QJsonObject{
             {QStringLiteral("maxWarpsPerSm"), limits.maxWarpsPerSm},
             {QStringLiteral("maxBlocksPerSm"), limits.maxBlocksPerSm},
             {QStringLiteral("registersPerSm"), limits.registersPerSm},
             {QStringLiteral("registerAllocationUnit"), limits.registerAllocationUnit},
             {QStringLiteral("sharedPerSmBytes"), limits.sharedPerSmBytes},
             {QStringLiteral("maxSharedPerBlockBytes"), limits.maxSharedPerBlockBytes},
             {QStringLiteral("sharedAllocationUnitBytes"), limits.sharedAllocationUnitBytes},
             {QStringLiteral("reservedSharedPerBlockBytes"), limits.reservedSharedPerBlockBytes},
             {QStringLiteral("barriersPerSm"), limits.barriersPerSm}}},
        {QStringLiteral("kernel"),
         QJsonObject{{QStringLiteral("registersPerThread"), kernel.registersPerThread},
                     {QStringLiteral("staticSharedBytes"), kernel.staticSharedBytes},
                     {QStringLiteral("barriers"), kernel.barriers},
                     {QStringLiteral("maxThreadsPerBlock"), kernel.maxThreadsPerBlock}}},
        {QStringLiteral("launch"),
         QJsonObject{{QStringLiteral("blockThreads"), blockThreads},
                     {QStringLiteral("dynamicSharedBytes"), dynamicSharedBytes}}},
        {QStringLiteral("current"), pointJson({blockThreads, current})},
        {QStringLiteral("explanation"),
         occupancyExplanation(current, limits, kernel, blockThreads, dynamicSharedBytes)},
        {QStringLiteral("byBlockSize"), points(byBlockSize)},
        {QStringLiteral("byRegisters"), points(byRegisters)},
        {QStringLiteral("byDynamicShared"), points(byDynamicShared)},
    };
}

QVector<OccupancyPoint> occupancySteps(const QVector<OccupancyPoint>& curve) {
    QVector<OccupancyPoint> steps;
    for (const OccupancyPoint& p : curve)
        if (steps.isEmpty() ||
            steps.constLast().occupancy.activeWarpsPerSm != p.occupancy.activeWarpsPerSm)
            steps.push_back(p);
    return steps;
}

OccupancyPoint occupancyBest(const QVector<OccupancyPoint>& curve) {
    OccupancyPoint best;
    for (const OccupancyPoint& p : curve)
        if (p.occupancy.activeWarpsPerSm > best.occupancy.activeWarpsPerSm)
            best = p;
    return best;
}

} // namespace kernelpad
