// Sweeps on the GPU: the transpose example over its 66 block
// shapes in one warm runner, every configuration verified against the reference transpose
// and the best the fastest of them; a kernel with __launch_bounds__(256) where the larger
// shapes fail with their reason and are never best; SAXPY over sizes, where the bandwidth of
// the largest size beats that of the smallest (launch-bound against bandwidth-bound), every
// record carrying the device's copy ceiling, the same one (measured once per device, not per
// configuration); kernelpad-cli interrupted by a budget, then resumed in-process from the
// same default results file, as the window resumes it. A sweep of two configurations, one doing
// twice the other's work, confirms its best by an A/B against the runner-up: faster, not tied;
// on two devices of one model (skipped with fewer), that A/B runs on both beside the best's
// re-timing and its line names them, as it does for a few transpose shapes. (The other sweeps
// here skip the A/B: it is not what they test.)

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/RunnerPool.h"
#include "core/sweep/PoolSweepEvaluator.h"
#include "core/sweep/Sweep.h"
#include "core/sweep/SweepEvaluator.h"
#include "core/sweep/SweepJob.h"
#include "core/sweep/SweepResultsPath.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <QElapsedTimer>

#include <cmath>
#include <csignal>

namespace tst_gpusweep {

using namespace kernelpad;

namespace {

/// Runs the sweep of `project` to its end in one warm runner; the records, or a failure. With
/// `confirm`, the best is confirmed by an A/B against the runner-up.
QVector<SweepRecord> sweepAll(const Project& project, QString* stopped, bool confirm = false) {
    RunnerSweepEvaluator evaluator;
    RunRequest base;
    base.project = project;
    base.projectDir = test::examplesDir();
    Sweep sweep(base, &evaluator);
    sweep.setConfirm(confirm);
    if (!sweep.prepare(stopped))
        return {};
    QSignalSpy finished(&sweep, &Sweep::finished);
    sweep.start();
    if (!finished.wait(280000)) {
        *stopped = QStringLiteral("the sweep did not end within 280 s");
        return {};
    }
    *stopped = finished.first().at(0).toString();
    return sweep.records();
}

/// The transpose example with a spin of WORK * 20000 clock cycles per thread, over WORK 1 and 2
/// (bx = 32, by = 8): WORK=1 is the clear best.
Project spinningTranspose() {
    Project project = test::loadExample(QStringLiteral("transpose_sweep.kpad"));
    const QString guard = QStringLiteral("    if (r < rows && c < cols)\n");
    if (!project.source.contains(guard))
        qFatal("the transpose example's guard moved");
    project.source.replace(
        guard, QStringLiteral("    long long spun = clock64();\n"
                              "    while (clock64() - spun < (long long)WORK * 20000) {}\n") +
                   guard);
    project.sweep.tunables[0].values = SweepValues{};
    project.sweep.tunables[0].values.list = {32};
    project.sweep.tunables[1].values = SweepValues{};
    project.sweep.tunables[1].values.list = {8};
    project.sweep.restrictions.clear();
    SweepTunable work;
    work.role = SweepTunable::Role::Define;
    work.name = QStringLiteral("WORK");
    work.values.list = {1, 2};
    project.sweep.tunables.append(work);
    return project;
}

/// The sweep of `project` over one runner on each of devices 0 and 1, with the fast budget (so
/// that the best is timed again beside the A/B), to its end; the best's record, or a failure in
/// `stopped`. `followUpMs`: the re-timing and the A/B after the last configuration.
std::optional<SweepRecord> sweepOnTwo(Project project, QString* stopped, double* followUpMs) {
    project.sweep.timingBudget = SweepTimingBudget::fast();
    RunnerPool pool(QVector<int>{0, 1});
    pool.warmUp();
    PoolSweepEvaluator evaluator(&pool);
    RunRequest base;
    base.project = project;
    base.projectDir = test::examplesDir();
    Sweep sweep(base, &evaluator);
    if (!sweep.prepare(stopped))
        return std::nullopt;
    QSignalSpy finished(&sweep, &Sweep::finished);
    sweep.start();
    if (!finished.wait(280000)) {
        *stopped = QStringLiteral("the sweep did not end within 280 s");
        return std::nullopt;
    }
    *stopped = finished.first().at(0).toString();
    *followUpMs = sweep.balance().followUpMs;
    for (const SweepRecord& r : sweep.records())
        if (!r.passed())
            *stopped += QStringLiteral("; %1 failed: %2").arg(r.key, r.error);
    return sweep.best();
}

/// Skips (returns false) without two devices of one model, naming what there is.
bool twoDevicesOfOneModel(QString* why) {
    QString error;
    const QVector<DeviceInfo> devices = RunnerClient::devicesOf(RunnerSpec{}, &error);
    QStringList names;
    for (const DeviceInfo& d : devices)
        names << QStringLiteral("%1 (%2, %3 SMs)").arg(d.name, d.arch()).arg(d.smCount);
    *why = QStringLiteral("needs two devices of one model; found %1 %2")
               .arg(devices.size())
               .arg(error.isEmpty() ? names.join(QStringLiteral(", ")) : error);
    return devices.size() >= 2 && names[0] == names[1];
}

/// Everything a failed check on two devices needs: the line, the JSON, the follow-up's time.
QString shown(const SweepRecord& best, double followUpMs) {
    return QStringLiteral("%1\n%2\nfollow-up %3 ms, re-timed %4 ms")
        .arg(best.confirmation ? best.confirmation->text(best.key) : QStringLiteral("no A/B"),
             best.confirmation
                 ? QString::fromUtf8(
                       QJsonDocument(best.confirmation->toJson()).toJson(QJsonDocument::Compact))
                 : QString())
        .arg(followUpMs)
        .arg(best.accurateMedianMs);
}

} // namespace

class TestGpuSweep : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        QVERIFY2(!runnerPath().isEmpty(), "the runner (kernelpad-cli) must be found");
    }

    void transposeOverBlockShapes() {
        const Project project = test::loadExample(QStringLiteral("transpose_sweep.kpad"));
        QString stopped;
        const QVector<SweepRecord> records = sweepAll(project, &stopped);
        if (stopped.startsWith(QStringLiteral("no CUDA device")))
            QSKIP(qPrintable(QStringLiteral("found no device: %1").arg(stopped)));
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
        QCOMPARE(records.size(), 66);
        double fastest = INFINITY;
        for (const SweepRecord& r : records) {
            QVERIFY2(r.passed(), qPrintable(r.key + QStringLiteral(": ") + r.error));
            QVERIFY(r.medianMs > 0);
            QVERIFY(r.bandwidthGBs > 0);
            QVERIFY(!r.device.isEmpty());
            fastest = std::min(fastest, r.medianMs);
        }
        const std::optional<SweepRecord> best = bestRecord(records, SweepObjective::Time);
        QVERIFY(best);
        QCOMPARE(best->medianMs, fastest);
        QCOMPARE(sortedRecords(records, SweepObjective::Time).first().key, best->key);
        // One-thread-wide blocks walk the output with a stride of a whole row: a shape of at
        // least a warp must beat bx = by = 1.
        QVERIFY(best->values[0] * best->values[1] >= 32);
        qInfo("best of 66: %s, %.4f ms, %.1f GB/s", qPrintable(best->key), best->medianMs,
              best->bandwidthGBs);
    }

    /// WORK=2 spins each thread twice as many clock cycles as WORK=1 before its store (the same
    /// output): the A/B of the best (WORK=1) against the runner-up says faster, by about half.
    void confirmsAClearWinnerByAnAb() {
        const Project project = spinningTranspose();
        QString stopped;
        const QVector<SweepRecord> records = sweepAll(project, &stopped, true);
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
        QCOMPARE(records.size(), 2);
        for (const SweepRecord& r : records)
            QVERIFY2(r.passed(), qPrintable(r.key + QStringLiteral(": ") + r.error));
        const std::optional<SweepRecord> best = bestRecord(records, SweepObjective::Time);
        QVERIFY(best);
        QCOMPARE(best->values.last(), 1.0); // WORK=1
        const QString other = sortedRecords(records, SweepObjective::Time).at(1).key;
        qInfo("%s %.4f ms, %s; %s", qPrintable(best->key), best->medianMs, qPrintable(other),
              best->confirmation ? qPrintable(best->confirmation->text(best->key)) : "no A/B");
        QVERIFY2(best->confirmation, "the best carries no confirmation");
        const SweepConfirmation& c = *best->confirmation;
        QCOMPARE(c.against, other);
        QVERIFY2(c.verdict == SweepConfirmation::kFaster,
                 qPrintable(QStringLiteral("%1 (ratio %2, %3 to %4, %5 blocks on %6)")
                                .arg(c.verdict)
                                .arg(c.ratio)
                                .arg(c.low)
                                .arg(c.high)
                                .arg(c.blocks)
                                .arg(c.device)));
        // Twice the spin: the best takes well under the runner-up's time.
        QVERIFY2(c.ratio < 0.8, qPrintable(QString::number(c.ratio)));
        QVERIFY(c.text(best->key).startsWith(QStringLiteral("confirmed: ")));
    }

    /// On two devices of one model the A/B runs on both (each its own blocks, both arms on it),
    /// beside the best's re-timing, and its line names them: the clear winner is confirmed on 2
    /// devices, each device's own ratio well under 1 too.
    void confirmsOnTwoDevices() {
        QString why;
        if (!twoDevicesOfOneModel(&why))
            QSKIP(qPrintable(why));
        QString stopped;
        double followUpMs = 0;
        const std::optional<SweepRecord> best =
            sweepOnTwo(spinningTranspose(), &stopped, &followUpMs);
        QVERIFY2(stopped.isEmpty() && best, qPrintable(stopped));
        const QString figures = shown(*best, followUpMs);
        qInfo("%s", qPrintable(figures));
        QCOMPARE(best->values.last(), 1.0); // WORK=1
        QVERIFY2(best->isRetimed(), qPrintable(figures));
        QVERIFY2(best->confirmation, qPrintable(figures));
        const SweepConfirmation& c = *best->confirmation;
        QVERIFY2(c.verdict == SweepConfirmation::kFaster, qPrintable(figures));
        QVERIFY2(c.text(best->key).startsWith(QStringLiteral("confirmed on 2 devices: ")),
                 qPrintable(figures));
        QCOMPARE(c.devices.size(), 2);
        QVERIFY2(c.devices[0].device != c.devices[1].device, qPrintable(figures));
        for (const AbDeviceEstimate& e : c.devices)
            QVERIFY2(e.verdict == SweepConfirmation::kFaster && e.ratio < 0.8 && e.blocks >= 4,
                     qPrintable(figures));
        QVERIFY2(c.ratio < 0.8 && c.low <= c.ratio && c.ratio <= c.high, qPrintable(figures));
    }

    /// A few transpose shapes on two devices: whatever the verdict, the line says it came from
    /// both.
    void transposeShapesConfirmOnTwoDevices() {
        QString why;
        if (!twoDevicesOfOneModel(&why))
            QSKIP(qPrintable(why));
        Project project = test::loadExample(QStringLiteral("transpose_sweep.kpad"));
        project.sweep.tunables[0].values = SweepValues{};
        project.sweep.tunables[0].values.list = {16, 32};
        project.sweep.tunables[1].values = SweepValues{};
        project.sweep.tunables[1].values.list = {8, 16};
        project.sweep.restrictions.clear();
        QString stopped;
        double followUpMs = 0;
        const std::optional<SweepRecord> best = sweepOnTwo(project, &stopped, &followUpMs);
        QVERIFY2(stopped.isEmpty() && best, qPrintable(stopped));
        const QString figures = shown(*best, followUpMs);
        qInfo("%s", qPrintable(figures));
        QVERIFY2(best->confirmation && best->confirmation->hasVerdict(), qPrintable(figures));
        QCOMPARE(best->confirmation->devices.size(), 2);
        QVERIFY2(best->confirmation->text(best->key).contains(QStringLiteral(" on 2 devices")),
                 qPrintable(figures));
    }

    void failingShapesAreNeverBest() {
        Project project = test::loadExample(QStringLiteral("transpose_sweep.kpad"));
        project.source.replace(
            QStringLiteral("__global__\nvoid transpose("),
            QStringLiteral("__global__ __launch_bounds__(256)\nvoid transpose("));
        QVERIFY(project.source.contains(QStringLiteral("__launch_bounds__(256)")));
        QString stopped;
        const QVector<SweepRecord> records = sweepAll(project, &stopped);
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
        QCOMPARE(records.size(), 66);
        int passed = 0;
        for (const SweepRecord& r : records) {
            const bool fits = r.values[0] * r.values[1] <= 256;
            QVERIFY2(r.passed() == fits, qPrintable(r.key + QStringLiteral(": ") + r.status +
                                                    QStringLiteral(" ") + r.error));
            if (!fits)
                QVERIFY2(!r.error.isEmpty(), qPrintable(r.key));
            passed += r.passed() ? 1 : 0;
        }
        QCOMPARE(passed, 45); // a + b <= 8 for bx = 2^a, by = 2^b
        const std::optional<SweepRecord> best = bestRecord(records, SweepObjective::Time);
        QVERIFY(best && best->passed());
        QVERIFY(best->values[0] * best->values[1] <= 256);
    }

    void saxpyOverSizes() {
        Project project = test::loadExample(QStringLiteral("saxpy_sizes.kpad"));
        // 2^10 .. 2^24: enough to leave the launch-bound region, quick enough for a test.
        for (SweepTunable& t : project.sweep.tunables)
            if (t.name == QLatin1String("n"))
                t.values.to = double(1 << 24);
        QString stopped;
        const QVector<SweepRecord> records = sweepAll(project, &stopped);
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
        QCOMPARE(records.size(), 15);
        for (const SweepRecord& r : records)
            QVERIFY2(r.passed(), qPrintable(r.key + QStringLiteral(": ") + r.error));
        // Longest first (core/sweep/SweepCost.h): the largest n is handed out, and so on one
        // runner answered, first; the smallest last.
        QCOMPARE(records.first().key, QStringLiteral("n=16777216"));
        QCOMPARE(records.last().key, QStringLiteral("n=1024"));
        QVERIFY2(records.first().bandwidthGBs > 10 * records.last().bandwidthGBs,
                 qPrintable(QStringLiteral("%1 GB/s at 2^24, %2 GB/s at 2^10")
                                .arg(records.first().bandwidthGBs)
                                .arg(records.last().bandwidthGBs)));
        QCOMPARE(bestRecord(records, SweepObjective::Bandwidth)->bandwidthGBs >=
                     records.last().bandwidthGBs,
                 true);
        // The chart's ceiling comes from the records: each carries the device's, one value.
        const std::optional<double> ceiling = recordsCeilingGBs(records);
        QVERIFY(ceiling);
        for (const SweepRecord& r : records)
            QCOMPARE(r.ceilingGBs, *ceiling);
        QVERIFY2(*ceiling > records.last().bandwidthGBs * 0.5 && *ceiling < 20000,
                 qPrintable(QString::number(*ceiling)));
        qInfo("copy ceiling carried by every record: %.1f GB/s", *ceiling);
    }

    void twoRunnersOnOneDeviceSurviveAKill() {
        // Two runners on device 0 share the 66 shapes; after 10 results one runner's process
        // is killed. Its configuration goes to the other runner (and the killed one restarts),
        // so the sweep still ends with every shape verified exactly once.
        const Project project = test::loadExample(QStringLiteral("transpose_sweep.kpad"));
        RunnerPool pool({0, 0});
        pool.warmUp();
        PoolSweepEvaluator evaluator(&pool);
        RunRequest base;
        base.project = project;
        base.projectDir = test::examplesDir();
        Sweep sweep(base, &evaluator);
        sweep.setConfirm(false);
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QSignalSpy lost(&pool, &RunnerPool::runnerLost);
        QSignalSpy finished(&sweep, &Sweep::finished);
        bool killed = false;
        connect(&sweep, &Sweep::recordAdded, this, [&](const SweepRecord&) {
            if (killed || sweep.done() < 10)
                return;
            for (int r = 0; r < pool.runnerCount() && !killed; ++r) {
                if (pool.runnerBusy(r) && pool.runnerPid(r) > 0) {
                    ::kill(pid_t(pool.runnerPid(r)), SIGKILL);
                    killed = true;
                }
            }
        });
        QElapsedTimer wall;
        wall.start();
        sweep.start();
        QVERIFY(finished.wait(280000));
        const QString stopped = finished.first().at(0).toString();
        if (stopped.startsWith(QStringLiteral("no CUDA device")))
            QSKIP(qPrintable(QStringLiteral("found no device: %1").arg(stopped)));
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
        QVERIFY2(killed, "no runner was busy after 10 results");
        // A kill that lands just after the runner's answer left is no loss (the answer counts).
        QVERIFY(lost.size() <= 1);
        const QVector<SweepRecord> records = sweep.records();
        QCOMPARE(records.size(), 66);
        QSet<QString> keys;
        for (const SweepRecord& r : records) {
            QVERIFY2(r.passed(), qPrintable(r.key + QStringLiteral(": ") + r.error));
            keys.insert(r.key);
        }
        QCOMPARE(keys.size(), 66);
        QVERIFY(pool.jobsAnswered(0) > 0);
        QVERIFY(pool.jobsAnswered(1) > 0);
        qInfo("66 shapes on two runners of device 0, one killed after 10: %lld ms; runner 0 "
              "answered %d, runner 1 %d, runners lost %d",
              wall.elapsed(), pool.jobsAnswered(0), pool.jobsAnswered(1), int(lost.size()));
    }

    void cliPrintsCsvJsonAndResumes() {
        // The GPU machine runs a bundle outside the build tree: $KERNELPAD_CLI names its CLI.
        const QString cli = qEnvironmentVariableIsSet("KERNELPAD_CLI")
                                ? qEnvironmentVariable("KERNELPAD_CLI")
                                : QStringLiteral(KERNELPAD_CLI_PATH);
        QTemporaryDir dir;
        const QString results = dir.filePath(QStringLiteral("r.jsonl"));
        const QString example = test::examplesDir() + QStringLiteral("/transpose_sweep.kpad");
        const auto sweep = [&](const QStringList& extra, QString* out, QString* err) {
            QProcess p;
            p.start(cli, QStringList{"sweep", example, "--set", "bx=8,16,32", "--set", "by=8",
                                     "--no-confirm", "--results", results} +
                             extra);
            if (!p.waitForFinished(120000))
                return -1;
            *out = QString::fromUtf8(p.readAllStandardOutput());
            *err = QString::fromUtf8(p.readAllStandardError());
            return p.exitCode();
        };
        QString out, err;
        QCOMPARE(sweep({"--csv"}, &out, &err), 0);
        QStringList lines = out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 4);
        QCOMPARE(lines[0], QStringLiteral("bx,by,status,median_ms,min_ms,gbps,ceiling_gbps,device,"
                                          "error,timing_budget,accurate_median_ms"));
        for (int i = 1; i < 4; ++i)
            QVERIFY2(lines[i].contains(QStringLiteral(",ok,")), qPrintable(lines[i]));
        // The same results file again: nothing left to run, the same table.
        QCOMPARE(sweep({"--json"}, &out, &err), 0);
        QVERIFY2(
            err.contains(
                QStringLiteral("resuming %1: 3 of 3 configurations already done").arg(results)),
            qPrintable(err));
        const QJsonObject json = QJsonDocument::fromJson(out.toUtf8()).object();
        QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(json.value(QStringLiteral("results")).toArray().size(), 3);
        QCOMPARE(
            json.value(QStringLiteral("best")).toObject().value(QStringLiteral("key")).toString(),
            json.value(QStringLiteral("results"))
                .toArray()[0]
                .toObject()
                .value(QStringLiteral("key"))
                .toString());
        QFile file(results);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().count('\n'), 4); // the header and 3 records: none twice
        QVERIFY(json.value(QStringLiteral("ceilingGBs")).toDouble() > 0);
    }

    // The CLI stopped by its budget leaves the window's file (in the cache folder keyed by the
    // project's path, named by its hash and the device); the window's SweepJob resumes it and
    // evaluates only the rest.
    void cliSweepResumedByTheWindowsJob() {
        const QString cli = qEnvironmentVariableIsSet("KERNELPAD_CLI")
                                ? qEnvironmentVariable("KERNELPAD_CLI")
                                : QStringLiteral(KERNELPAD_CLI_PATH);
        QTemporaryDir dir;
        Project project = test::loadExample(QStringLiteral("transpose_sweep.kpad"));
        project.sweep.tunables[0].values = SweepValues{};
        project.sweep.tunables[0].values.list = {8, 16, 32};
        project.sweep.tunables[1].values = SweepValues{};
        project.sweep.tunables[1].values.list = {4, 8};
        const QString path = dir.filePath(QStringLiteral("t.kpad"));
        QString error;
        QVERIFY2(project.save(path, &error), qPrintable(error));
        // As the CLI and the window read it.
        const std::optional<Project> saved = Project::load(path, &error);
        QVERIFY2(saved, qPrintable(error));
        project = *saved;
        QProcess p;
        p.start(cli, {"sweep", path, "--device", "0", "--budget", "2", "--no-confirm"});
        QVERIFY(p.waitForFinished(120000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitCode(), 0);
        const QString device = RunnerClient::devicesOf(RunnerSpec{}, &error).value(0).name;
        const QString results = sweepResultsPath(project, path, sweepDeviceKey({device}));
        QVERIFY2(err.contains(QStringLiteral("sweep: recording into ") + results), qPrintable(err));
        QVERIFY2(QFileInfo(results).absolutePath() == sweepResultsDirectory(path),
                 qPrintable(results));

        SweepJob job;
        QSignalSpy started(&job, &SweepJob::started);
        QSignalSpy added(&job, &SweepJob::recordAdded);
        QSignalSpy finished(&job, &SweepJob::finished);
        RunRequest base;
        base.project = project;
        base.projectDir = dir.path();
        QVERIFY(job.start(base, results, true, false));
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().at(0).toString(), QString());
        QCOMPARE(started.first().at(0).value<QVector<SweepRecord>>().size(), 2);
        QCOMPARE(added.size(), 4); // 6 shapes, 2 done by the CLI
        const std::optional<QVector<SweepRecord>> all = readSweepResults(results, &error);
        QVERIFY2(all, qPrintable(error));
        QCOMPARE(all->size(), 6);
        for (const SweepRecord& r : *all) {
            QVERIFY2(r.passed(), qPrintable(r.key + QStringLiteral(": ") + r.error));
            QCOMPARE(r.ceilingGBs, (*all)[0].ceilingGBs); // CLI's and job's runners alike
        }
        QVERIFY((*all)[0].ceilingGBs > 0);
    }

private:
    static QString runnerPath() { return RunnerClient::findRunner(); }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuSweep)
} // namespace tst_gpusweep
#include "tst_gpusweep.moc"
