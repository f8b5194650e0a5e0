// Timing statistics (computeStats) and the TimingSpec/TimingStats JSON forms.

#include "../support/TestMain.h"
#include "core/run/Timing.h"

#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <limits>

namespace tst_statistics {

using namespace kernelpad;

class TestStatistics : public QObject {
    Q_OBJECT

private slots:
    void stats_data();
    void stats();
    void emptyInputGivesZeros();
    void nonFiniteTimesAreLeftOut();
    void bandwidthAndGflopsUnits();
    void inputOrderIsKept();
    void specValidation_data();
    void specValidation();
    void specJsonRoundTrip();
    void specJsonRejectsWrongTypes_data();
    void specJsonRejectsWrongTypes();
    void statsJsonRoundTrip();
};

void TestStatistics::stats_data() {
    QTest::addColumn<QVector<double>>("times");
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("median");
    QTest::addColumn<double>("mean");
    QTest::addColumn<double>("max");
    QTest::addColumn<double>("stddev");

    // Each row's expected values are worked out by hand in the comment next to it.
    // Single sample: every location statistic is the sample, no spread.
    QTest::newRow("single sample") << QVector<double>{2.5} << 2.5 << 2.5 << 2.5 << 2.5 << 0.0;
    // 3,1,2 -> sorted 1,2,3; mean 2; squares 1+0+1 = 2; var 2/2 = 1.
    QTest::newRow("odd count unsorted")
        << QVector<double>{3, 1, 2} << 1.0 << 2.0 << 2.0 << 3.0 << 1.0;
    // 4,1,3,2 -> sorted 1,2,3,4; median (2+3)/2; mean 2.5; squares 2.25+.25+.25+2.25 = 5;
    // var 5/3.
    QTest::newRow("even count: mean of middle two")
        << QVector<double>{4, 1, 3, 2} << 1.0 << 2.5 << 2.5 << 4.0 << std::sqrt(5.0 / 3.0);
    // Two samples 1 and 3: mean 2, squares 1+1 = 2, var 2/1.
    QTest::newRow("two samples") << QVector<double>{1, 3} << 1.0 << 2.0 << 2.0 << 3.0
                                 << std::sqrt(2.0);
    // 2,4,4,4,5,5,7,9: the textbook set; mean 5, squares 9+1+1+1+0+0+4+16 = 32, var 32/7.
    QTest::newRow("textbook set") << QVector<double>{2, 4, 4, 4, 5, 5, 7, 9} << 2.0 << 4.5 << 5.0
                                  << 9.0 << std::sqrt(32.0 / 7.0);
    // An outlier moves the mean but not the median.
    QTest::newRow("outlier") << QVector<double>{1, 1, 1, 1, 96} << 1.0 << 1.0 << 20.0 << 96.0
                             << std::sqrt((4 * 19.0 * 19.0 + 76.0 * 76.0) / 4.0);
    QTest::newRow("identical samples")
        << QVector<double>(7, 0.125) << 0.125 << 0.125 << 0.125 << 0.125 << 0.0;
}

void TestStatistics::stats() {
    QFETCH(QVector<double>, times);
    QFETCH(double, min);
    QFETCH(double, median);
    QFETCH(double, mean);
    QFETCH(double, max);
    QFETCH(double, stddev);

    const TimingStats s = computeStats(times);
    QCOMPARE(s.reps(), times.size());
    QCOMPARE(s.minMs, min);
    QCOMPARE(s.medianMs, median);
    QCOMPARE(s.meanMs, mean);
    QCOMPARE(s.maxMs, max);
    QVERIFY2(std::abs(s.stddevMs - stddev) < 1e-12,
             qPrintable(QStringLiteral("stddev %1, expected %2").arg(s.stddevMs).arg(stddev)));
    QVERIFY(std::abs(s.relNoise - stddev / mean) < 1e-12);
    QCOMPARE(s.bandwidthGBs, 0.0);
    QCOMPARE(s.gflops, 0.0);
}

void TestStatistics::emptyInputGivesZeros() {
    const TimingStats s = computeStats({}, 1000, 1000);
    QCOMPARE(s.reps(), 0);
    for (double v :
         {s.minMs, s.medianMs, s.meanMs, s.maxMs, s.stddevMs, s.relNoise, s.bandwidthGBs, s.gflops})
        QCOMPARE(v, 0.0);
}

void TestStatistics::nonFiniteTimesAreLeftOut() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const TimingStats s = computeStats({nan, 1.0, inf, 3.0, nan});
    QCOMPARE(s.reps(), 2);
    QCOMPARE(s.timesMs, (QVector<double>{1.0, 3.0}));
    QCOMPARE(s.medianMs, 2.0);
    QCOMPARE(s.meanMs, 2.0);

