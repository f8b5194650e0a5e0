// The plan of an interleaved A/B comparison (core/run/AbRun.h) without a GPU: the ABBA order,
// the block size, B's arguments against A's, when it stops, and the result's JSON.

#include "../support/DrivenAb.h"
#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/run/AbRun.h"

#include <QJsonArray>
#include <QtTest>

#include <cmath>
#include <random>

namespace tst_abrun {

using namespace kernelpad;

namespace {

Project saxpy() {
    QString error;
    std::optional<Project> p = Project::load(
        QStringLiteral(KERNELPAD_SOURCE_DIR "/resources/examples/saxpy.kpad"), &error);
    if (!p)
        qFatal("saxpy.kpad: %s", qPrintable(error));
    return *p;
}

TimingStats block(double medianMs, quint64 seed, int n = 50, int smClockMHz = 1980) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 0.01);
    TimingStats t;
    for (int i = 0; i < n; ++i)
        t.timesMs.append(medianMs * (1.0 + normal(rng)));
    t.smClockMHz = smClockMHz;
    t.memClockMHz = 2619;
    return t;
}

} // namespace

class TestAbRun : public QObject {
    Q_OBJECT
private slots:
    void scheduleIsAbbaInRandomOrder();
    void scheduleFollowsTheSeed();
    void blockSizeFollowsTheMedian_data();
    void blockSizeFollowsTheMedian();
    void matchingArgumentsPass();
    void firstArgumentDifferenceIsNamed_data();
    void firstArgumentDifferenceIsNamed();
    void stopsWhenTheIntervalIsNarrow();
    void stopsAtTheBudgetOrTheCap();
    void stopsWhenTheClocksDiffer();
    void settingsAreValidated();
    void resultJson();
    void eachDeviceTakesItsShare();
    void devicesArePooled();
    void knownMediansSkipTheVerifiedRuns_data();
    void knownMediansSkipTheVerifiedRuns();
};

void TestAbRun::scheduleIsAbbaInRandomOrder() {
    AbSchedule schedule(7);
    int abba = 0;
    int baab = 0;
    for (int group = 0; group < 50; ++group) {
        QString order;
        for (int i = 0; i < 4; ++i)
            order += schedule.next() == AbArm::A ? QLatin1Char('A') : QLatin1Char('B');
        QVERIFY2(order == QLatin1String("ABBA") || order == QLatin1String("BAAB"),
                 qPrintable(order));
        (order == QLatin1String("ABBA") ? abba : baab) += 1;
    }
    // Both orders occur: neither arm always runs first.
    QVERIFY2(abba >= 10 && baab >= 10, qPrintable(QStringLiteral("%1 / %2").arg(abba).arg(baab)));
}

void TestAbRun::scheduleFollowsTheSeed() {
    AbSchedule one(3), two(3), other(4);
    QString a, b, c;
    for (int i = 0; i < 64; ++i) {
        a += QString::number(int(one.next()));
        b += QString::number(int(two.next()));
        c += QString::number(int(other.next()));
    }
    QCOMPARE(a, b);
    QVERIFY(a != c);
}

void TestAbRun::blockSizeFollowsTheMedian_data() {
    QTest::addColumn<double>("medianMs");
    QTest::addColumn<int>("launches");
    QTest::addRow("5 us kernel: capped") << 0.005 << 2000;
    QTest::addRow("50 us kernel") << 0.05 << 500;
    QTest::addRow("20 ms kernel: the floor") << 20.0 << 10;
    QTest::addRow("unknown median") << 0.0 << 10;
}

void TestAbRun::blockSizeFollowsTheMedian() {
    QFETCH(double, medianMs);
    QFETCH(int, launches);
    QCOMPARE(launchesPerBlock(medianMs, AbSettings{}), launches);
}

void TestAbRun::matchingArgumentsPass() {
    Project a = saxpy();
    Project b = a;
    b.source += QStringLiteral("\n// a variant\n");
    b.launch.block = {128, 1, 1};
    b.timing.repetitions = 99;
    QCOMPARE(abArgumentMismatch(a, b), QString());
}

