#pragma once
// Whether one run of a kernel is really faster or slower than another: the ratio of the two
// medians with a 95 % bootstrap interval, and the median's own interval for one run.
//
// Method (docs/user-guide.md, "How a run works"):
// - Ratio of medians new/old, with a percentile bootstrap: each sample is resampled with
//   replacement on its own (the two runs are independent), the ratio of the resampled medians
//   is taken `resamples` times (2000), and the 2.5th and 97.5th percentiles of those ratios
//   bound the interval. The generator is seeded (kDefaultSeed), so the same two samples always
//   give the same interval. The median of a resample is drawn directly instead of building
//   the resample: with the sample sorted, the median of n indices drawn uniformly is the
//   m-th order statistic of n uniforms, a Beta(m, n - m + 1) variate (and for an even n the
//   next one follows from a Beta(1, n - m)), so one resample costs O(1) rather than O(n) and
//   10,000 samples per run still take well under a millisecond per comparison.
// - Verdict: a real change when the interval excludes 1 AND the ratio differs from 1 by at
//   least `minEffect` (0.5 %). The second condition keeps a difference too small to matter
//   (a 0.1 % shift measured over 10,000 quiet samples has a tight interval) from being called
//   a change; 0.5 % is also the default noise target of the adaptive timing (TimingSpec).
// - Assumptions: the repetitions of one run are independent and identically distributed
//   (the bootstrap ignores drift and autocorrelation, such as clocks ramping within a run);
//   the two runs are independent; the median is the figure of interest (robust to the
//   occasional preempted sample). With fewer than kMinSamples samples on either side there
//   is no verdict: the percentile bootstrap of a median is too coarse there.
// - One run's median: the distribution-free order-statistic interval [x(l), x(n+1-l)], with
//   l the largest rank whose binomial(n, 1/2) tail P(X < l) is at most 2.5 %; it covers the
//   true median with at least 95 % for any continuous distribution (6 samples or more).
// Non-finite times (a null in the runner's JSON) and times of 0 or less are dropped first.

#include <QString>
#include <QVector>

namespace kernelpad {

/// Fewest samples on each side for an interval or a verdict.
inline constexpr int kMinSamples = 6;

/// The median of one run with its 95 % interval.
struct MedianInterval {
    bool valid = false; ///< false: too few usable samples (why says so)
    double medianMs = 0;
    double lowMs = 0;
    double highMs = 0;
    int samples = 0; ///< usable samples (finite and positive)
    QString why;     ///< why there is no interval, empty when valid
};

/// The order-statistic 95 % interval of the median of `timesMs` (see the header comment).
[[nodiscard]] MedianInterval medianInterval(const QVector<double>& timesMs);

/// How a comparison is made (the defaults are those the window and the CLI use).
struct SignificanceOptions {
    static constexpr quint64 kDefaultSeed = 0x6b70'7369'676e'6966ULL; // "kpsignif"
    int resamples = 2000;
    double confidence = 0.95;
    /// Smallest |ratio - 1| called a real change even when the interval excludes 1.
    double minEffect = 0.005;
    quint64 seed = kDefaultSeed;
};

/// The comparison of a new sample of times with an old one.
struct Comparison {
    enum class Verdict {
        TooFewSamples, ///< fewer than kMinSamples usable samples on a side
        Invalid,       ///< a median of 0 (nothing to divide by)
        WithinNoise,   ///< the interval holds 1, or the change is under minEffect
        RealChange,    ///< the interval excludes 1 and the change is at least minEffect
    };
    Verdict verdict = Verdict::TooFewSamples;
    double ratio = 0; ///< median(new) / median(old); under 1: faster
    double low = 0;   ///< the interval of the ratio
    double high = 0;
    int oldSamples = 0;
    int newSamples = 0;
    QString why; ///< for TooFewSamples and Invalid, what is missing

    [[nodiscard]] bool hasInterval() const {
        return verdict == Verdict::WithinNoise || verdict == Verdict::RealChange;
    }
    [[nodiscard]] bool isRealChange() const { return verdict == Verdict::RealChange; }
    /// The change in per cent (ratio - 1) and the interval's half-width in percentage points.
    [[nodiscard]] double changePercent() const { return (ratio - 1.0) * 100.0; }
    [[nodiscard]] double halfWidthPercent() const { return (high - low) * 50.0; }
};

/// Compares `newTimesMs` with `oldTimesMs` (see the header comment for the method).
[[nodiscard]] Comparison compareMedians(const QVector<double>& oldTimesMs,
                                        const QVector<double>& newTimesMs,
                                        const SignificanceOptions& options = {});

/// "−12.3 % (±0.8 %), a real change", "+0.2 % (±0.9 %), within noise", or why there is no
/// verdict ("too few samples: 3 (at least 6 needed)").
[[nodiscard]] QString describeChange(const Comparison& c);
/// Against a baseline (the old side): "2.41× faster than baseline (±0.03)",
/// "1.08× slower than baseline (±0.01)", "the same as baseline within noise (1.00×, ±0.01)".
[[nodiscard]] QString describeSpeedup(const Comparison& c);

} // namespace kernelpad