    const TimingStats none = computeStats({nan, nan}, 100);
    QCOMPARE(none.reps(), 0);
    QCOMPARE(none.meanMs, 0.0);
    QCOMPARE(none.bandwidthGBs, 0.0);
}

void TestStatistics::bandwidthAndGflopsUnits() {
    // 1 GB in a median of 1 ms is 1000 GB/s; 2e9 FLOP in 1 ms is 2e12 FLOP/s = 2000 GFLOP/s.
    const TimingStats s = computeStats({0.5, 1.0, 4.0}, qint64(1000000000), 2e9);
    QCOMPARE(s.medianMs, 1.0);
    QCOMPARE(s.bytesMoved, qint64(1000000000));
    QVERIFY(std::abs(s.bandwidthGBs - 1000.0) < 1e-9);
    QVERIFY(std::abs(s.gflops - 2000.0) < 1e-9);

    // 12 MiB (SAXPY on 1M floats: 2 reads + 1 write) in 25 us.
    const qint64 bytes = 3 * 4 * (1 << 20);
    const TimingStats saxpy = computeStats({0.025}, bytes);
    QVERIFY(std::abs(saxpy.bandwidthGBs - bytes / 25e-6 / 1e9) < 1e-9);
    QCOMPARE(saxpy.gflops, 0.0);
}

void TestStatistics::inputOrderIsKept() {
    // The chart plots repetitions in the order they ran; only the median uses a sorted copy.
    const QVector<double> times{5, 1, 4, 2, 3};
    QCOMPARE(computeStats(times).timesMs, times);
}

void TestStatistics::specValidation_data() {
    QTest::addColumn<int>("warmup");
    QTest::addColumn<int>("reps");
    QTest::addColumn<int>("limitMs");
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<double>("flops");
    QTest::addColumn<QString>("field"); // empty: valid

    QTest::newRow("defaults") << 3 << 20 << 10000 << qint64(0) << 0.0 << QString();
    QTest::newRow("no warm-up, one rep") << 0 << 1 << 100 << qint64(0) << 0.0 << QString();
    QTest::newRow("max reps") << 0 << 100000 << 100 << qint64(0) << 0.0 << QString();
    QTest::newRow("negative warm-up") << -1 << 20 << 10000 << qint64(0) << 0.0 << "warmupLaunches";
    QTest::newRow("zero reps") << 3 << 0 << 10000 << qint64(0) << 0.0 << "repetitions";
    QTest::newRow("too many reps") << 3 << 100001 << 10000 << qint64(0) << 0.0 << "repetitions";
    QTest::newRow("limit too short") << 3 << 20 << 99 << qint64(0) << 0.0 << "timeLimitMs";
    QTest::newRow("negative bytes") << 3 << 20 << 10000 << qint64(-1) << 0.0 << "bytesOverride";
    QTest::newRow("negative flops") << 3 << 20 << 10000 << qint64(0) << -1.0 << "flopsPerLaunch";
}

void TestStatistics::specValidation() {
    QFETCH(int, warmup);
    QFETCH(int, reps);
    QFETCH(int, limitMs);
    QFETCH(qint64, bytes);
    QFETCH(double, flops);
    QFETCH(QString, field);

    TimingSpec spec;
    spec.warmupLaunches = warmup;
    spec.repetitions = reps;
    spec.timeLimitMs = limitMs;
    spec.bytesOverride = bytes;
    spec.flopsPerLaunch = flops;
    const QString message = spec.validate();
    if (field.isEmpty()) {
        QVERIFY2(message.isEmpty(), qPrintable(message));
    } else {
        QVERIFY2(message.contains(field), qPrintable(message));
        // The same rule applies when the spec is read from a project file.
        QString error;
        QVERIFY(!TimingSpec::fromJson(spec.toJson(), &error));
        QVERIFY2(error.contains(field), qPrintable(error));
    }
}