void TestAbRun::firstArgumentDifferenceIsNamed_data() {
    QTest::addColumn<int>("change");
    QTest::addColumn<QString>("message");
    QTest::addRow("scalar value") << 0
                                  << QStringLiteral(
                                         "arguments[0] (a): value is \"3\" in B, \"2.0\" in A");
    QTest::addRow("missing argument") << 1 << QStringLiteral("B's kernel takes 4 arguments, A's 5");
    QTest::addRow("renamed buffer")
        << 2 << QStringLiteral("arguments[1] (x): name is \"xx\" in B, \"x\" in A");
}

void TestAbRun::firstArgumentDifferenceIsNamed() {
    QFETCH(int, change);
    QFETCH(QString, message);
    const Project a = saxpy();
    QCOMPARE(a.arguments.size(), 5);
    QCOMPARE(a.arguments[0].name, QStringLiteral("a"));
    QCOMPARE(a.arguments[1].name, QStringLiteral("x"));
    Project b = a;
    if (change == 0)
        b.arguments[0].value = QStringLiteral("3");
    else if (change == 1)
        b.arguments.removeLast();
    else
        b.arguments[1].name = QStringLiteral("xx");
    const QString mismatch = abArgumentMismatch(a, b);
    QVERIFY2(mismatch.startsWith(message), qPrintable(mismatch));
}

void TestAbRun::stopsWhenTheIntervalIsNarrow() {
    AbSettings settings;
    settings.targetHalfWidthPercent = 1.0;
    AbAccumulator acc;
    AbSchedule schedule(1);
    quint64 seed = 1;
    QString reason;
    while (reason.isEmpty() && acc.blocks() < 400) {
        const AbArm arm = schedule.next();
        acc.add(arm, block(arm == AbArm::A ? 0.020 : 0.0206, ++seed));
        // Never before a whole group, never before minBlocks.
        reason = acc.stopReason(settings, 0);
        if (!reason.isEmpty())
            QVERIFY(acc.blocks() % 4 == 0 && acc.blocks() >= settings.minBlocks);
    }
    QCOMPARE(reason, QStringLiteral("interval narrower than \u00b11 %"));
    const AbVerdict v = acc.verdict();
    QCOMPARE(v.kind, AbVerdict::Kind::Slower);
    QVERIFY2(v.low <= 1.03 && v.high >= 1.03, qPrintable(v.text()));
    // Without a temperature the verdict says so.
    QCOMPARE(v.caveat, QStringLiteral("temperature was not checked: no telemetry"));
}

void TestAbRun::stopsAtTheBudgetOrTheCap() {
    AbSettings settings;
    settings.targetHalfWidthPercent = 0.001; // never reached
    settings.maxBlocks = 12;
    AbAccumulator acc;
    AbSchedule schedule(2);
    for (int i = 0; i < 8; ++i)
        acc.add(schedule.next(), block(0.02, quint64(i)));
    QCOMPARE(acc.stopReason(settings, 100), QString());
    QCOMPARE(acc.stopReason(settings, settings.budgetMs), QStringLiteral("time budget (10000 ms)"));
    for (int i = 0; i < 4; ++i)
        acc.add(schedule.next(), block(0.02, quint64(100 + i)));
    QCOMPARE(acc.stopReason(settings, 0), QStringLiteral("block cap (12 blocks)"));
}

void TestAbRun::stopsWhenTheClocksDiffer() {
    AbAccumulator acc;
    AbSchedule schedule(3);
    for (int i = 0; i < 8; ++i) {
        const AbArm arm = schedule.next();
        acc.add(arm, block(0.02, quint64(i), 50, arm == AbArm::A ? 1980 : 1755));
    }
    QCOMPARE(acc.stopReason(AbSettings{}, 0), QStringLiteral("conditions differ"));
    const AbVerdict v = acc.verdict();
    QCOMPARE(v.kind, AbVerdict::Kind::Refused);
    QCOMPARE(v.reason,
             QStringLiteral("cannot compare: A ran at 1980 MHz, B at 1755 MHz (SM clock)"));
}

