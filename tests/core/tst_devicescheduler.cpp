// One scheduler per GPU, without a GPU: the DeviceScheduler's rule (one holder per device,
// waiting requests served in the order they asked, the reason a waiter is given), and the
// Engine built on it: a run asked for while a sweep holds its device waits, says why, and
// starts only after the sweep ends; a run on another device does not wait.

#include "core/engine/DeviceScheduler.h"
#include "core/engine/Engine.h"
#include "core/sweep/SweepEvaluator.h"

#include <QDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <memory>

#include "../support/TestMain.h"

namespace tst_devicescheduler {

using namespace kernelpad;

namespace {

constexpr int kAnswerTimeoutMs = 60000;

DeviceSlot gpu(int ordinal) {
    return DeviceSlot::of(RunnerSpec::local(), ordinal);
}

/// Answers each configuration after `delayMs`, as a failure (no GPU here).
class SlowEvaluator : public SweepEvaluator {
public:
    explicit SlowEvaluator(int delayMs)
        : m_delayMs(delayMs) {}
    void start(quint64 tag, const RunRequest&) override {
        QTimer::singleShot(m_delayMs, this, [this, tag] {
            RunResult r;
            r.status = RunStatus::BadInput;
            r.error = QStringLiteral("stand-in");
            emit finished(tag, r, QStringLiteral("Fake GPU"));
        });
    }
    [[nodiscard]] int capacity() const override { return 1; }
    void cancel() override {}

private:
    int m_delayMs;
};

Project sweptProject(int configurations) {
    Project p;
    p.name = QStringLiteral("Scheduler test");
    p.source = QStringLiteral("__global__ void k(float* d) { d[threadIdx.x] = 1.0f; }\n");
    p.kernel = QStringLiteral("k");
    p.launch.grid = {1, 1, 1};
    p.launch.block = {32, 1, 1};
    SweepTunable t;
    t.name = QStringLiteral("bx");
    t.role = SweepTunable::Role::Block;
    t.axis = 0;
    t.values.kind = SweepValues::Kind::List;
    for (int i = 0; i < configurations; ++i)
        t.values.list.append(32 * (i + 1));
    p.sweep.tunables = {t};
    return p;
}

} // namespace

class TestDeviceScheduler : public QObject {
    Q_OBJECT
private slots:
    void oneHolderPerDevice() {
        DeviceScheduler s;
        QVERIFY(s.request(1, {gpu(0)}, QStringLiteral("sweep running")));
        QVERIFY(s.request(2, {gpu(1)}, QStringLiteral("a run in progress"))); // another device
        QVERIFY(!s.request(3, {gpu(0)}, QStringLiteral("a run in progress")));
        QVERIFY(s.isWaiting(3) && !s.holds(3));
        QCOMPARE(s.waitingReason(3), QStringLiteral("waiting: sweep running on GPU 0"));
        QCOMPARE(s.waitingReason(1), QString());    // a holder does not wait
        QCOMPARE(s.release(2), QVector<quint64>()); // GPU 1 was wanted by nobody
        QCOMPARE(s.release(1), QVector<quint64>{3});
        QVERIFY(s.holds(3) && !s.isWaiting(3));
    }

    // A sweep waiting for GPUs 0 and 1 is not overtaken on GPU 1 by a later run, and the run
    // is told it waits behind it; the first release that frees both grants them in order.
    void waitersAreServedInTheOrderTheyAsked() {
        DeviceScheduler s;
        QVERIFY(s.request(1, {gpu(0)}, QStringLiteral("a run in progress")));
        QVERIFY(!s.request(2, {gpu(0), gpu(1)}, QStringLiteral("sweep running")));
        QVERIFY(!s.request(3, {gpu(1)}, QStringLiteral("a run in progress")));
        QCOMPARE(s.waitingReason(2), QStringLiteral("waiting: a run in progress on GPU 0"));
        QCOMPARE(s.waitingReason(3),
                 QStringLiteral("waiting: behind an earlier request for GPU 1"));
        QCOMPARE(s.release(1), QVector<quint64>{2});
        QCOMPARE(s.waitingReason(3), QStringLiteral("waiting: sweep running on GPU 1"));
        QCOMPARE(s.release(2), QVector<quint64>{3});
        // Withdrawing a wait grants nothing and forgets it.
        QVERIFY(!s.request(4, {gpu(1)}, QStringLiteral("a run in progress")));
        QCOMPARE(s.release(4), QVector<quint64>());
        QVERIFY(!s.isWaiting(4));
    }

    void devicesOfOtherRunnersAreOthers() {
        RunnerSpec box;
        box.kind = RunnerSpec::Kind::Ssh;
        box.host = QStringLiteral("gpu-box");
        const DeviceSlot remote = DeviceSlot::of(box, 0);
        QVERIFY(!(remote == gpu(0)));
        QCOMPARE(remote.label, QStringLiteral("GPU 0 of gpu-box"));
        DeviceScheduler s;
        QVERIFY(s.request(1, {gpu(0)}, QStringLiteral("sweep running")));
        QVERIFY(s.request(2, {remote}, QStringLiteral("a run in progress")));
    }

