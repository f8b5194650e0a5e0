// The significance of a change between two runs (core/run/Significance.h), on synthetic
// samples whose answer is known: the same distribution, a 10 % shift, a known ratio's coverage.

#include "../support/TestMain.h"
#include "core/run/Significance.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

namespace tst_significance {

using namespace kernelpad;

namespace {

/// `n` times around `medianMs` with relative noise `noise` (normal), from `seed`.
QVector<double> sample(double medianMs, double noise, int n, quint64 seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, noise);
    QVector<double> out;
    for (int i = 0; i < n; ++i)
        out.append(medianMs * (1.0 + normal(rng)));
    return out;
}

/// A skewed kernel-like sample: a floor plus an exponential tail (median known:
/// floor + tail * ln 2).
QVector<double> skewed(double floorMs, double tailMs, int n, quint64 seed) {
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> tail(1.0 / tailMs);
    QVector<double> out;
    for (int i = 0; i < n; ++i)
        out.append(floorMs + tail(rng));
    return out;
}

} // namespace

class TestSignificance : public QObject {
    Q_OBJECT
private slots:
    void sameDistributionIsWithinNoise();
    void falsePositiveRateOfTheSameDistribution_data();
    void falsePositiveRateOfTheSameDistribution();
    void tenPercentShiftIsReal();
    void coverageOfAKnownRatio();
    void tinyShiftUnderTheMinimumEffectIsNoise();
    void tooFewSamples_data();
    void tooFewSamples();
    void identicalSamples();
    void nanAndNonPositiveTimesAreDropped();
    void reproducibleWithTheSeed();
    void medianIntervalOrderStatistics();
    void medianIntervalCoverage();
    void describedForThePerson_data();
    void describedForThePerson();
};

void TestSignificance::sameDistributionIsWithinNoise() {
    const Comparison c = compareMedians(sample(1.0, 0.01, 200, 1), sample(1.0, 0.01, 200, 2));
    QCOMPARE(c.verdict, Comparison::Verdict::WithinNoise);
    QVERIFY(c.low <= 1.0 && c.high >= 1.0);
    QVERIFY(c.low <= c.ratio && c.ratio <= c.high);
    QCOMPARE(c.oldSamples, 200);
    QCOMPARE(c.newSamples, 200);
}

void TestSignificance::falsePositiveRateOfTheSameDistribution_data() {
    QTest::addColumn<int>("samples");
    QTest::addColumn<bool>("skewedTimes");
    QTest::newRow("normal noise, 50 samples") << 50 << false;
    QTest::newRow("normal noise, 500 samples") << 500 << false;
    QTest::newRow("skewed times, 100 samples") << 100 << true;
}

void TestSignificance::falsePositiveRateOfTheSameDistribution() {
    QFETCH(int, samples);
    QFETCH(bool, skewedTimes);
    // Without the minimum effect, the bare interval: it must exclude 1 in about 5 % of trials.
    SignificanceOptions bare;
    bare.minEffect = 0;
    constexpr int kTrials = 200;
    int excluded = 0;
    int flagged = 0;
    for (int t = 0; t < kTrials; ++t) {
        const quint64 seed = 1000 + 2 * quint64(t);
        const QVector<double> a =
            skewedTimes ? skewed(1.0, 0.05, samples, seed) : sample(1.0, 0.02, samples, seed);
        const QVector<double> b = skewedTimes ? skewed(1.0, 0.05, samples, seed + 1)
                                              : sample(1.0, 0.02, samples, seed + 1);
        excluded += compareMedians(a, b, bare).isRealChange();
        flagged += compareMedians(a, b).isRealChange();
    }
    qInfo("interval excluded 1 in %d of %d trials; flagged as real in %d", excluded, kTrials,
          flagged);
    // 5 % of 200 is 10; a binomial's 99.9 % upper bound there is about 21.
    QVERIFY2(excluded <= 21, qPrintable(QStringLiteral("%1 of %2").arg(excluded).arg(kTrials)));
    QVERIFY2(flagged <= excluded, qPrintable(QString::number(flagged)));
}

void TestSignificance::tenPercentShiftIsReal() {
    const Comparison c = compareMedians(sample(2.0, 0.01, 100, 7), sample(2.2, 0.01, 100, 8));
    QCOMPARE(c.verdict, Comparison::Verdict::RealChange);
    QVERIFY2(c.low <= 1.10 && 1.10 <= c.high,
             qPrintable(QStringLiteral("[%1, %2]").arg(c.low).arg(c.high)));
    QVERIFY(c.low > 1.0);
    QVERIFY(std::abs(c.ratio - 1.10) < 0.01);
    // The other way round: faster.
    const Comparison faster = compareMedians(sample(2.2, 0.01, 100, 8), sample(2.0, 0.01, 100, 7));
    QVERIFY(faster.isRealChange());
    QVERIFY(faster.high < 1.0);
    QVERIFY(faster.changePercent() < -8.0);
}