void TestAbRun::settingsAreValidated() {
    AbSettings s;
    QCOMPARE(s.validate(), QString());
    s.budgetMs = 10;
    QVERIFY(s.validate().startsWith(QStringLiteral("budgetMs:")));
    s = {};
    s.targetHalfWidthPercent = 0;
    QVERIFY(s.validate().startsWith(QStringLiteral("targetHalfWidthPercent:")));
}

void TestAbRun::resultJson() {
    AbAccumulator acc;
    AbSchedule schedule(4);
    for (int i = 0; i < 8; ++i) {
        const AbArm arm = schedule.next();
        acc.add(arm, block(arm == AbArm::A ? 0.02 : 0.04, quint64(i)));
    }
    AbResult r;
    r.status = AbResult::Status::Verdict;
    r.verdict = acc.verdict();
    r.a.label = QStringLiteral("saxpy.kpad");
    r.a.medianMs = r.verdict.medianAMs;
    r.blocks = acc.blocks();
    const QJsonObject o = r.toJson();
    QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("verdict"));
    QCOMPARE(o.value(QStringLiteral("verdict")).toString(), QStringLiteral("slower"));
    QCOMPARE(o.value(QStringLiteral("blocks")).toInt(), 8);
    QCOMPARE(o.value(QStringLiteral("a")).toObject().value(QStringLiteral("label")).toString(),
             QStringLiteral("saxpy.kpad"));
    QVERIFY(o.value(QStringLiteral("headline")).toString().startsWith(QStringLiteral("B is 100.")));
    QCOMPARE(o.value(QStringLiteral("interval")).toArray().size(), 2);
    r.status = AbResult::Status::Error;
    r.runStatus = RunStatus::VerificationFailed;
    r.error = QStringLiteral("B: verification failed");
    const QJsonObject failed = r.toJson();
    QCOMPARE(failed.value(QStringLiteral("headline")).toString(), r.error);
    QCOMPARE(failed.value(QStringLiteral("runStatus")).toString(),
             runStatusName(RunStatus::VerificationFailed));
}

/// Two devices: half the budget, the block cap and the minimum of blocks each (whole ABBA
/// groups), a target √2 wider, their own seeds; one device: the settings as they are.
void TestAbRun::eachDeviceTakesItsShare() {
    const AbSettings whole;
    QCOMPARE(whole.share(1, 0).budgetMs, whole.budgetMs);
    QCOMPARE(whole.share(1, 0).seed, whole.seed);
    const AbSettings second = whole.share(2, 1);
    QCOMPARE(second.budgetMs, whole.budgetMs / 2);
    QCOMPARE(second.minBlocks, 4);
    QCOMPARE(second.maxBlocks, whole.maxBlocks / 2);
    QVERIFY(std::abs(second.targetHalfWidthPercent -
                     whole.targetHalfWidthPercent * std::sqrt(2.0)) < 1e-12);
    QVERIFY(second.seed != whole.share(2, 0).seed);
    QCOMPARE(second.validate(), QString());
    // Many devices: still one ABBA group each and a budget validate() takes.
    const AbSettings many = whole.share(200, 3);
    QCOMPARE(many.minBlocks, 4);
    QCOMPARE(many.budgetMs, 100);
    QCOMPARE(many.validate(), QString());
}

