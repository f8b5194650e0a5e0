// The runner pool on a GPU: two runners on device 0 share 32 SAXPY jobs of different sizes,
// every result verified by the runner; one runner's process is killed mid-way and the other
// finishes every job, nothing lost and nothing answered twice.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/RunnerPool.h"

#include <QElapsedTimer>
#include <QSet>

#include <csignal>

namespace tst_gpurunnerpool {

using namespace kernelpad;

namespace {

constexpr int kJobs = 32;

/// SAXPY over `n` elements (the example's grid covers up to 2^24), timed a fixed 5 times.
RunRequest saxpyJob(quint64 n) {
    RunRequest r;
    r.project = test::loadExample(QStringLiteral("saxpy.kpad"));
    for (ArgumentSpec& a : r.project.arguments)
        if (a.name == QLatin1String("n"))
            a.value = QString::number(n);
    r.project.timing.adaptive = false;
    r.project.timing.warmupLaunches = 1;
    r.project.timing.repetitions = 5;
    r.projectDir = test::examplesDir();
    r.keepOutputs = false;
    return r;
}

quint64 sizeOf(quint64 tag) {
    return (quint64(1) << 20) + tag * 400009; // 1 Mi to about 13.4 Mi elements, all different
}

struct Answer {
    quint64 tag = 0;
    RunResult result;
    int runner = -1;
    int device = -1;
    QString deviceName;
    bool afterLoss = false;
};

} // namespace

class TestGpuRunnerPool : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        qRegisterMetaType<kernelpad::RunResult>();
    }

    void twoRunnersOnOneDeviceSurviveAKill() {
        RunnerPool pool({0, 0});
        pool.setMaxRestarts(0); // the killed runner stays out: the other must finish alone
        QVector<Answer> answers;
        bool lostSeen = false;
        connect(
            &pool, &RunnerPool::finished, this,
            [&](quint64 tag, const RunResult& result, int runner, int device, const QString& name) {
                answers.push_back({tag, result, runner, device, name, lostSeen});
            });
        QSignalSpy lost(&pool, &RunnerPool::runnerLost);
        connect(&pool, &RunnerPool::runnerLost, this, [&] { lostSeen = true; });
        QSignalSpy drained(&pool, &RunnerPool::drained);
        pool.warmUp();
        for (quint64 tag = 0; tag < kJobs; ++tag)
            pool.submit(tag, saxpyJob(sizeOf(tag)));

        // Mid-way, once both runners have answered (a runner whose start is slower than the
        // other's first jobs answers later), while runner 1 holds a job, its process is killed.
        QElapsedTimer clock;
        clock.start();
        const auto bothAnswered = [&answers] {
            bool first = false, second = false;
            for (const Answer& a : answers) {
                first = first || a.runner == 0;
                second = second || a.runner == 1;
            }
            return first && second;
        };
        while ((answers.size() < kJobs / 3 || !bothAnswered()) && answers.size() < kJobs &&
               clock.elapsed() < 120000)
            QTest::qWait(5);
        QVERIFY2(answers.size() < kJobs, "every job finished before the kill");
        while (!(pool.runnerBusy(1) && pool.runnerPid(1) > 0) && clock.elapsed() < 120000)
            QTest::qWait(1);
        const qint64 pid = pool.runnerPid(1);
        QVERIFY(pid > 0);
        const QSet<int> usedBeforeKill = [&] {
            QSet<int> used;
            for (const Answer& a : answers)
                used.insert(a.runner);
            return used;
        }();
        QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);

        while (answers.size() < kJobs && clock.elapsed() < 180000)
            QTest::qWait(10);
        QVERIFY(drained.count() == 1 || drained.wait(5000));
        QTest::qWait(100); // nothing answers twice
        QCOMPARE(answers.size(), kJobs);
        QCOMPARE(lost.count(), 1);
        QCOMPARE(lost.first().at(0).toInt(), 1);
        QVERIFY2(lost.first().at(1).toString().contains("stays out"),
                 qPrintable(lost.first().at(1).toString()));
        QCOMPARE(pool.liveRunners(), 1);

        QVERIFY2(usedBeforeKill.contains(0) && usedBeforeKill.contains(1),
                 "both runners answered jobs before the kill");
        QSet<quint64> tags;
        for (const Answer& a : answers) {
            QVERIFY2(a.result.status == RunStatus::Ok,
                     qPrintable(QStringLiteral("job %1: %2").arg(a.tag).arg(a.result.error)));
            QVERIFY(!a.result.verification.isEmpty());
            for (const BufferVerification& v : a.result.verification)
                QVERIFY2(
                    v.passed,
                    qPrintable(QStringLiteral("job %1: %2 not verified").arg(a.tag).arg(v.buffer)));
            QCOMPARE(a.result.timing.timesMs.size(), 5);
            QCOMPARE(a.device, 0);
            QVERIFY(!a.result.device.name.isEmpty());
            QCOMPARE(a.deviceName, RunnerPool::deviceLabel(a.result.device.name, 0));
            if (a.afterLoss)
                QCOMPARE(a.runner, 0); // the survivor finished the rest
            tags.insert(a.tag);
        }
        QCOMPARE(tags.size(), kJobs);
        qInfo("runner 0 answered %d jobs, runner 1 %d before its kill", pool.jobsAnswered(0),
              pool.jobsAnswered(1));
    }

    void allDevicesRunsOneRunnerPerDevice() {
        // The device list as the pool's users get it: from a runner.
        RunnerClient client;
        QVector<DeviceInfo> list;
        QString listError;
        bool listed = false;
        connect(&client, &RunnerClient::devicesChanged, this,
                [&](const QVector<DeviceInfo>& devices, const QString& error) {
                    list = devices;
                    listError = error;
                    listed = true;
                });
        client.requestDevices(1);
        QElapsedTimer wait;
        wait.start();
        while (!listed && wait.elapsed() < 30000)
            QTest::qWait(10);
        QVERIFY2(listed && !list.isEmpty(), qPrintable(listError));
        RunnerPool pool(RunnerPool::allDevices(list));
        pool.setDevices(list);
        QCOMPARE(pool.runnerCount(), list.size());
        QVector<int> devicesUsed;
        QVector<QString> names;
        connect(&pool, &RunnerPool::finished, this,
                [&](quint64, const RunResult& result, int, int device, const QString& name) {
                    QCOMPARE(result.status, RunStatus::Ok);
                    devicesUsed.push_back(device);
                    names.push_back(name);
                });
        const int jobs = 2 * int(list.size());
        for (int k = 0; k < jobs; ++k)
            pool.submit(quint64(k), saxpyJob(sizeOf(quint64(k))));
        QElapsedTimer clock;
        clock.start();
        while (devicesUsed.size() < jobs && clock.elapsed() < 120000)
            QTest::qWait(10);
        QCOMPARE(devicesUsed.size(), jobs);
        for (int k = 0; k < jobs; ++k) {
            const DeviceInfo& d = list.at(devicesUsed[k]);
            QCOMPARE(names[k], RunnerPool::deviceLabel(d.name, d.ordinal));
            qInfo("job %d ran on %s", k, qPrintable(names[k]));
        }
    }
};

KERNELPAD_TEST_MAIN(TestGpuRunnerPool)
} // namespace tst_gpurunnerpool
#include "tst_gpurunnerpool.moc"
