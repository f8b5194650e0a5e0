#pragma once
// One profile against another, as Nsight Compute's baseline shows it: every metric the two
// share side by side with its change, units made alike first (ncu prints "104 us" in one
// report and "1.2 ms" in the next), for the Profile tab and `kernelpad-cli profile A --baseline
// B` (docs/ARCHITECTURE.md, "Profiles").

#include "core/profile/ProfileReport.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace kernelpad {

/// Changes smaller than this, in percent, are left out of the short lists (the text, the tab's
/// "only changes" view); the JSON and the full table keep every metric.
inline constexpr double kNotableChangePct = 1.0;

/// One metric in both profiles (or in one of them).
struct MetricChange {
    QString section;      ///< "GPU Speed Of Light Throughput"
    QString name;         ///< "DRAM Throughput"
    QString unit;         ///< the unit both values are in: the base unit when ncu scaled them
    QString currentText;  ///< as ncu printed it, with its own unit ("104 us"); empty if absent
    QString baselineText; ///< the same for the baseline
    std::optional<double> current;  ///< in `unit`
    std::optional<double> baseline; ///< in `unit`

    /// (current − baseline) / |baseline| in percent; absent unless both are numbers and the
    /// baseline is not 0.
    [[nodiscard]] std::optional<double> changePct() const;
};

struct ProfileComparison {
    /// Every metric of the current profile in its order, then those only the baseline has.
    QList<MetricChange> metrics;
    /// The few changes that explain a time: duration, DRAM/L2/L1 bytes, occupancy, as
    /// sentences ("Duration 104 µs → 31.5 µs (−69.7 %)"), those both profiles have.
    QStringList headline;
};

/// `current` against `baseline`, matched by section and metric name.
[[nodiscard]] ProfileComparison compareProfiles(const ProfileReport& current,
                                                const ProfileReport& baseline);

/// A value ncu printed in `unit` ("us", "Ghz", "Mbyte", "Tbyte/s") in its base unit ("s",
/// "hz", "byte", "byte/s"): `unit` is set to the base unit. Units without a scale prefix stay.
[[nodiscard]] double toBaseUnit(double value, QString* unit);

/// `kernelpad-cli profile --baseline --json`'s "comparison": the metrics with both values and
/// the change, and the headline.
[[nodiscard]] QJsonObject comparisonToJson(const ProfileComparison& comparison);

} // namespace kernelpad