void TestStatistics::specJsonRoundTrip() {
    TimingSpec plain;
    const QJsonObject plainJson = plain.toJson();
    QVERIFY(!plainJson.contains(QLatin1String("bytesOverride")));
    QVERIFY(!plainJson.contains(QLatin1String("flopsPerLaunch")));
    QCOMPARE(plainJson.value(QLatin1String("repetitions")).toInt(), TimingSpec().repetitions);

    TimingSpec full;
    full.warmupLaunches = 0;
    full.repetitions = 500;
    full.bytesOverride = qint64(3) << 40; // above 2^32: must survive the double in JSON
    full.flopsPerLaunch = 2.5e12;
    full.timeLimitMs = 600000;
    full.mode = TimingSpec::Mode::Cold;
    full.adaptive = false;
    full.targetNoise = 0.02;
    full.minTimeMs = 10;
    full.maxTimeMs = 5000;
    full.blockingKernel = false;
    QString error;
    const std::optional<TimingSpec> back = TimingSpec::fromJson(full.toJson(), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(*back == full);
    QVERIFY(!(*back == plain));

    // Missing keys keep their defaults: samples are queued behind the blocking kernel.
    const std::optional<TimingSpec> empty = TimingSpec::fromJson(QJsonObject{}, &error);
    QVERIFY(empty && *empty == plain);
    QVERIFY(empty->blockingKernel);
    TimingSpec unblocked;
    unblocked.blockingKernel = false;
    QVERIFY(!(unblocked == plain)); // a project whose only edit is this one is modified
}

void TestStatistics::specJsonRejectsWrongTypes_data() {
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<QString>("field");
    QTest::newRow("reps as string") << QJsonObject{{"repetitions", "20"}} << "repetitions";
    QTest::newRow("fractional warm-up") << QJsonObject{{"warmupLaunches", 1.5}} << "warmupLaunches";
    QTest::newRow("flops as bool") << QJsonObject{{"flopsPerLaunch", true}} << "flopsPerLaunch";
    QTest::newRow("bytes as array")
        << QJsonObject{{"bytesOverride", QJsonArray{1}}} << "bytesOverride";
    QTest::newRow("blocking as number") << QJsonObject{{"blockingKernel", 1}} << "blockingKernel";
    QTest::newRow("adaptive as string") << QJsonObject{{"adaptive", "yes"}} << "adaptive";
}

void TestStatistics::specJsonRejectsWrongTypes() {
    QFETCH(QJsonObject, json);
    QFETCH(QString, field);
    QString error;
    QVERIFY(!TimingSpec::fromJson(json, &error));
    QVERIFY2(error.contains(field), qPrintable(error));
}

void TestStatistics::statsJsonRoundTrip() {
    const TimingStats s = computeStats({0.5, 0.25, 0.75, 1.0}, 4096, 1e6);
    const QJsonObject json = s.toJson();
    for (const char* key : {"reps", "timesMs", "minMs", "medianMs", "meanMs", "maxMs", "stddevMs",
                            "relNoise", "bytesMoved", "bandwidthGBs", "flopsPerLaunch", "gflops"})
        QVERIFY2(json.contains(QLatin1String(key)), key);
    QCOMPARE(json.value(QLatin1String("reps")).toInt(), 4);

    QString error;
    const std::optional<TimingStats> back = TimingStats::fromJson(json, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->timesMs, s.timesMs);
    QCOMPARE(back->medianMs, s.medianMs);
    QCOMPARE(back->stddevMs, s.stddevMs);
    QCOMPARE(back->bytesMoved, s.bytesMoved);
    QCOMPARE(back->bandwidthGBs, s.bandwidthGBs);
    QCOMPARE(back->gflops, s.gflops);
    QVERIFY(!back->blockingKernel);
    QCOMPARE(back->blockingTimeouts, 0);

    TimingStats blocked = s;
    blocked.blockingKernel = true;
    blocked.blockingTimeouts = 3;
    const std::optional<TimingStats> blockedBack = TimingStats::fromJson(blocked.toJson(), &error);
    QVERIFY2(blockedBack, qPrintable(error));
    QVERIFY(blockedBack->blockingKernel);
    QCOMPARE(blockedBack->blockingTimeouts, 3);

    // NaN is not JSON: it is written as null and read back as NaN.
    TimingStats odd = s;
    odd.relNoise = std::numeric_limits<double>::quiet_NaN();
    const QJsonObject oddJson = odd.toJson();
    QVERIFY(oddJson.value(QLatin1String("relNoise")).isNull());
    const std::optional<TimingStats> oddBack = TimingStats::fromJson(oddJson, &error);
    QVERIFY2(oddBack, qPrintable(error));
    QVERIFY(std::isnan(oddBack->relNoise));
}

KERNELPAD_TEST_GUILESS_MAIN(TestStatistics)
} // namespace tst_statistics
#include "tst_statistics.moc"
