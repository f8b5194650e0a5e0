// The stopping rule of an adaptive measurement (core/run/StoppingCriterion.h) on synthetic
// samples, with a clock the test moves: no GPU, no wall-clock timing.

#include "../support/TestMain.h"
#include "core/run/StoppingCriterion.h"

#include <QTest>

#include <cmath>

namespace tst_stoppingcriterion {

using namespace kernelpad;

namespace {

/// A clock that moves only when the test says so.
struct FakeClock {
    double seconds = 100.0; // any epoch: the rule looks at differences
    NoiseCriterion::Clock fn() {
        return [this] { return seconds; };
    }
};

NoiseCriterion::Settings settings(int minSamples, double minGpuSeconds, double targetNoise,
                                  double maxSeconds) {
    NoiseCriterion::Settings s;
    s.minSamples = minSamples;
    s.minGpuSeconds = minGpuSeconds;
    s.targetNoise = targetNoise;
    s.maxSeconds = maxSeconds;
    return s;
}

} // namespace

class TestStoppingCriterion : public QObject {
    Q_OBJECT

private slots:
    // Samples fed one at a time, the clock still: how many it takes before the rule stops.
    void stopsAfterSamples_data() {
        QTest::addColumn<QVector<double>>("samples"); // repeated in a cycle
        QTest::addColumn<int>("minSamples");
        QTest::addColumn<double>("minGpuSeconds");
        QTest::addColumn<double>("targetNoise");
        QTest::addColumn<int>("expectedCount"); // -1: never within 1000 samples

        QTest::newRow("steady kernel: the minimum count decides")
            << QVector<double>{0.5} << 7 << 0.0 << 0.005 << 7;
        QTest::newRow("steady kernel: the minimum GPU time decides")
            << QVector<double>{0.25} << 2 << 2.0 << 0.005 << 8;
        QTest::newRow("one sample is never quiet enough")
            << QVector<double>{0.5} << 1 << 0.0 << 0.005 << 2;
        QTest::newRow("alternating 1 and 3: noise 0.58 under a target of 0.6")
            << QVector<double>{1.0, 3.0} << 4 << 0.0 << 0.6 << 4;
        QTest::newRow("alternating 1 and 3 never reaches 1 %")
            << QVector<double>{1.0, 3.0} << 4 << 0.0 << 0.01 << -1;
        QTest::newRow("zero times never count as quiet")
            << QVector<double>{0.0} << 1 << 0.0 << 0.5 << -1;
    }
    void stopsAfterSamples() {
        QFETCH(QVector<double>, samples);
        QFETCH(int, minSamples);
        QFETCH(double, minGpuSeconds);
        QFETCH(double, targetNoise);
        QFETCH(int, expectedCount);
        FakeClock clock;
        NoiseCriterion rule(settings(minSamples, minGpuSeconds, targetNoise, 60.0), clock.fn());
        int count = 0;
        bool finished = false;
        while (!finished && count < 1000) {
            rule.addSample(samples[count % samples.size()]);
            ++count;
            finished = rule.isFinished();
        }
        if (expectedCount < 0) {
            QVERIFY(!finished);
            QVERIFY(rule.reason().isEmpty());
        } else {
            QCOMPARE(count, expectedCount);
            QCOMPARE(rule.reason(), QStringLiteral("noise target reached"));
        }
    }

    void relativeNoiseIsTheSampleStddevOverTheMean() {
        NoiseCriterion rule(settings(1, 0, 0, 1), FakeClock().fn());
        QCOMPARE(rule.relativeNoise(), 1.0); // none yet
        rule.addSample(1.0);
        QCOMPARE(rule.relativeNoise(), 1.0); // one: unknown, counted as noisy
        rule.addSample(3.0);
        // mean 2, sample variance ((1-2)^2 + (3-2)^2) / 1 = 2
        QVERIFY(std::abs(rule.relativeNoise() - std::sqrt(2.0) / 2.0) < 1e-12);
    }

    void timeBudgetEndsANoisyMeasurement() {
        FakeClock clock;
        NoiseCriterion rule(settings(2, 0.0, 0.001, 1.0), clock.fn());
        clock.seconds += 5.0;
        QVERIFY2(!rule.isFinished(), "without a sample the budget never ends it");
        rule.reset(); // the budget counts from here
        rule.addSample(1e-3);
        rule.addSample(3e-3);
        clock.seconds += 0.75;
        QVERIFY(!rule.isFinished());
        clock.seconds += 0.25;
        QVERIFY(rule.isFinished());
        QCOMPARE(rule.reason(), QStringLiteral("time budget"));
    }

    void quietSamplesWinOverTheBudget() {
        FakeClock clock;
        NoiseCriterion rule(settings(2, 0.0, 0.01, 1.0), clock.fn());
        rule.addSample(2e-3);
        rule.addSample(2e-3);
        clock.seconds += 10.0;
        QVERIFY(rule.isFinished());
        QCOMPARE(rule.reason(), QStringLiteral("noise target reached"));
    }

    void resetForgetsTheSamples() {
        FakeClock clock;
        NoiseCriterion rule(settings(2, 0.0, 0.01, 1.0), clock.fn());
        rule.addSample(2e-3);
        rule.addSample(2e-3);
        QVERIFY(rule.isFinished());
        rule.reset();
        QVERIFY(rule.reason().isEmpty());
        QCOMPARE(rule.relativeNoise(), 1.0);
        QVERIFY(!rule.isFinished());
    }

    void settingsFollowTheProjectsTimingSpec() {
        TimingSpec spec;
        spec.repetitions = 25;
        spec.minTimeMs = 250;
        spec.maxTimeMs = 1500;
        spec.targetNoise = 0.02;
        const NoiseCriterion::Settings s = NoiseCriterion::settingsOf(spec);
        QCOMPARE(s.minSamples, 25);
        QCOMPARE(s.minGpuSeconds, 0.25);
        QCOMPARE(s.maxSeconds, 1.5);
        QCOMPARE(s.targetNoise, 0.02);
    }

    void expectedSamplesForAProgressBar_data() {
        QTest::addColumn<double>("secondsPerSample");
        QTest::addColumn<int>("expected");
        QTest::newRow("1/1024 s kernels fill a 1 s budget with 1024") << 1.0 / 1024 << 1024;
        QTest::newRow("slow kernels still take the minimum") << 0.5 << 10;
        QTest::newRow("tiny kernels stop at the cap") << 1e-9 << kMaxAdaptiveSamples;
        QTest::newRow("a zero warm-up is not a division by zero") << 0.0 << kMaxAdaptiveSamples;
    }
    void expectedSamplesForAProgressBar() {
        QFETCH(double, secondsPerSample);
        QFETCH(int, expected);
        const NoiseCriterion rule(settings(10, 0.25, 0.005, 1.0), FakeClock().fn());
        QCOMPARE(rule.expectedSamples(secondsPerSample), expected);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestStoppingCriterion)
} // namespace tst_stoppingcriterion
#include "tst_stoppingcriterion.moc"
