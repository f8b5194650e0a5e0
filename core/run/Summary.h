#pragma once
// A run's measured values as keyed records (nvbench/summary.cuh): each has a key, a name, a
// description, a hint that says how to read and format it, and its value in SI units. The
// CLI's table, its --json and the window's charts read these instead of RunResult's fields,
// so a new metric is one new entry in summarize(), and one formatter serves them all.

#include "core/run/RunTypes.h"

#include <QJsonArray>
#include <QString>
#include <QVector>

#include <limits>
#include <optional>

namespace kernelpad {

/// How a summary's value is read, and so how it is formatted.
enum class SummaryHint {
    Duration,    ///< seconds: "80.6 µs", "1.234 ms", "2.10 s"
    ByteRate,    ///< bytes per second, shown in GB/s (as GPU bandwidth is quoted): "2498.0 GB/s"
    Bytes,       ///< bytes: "64.0 MiB"
    Percent,     ///< a fraction, shown times 100: 0.768 -> "76.8 %"
    Count,       ///< a whole number: "16"
    Ratio,       ///< a plain number: "0.998"
    FlopRate,    ///< floating-point operations per second, shown in GFLOP/s: "414.8 GFLOP/s"
    Frequency,   ///< hertz, shown in MHz: "1980 MHz"
    Power,       ///< watts: "312.4 W"
    Energy,      ///< joules: "12.3 µJ", "1.23 mJ", "2.10 J"
    Temperature, ///< degrees Celsius: "64 °C"
    ByteEnergy,  ///< bytes per joule, shown in GB/J: "8.12 GB/J"
    FlopEnergy,  ///< floating-point operations per joule, shown in GFLOP/J: "1.52 GFLOP/J"
    Text         ///< `text`, as it is
};
/// The JSON name of a hint: "duration", "byte_rate", "bytes", "percent", "count", "ratio",
/// "flop_rate", "frequency", "power", "energy", "temperature", "byte_energy", "flop_energy",
/// "text".
[[nodiscard]] QString summaryHintName(SummaryHint hint);

/// One measured value of a run.
struct Summary {
    QString key;         ///< stable identifier for scripts and charts: "time.median"
    QString name;        ///< short label, a table heading: "median"
    QString description; ///< one sentence: what it is and where it comes from
    SummaryHint hint = SummaryHint::Text;
    /// In the hint's unit (seconds, bytes per second, bytes, a fraction, ...); NaN where the
    /// run could not measure it (shown as "-", written as null).
    double value = std::numeric_limits<double>::quiet_NaN();
    QString text;      ///< the value of a Text summary
    int decimals = -1; ///< digits after the point for the fixed-point hints; -1: the hint's own
    /// One of the columns of the run's main timing table; the others are notes around it.
    bool column = false;
    /// A heading the value is listed under, one "name  value" line each, after the notes
    /// ("Pipeline"); empty for the table's columns and the notes.
    QString group;
};

/// Every measured value of `result`, in a fixed order: the kernel's times and bandwidth (the
/// table's columns), how they were taken, what the run saved, the kernel's resources, the
/// verification, the run's own times. Values a run does not have (no timing, no copy ceiling,
/// no NVML) are left out, not zero.
[[nodiscard]] QVector<Summary> summarize(const RunResult& result);

/// The share of a device's theoretical DRAM bandwidth that the run's "bandwidth" entry reached
/// ("bandwidth.peakShare", a percentage), for a viewer that knows the device; nullopt when the
/// summaries have no bandwidth or the peak is unknown (0 or less). Not part of summarize():
/// a run's result does not carry the device's theoretical peak.
[[nodiscard]] std::optional<Summary> peakBandwidthShare(const QVector<Summary>& summaries,
                                                        double peakBytesPerSecond);

/// The value with its unit, by hint ("1.234 ms", "2498.0 GB/s", "76.8 %"); "-" for NaN or
/// infinity.
[[nodiscard]] QString formatSummaryValue(const Summary& summary);
/// A duration in seconds as formatSummaryValue() shows it: ns under a microsecond, µs with
/// one or two decimals, ms with three or one, s with two. The one formatter of durations: the
/// CLI, the window's status bar and panels, and the charts' labels all use it.
[[nodiscard]] QString formatDuration(double seconds);
/// formatDuration() of a duration kept in milliseconds (TimingStats, CompileResult).
[[nodiscard]] QString formatDurationMs(double ms);

/// The units formatDuration() writes.
enum class DurationUnit { Nanoseconds, Microseconds, Milliseconds, Seconds };
/// The unit formatDuration() shows `seconds` in. A chart that puts several durations on one
/// axis picks the unit of a typical one (its median, its largest) with this, so that its axis
/// reads as the table beside it.
[[nodiscard]] DurationUnit durationUnitFor(double seconds);
/// "ns", "µs", "ms", "s".
[[nodiscard]] QString durationUnitSymbol(DurationUnit unit);
/// How many seconds one `unit` is: 1e-9, 1e-6, 1e-3, 1.
[[nodiscard]] double durationUnitSeconds(DurationUnit unit);

/// The summary with `key`, or nullptr.
[[nodiscard]] const Summary* findSummary(const QVector<Summary>& summaries, const QString& key);

/// [{"key", "name", "description", "hint", "value"}, ...]: a number (null where NaN) or, for
/// text, a string; "group" as well where there is one.
[[nodiscard]] QJsonArray summariesToJson(const QVector<Summary>& summaries);

} // namespace kernelpad
