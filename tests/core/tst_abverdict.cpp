// The verdict of an interleaved A/B comparison (core/run/AbVerdict.h), on synthetic blocks whose
// answer is known: the same distribution, a 3 % shift at 1 % noise, drift between blocks, and
// arms run at different clocks, temperatures or throttled.

#include "../support/TestMain.h"
#include "core/run/AbVerdict.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <random>

namespace tst_abverdict {

using namespace kernelpad;

namespace {

constexpr int kBlocks = 16;
constexpr int kPerBlock = 50;

/// ABBA blocks of both arms: A around `aMs`, B around `bMs`, relative normal noise `noise`,
/// every block of both arms scaled by (1 + drift * blockPair) to model a GPU warming up.
AbSamples interleaved(double aMs, double bMs, double noise, quint64 seed, double drift = 0,
                      int perBlock = kPerBlock) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, noise);
    AbSamples s;
    for (int block = 0; block < kBlocks; ++block) {
        const double scale = 1.0 + drift * double(block / 2);
        const bool bFirst = block % 2 == 1; // ABBA: pairs alternate their order
        for (int arm = 0; arm < 2; ++arm) {
            const bool isB = (arm == 0) == bFirst;
            QVector<double> times;
            for (int i = 0; i < perBlock; ++i)
                times.append((isB ? bMs : aMs) * scale * (1.0 + normal(rng)));
            (isB ? s.bBlocksMs : s.aBlocksMs).append(times);
        }
    }
    const AbConditions same{1980, 2619, 45.0, false, {}};
    s.a = same;
    s.b = same;
    return s;
}

/// `blocks` ABBA blocks of `perBlock` launches, A around `aMs` and B around `bMs`, both scaled
/// by `deviceScale` (one device slower than another for both arms), relative noise `noise`.
AbSamples onDevice(double aMs, double bMs, double noise, quint64 seed, int blocks, int perBlock,
                   double deviceScale) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, noise);
    AbSamples s;
    for (int block = 0; block < blocks; ++block) {
        const bool isB = block % 4 == 1 || block % 4 == 2; // A B B A
        QVector<double> times;
        for (int i = 0; i < perBlock; ++i)
            times.append((isB ? bMs : aMs) * deviceScale * (1.0 + normal(rng)));
        (isB ? s.bBlocksMs : s.aBlocksMs).append(times);
    }
    const AbConditions same{1980, 2619, 45.0, false, {}};
    s.a = same;
    s.b = same;
    return s;
}

AbVerdict withInterval(double ratio, double low, double high) {
    AbVerdict v;
    v.kind = AbVerdict::Kind::Faster;
    v.ratio = ratio;
    v.low = low;
    v.high = high;
    v.medianAMs = 1.0;
    v.medianBMs = ratio;
    v.samplesA = v.samplesB = 100;
    return v;
}

} // namespace

class TestAbVerdict : public QObject {
    Q_OBJECT
private slots:
    void sameDistributionHasNoDifference();
    void aaComparisonsRarelyCallADifference();
    void threePercentShiftIsDetected();
    void fasterIsNamedFromB();
    void driftBetweenBlocksDoesNotWidenTheInterval();
    void differentConditionsAreRefused_data();
    void differentConditionsAreRefused();
    void closeConditionsAreCompared();
    void withoutTelemetryTheTemperatureIsNotChecked();
    void tooFewLaunches();
    void reproducibleWithTheSeed();
    void manyLaunchesAreThinnedForTheInterval();
    void theIntervalDoesNotDependOnTheThreads();
    void jsonCarriesTheFigures();
    void twoDevicesCoverAsOftenAsOne();
    void pooledDevicesNarrowTheInterval();
    void devicesThatDisagreeWidenIt();
};

void TestAbVerdict::sameDistributionHasNoDifference() {
    const AbVerdict v = abVerdict(interleaved(0.020, 0.020, 0.01, 1));
    QCOMPARE(v.kind, AbVerdict::Kind::NoDifference);
    QVERIFY2(v.low <= 1.0 && v.high >= 1.0, qPrintable(v.text()));
    QVERIFY2(v.halfWidthPercent() < 0.5, qPrintable(v.text()));
    QVERIFY2(v.text().startsWith(QStringLiteral("no detectable difference at \u00b10.")),
             qPrintable(v.text()));
    QVERIFY(v.caveat.isEmpty());
}

void TestAbVerdict::aaComparisonsRarelyCallADifference() {
    AbOptions quick; // fewer resamples: 40 comparisons in a unit test
    quick.resamples = 500;
    int noDifference = 0;
    for (int seed = 100; seed < 140; ++seed)
        noDifference += abVerdict(interleaved(0.020, 0.020, 0.01, quint64(seed)), quick).kind ==
                        AbVerdict::Kind::NoDifference;
    QVERIFY2(noDifference >= 38, qPrintable(QStringLiteral("%1 of 40").arg(noDifference)));
}