/// poolAbResults: the pooled verdict with each device's estimate; a device without a verdict is
/// left out and named in the caveat; a cancelled one cancels the whole.
void TestAbRun::devicesArePooled() {
    const auto device = [](int d, double ratio) {
        AbResult r;
        r.status = AbResult::Status::Verdict;
        r.device = QStringLiteral("GPU (device %1)").arg(d);
        r.verdict.kind = AbVerdict::Kind::Faster;
        r.verdict.ratio = ratio;
        r.verdict.low = ratio - 0.004;
        r.verdict.high = ratio + 0.004;
        r.verdict.medianAMs = 1.0;
        r.verdict.medianBMs = ratio;
        r.blocks = 8;
        r.a.blocks = r.b.blocks = 4;
        r.a.verified = r.b.verified = true;
        return r;
    };
    const AbResult pooled = poolAbResults({device(0, 0.970), device(1, 0.972)});
    QCOMPARE(pooled.status, AbResult::Status::Verdict);
    QCOMPARE(pooled.verdict.kind, AbVerdict::Kind::Faster);
    QVERIFY(pooled.verdict.ratio > 0.970 && pooled.verdict.ratio < 0.972);
    QCOMPARE(pooled.blocks, 16);
    QCOMPARE(pooled.devices.size(), 2);
    QCOMPARE(pooled.devices[1].device, QStringLiteral("GPU (device 1)"));
    QCOMPARE(pooled.devices[1].ratio, 0.972);
    const QJsonArray each = pooled.toJson().value(QStringLiteral("devices")).toArray();
    QCOMPARE(each.size(), 2);
    QCOMPARE(each.at(0).toObject().value(QStringLiteral("ratio")).toDouble(), 0.970);

    AbResult failed;
    failed.status = AbResult::Status::Error;
    failed.device = QStringLiteral("GPU (device 1)");
    failed.error = QStringLiteral("B: cuda-error (lost)");
    const AbResult partial = poolAbResults({device(0, 0.970), failed});
    QCOMPARE(partial.status, AbResult::Status::Verdict);
    QCOMPARE(partial.verdict.ratio, 0.970);
    QVERIFY2(partial.verdict.caveat.contains(
                 QStringLiteral("without the A/B of GPU (device 1): B: cuda-error (lost)")),
             qPrintable(partial.verdict.caveat));
    QCOMPARE(partial.devices[1].verdict, QStringLiteral("error"));

    AbResult cancelled;
    cancelled.status = AbResult::Status::Cancelled;
    QCOMPARE(poolAbResults({device(0, 0.970), cancelled}).status, AbResult::Status::Cancelled);
    QCOMPARE(poolAbResults({failed, failed}).status, AbResult::Status::Error);
}

void TestAbRun::knownMediansSkipTheVerifiedRuns_data() {
    QTest::addColumn<bool>("known");
    QTest::newRow("medians known (a sweep's)") << true;
    QTest::newRow("medians unknown") << false;
}

void TestAbRun::knownMediansSkipTheVerifiedRuns() {
    // An A/B driven to its end with fabricated runs (A 1.0 ms, B 1.02 ms): with both medians
    // known every run is a block of the size they give; without, A and B first run once each
    // with kAbSizingSamples launches to be verified and sized.
    QFETCH(bool, known);
    AbOrder order;
    order.a.project = saxpy();
    order.b.project = saxpy();
    order.b.project.name = QStringLiteral("B");
    if (known) {
        order.knownMedianAMs = 1.0;
        order.knownMedianBMs = 1.02;
    }
    QVector<int> repetitions;
    quint64 seed = 1;
    const std::optional<AbResult> driven = test::driveAb(order, [&](const RunRequest& request) {
        repetitions.append(request.repetitions.value_or(-1));
        RunResult r;
        r.status = RunStatus::Ok;
        const bool isB = request.project.name == QLatin1String("B");
        r.timing = block(isB ? 1.02 : 1.0, ++seed, request.repetitions.value_or(50));
        r.resources.registers = 24;
        return r;
    });
    QVERIFY(driven);
    const AbResult& result = *driven;
    QVERIFY2(result.status == AbResult::Status::Verdict, qPrintable(result.headline()));
    QVERIFY(result.blocks >= 2);
    const int sizing = known ? 0 : 2;
    QCOMPARE(repetitions.size(), result.blocks + sizing);
    for (int i = 0; i < repetitions.size(); ++i)
        QCOMPARE(repetitions[i], i < sizing ? 30 : result.launchesPerBlock);
    if (known)
        QCOMPARE(result.launchesPerBlock, launchesPerBlock(1.02, order.settings));
    QVERIFY(result.a.verified && result.b.verified);
    QVERIFY(result.a.resources && result.a.resources->registers == 24); // from a block if need be
}

KERNELPAD_TEST_GUILESS_MAIN(TestAbRun)
} // namespace tst_abrun
#include "tst_abrun.moc"
