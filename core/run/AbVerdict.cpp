#include "core/run/AbVerdict.h"

#include "core/run/Significance.h"

#include <QJsonArray>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

namespace kernelpad {

namespace {

/// The finite, positive times of each block (empty blocks dropped).
QVector<QVector<double>> usableBlocks(const QVector<QVector<double>>& blocks) {
    QVector<QVector<double>> out;
    for (const QVector<double>& block : blocks) {
        QVector<double> kept;
        for (double t : block)
            if (std::isfinite(t) && t > 0)
                kept.append(t);
        if (!kept.isEmpty())
            out.append(kept);
    }
    return out;
}

int countOf(const QVector<QVector<double>>& blocks) {
    int n = 0;
    for (const QVector<double>& block : blocks)
        n += int(block.size());
    return n;
}

/// Every stride-th launch of each block (at least one a block) when an arm holds more than
/// `cap` launches: the bootstrap's cost grows with the launches, its interval hardly at all
/// past a few thousand (the header says why).
QVector<QVector<double>> thinned(const QVector<QVector<double>>& blocks, int cap) {
    const int n = countOf(blocks);
    if (n <= cap)
        return blocks;
    const int stride = (n + cap - 1) / cap;
    QVector<QVector<double>> out;
    out.reserve(blocks.size());
    for (const QVector<double>& block : blocks) {
        QVector<double> kept;
        for (qsizetype i = 0; i < block.size(); i += stride)
            kept.append(block.at(i));
        out.append(kept);
    }
    return out;
}

/// The median of `values` (reordered in place); mean of the middle two for an even count.
double medianInPlace(std::vector<double>& values) {
    const size_t n = values.size();
    const auto mid = values.begin() + std::ptrdiff_t(n / 2);
    std::nth_element(values.begin(), mid, values.end());
    const double upper = *mid;
    if (n % 2)
        return upper;
    return 0.5 * (upper + *std::max_element(values.begin(), mid));
}

double pooledMedian(const QVector<QVector<double>>& blocks) {
    std::vector<double> all;
    for (const QVector<double>& block : blocks)
        all.insert(all.end(), block.begin(), block.end());
    return medianInPlace(all);
}

/// The bootstrap's random bits: SplitMix64 (Steele, Lea and Flood), which passes BigCrush, at a
/// third of std::mt19937_64's cost per draw; a resample draws every launch again.
class SplitMix64 {
public:
    explicit SplitMix64(quint64 seed)
        : m_state(seed) {}
    quint64 operator()() {
        quint64 z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

private:
    quint64 m_state;
};

/// An arm's launches as the bootstrap draws them: every launch in ascending order, each launch's
/// rank in that order (launches in block order) and where each block ends. A resample counts
/// how often it drew each rank and reads its median off the counts: the same median as sorting
/// the drawn values (ties hold equal values), at a fraction of the cost.
struct RankedArm {
    std::vector<double> sorted;
    std::vector<int> rank;
    std::vector<int> blockEnds;

    explicit RankedArm(const QVector<QVector<double>>& blocks) {
        std::vector<double> values;
        for (const QVector<double>& block : blocks) {
            values.insert(values.end(), block.begin(), block.end());
            blockEnds.push_back(int(values.size()));
        }
        std::vector<int> order(values.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = int(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](int x, int y) { return values[size_t(x)] < values[size_t(y)]; });
        sorted.resize(values.size());
        rank.resize(values.size());
        for (size_t r = 0; r < order.size(); ++r) {
            sorted[r] = values[size_t(order[r])];
            rank[size_t(order[r])] = int(r);
        }
    }

