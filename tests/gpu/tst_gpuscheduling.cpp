// One scheduler per GPU, on the GPU: a sweep and a stream of runs (as live mode sends them)
// started together on device 0 through one Engine never time kernels at the same moment. The
// runs that arrive while the sweep holds the device wait with the reason and start after it;
// both timelines (milliseconds since the start: each run's first real stage to its end, the
// sweep's start, each record and its end) are printed.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_gpuscheduling {

using namespace kernelpad;

namespace {

constexpr int kTimeoutMs = 280000;

struct Interval {
    qint64 startMs = -1;
    qint64 endMs = -1;
    bool waited = false;
};

} // namespace

class TestGpuScheduling : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { KERNELPAD_REQUIRE_DRIVER(); }

    void sweepAndRunsNeverOverlap() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Engine engine;
        QElapsedTimer clock;
        clock.start();
        Interval sweep;
        QVector<qint64> records;
        QHash<quint64, Interval> runs;
        QString sweepError;
        connect(
            &engine, &Engine::sweepStarted, this,
            [&](quint64, const QVector<SweepRecord>&, int) { sweep.startMs = clock.elapsed(); });
        connect(&engine, &Engine::sweepWaiting, this,
                [&](quint64, const QString&) { sweep.waited = true; });
        connect(&engine, &Engine::sweepRecord, this,
                [&](quint64, const SweepRecord&) { records.append(clock.elapsed()); });
        connect(&engine, &Engine::sweepFinished, this, [&](quint64, const QString& error) {
            sweep.endMs = clock.elapsed();
            sweepError = error;
        });
        connect(&engine, &Engine::runProgress, this,
                [&](quint64 id, const QString& stage, int, int) {
                    Interval& run = runs[id];
                    if (stage.startsWith(QLatin1String("waiting")))
                        run.waited = true;
                    else if (run.startMs < 0)
                        run.startMs = clock.elapsed();
                });
        connect(&engine, &Engine::runFinished, this, [&](quint64 id, const RunResult& result) {
            Interval& run = runs[id];
            run.endMs = clock.elapsed();
            if (run.startMs < 0) // answered without a stage (a fast failure)
                run.startMs = run.endMs;
            QVERIFY2(result.status == RunStatus::Ok, qPrintable(result.error));
        });

        SweepOrder order;
        order.base.project = test::loadExample(QStringLiteral("transpose_sweep.kpad"));
        order.base.projectDir = test::examplesDir();
        order.base.device = 0;
        order.resultsPath = dir.filePath(QStringLiteral("sweep.jsonl"));
        RunRequest live;
        live.project = test::loadExample(QStringLiteral("saxpy.kpad"));
        live.projectDir = test::examplesDir();
        live.device = 0;
        live.keepOutputs = false;
        const Engine::Channel channel = engine.openChannel();

        // One run first (the sweep waits for it), then the sweep, then runs while it goes.
        engine.run(live, channel);
        engine.sweep(order);
        for (int i = 0; i < 3; ++i) {
            QTest::qWait(200);
            engine.run(live, engine.openChannel());
        }
        QTRY_VERIFY_WITH_TIMEOUT(sweep.endMs >= 0, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(runs.size() == 4 &&
                                     std::all_of(runs.cbegin(), runs.cend(),
                                                 [](const Interval& r) { return r.endMs >= 0; }),
                                 kTimeoutMs);
        if (sweepError.startsWith(QLatin1String("no CUDA device")))
            QSKIP(qPrintable(sweepError));
        QVERIFY2(sweepError.isEmpty(), qPrintable(sweepError));

        qInfo("sweep: waited %s, %lld..%lld ms, records at %s", sweep.waited ? "yes" : "no",
              sweep.startMs, sweep.endMs, qPrintable([&] {
                  QStringList at;
                  for (qint64 t : records)
                      at.append(QString::number(t));
                  return at.join(QLatin1Char(' '));
              }()));
        QList<quint64> ids = runs.keys();
        std::sort(ids.begin(), ids.end());
        for (quint64 id : ids) {
            const Interval& run = runs[id];
            qInfo("run %llu: waited %s, %lld..%lld ms", id, run.waited ? "yes" : "no", run.startMs,
                  run.endMs);
            const bool before = run.endMs <= sweep.startMs;
            const bool after = run.startMs >= sweep.endMs;
            QVERIFY2(before || after,
                     qPrintable(QStringLiteral("run %1 (%2..%3 ms) overlaps the sweep (%4..%5 ms)")
                                    .arg(id)
                                    .arg(run.startMs)
                                    .arg(run.endMs)
                                    .arg(sweep.startMs)
                                    .arg(sweep.endMs)));
        }
        QVERIFY(sweep.waited); // the first run held the device when the sweep asked
        QVERIFY(
            std::any_of(runs.cbegin(), runs.cend(), [](const Interval& r) { return r.waited; }));
    }
};

KERNELPAD_TEST_MAIN(TestGpuScheduling)

} // namespace tst_gpuscheduling

#include "tst_gpuscheduling.moc"