void TestAbVerdict::threePercentShiftIsDetected() {
    // Every one of 40 comparisons says slower; a 95 % interval covers the true 3 % in about
    // 38 of them (at least 34 allows for the bootstrap's own coarseness and chance).
    AbOptions quick; // fewer resamples: 40 comparisons in a unit test
    quick.resamples = 500;
    int covered = 0;
    for (quint64 seed = 200; seed < 240; ++seed) {
        const AbVerdict v = abVerdict(interleaved(0.020, 0.0206, 0.01, seed), quick);
        QVERIFY2(v.kind == AbVerdict::Kind::Slower, qPrintable(v.text()));
        QVERIFY2(QRegularExpression(QStringLiteral("^B is [23]\\.\\d % slower \\(95 % interval "))
                     .match(v.text())
                     .hasMatch(),
                 qPrintable(v.text()));
        covered += v.low <= 1.03 && v.high >= 1.03;
    }
    QVERIFY2(covered >= 34,
             qPrintable(QStringLiteral("%1 of 40 intervals cover 1.03").arg(covered)));
}

void TestAbVerdict::fasterIsNamedFromB() {
    const AbVerdict v = abVerdict(interleaved(0.020, 0.0194, 0.01, 3));
    QCOMPARE(v.kind, AbVerdict::Kind::Faster);
    QVERIFY(v.ratio < 1.0);
    QVERIFY2(v.text().startsWith(QStringLiteral("B is 3.")) &&
                 v.text().contains(QStringLiteral("% faster")),
             qPrintable(v.text()));
}

void TestAbVerdict::driftBetweenBlocksDoesNotWidenTheInterval() {
    // 2 % per block pair: the last pair runs 14 % slower than the first, both arms alike.
    const AbVerdict quiet = abVerdict(interleaved(0.020, 0.0206, 0.01, 5));
    const AbVerdict drifting = abVerdict(interleaved(0.020, 0.0206, 0.01, 5, 0.02));
    QCOMPARE(drifting.kind, AbVerdict::Kind::Slower);
    QVERIFY2(drifting.low <= 1.03 && drifting.high >= 1.03,
             qPrintable(QStringLiteral("[%1, %2]").arg(drifting.low).arg(drifting.high)));
    // The drift is shared by both arms: the ratio stays where the quiet comparison puts it.
    QVERIFY2(std::abs(drifting.ratio - quiet.ratio) < 0.01,
             qPrintable(QStringLiteral("%1 vs %2").arg(drifting.ratio).arg(quiet.ratio)));
}

void TestAbVerdict::differentConditionsAreRefused_data() {
    QTest::addColumn<AbConditions>("b");
    QTest::addColumn<QString>("reason");
    QTest::newRow("sm clock 11 percent lower")
        << AbConditions{1755, 2619, 45.0, false, {}}
        << QStringLiteral("cannot compare: A ran at 1980 MHz, B at 1755 MHz (SM clock)");
    QTest::addRow("8 degrees warmer")
        << AbConditions{1980, 2619, 53.0, false, {}}
        << QStringLiteral("cannot compare: A ran at 45 °C, B at 53 °C");
    QTest::addRow("b throttled") << AbConditions{1980, 2619, 45.0, true,
                                                 QStringLiteral("power cap")}
                                 << QStringLiteral("cannot compare: B throttled (power cap)");
}

void TestAbVerdict::differentConditionsAreRefused() {
    QFETCH(AbConditions, b);
    QFETCH(QString, reason);
    AbSamples s = interleaved(0.020, 0.0206, 0.01, 7);
    s.b = b;
    const AbVerdict v = abVerdict(s);
    QCOMPARE(v.kind, AbVerdict::Kind::Refused);
    QCOMPARE(v.reason, reason);
    QCOMPARE(v.text(), reason);
    QVERIFY(!v.hasVerdict());
    // The figures are still there for the person who wants to look.
    QVERIFY(v.hasInterval());
}

void TestAbVerdict::closeConditionsAreCompared() {
    AbSamples s = interleaved(0.020, 0.020, 0.01, 8);
    s.b.smClockMHz = 1995; // 0.8 % above A's 1980
    s.b.temperatureC = 49.0;
    QCOMPARE(abVerdict(s).kind, AbVerdict::Kind::NoDifference);
    // Both arms at the power cap, at the same clock: compared, with the condition named.
    AbSamples capped = interleaved(0.020, 0.0206, 0.01, 8);
    for (AbConditions* c : {&capped.a, &capped.b}) {
        c->smClockMHz = 1530;
        c->throttled = true;
        c->throttleReasons = QStringLiteral("sw power cap");
    }
    const AbVerdict v = abVerdict(capped);
    QCOMPARE(v.kind, AbVerdict::Kind::Slower);
    QCOMPARE(v.caveat, QStringLiteral("both arms throttled (sw power cap)"));
}