void TestSignificance::coverageOfAKnownRatio() {
    // The true ratio of medians is 0.8; a 95 % interval should hold it in about 95 % of trials
    // (the percentile bootstrap of a median runs a little under with small samples).
    constexpr int kTrials = 200;
    int covered = 0;
    for (int t = 0; t < kTrials; ++t) {
        const Comparison c = compareMedians(sample(1.0, 0.03, 60, 5000 + 2 * quint64(t)),
                                            sample(0.8, 0.03, 60, 5001 + 2 * quint64(t)));
        covered += c.low <= 0.8 && 0.8 <= c.high;
    }
    qInfo("the interval held the true ratio in %d of %d trials", covered, kTrials);
    QVERIFY2(covered >= 176, qPrintable(QStringLiteral("%1 of %2").arg(covered).arg(kTrials)));
}

void TestSignificance::tinyShiftUnderTheMinimumEffectIsNoise() {
    // 0.2 % slower, measured on 5000 quiet samples: the interval excludes 1, but the change is
    // under the 0.5 % minimum effect.
    const Comparison c =
        compareMedians(sample(1.0, 0.001, 5000, 11), sample(1.002, 0.001, 5000, 12));
    QVERIFY(c.low > 1.0);
    QCOMPARE(c.verdict, Comparison::Verdict::WithinNoise);
    SignificanceOptions strict;
    strict.minEffect = 0;
    QCOMPARE(compareMedians(sample(1.0, 0.001, 5000, 11), sample(1.002, 0.001, 5000, 12), strict)
                 .verdict,
             Comparison::Verdict::RealChange);
}

void TestSignificance::tooFewSamples_data() {
    QTest::addColumn<int>("oldCount");
    QTest::addColumn<int>("newCount");
    QTest::newRow("none") << 0 << 0;
    QTest::newRow("five new") << 50 << 5;
    QTest::newRow("one old") << 1 << 50;
}

void TestSignificance::tooFewSamples() {
    QFETCH(int, oldCount);
    QFETCH(int, newCount);
    const Comparison c =
        compareMedians(sample(1.0, 0.01, oldCount, 1), sample(0.5, 0.01, newCount, 2));
    QCOMPARE(c.verdict, Comparison::Verdict::TooFewSamples);
    QVERIFY(!c.hasInterval());
    QVERIFY(c.why.contains(QStringLiteral("too few samples")));
    QVERIFY(describeChange(c).startsWith(QStringLiteral("no verdict")));
    QVERIFY(!medianInterval(sample(1.0, 0.01, std::min(oldCount, newCount), 3)).valid);
}

void TestSignificance::identicalSamples() {
    const QVector<double> same(20, 1.5);
    const Comparison c = compareMedians(same, same);
    QCOMPARE(c.verdict, Comparison::Verdict::WithinNoise);
    QCOMPARE(c.ratio, 1.0);
    QCOMPARE(c.low, 1.0);
    QCOMPARE(c.high, 1.0);
    // Constant but different: an interval of one point away from 1.
    const Comparison shifted = compareMedians(same, QVector<double>(20, 3.0));
    QCOMPARE(shifted.verdict, Comparison::Verdict::RealChange);
    QCOMPARE(shifted.ratio, 2.0);
    QCOMPARE(describeSpeedup(compareMedians(QVector<double>(20, 3.0), same)),
             QStringLiteral("2.00\u00d7 faster than baseline (\u00b10.00)"));
}

void TestSignificance::nanAndNonPositiveTimesAreDropped() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QVector<double> old = sample(1.0, 0.01, 30, 4);
    QVector<double> newer = sample(1.2, 0.01, 30, 5);
    const Comparison clean = compareMedians(old, newer);
    old << nan << 0.0 << -1.0 << std::numeric_limits<double>::infinity();
    newer << nan;
    const Comparison dirty = compareMedians(old, newer);
    QCOMPARE(dirty.oldSamples, 30);
    QCOMPARE(dirty.newSamples, 30);
    QCOMPARE(dirty.ratio, clean.ratio);
    QCOMPARE(dirty.low, clean.low);
    QVERIFY(dirty.isRealChange());
    // Only NaN: no verdict, not a crash or a NaN ratio.
    const Comparison none = compareMedians(QVector<double>(10, nan), newer);
    QCOMPARE(none.verdict, Comparison::Verdict::TooFewSamples);
    const MedianInterval m = medianInterval(QVector<double>(10, nan));
    QVERIFY(!m.valid);
    QCOMPARE(m.samples, 0);
}

