#include "core/run/Significance.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace kernelpad {

namespace {

/// The finite, positive times, sorted.
QVector<double> usable(const QVector<double>& timesMs) {
    QVector<double> out;
    out.reserve(timesMs.size());
    for (double t : timesMs)
        if (std::isfinite(t) && t > 0)
            out.append(t);
    std::sort(out.begin(), out.end());
    return out;
}

double sortedMedian(const QVector<double>& sorted) {
    const qsizetype n = sorted.size();
    return n % 2 ? sorted.at(n / 2) : 0.5 * (sorted.at(n / 2 - 1) + sorted.at(n / 2));
}

QString tooFew(int samples) {
    return QStringLiteral("too few samples: %1 (at least %2 needed)").arg(samples).arg(kMinSamples);
}

/// Draws the median of a bootstrap resample of `sorted` without building the resample (the
/// header says why this is the same distribution).
class MedianResampler {
public:
    MedianResampler(const QVector<double>& sorted, std::mt19937_64& rng)
        : m_sorted(sorted)
        , m_rng(rng)
        , m_n(int(sorted.size()))
        , m_rank((m_n + 1) / 2) // 1-based rank of the (lower) middle order statistic
        , m_upper(double(m_rank))
        , m_lower(double(m_n - m_rank + 1)) {}

    double draw() {
        const double u = beta();
        const double lowValue = at(u);
        if (m_n % 2)
            return lowValue;
        // The next order statistic: the smallest of the n - m uniforms above u.
        const double v = m_uniform(m_rng);
        const double next = u + (1.0 - u) * (1.0 - std::pow(v, 1.0 / double(m_n - m_rank)));
        return 0.5 * (lowValue + at(next));
    }

private:
    double beta() {
        const double a = m_upper(m_rng);
        const double b = m_lower(m_rng);
        return a / (a + b);
    }
    double at(double u) const {
        const int index = std::clamp(int(u * m_n), 0, m_n - 1);
        return m_sorted.at(index);
    }

    const QVector<double>& m_sorted;
    std::mt19937_64& m_rng;
    int m_n;
    int m_rank;
    std::gamma_distribution<double> m_upper;
    std::gamma_distribution<double> m_lower;
    std::uniform_real_distribution<double> m_uniform{0.0, 1.0};
};

QString signedPercent(double percent) {
    // U+2212: a real minus sign, as a person writes a decrease.
    const QString sign = percent < 0 ? QStringLiteral("\u2212") : QStringLiteral("+");
    return sign + QString::number(std::abs(percent), 'f', 1);
}

QString halfWidthText(double value, int decimals) {
    // Show at least one significant digit of a very tight interval.
    const double smallest = std::pow(10.0, -decimals);
    return value > 0 && value < smallest / 2 ? QString::number(value, 'g', 1)
                                             : QString::number(value, 'f', decimals);
}

} // namespace

MedianInterval medianInterval(const QVector<double>& timesMs) {
    MedianInterval out;
    const QVector<double> sorted = usable(timesMs);
    const int n = int(sorted.size());
    out.samples = n;
    if (n < kMinSamples) {
        out.why = tooFew(n);
        return out;
    }
    // Binomial(n, 1/2) cumulative probabilities in log space (n may be 10,000).
    const double alphaHalf = 0.025;
    const double logHalfN = -double(n) * std::log(2.0);
    double cumulative = 0;
    int l = 0; // the largest rank with P(X < l) <= alpha/2 (P(X < 1) = P(X = 0))
    for (int k = 0; k < n; ++k) {
        const double logChoose =
            std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
        cumulative += std::exp(logChoose + logHalfN); // now P(X <= k) = P(X < k + 1)
        if (cumulative > alphaHalf)
            break;
        l = k + 1;
    }
    l = std::max(l, 1);
    out.valid = true;
    out.medianMs = sortedMedian(sorted);
    out.lowMs = sorted.at(l - 1);
    out.highMs = sorted.at(n - l);
    return out;
}

Comparison compareMedians(const QVector<double>& oldTimesMs, const QVector<double>& newTimesMs,
                          const SignificanceOptions& options) {
    Comparison c;
    const QVector<double> older = usable(oldTimesMs);
    const QVector<double> newer = usable(newTimesMs);
    c.oldSamples = int(older.size());
    c.newSamples = int(newer.size());
    if (c.oldSamples < kMinSamples || c.newSamples < kMinSamples) {
        c.why = tooFew(std::min(c.oldSamples, c.newSamples));
        return c;
    }
    const double oldMedian = sortedMedian(older);
    if (!(oldMedian > 0)) {
        c.verdict = Comparison::Verdict::Invalid;
        c.why = QStringLiteral("the old median is 0");
        return c;
    }
    c.ratio = sortedMedian(newer) / oldMedian;

    const int resamples = std::max(options.resamples, 100);
    std::mt19937_64 rng(options.seed);
    MedianResampler drawOld(older, rng);
    MedianResampler drawNew(newer, rng);
    QVector<double> ratios;
    ratios.reserve(resamples);
    for (int i = 0; i < resamples; ++i)
        ratios.append(drawNew.draw() / drawOld.draw());
    std::sort(ratios.begin(), ratios.end());
    const double alphaHalf = (1.0 - std::clamp(options.confidence, 0.5, 0.999)) / 2.0;
    const int lowIndex = std::clamp(int(std::floor(alphaHalf * resamples)), 0, resamples - 1);
    const int highIndex =
        std::clamp(int(std::ceil((1.0 - alphaHalf) * resamples)) - 1, 0, resamples - 1);
    c.low = ratios.at(lowIndex);
    c.high = ratios.at(highIndex);
    // The point estimate lies inside its own interval even when the resamples are all alike.
    c.low = std::min(c.low, c.ratio);
    c.high = std::max(c.high, c.ratio);
    const bool excludesOne = c.low > 1.0 || c.high < 1.0;
    c.verdict = excludesOne && std::abs(c.ratio - 1.0) >= options.minEffect
                    ? Comparison::Verdict::RealChange
                    : Comparison::Verdict::WithinNoise;
    return c;
}

QString describeChange(const Comparison& c) {
    if (!c.hasInterval())
        return QStringLiteral("no verdict, %1").arg(c.why);
    return QStringLiteral("%1 % (\u00b1%2 %), %3")
        .arg(signedPercent(c.changePercent()), halfWidthText(c.halfWidthPercent(), 1),
             c.isRealChange() ? QStringLiteral("a real change") : QStringLiteral("within noise"));
}

QString describeSpeedup(const Comparison& c) {
    if (!c.hasInterval())
        return QStringLiteral("no verdict against baseline, %1").arg(c.why);
    const double speedup = 1.0 / c.ratio;
    const double speedupHalf = (1.0 / c.low - 1.0 / c.high) / 2.0;
    if (!c.isRealChange())
        return QStringLiteral("the same as baseline within noise (%1\u00d7, \u00b1%2)")
            .arg(QString::number(speedup, 'f', 2), halfWidthText(speedupHalf, 2));
    if (speedup > 1.0)
        return QStringLiteral("%1\u00d7 faster than baseline (\u00b1%2)")
            .arg(QString::number(speedup, 'f', 2), halfWidthText(speedupHalf, 2));
    return QStringLiteral("%1\u00d7 slower than baseline (\u00b1%2)")
        .arg(QString::number(c.ratio, 'f', 2), halfWidthText((c.high - c.low) / 2.0, 2));
}

} // namespace kernelpad