void TestAbVerdict::withoutTelemetryTheTemperatureIsNotChecked() {
    TimingStats timing;
    timing.smClockMHz = 1980;
    timing.memClockMHz = 2619;
    AbSamples s = interleaved(0.020, 0.020, 0.01, 9);
    s.a = AbConditions::fromTiming(timing);
    s.b = AbConditions::fromTiming(timing);
    const AbVerdict v = abVerdict(s);
    QCOMPARE(v.kind, AbVerdict::Kind::NoDifference);
    QCOMPARE(v.caveat, QStringLiteral("temperature was not checked: no telemetry"));
    QVERIFY(v.text().endsWith(QStringLiteral("; temperature was not checked: no telemetry")));
    // A plain measurement's throttled samples refuse it too.
    timing.throttledSamples = 12;
    s.b = AbConditions::fromTiming(timing);
    const AbVerdict refused = abVerdict(s);
    QCOMPARE(refused.kind, AbVerdict::Kind::Refused);
    QVERIFY2(refused.reason.startsWith(QStringLiteral("cannot compare: B throttled (SM clock")),
             qPrintable(refused.reason));
}

void TestAbVerdict::tooFewLaunches() {
    AbSamples s;
    s.aBlocksMs = {{1.0, 1.1, 1.2}, {1.0, 1.1}};
    s.bBlocksMs = {{1.0, 1.1, 1.2, 1.0, 1.1, 1.2}};
    const AbVerdict v = abVerdict(s);
    QCOMPARE(v.kind, AbVerdict::Kind::TooFewSamples);
    QCOMPARE(v.reason, QStringLiteral("too few launches: A 5, B 6 (at least 6 each)"));
    QVERIFY(!v.hasInterval());
}

void TestAbVerdict::reproducibleWithTheSeed() {
    const AbSamples s = interleaved(0.020, 0.0203, 0.01, 11);
    const AbVerdict first = abVerdict(s);
    const AbVerdict second = abVerdict(s);
    QCOMPARE(first.low, second.low);
    QCOMPARE(first.high, second.high);
    AbOptions other;
    other.seed = 42;
    QVERIFY(abVerdict(s, other).low != first.low);
}

void TestAbVerdict::manyLaunchesAreThinnedForTheInterval() {
    // 16 blocks of 2000 launches per arm: 32,000, over the 5000 the bootstrap takes.
    const AbSamples s = interleaved(0.020, 0.0206, 0.01, 13, 0, 2000);
    const AbVerdict v = abVerdict(s);
    QCOMPARE(v.samplesA, kBlocks * 2000);
    QCOMPARE(v.kind, AbVerdict::Kind::Slower);
    QVERIFY2(v.low <= 1.03 && v.high >= 1.03, qPrintable(v.text()));
    // Every launch would give a narrower interval, not a different answer.
    AbOptions all;
    all.maxBootstrapLaunches = 1 << 30;
    all.resamples = 300;
    const AbVerdict full = abVerdict(s, all);
    QCOMPARE(full.ratio, v.ratio);
    QVERIFY(full.halfWidthPercent() <= v.halfWidthPercent() * 1.2);
    QVERIFY(full.low <= 1.03 && full.high >= 1.03);
}

/// The resamples are drawn in seeded chunks: one thread, three or sixteen draw the same ratios,
/// for a comparison small enough to stay on the caller's thread by default and for one of many
/// launches.
void TestAbVerdict::theIntervalDoesNotDependOnTheThreads() {
    for (int launches : {50, 2000}) {
        const AbSamples s = interleaved(0.020, 0.0203, 0.01, 17, 0, launches);
        AbOptions options;
        options.threads = 1;
        const AbVerdict one = abVerdict(s, options);
        for (int threads : {3, 16, 0}) {
            options.threads = threads;
            const AbVerdict many = abVerdict(s, options);
            QCOMPARE(many.low, one.low);
            QCOMPARE(many.high, one.high);
            QCOMPARE(many.ratio, one.ratio);
        }
        // Another seed draws other resamples, whatever the threads.
        options.seed = 99;
        QVERIFY(abVerdict(s, options).low != one.low || abVerdict(s, options).high != one.high);
    }
}

