#pragma once
// The verdict of an interleaved A/B comparison (docs/user-guide.md, "A/B comparison"): the
// ratio of medians B/A with a bootstrap interval, and "faster", "slower", "no detectable
// difference", or a refusal when the two arms did not run under the same conditions.
//
// Method:
// - The launches of A and B are taken in blocks (ABBA: A, B, B, A, ...), each block a run of
//   k back-to-back launches of one arm. Both arms see the same stretch of time, so a slow
//   drift of the GPU (clocks settling, the die warming) shifts both alike.
// - The interval is a percentile bootstrap that resamples WITHIN each block: every block keeps
//   its size and is refilled with draws from its own launches, then the median of each arm's
//   refilled blocks is taken and their ratio kept; 2000 resamples, seeded, give the 2.5th and
//   97.5th percentiles. Resampling across blocks (pooling every launch of an arm) would treat
//   the drift between blocks as noise of the kernel and widen the interval by a variation the
//   ABBA order already cancels; resampling whole blocks would be right for drift that does
//   not cancel, but with the few blocks a comparison takes (8 to 40) a block bootstrap's
//   percentiles are too coarse. The within-block bootstrap is the stratified bootstrap with
//   blocks as strata: the between-block part of the variance is held fixed, which is what the
//   balanced design makes legitimate.
// - Cost: a resample draws every launch again, so an arm of more than `maxBootstrapLaunches`
//   (5000) launches is thinned to every s-th launch of each block for the interval (the
//   medians themselves use every launch). At 1 % noise the median of 5000 launches is known
//   to about ±0.02 % (one standard error), far under any target. A resample counts how often
//   it drew each launch's rank (the launches sorted once) and reads its median off the counts;
//   the resamples are drawn in chunks of 16, each from its own SplitMix64 stream seeded by the
//   seed and the chunk, over up to 16 threads, so the interval does not depend on how many
//   there were. 2000 resamples of two arms of 4000 launches take about 60 ms on one core.
// - Verdict: faster or slower when the interval excludes 1 AND the ratio differs from 1 by at
//   least `minEffect` (0.5 %, as core/run/Significance.h), else "no detectable difference at
//   ±y %", y the interval's half-width.
// - Refusal: an arm whose SM clock differs from the other's by more than 1 %, a temperature
//   5 °C apart, or an arm that throttled has no verdict, and the reason names the figures.

#include "core/run/Timing.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// What one arm ran under. The telemetry of its timed chunks fills every field; without it,
/// fromTiming() takes the SM clock and the throttled samples a TimingStats has, and the
/// temperature stays unknown (the verdict then says it was not checked).
struct AbConditions {
    int smClockMHz = 0;  ///< median over the arm's chunks; 0: unknown
    int memClockMHz = 0; ///< 0: unknown
    std::optional<double> temperatureC;
    bool throttled = false;
    QString throttleReasons; ///< "power cap", "thermal", ... (empty: none known)

    /// The conditions a plain measurement knows (no temperature).
    [[nodiscard]] static AbConditions fromTiming(const TimingStats& timing);
    [[nodiscard]] QJsonObject toJson() const;
};

/// The per-launch times of both arms, block by block (each inner vector one block).
struct AbSamples {
    QVector<QVector<double>> aBlocksMs;
    QVector<QVector<double>> bBlocksMs;
    AbConditions a;
    AbConditions b;
};

struct AbOptions {
    static constexpr quint64 kDefaultSeed = 0x6b70'6162'7665'7264ULL; // "kpabverd"
    int resamples = 2000;
    double confidence = 0.95;
    double minEffect = 0.005;     ///< smallest |ratio - 1| called faster or slower
    double maxClockSpread = 0.01; ///< SM clocks further apart (relative) refuse a verdict
    double maxTemperatureSpreadC = 5;
    int maxBootstrapLaunches = 5000; ///< per arm; more are thinned for the interval
    /// Threads that draw the resamples; 0: as many as the computer has, up to 16. The
    /// interval is the same for any number.
    int threads = 0;
    quint64 seed = kDefaultSeed;
};

/// The answer of one comparison.
struct AbVerdict {
    enum class Kind {
        Faster,       ///< B is faster than A
        Slower,       ///< B is slower than A
        NoDifference, ///< no detectable difference at the interval's half-width
        Refused,      ///< the arms ran under different conditions (reason says which)
        TooFewSamples ///< fewer than kMinSamples usable launches on an arm
    };
    Kind kind = Kind::TooFewSamples;
    double ratio = 0; ///< median(B) / median(A); under 1: B is faster
    double low = 0;   ///< the interval of the ratio (0 without one)
    double high = 0;
    double medianAMs = 0;
    double medianBMs = 0;
    int samplesA = 0;
    int samplesB = 0;
    QString reason; ///< Refused / TooFewSamples: why; otherwise empty
    /// What was not checked ("temperature was not checked: no telemetry"), empty if all was.
    QString caveat;

    [[nodiscard]] bool hasVerdict() const {
        return kind == Kind::Faster || kind == Kind::Slower || kind == Kind::NoDifference;
    }
    [[nodiscard]] bool hasInterval() const { return high > 0; }
    [[nodiscard]] double halfWidthPercent() const { return (high - low) * 50.0; }
    /// "B is 3.1 % faster (95 % interval 2.6 to 3.5 %)", "no detectable difference at ±0.4 %",
    /// "cannot compare: A ran at 1980 MHz, B at 1755 MHz", followed by the caveat if any.
    [[nodiscard]] QString text() const;
    [[nodiscard]] QString kindName() const; ///< "faster", "slower", "no difference", ...
    [[nodiscard]] QJsonObject toJson() const;
};

/// Why the arms cannot be compared (empty when they can), and what could not be checked.
[[nodiscard]] QString conditionsDiffer(const AbConditions& a, const AbConditions& b,
                                       const AbOptions& options, QString* caveat);

/// The interval of the ratio of medians and the verdict (see the header comment).
[[nodiscard]] AbVerdict abVerdict(const AbSamples& samples, const AbOptions& options = {});

/// The verdicts of one comparison run on several devices (each device both arms, its own
/// interleaved blocks, its own verdict) taken together; those without an interval are left out
/// (TooFewSamples when none has one). Method: each device's log ratio with the standard error
/// its bootstrap interval implies (half its width on the log scale over the normal quantile),
/// weighted by inverse variance, with DerSimonian and Laird's between-device variance added to
/// each weight's variance. When the devices share one true ratio (the same model, the same two
/// kernels) the between-device variance estimate is mostly 0 and this is the fixed-effect
/// pooling, whose interval covers as often as each device's own (tst_abverdict simulates it);
/// when they disagree beyond their own noise (a device at other clocks) it widens the interval
/// instead of claiming a precision the devices do not share. The log scale keeps B/A and A/B
/// symmetric. The pooled medians are the weighted means of the devices' medians.
[[nodiscard]] AbVerdict poolAbVerdicts(const QVector<AbVerdict>& perDevice,
                                       const AbOptions& options = {});

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::AbConditions)