    // The Engine: a sweep holds GPU 0; a run on GPU 0 waits with the reason and ends after the
    // sweep; a run on GPU 1 goes at once.
    void aRunWaitsForTheSweepOnItsDevice() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Engine engine(nullptr, Engine::Isolation::InProcess);
        SweepOrder order;
        order.base.project = sweptProject(6);
        order.base.device = 0;
        order.resultsPath = dir.filePath(QStringLiteral("sweep.jsonl"));
        order.evaluator = [] { return std::make_unique<SlowEvaluator>(150); };
        QElapsedTimer clock;
        clock.start();
        qint64 sweepEndedMs = -1;
        QHash<quint64, qint64> runEndedMs;
        QHash<quint64, QStringList> stages;
        connect(&engine, &Engine::sweepFinished, this,
                [&](quint64, const QString&) { sweepEndedMs = clock.elapsed(); });
        connect(&engine, &Engine::runFinished, this,
                [&](quint64 id, const RunResult&) { runEndedMs.insert(id, clock.elapsed()); });
        connect(&engine, &Engine::runProgress, this,
                [&](quint64 id, const QString& stage, int, int) { stages[id].append(stage); });
        QSignalSpy started(&engine, &Engine::sweepStarted);
        const quint64 sweep = engine.sweep(order);
        QVERIFY(started.wait(kAnswerTimeoutMs));
        QCOMPARE(started.first().at(0).toULongLong(), sweep);

        RunRequest onSweptGpu;
        onSweptGpu.project = sweptProject(1);
        onSweptGpu.device = 0;
        RunRequest onOtherGpu = onSweptGpu;
        onOtherGpu.device = 1;
        const quint64 waiting = engine.run(onSweptGpu, engine.openChannel());
        QTRY_VERIFY_WITH_TIMEOUT(stages.contains(waiting), kAnswerTimeoutMs);
        QCOMPARE(stages[waiting].first(), QStringLiteral("waiting: sweep running on GPU 0"));
        QTRY_VERIFY_WITH_TIMEOUT(runEndedMs.contains(waiting), kAnswerTimeoutMs);
        QVERIFY(sweepEndedMs >= 0);
        QVERIFY2(runEndedMs[waiting] >= sweepEndedMs,
                 qPrintable(QStringLiteral("run ended at %1 ms, the sweep at %2 ms")
                                .arg(runEndedMs[waiting])
                                .arg(sweepEndedMs)));

        // GPU 1 is free while another sweep holds GPU 0.
        sweepEndedMs = -1;
        QSignalSpy again(&engine, &Engine::sweepStarted);
        engine.sweep(order);
        QVERIFY(again.wait(kAnswerTimeoutMs));
        const quint64 free = engine.run(onOtherGpu, engine.openChannel());
        QTRY_VERIFY_WITH_TIMEOUT(runEndedMs.contains(free), kAnswerTimeoutMs);
        for (const QString& stage : stages.value(free))
            QVERIFY2(!stage.startsWith(QLatin1String("waiting")), qPrintable(stage));
        QTRY_VERIFY_WITH_TIMEOUT(sweepEndedMs >= 0, kAnswerTimeoutMs);
    }

    // A sweep cancelled while it waits ends at once as cancelled and leaves the device free.
    void aWaitingSweepCancelsAtOnce() {
        QTemporaryDir dir;
        Engine engine(nullptr, Engine::Isolation::InProcess);
        SweepOrder order;
        order.base.project = sweptProject(3);
        order.resultsPath = dir.filePath(QStringLiteral("a.jsonl"));
        order.evaluator = [] { return std::make_unique<SlowEvaluator>(200); };
        QSignalSpy waiting(&engine, &Engine::sweepWaiting);
        QSignalSpy finished(&engine, &Engine::sweepFinished);
        const quint64 first = engine.sweep(order);
        order.resultsPath = dir.filePath(QStringLiteral("b.jsonl"));
        const quint64 second = engine.sweep(order);
        QVERIFY(waiting.wait(kAnswerTimeoutMs));
        QCOMPARE(waiting.first().at(0).toULongLong(), second);
        QCOMPARE(waiting.first().at(1).toString(),
                 QStringLiteral("waiting: sweep running on GPU 0"));
        engine.cancelSweep(second);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), kAnswerTimeoutMs);
        QCOMPARE(finished.first().at(0).toULongLong(), second);
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("cancelled"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kAnswerTimeoutMs);
        QCOMPARE(finished.at(1).at(0).toULongLong(), first);
    }
};

KERNELPAD_TEST_MAIN(TestDeviceScheduler)

} // namespace tst_devicescheduler

#include "tst_devicescheduler.moc"