void TestSignificance::reproducibleWithTheSeed() {
    const QVector<double> a = sample(1.0, 0.05, 40, 21);
    const QVector<double> b = sample(1.03, 0.05, 40, 22);
    const Comparison first = compareMedians(a, b);
    const Comparison second = compareMedians(a, b);
    QCOMPARE(first.low, second.low);
    QCOMPARE(first.high, second.high);
    SignificanceOptions other;
    other.seed = 99;
    const Comparison reseeded = compareMedians(a, b, other);
    QCOMPARE(reseeded.ratio, first.ratio);
    QVERIFY(reseeded.low != first.low || reseeded.high != first.high);
}

void TestSignificance::medianIntervalOrderStatistics() {
    // n = 6: P(X = 0) = 1/64 <= 2.5 % and P(X <= 1) = 7/64 > 2.5 %: the extremes.
    const MedianInterval six = medianInterval({6, 1, 5, 2, 4, 3});
    QVERIFY(six.valid);
    QCOMPARE(six.medianMs, 3.5);
    QCOMPARE(six.lowMs, 1.0);
    QCOMPARE(six.highMs, 6.0);
    // n = 20: the textbook ranks are the 6th and the 15th (P(X <= 5) = 2.07 %).
    QVector<double> twenty;
    for (int i = 20; i >= 1; --i)
        twenty << double(i);
    const MedianInterval m = medianInterval(twenty);
    QCOMPARE(m.lowMs, 6.0);
    QCOMPARE(m.highMs, 15.0);
    QCOMPARE(m.medianMs, 10.5);
    QVERIFY(!medianInterval({1, 2, 3, 4, 5}).valid);
}

void TestSignificance::medianIntervalCoverage() {
    // The median of the skewed distribution is 1 + 0.1 ln 2.
    const double trueMedian = 1.0 + 0.1 * std::log(2.0);
    constexpr int kTrials = 300;
    int covered = 0;
    for (int t = 0; t < kTrials; ++t) {
        const MedianInterval m = medianInterval(skewed(1.0, 0.1, 40, 700 + quint64(t)));
        covered += m.lowMs <= trueMedian && trueMedian <= m.highMs;
    }
    qInfo("the median's interval held the true median in %d of %d trials", covered, kTrials);
    // At least 95 % by construction (96.2 % for n = 40); allow the trials' own spread.
    QVERIFY2(covered >= 276, qPrintable(QStringLiteral("%1 of %2").arg(covered).arg(kTrials)));
}

void TestSignificance::describedForThePerson_data() {
    QTest::addColumn<double>("ratio");
    QTest::addColumn<double>("low");
    QTest::addColumn<double>("high");
    QTest::addColumn<bool>("real");
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("speedup");
    QTest::newRow("faster, real") << 0.877 << 0.869 << 0.885 << true
                                  << QStringLiteral("\u221212.3 % (\u00b10.8 %), a real change")
                                  << QStringLiteral("1.14\u00d7 faster than baseline (\u00b10.01)");
    QTest::newRow("slower, noise")
        << 1.002 << 0.993 << 1.011 << false << QStringLiteral("+0.2 % (\u00b10.9 %), within noise")
        << QStringLiteral("the same as baseline within noise (1.00\u00d7, \u00b10.01)");
    QTest::newRow("slower, real") << 1.5 << 1.45 << 1.55 << true
                                  << QStringLiteral("+50.0 % (\u00b15.0 %), a real change")
                                  << QStringLiteral("1.50\u00d7 slower than baseline (\u00b10.05)");
}

void TestSignificance::describedForThePerson() {
    QFETCH(double, ratio);
    QFETCH(double, low);
    QFETCH(double, high);
    QFETCH(bool, real);
    Comparison c;
    c.ratio = ratio;
    c.low = low;
    c.high = high;
    c.verdict = real ? Comparison::Verdict::RealChange : Comparison::Verdict::WithinNoise;
    QTEST(describeChange(c), "change");
    QTEST(describeSpeedup(c), "speedup");
}

KERNELPAD_TEST_GUILESS_MAIN(TestSignificance)
} // namespace tst_significance
#include "tst_significance.moc"