    /// The median of one within-block resample (every block refilled with as many draws from
    /// its own launches), drawn with `rng`; `counts` is scratch of one int per launch.
    double drawMedian(SplitMix64& rng, std::vector<int>& counts) const {
        const int n = int(rank.size());
        counts.assign(size_t(n), 0);
        int start = 0;
        for (const int end : blockEnds) {
            const auto size = static_cast<unsigned __int128>(end - start);
            for (int i = start; i < end; ++i) {
                // An index in [0, size) from 64 random bits by multiply-shift (Lemire): a bias
                // of size / 2^64 at most, and a third of uniform_int_distribution's time.
                const int index = start + int((static_cast<unsigned __int128>(rng()) * size) >> 64);
                ++counts[size_t(rank[size_t(index)])];
            }
            start = end;
        }
        // The values at positions n / 2 and, for an even count, n / 2 - 1 of the drawn ones.
        const int upperAt = n / 2;
        const int lowerAt = n % 2 ? upperAt : upperAt - 1;
        double lower = 0;
        int seen = 0;
        for (int r = 0; r < n; ++r) {
            const int c = counts[size_t(r)];
            if (c == 0)
                continue;
            if (seen <= lowerAt && lowerAt < seen + c)
                lower = sorted[size_t(r)];
            if (upperAt < seen + c)
                return n % 2 ? sorted[size_t(r)] : 0.5 * (sorted[size_t(r)] + lower);
            seen += c;
        }
        return lower;
    }
};

/// Resamples drawn from one seeded stream: the unit the bootstrap is split into.
constexpr int kResamplesPerChunk = 16;
/// Below this many draws (resamples times launches) the bootstrap runs on the caller's thread.
constexpr qint64 kThreadedDraws = 250'000;

/// `resamples` ratios of a within-block resample of B's median to A's. Chunk c of
/// kResamplesPerChunk resamples draws from its own stream, seeded from `seed` and c, so the
/// ratios are the same whatever the number of threads that draw the chunks (a final verdict
/// over thousands of launches an arm is several hundred milliseconds on one thread: it is
/// shared among the cores, up to 16).
std::vector<double> bootstrapRatios(const QVector<QVector<double>>& a,
                                    const QVector<QVector<double>>& b, int resamples, quint64 seed,
                                    int wantedThreads) {
    std::vector<double> ratios(static_cast<size_t>(resamples));
    const int chunks = (resamples + kResamplesPerChunk - 1) / kResamplesPerChunk;
    const RankedArm rankedA(a);
    const RankedArm rankedB(b);
    const auto drawChunks = [&](int first, int step) {
        std::vector<int> counts;
        for (int c = first; c < chunks; c += step) {
            // A stream of its own per chunk: the seed's, moved on by the chunk's index.
            SplitMix64 rng(seed ^ (0xd1b54a32d192ed03ULL * quint64(c + 1)));
            const int end = std::min(resamples, (c + 1) * kResamplesPerChunk);
            for (int i = c * kResamplesPerChunk; i < end; ++i) {
                // B's draw first, as B / A reads.
                const double medianB = rankedB.drawMedian(rng, counts);
                ratios[size_t(i)] = medianB / rankedA.drawMedian(rng, counts);
            }
        }
    };
    const qint64 draws = qint64(resamples) * (countOf(a) + countOf(b));
    const int available =
        wantedThreads > 0 ? wantedThreads : int(std::thread::hardware_concurrency());
    const int threads = draws < kThreadedDraws && wantedThreads <= 0
                            ? 1
                            : std::clamp(available, 1, std::min(chunks, 16));
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t)
        helpers.emplace_back(drawChunks, t, threads);
    drawChunks(0, threads);
    for (std::thread& helper : helpers)
        helper.join();
    return ratios;
}

QString percentText(double fraction) {
    return QString::number(std::abs(fraction) * 100.0, 'f', 1);
}

QString temperatureText(double c) {
    return QString::number(c, 'f', 0) + QStringLiteral(" °C");
}

QString throttledText(const QString& arm, const AbConditions& c) {
    return c.throttleReasons.isEmpty()
               ? QStringLiteral("%1 throttled").arg(arm)
               : QStringLiteral("%1 throttled (%2)").arg(arm, c.throttleReasons);
}

/// The standard normal quantile of `p` in (0, 1), by bisection on erfc: exact enough (1e-12)
/// for an interval, and free of a table.
double normalQuantile(double p) {
    double lo = -10, hi = 10;
    for (int i = 0; i < 80; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/// The verdict of a ratio and its interval, as abVerdict() gives it.
AbVerdict::Kind verdictKind(double ratio, double low, double high, double minEffect) {
    const bool excludesOne = low > 1.0 || high < 1.0;
    if (!excludesOne || std::abs(ratio - 1.0) < minEffect)
        return AbVerdict::Kind::NoDifference;
    return ratio < 1.0 ? AbVerdict::Kind::Faster : AbVerdict::Kind::Slower;
}

} // namespace

AbConditions AbConditions::fromTiming(const TimingStats& timing) {
    AbConditions c;
    c.smClockMHz = timing.smClockMHz;
    c.memClockMHz = timing.memClockMHz;
    c.throttled = timing.throttledSamples > 0;
    if (c.throttled)
        c.throttleReasons = QStringLiteral("SM clock under 75 % of its default in %1 launches")
                                .arg(timing.throttledSamples);
    return c;
}

QJsonObject AbConditions::toJson() const {
    QJsonObject o{{QStringLiteral("smClockMHz"), smClockMHz},
                  {QStringLiteral("memClockMHz"), memClockMHz},
                  {QStringLiteral("throttled"), throttled},
                  {QStringLiteral("throttleReasons"), throttleReasons}};
    o.insert(QStringLiteral("temperatureC"),
             temperatureC ? QJsonValue(*temperatureC) : QJsonValue(QJsonValue::Null));
    return o;
}

QString conditionsDiffer(const AbConditions& a, const AbConditions& b, const AbOptions& options,
                         QString* caveat) {
    QStringList unchecked;
    // One arm throttled and the other not: the difference may be the GPU's. Both throttled
    // (an H100 at its power cap under any heavy kernel): the interleaved blocks shared the
    // condition, so the ratio holds at those clocks; the clock and temperature checks below
    // still refuse when the arms ran differently, and the caveat says so.
    if (a.throttled != b.throttled)
        return QStringLiteral("cannot compare: %1")
            .arg(a.throttled ? throttledText(QStringLiteral("A"), a)
                             : throttledText(QStringLiteral("B"), b));
    QStringList notes;
    if (a.throttled)
        notes << QStringLiteral("both arms throttled (%1)")
                     .arg(a.throttleReasons == b.throttleReasons
                              ? a.throttleReasons
                              : QStringLiteral("A: %1; B: %2")
                                    .arg(a.throttleReasons, b.throttleReasons));
    if (a.smClockMHz > 0 && b.smClockMHz > 0) {
        const double spread = std::abs(double(a.smClockMHz) - double(b.smClockMHz)) /
                              double(std::min(a.smClockMHz, b.smClockMHz));
        if (spread > options.maxClockSpread)
            return QStringLiteral("cannot compare: A ran at %1 MHz, B at %2 MHz (SM clock)")
                .arg(a.smClockMHz)
                .arg(b.smClockMHz);
    } else {
        unchecked << QStringLiteral("SM clocks");
    }
    if (a.temperatureC && b.temperatureC) {
        if (std::abs(*a.temperatureC - *b.temperatureC) > options.maxTemperatureSpreadC)
            return QStringLiteral("cannot compare: A ran at %1, B at %2")
                .arg(temperatureText(*a.temperatureC), temperatureText(*b.temperatureC));
    } else {
        unchecked << QStringLiteral("temperature");
    }
    if (!unchecked.isEmpty())
        notes << QStringLiteral("%1 not checked: no telemetry")
                     .arg(unchecked.join(QStringLiteral(" and ")) + (unchecked.size() > 1
                                                                         ? QStringLiteral(" were")
                                                                         : QStringLiteral(" was")));
    if (caveat && !notes.isEmpty())
        *caveat = notes.join(QStringLiteral("; "));
    return {};
}

AbVerdict abVerdict(const AbSamples& samples, const AbOptions& options) {
    AbVerdict v;
    const QVector<QVector<double>> a = usableBlocks(samples.aBlocksMs);
    const QVector<QVector<double>> b = usableBlocks(samples.bBlocksMs);
    v.samplesA = countOf(a);
    v.samplesB = countOf(b);
    if (v.samplesA < kMinSamples || v.samplesB < kMinSamples) {
        v.reason = QStringLiteral("too few launches: A %1, B %2 (at least %3 each)")
                       .arg(v.samplesA)
                       .arg(v.samplesB)
                       .arg(kMinSamples);
        return v;
    }
    v.medianAMs = pooledMedian(a);
    v.medianBMs = pooledMedian(b);
    v.ratio = v.medianBMs / v.medianAMs;

    const int resamples = std::max(options.resamples, 100);
    std::vector<double> ratios = bootstrapRatios(thinned(a, options.maxBootstrapLaunches),
                                                 thinned(b, options.maxBootstrapLaunches),
                                                 resamples, options.seed, options.threads);
    std::sort(ratios.begin(), ratios.end());
    const double alphaHalf = (1.0 - std::clamp(options.confidence, 0.5, 0.999)) / 2.0;
    const int lowIndex = std::clamp(int(std::floor(alphaHalf * resamples)), 0, resamples - 1);
    const int highIndex =
        std::clamp(int(std::ceil((1.0 - alphaHalf) * resamples)) - 1, 0, resamples - 1);
    // The point estimate lies inside its own interval even when the resamples are all alike.
    v.low = std::min(ratios[size_t(lowIndex)], v.ratio);
    v.high = std::max(ratios[size_t(highIndex)], v.ratio);

    const QString refusal = conditionsDiffer(samples.a, samples.b, options, &v.caveat);
    if (!refusal.isEmpty()) {
        v.kind = AbVerdict::Kind::Refused;
        v.reason = refusal;
        return v;
    }
    v.kind = verdictKind(v.ratio, v.low, v.high, options.minEffect);
    return v;
}

AbVerdict poolAbVerdicts(const QVector<AbVerdict>& perDevice, const AbOptions& options) {
    const double confidence = std::clamp(options.confidence, 0.5, 0.999);
    const double z = normalQuantile(0.5 + confidence / 2.0);
    // A device whose resamples were all alike has a zero-width interval: a floor on its error
    // keeps its weight finite (1e-6 in log ratio is far under any timer's resolution).
    constexpr double kMinLogError = 1e-6;
    QVector<double> logRatio, variance;
    QVector<const AbVerdict*> used;
    for (const AbVerdict& v : perDevice) {
        if (!v.hasVerdict() || !v.hasInterval() || !(v.ratio > 0) || !(v.low > 0))
            continue;
        const double error =
            std::max((std::log(v.high) - std::log(v.low)) / (2.0 * z), kMinLogError);
        logRatio.append(std::log(v.ratio));
        variance.append(error * error);
        used.append(&v);
    }
    AbVerdict pooled;
    if (used.isEmpty()) {
        pooled.reason = QStringLiteral("no device's A/B gave a verdict");
        return pooled;
    }
    // Fixed-effect weights, Cochran's Q, then DerSimonian and Laird's between-device variance.
    double sumW = 0, sumW2 = 0, sumWy = 0;
    for (qsizetype i = 0; i < used.size(); ++i) {
        const double w = 1.0 / variance[i];
        sumW += w;
        sumW2 += w * w;
        sumWy += w * logRatio[i];
    }
    const double fixedMean = sumWy / sumW;
    double q = 0;
    for (qsizetype i = 0; i < used.size(); ++i)
        q += (logRatio[i] - fixedMean) * (logRatio[i] - fixedMean) / variance[i];
    const double scale = sumW - sumW2 / sumW;
    const double between = scale > 0 ? std::max(0.0, (q - double(used.size() - 1)) / scale) : 0.0;
    double sumW2nd = 0, sumWy2nd = 0, sumWa = 0, sumWb = 0;
    QStringList caveats;
    for (qsizetype i = 0; i < used.size(); ++i) {
        const double w = 1.0 / (variance[i] + between);
        sumW2nd += w;
        sumWy2nd += w * logRatio[i];
        sumWa += w * used[i]->medianAMs;
        sumWb += w * used[i]->medianBMs;
        pooled.samplesA += used[i]->samplesA;
        pooled.samplesB += used[i]->samplesB;
        if (!used[i]->caveat.isEmpty() && !caveats.contains(used[i]->caveat))
            caveats << used[i]->caveat;
    }
    const double mean = sumWy2nd / sumW2nd;
    const double error = 1.0 / std::sqrt(sumW2nd);
    pooled.ratio = std::exp(mean);
    pooled.low = std::exp(mean - z * error);
    pooled.high = std::exp(mean + z * error);
    pooled.medianAMs = sumWa / sumW2nd;
    pooled.medianBMs = sumWb / sumW2nd;
    pooled.caveat = caveats.join(QStringLiteral("; "));
    pooled.kind = verdictKind(pooled.ratio, pooled.low, pooled.high, options.minEffect);
    return pooled;
}

QString AbVerdict::kindName() const {
    switch (kind) {
    case Kind::Faster:
        return QStringLiteral("faster");
    case Kind::Slower:
        return QStringLiteral("slower");
    case Kind::NoDifference:
        return QStringLiteral("no difference");
    case Kind::Refused:
        return QStringLiteral("refused");
    case Kind::TooFewSamples:
        break;
    }
    return QStringLiteral("too few samples");
}

QString AbVerdict::text() const {
    QString line;
    switch (kind) {
    case Kind::Faster:
    case Kind::Slower:
        // "Faster" in per cent of A's time: 1 - B/A, its interval 1 - high to 1 - low.
        line = QStringLiteral("B is %1 % %2 (95 % interval %3 to %4 %)")
                   .arg(percentText(ratio - 1.0),
                        kind == Kind::Faster ? QStringLiteral("faster") : QStringLiteral("slower"),
                        percentText(kind == Kind::Faster ? 1.0 - high : low - 1.0),
                        percentText(kind == Kind::Faster ? 1.0 - low : high - 1.0));
        break;
    case Kind::NoDifference:
        line =
            QStringLiteral("no detectable difference at \u00b1%1 % (B/A %2)")
                .arg(QString::number(halfWidthPercent(), 'f', 1), QString::number(ratio, 'f', 4));
        break;
    case Kind::Refused:
    case Kind::TooFewSamples:
        line = reason;
        break;
    }
    return caveat.isEmpty() ? line : QStringLiteral("%1; %2").arg(line, caveat);
}

QJsonObject AbVerdict::toJson() const {
    return QJsonObject{
        {QStringLiteral("verdict"), kindName()},
        {QStringLiteral("text"), text()},
        {QStringLiteral("ratio"), ratio},
        {QStringLiteral("interval"), QJsonArray{low, high}},
        {QStringLiteral("halfWidthPercent"), hasInterval() ? halfWidthPercent() : 0.0},
        {QStringLiteral("reason"), reason},
        {QStringLiteral("caveat"), caveat},
        {QStringLiteral("a"), QJsonObject{{QStringLiteral("medianMs"), medianAMs},
                                          {QStringLiteral("samples"), samplesA}}},
        {QStringLiteral("b"), QJsonObject{{QStringLiteral("medianMs"), medianBMs},
                                          {QStringLiteral("samples"), samplesB}}},
    };
}

} // namespace kernelpad
