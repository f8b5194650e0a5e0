#pragma once
// How a sweep confirms its winner: an interleaved A/B (core/run/AbDriver.h) of the best
// configuration (B) against the runner-up (A), the best other passing one by the sweep's
// objective: on one device, or on every device of the sweep when they are one model, each device
// running its own interleaved A/B (both arms on it) and the verdict pooling theirs
// (core/run/AbRun.h, poolAbResults()); each device's ratio is kept beside the pooled one. Arms
// that do not run on the same inputs (a size sweep's) get no A/B and a verdict saying it does
// not apply. The answer is kept with the best's record in the
// results file, so a resumed sweep whose best and runner-up are the same does not run it
// again. The A/B compares times whatever the objective; its text says so when the objective is
// not time.

#include "core/project/SweepSpec.h"
#include "core/run/AbRun.h"

#include <QJsonObject>
#include <QString>

#include <cmath>
#include <limits>
#include <optional>

namespace kernelpad {

/// The verdict of a sweep's A/B, as the results file, the CLI and the window show it.
struct SweepConfirmation {
    static inline const QString kFaster = QStringLiteral("faster");
    static inline const QString kSlower = QStringLiteral("slower");
    static inline const QString kNoDifference = QStringLiteral("no difference");
    static inline const QString kRefused = QStringLiteral("refused");
    static inline const QString kError = QStringLiteral("error");
    /// No A/B ran: the arms' inputs differ (reason names the tunables).
    static inline const QString kNotApplicable = QStringLiteral("not applicable");

    QString against; ///< the runner-up's key
    QString verdict; ///< one of the constants above: the best's time against the runner-up's
    /// The best's median over the runner-up's, and its 95 % interval; NaN without a verdict.
    double ratio = std::numeric_limits<double>::quiet_NaN();
    double low = std::numeric_limits<double>::quiet_NaN();
    double high = std::numeric_limits<double>::quiet_NaN();
    QString reason; ///< refused or error: why
    QString caveat; ///< what the A/B could not check ("temperature was not checked ...")
    QString device; ///< the (first) device
    int blocks = 0; ///< over every device
    /// Run on several devices: each one's own ratio, interval and verdict; empty for one.
    QVector<AbDeviceEstimate> devices;
    /// Why it ran on one device when the sweep had several ("the devices are different
    /// models: ...").
    QString oneDeviceReason;
    /// The sweep's objective when it is not time ("energy"): the A/B compared times anyway.
    QString objective;

    /// From the A/B whose A was the runner-up (`against`) and whose B was the best.
    [[nodiscard]] static SweepConfirmation fromAb(const AbResult& result, const QString& against,
                                                  SweepObjective objective);
    /// No A/B for arms whose inputs differ, because the configurations differ in `tunables`
    /// ("n").
    [[nodiscard]] static SweepConfirmation
    notApplicable(const QString& against, const QString& tunables, SweepObjective objective);
    /// "confirmed: bx=16,by=8 is 3.1 % faster than bx=8,by=8 (95 % interval 2.8–3.4 %)", "no
    /// detectable difference from bx=8,by=8 at ±0.4 %: either will do", or why there is none;
    /// "confirmed on 2 devices: ..." when it ran on several.
    [[nodiscard]] QString text(const QString& bestKey) const;
    [[nodiscard]] bool hasVerdict() const {
        return verdict == kFaster || verdict == kSlower || verdict == kNoDifference;
    }
    [[nodiscard]] QJsonObject toJson() const;
    /// `path` names where it sits in messages ("confirmation").
    static std::optional<SweepConfirmation> fromJson(const QJsonObject& json, const QString& path,
                                                     QString* error);
};

} // namespace kernelpad
