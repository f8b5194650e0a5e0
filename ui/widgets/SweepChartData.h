#pragma once
// What the sweep charts draw, derived from a sweep's spec and records as plain values: which
// parameters vary, whether the sweep is over the problem size, each record's objective value,
// the slice of records a line or a heat map shows. No widgets here, so the tests pin the
// choices without painting anything.

#include "core/project/SweepSpec.h"
#include "core/sweep/SweepResults.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

/// A parameter a chart plots along an axis: its name and its values, ascending.
struct SweepChartAxis {
    QString name;
    QVector<double> values;
    bool powersOfTwo = false; ///< every value a positive power of two: a log2 axis reads best
};

/// The parameters of a sweep that take more than one value, in the spec's order; without a
/// spec (records read from a file alone), those that differ between the records.
[[nodiscard]] QVector<SweepChartAxis> varyingParameters(const SweepSpec& spec,
                                                        const QVector<SweepRecord>& records);

/// A size sweep: one varying parameter, and it is the problem size, a scalar argument (or a
/// tunable named `n`) over powers of two, as in saxpy_sizes.kpad.
[[nodiscard]] bool isSizeSweep(const SweepSpec& spec, const QVector<SweepChartAxis>& varying);

/// The value of parameter `name` in `record`, NaN when the record does not have it.
[[nodiscard]] double parameterValue(const SweepRecord& record, const QString& name);

/// What the chart plots for a record: the median in ms for the time objective, GB/s for the
/// bandwidth one; NaN for a failed record or one without that figure (never plotted).
[[nodiscard]] double objectiveValue(const SweepRecord& record, SweepObjective objective);

/// Positive and a power of two (1, 2, 4, ..., also 0.5): where a log2 axis has its ticks.
[[nodiscard]] bool isPowerOfTwo(double value);

/// The records that share `best`'s values of every varying parameter outside `plotted`: the
/// line or the grid through the best configuration. Every record when there is no best.
[[nodiscard]] QVector<SweepRecord> sliceThroughBest(const QVector<SweepRecord>& records,
                                                    const QVector<SweepChartAxis>& varying,
                                                    const QStringList& plotted,
                                                    const std::optional<SweepRecord>& best);

/// "bz = 2, UNROLL = 4": the values of the varying parameters outside `plotted` that a slice
/// holds fixed (the best's), empty when none.
[[nodiscard]] QString fixedParametersText(const QVector<SweepChartAxis>& varying,
                                          const QStringList& plotted,
                                          const std::optional<SweepRecord>& best);

/// "1.234 ms" or "812 GB/s": an objective value as the charts label it.
[[nodiscard]] QString objectiveText(double value, SweepObjective objective);
/// The axis title of the objective: "Median time (ms)" or "Bandwidth (GB/s)".
[[nodiscard]] QString objectiveTitle(SweepObjective objective);
/// "copy ceiling 3.0 TB/s" (from 1000 GB/s on) or "copy ceiling 850 GB/s".
[[nodiscard]] QString ceilingLabel(double gigabytesPerSecond);

/// The tooltip of one record: its key, status, times, GB/s and device; a failure's reason.
[[nodiscard]] QString recordToolTip(const SweepRecord& record);

} // namespace kernelpad
