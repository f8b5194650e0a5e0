#pragma once
// How long a sweep times each configuration: "accurate" (the project's own timing settings,
// its stopping rule included: what a single run measures), "fast" (a fixed handful of
// samples, for exploring a space) or a number of milliseconds of timing per configuration.
// JSON: the sweep section's "timingBudget": "accurate" (the default, not written), "fast", or
// a whole number of milliseconds.

#include "core/project/TimingSpec.h"

#include <QJsonValue>
#include <QString>

#include <optional>

namespace kernelpad {

/// A sweep's timing budget per configuration.
struct SweepTimingBudget {
    enum class Kind { Accurate, Fast, Milliseconds };
    /// "fast": a fixed count after a short warm-up, no stopping rule; ten samples give a
    /// median good to a few per cent, enough to rank configurations.
    static constexpr int kFastWarmupLaunches = 2;
    static constexpr int kFastRepetitions = 10;
    /// A configuration timed longer than a minute is a run, not a sweep.
    static constexpr int kMaxMs = 60000;

    Kind kind = Kind::Accurate;
    int ms = 0; ///< Milliseconds: the most timing per configuration, 1..kMaxMs

    [[nodiscard]] static SweepTimingBudget fast() { return {Kind::Fast, 0}; }
    [[nodiscard]] static SweepTimingBudget milliseconds(int ms) { return {Kind::Milliseconds, ms}; }
    [[nodiscard]] bool isAccurate() const { return kind == Kind::Accurate; }
    /// "accurate", "fast", "50 ms": how a record and the window name it.
    [[nodiscard]] QString name() const;
    /// The project's timing as this budget times a configuration. Accurate: `spec` as it is.
    /// Fast: kFastRepetitions samples after kFastWarmupLaunches, adaptive off. Milliseconds:
    /// the project's stopping rule with its time budget (maxTimeMs) set to `ms` and the least
    /// time (minTimeMs) kept under it; a chunk of samples already queued still finishes, so
    /// a budget under the measurement's chunk (about 100 ms of launches) can be passed by
    /// that much.
    [[nodiscard]] TimingSpec apply(const TimingSpec& spec) const;

    /// Null for Accurate (the field is left out), else "fast" or the milliseconds.
    [[nodiscard]] QJsonValue toJson() const;
    /// Reads "accurate", "fast" or a whole number of milliseconds; `path` names the field in
    /// messages ("sweep.timingBudget: expected \"fast\", \"accurate\" or ...").
    static std::optional<SweepTimingBudget> fromJson(const QJsonValue& json, const QString& path,
                                                     QString* error);
    friend bool operator==(const SweepTimingBudget& a, const SweepTimingBudget& b) {
        return a.kind == b.kind && (a.kind != Kind::Milliseconds || a.ms == b.ms);
    }
    friend bool operator!=(const SweepTimingBudget& a, const SweepTimingBudget& b) {
        return !(a == b);
    }
};

} // namespace kernelpad