void TestAbVerdict::jsonCarriesTheFigures() {
    const AbVerdict v = abVerdict(interleaved(0.020, 0.0206, 0.01, 12));
    const QJsonObject o = v.toJson();
    QCOMPARE(o.value(QStringLiteral("verdict")).toString(), QStringLiteral("slower"));
    QCOMPARE(o.value(QStringLiteral("ratio")).toDouble(), v.ratio);
    QCOMPARE(o.value(QStringLiteral("interval")).toArray().at(1).toDouble(), v.high);
    QCOMPARE(o.value(QStringLiteral("a")).toObject().value(QStringLiteral("samples")).toInt(),
             kBlocks * kPerBlock);
}

/// The pooling's coverage (poolAbVerdicts): 200 seeded comparisons of a true ratio of 0.98 at 3 %
/// noise, each once on one device with 16 blocks and once on two devices with 8 blocks each (the
/// second device 1 % slower for both arms); the pooled interval holds the true ratio about as
/// often as the one device's, and is about as wide.
void TestAbVerdict::twoDevicesCoverAsOftenAsOne() {
    constexpr int kTrials = 200;
    constexpr double kTrue = 0.98;
    AbOptions quick; // 600 verdicts in a unit test
    quick.resamples = 400;
    int coveredOne = 0, coveredTwo = 0;
    double widthOne = 0, widthTwo = 0;
    for (int trial = 0; trial < kTrials; ++trial) {
        const quint64 seed = 1000 + quint64(trial) * 3;
        quick.seed = seed;
        const AbVerdict one = abVerdict(onDevice(1.0, kTrue, 0.03, seed, 16, 40, 1.0), quick);
        const AbVerdict first = abVerdict(onDevice(1.0, kTrue, 0.03, seed + 1, 8, 40, 1.0), quick);
        const AbVerdict second =
            abVerdict(onDevice(1.0, kTrue, 0.03, seed + 2, 8, 40, 1.01), quick);
        const AbVerdict two = poolAbVerdicts({first, second}, quick);
        QVERIFY2(two.hasVerdict(), qPrintable(two.reason));
        coveredOne += one.low <= kTrue && kTrue <= one.high ? 1 : 0;
        coveredTwo += two.low <= kTrue && kTrue <= two.high ? 1 : 0;
        widthOne += one.high - one.low;
        widthTwo += two.high - two.low;
    }
    const double coverageOne = double(coveredOne) / kTrials;
    const double coverageTwo = double(coveredTwo) / kTrials;
    const QString figures = QStringLiteral("coverage one device %1, two %2; mean width %3, %4")
                                .arg(coverageOne)
                                .arg(coverageTwo)
                                .arg(widthOne / kTrials)
                                .arg(widthTwo / kTrials);
    qInfo("%s", qPrintable(figures));
    QVERIFY2(std::abs(coverageTwo - coverageOne) <= 0.05, qPrintable(figures));
    QVERIFY2(coverageTwo >= 0.88, qPrintable(figures));
    QVERIFY2(widthTwo < 1.25 * widthOne && widthTwo > 0.8 * widthOne, qPrintable(figures));
}

/// Two devices with the same estimate: the same ratio, an interval narrower by about √2.
void TestAbVerdict::pooledDevicesNarrowTheInterval() {
    const AbVerdict one = withInterval(0.97, 0.965, 0.975);
    const AbVerdict two = poolAbVerdicts({one, one});
    QCOMPARE(two.kind, AbVerdict::Kind::Faster);
    QVERIFY2(std::abs(two.ratio - 0.97) < 1e-4, qPrintable(two.text()));
    const double narrowing =
        (std::log(two.high) - std::log(two.low)) / (std::log(one.high) - std::log(one.low));
    QVERIFY2(std::abs(narrowing - 1.0 / std::sqrt(2.0)) < 0.01,
             qPrintable(QString::number(narrowing)));
    QCOMPARE(two.samplesA, 200);
    // A device without a verdict is left out; none with one: no verdict.
    AbVerdict refused;
    refused.kind = AbVerdict::Kind::Refused;
    QCOMPARE(poolAbVerdicts({one, refused}).ratio, one.ratio);
    QCOMPARE(poolAbVerdicts({refused}).kind, AbVerdict::Kind::TooFewSamples);
}

/// Devices whose ratios differ beyond their own intervals (0.96 and 0.98, each ±0.2 %): the
/// pooled interval spans both instead of a fixed-effect ±0.15 % around 0.97.
void TestAbVerdict::devicesThatDisagreeWidenIt() {
    const AbVerdict two =
        poolAbVerdicts({withInterval(0.96, 0.958, 0.962), withInterval(0.98, 0.978, 0.982)});
    QVERIFY2(two.low < 0.962 && two.high > 0.978, qPrintable(two.text()));
    QVERIFY2(std::abs(two.ratio - 0.97) < 0.001, qPrintable(two.text()));
}

KERNELPAD_TEST_GUILESS_MAIN(TestAbVerdict)
} // namespace tst_abverdict
#include "tst_abverdict.moc"
