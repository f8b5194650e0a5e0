#pragma once
// Occupancy against block size, registers per thread and dynamic shared memory, as Nsight
// Compute's occupancy calculator draws it: each point is Occupancy::of with one input varied
// and the others at the current launch.

#include "core/cuda/Occupancy.h"

#include <QJsonObject>
#include <QVector>

namespace kernelpad {

/// The input a curve varies.
enum class OccupancyAxis { BlockSize, Registers, DynamicShared };

/// "block size (threads)", "registers per thread", "dynamic shared memory (bytes)".
[[nodiscard]] QString occupancyAxisName(OccupancyAxis axis);

/// One point of a curve: the varied input's value and the occupancy there.
struct OccupancyPoint {
    int x = 0;
    Occupancy occupancy;
};

/// The three curves of one kernel at one launch; a plain value.
struct OccupancyCurves {
    OccupancyLimits limits;
    OccupancyKernel kernel;
    int blockThreads = 0;
    int dynamicSharedBytes = 0;
    Occupancy current; ///< at the launch itself
    /// One warp apart, from one warp to the device's block limit (points past the kernel's own
    /// limit show no block, limited by the block size).
    QVector<OccupancyPoint> byBlockSize;
    /// Every register count from 1 to the most a thread may have (255).
    QVector<OccupancyPoint> byRegisters;
    /// From 0 to the most a block may use beside its static shared memory, one allocation
    /// unit apart.
    QVector<OccupancyPoint> byDynamicShared;

    /// The curves for `kernel` launched in blocks of `blockThreads` threads with
    /// `dynamicSharedBytes`; empty curves when `limits` is incomplete.
    [[nodiscard]] static OccupancyCurves compute(const OccupancyLimits& limits,
                                                 const OccupancyKernel& kernel, int blockThreads,
                                                 int dynamicSharedBytes);
    [[nodiscard]] const QVector<OccupancyPoint>& curve(OccupancyAxis axis) const;
    /// The launch's own value on `axis` (where the marker goes).
    [[nodiscard]] int currentX(OccupancyAxis axis) const;
    [[nodiscard]] bool isEmpty() const { return byBlockSize.isEmpty(); }
    /// The curves, the limits and the launch; with `allPoints` false each curve keeps only its
    /// key points (occupancySteps).
    [[nodiscard]] QJsonObject toJson(bool allPoints) const;
};

/// The points where a curve's active warps change (the first point, and the first of every
/// run of equal values after it): what a reader needs to redraw the steps.
[[nodiscard]] QVector<OccupancyPoint> occupancySteps(const QVector<OccupancyPoint>& curve);

/// The highest occupancy on a curve and the first x that reaches it.
[[nodiscard]] OccupancyPoint occupancyBest(const QVector<OccupancyPoint>& curve);

} // namespace kernelpad
