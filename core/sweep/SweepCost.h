#pragma once
// How long each configuration of a sweep is expected to take, relative to the others, so that
// over several devices the long ones start first and the sweep does not end with one device
// busy on the largest configuration while the others wait (longest-processing-time first).
// The estimate is the best basis the sweep has, in this order: the time every configuration
// took in an earlier run of the same sweep (its records' wallMs); the bytes of the buffers
// each configuration allocates, when they differ (a size sweep, whose counts follow n); the
// product of the swept scalar arguments, when they differ (a size sweep whose buffers do not
// follow n); the earlier run's times for some configurations; the product of the swept numeric
// defines (-DITEMS=16 unrolls sixteen times what -DITEMS=1 does: its compile and its kernel are
// the longer ones; a guess, but one that costs nothing and only orders, for a sweep over a
// compile-heavy source that says nothing else). A configuration the basis says
// nothing about keeps the space's order after the estimated ones; equal estimates keep it too,
// so the order is a pure function of the space and the earlier records.

#include "core/sweep/SweepResults.h"
#include "core/sweep/SweepSpace.h"

#include <QString>
#include <QVector>

namespace kernelpad {

/// One estimate per configuration of a space.
struct SweepCostEstimate {
    enum class Basis {
        None,
        PreviousTimes,
        BufferBytes,
        ScalarProduct,
        SomePreviousTimes,
        DefineProduct,
    };
    Basis basis = Basis::None;
    /// Per index of the space's points(): the relative cost, NaN where unknown. Empty with
    /// Basis::None.
    QVector<double> costs;

    /// "the times of an earlier run", "buffer bytes", ...: what ordered the sweep, for its head.
    [[nodiscard]] QString basisName() const;
};

/// The estimate for `space`'s configurations from `previous` (the records of an earlier run
/// of the same sweep, matched by key; may be empty). More configurations than
/// kMaxEstimatedConfigurations are not estimated (Basis::None): their projects are not built
/// only to order them.
[[nodiscard]] SweepCostEstimate estimateSweepCosts(const SweepSpace& space,
                                                   const QVector<SweepRecord>& previous);
inline constexpr qsizetype kMaxEstimatedConfigurations = 100000;

/// `order`'s first `count` indices sorted longest first by `costs` (stable: equal costs keep
/// their order; unknown ones, NaN or out of range, follow the known ones in their order); the
/// rest of `order` is left as it is.
void orderLongestFirst(QVector<int>* order, int count, const QVector<double>& costs);

} // namespace kernelpad
