// kernelpad-cli sweep: bad input is refused with exit 4 and a message
// naming the option or field; without a CUDA device the sweep stops at the first
// configuration, says that no device was found and exits 3 (a compile-only evaluation is no
// sweep), writing no record; on a machine with a device the same command sweeps. --runner given
// twice spreads the sweep over every device of stand-in runners, each result naming its runner in
// the table, the CSV and the JSON; an unreachable runner is named on stderr and left out;
// --devices with several runners is refused. The results file lives in the cache folder, keyed
// by the project's path: one beside the project (an older KernelPad's, or planted) is named as
// ignored and never opened; --results FILE and --fresh refuse a symbolic link and a file
// without the header, leaving it as it was.

#include "../support/StandInRunner.h"
#include "core/cuda/DriverApi.h"

#include "../support/CliProcess.h"
#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_sweepcli {

namespace {

using kernelpad::test::CliResult;

/// `kernelpad-cli sweep <args>`; the default results file goes to the cache folder, a
/// temporary one here.
CliResult runCli(const QStringList& args, const QString& cacheHome) {
    return kernelpad::test::runCli(QStringList{QStringLiteral("sweep")} + args,
                                   {{QStringLiteral("XDG_CACHE_HOME"), cacheHome}}, 280'000);
}

const QString kTranspose = QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad");
const QString kSaxpy = QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad");
const QByteArray kHeader = QByteArrayLiteral("{\"kernelpad\":\"sweep-results\",\"version\":1}\n");
/// A shell profile of one line without its newline, what a planted link's target must keep: the
/// old code emptied such a file and appended records to it.
const QByteArray kProfile = QByteArrayLiteral("alias ll='ls -l'");

QByteArray contents(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

bool writePlain(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

bool haveDevice() {
    QString why;
    return kernelpad::DriverApi::load(&why);
}

} // namespace

class TestSweepCli : public QObject {
    Q_OBJECT
private slots:
    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no project") << QStringList{} << "name the project";
        QTest::newRow("unknown option")
            << QStringList{kTranspose, "--faster"} << "unknown option --faster";
        QTest::newRow("budget-ms 0")
            << QStringList{kTranspose, "--budget-ms", "0"}
            << "--budget-ms: '0' is not a whole number of milliseconds from 1 to 60000";
        QTest::newRow("budget-ms not a number")
            << QStringList{kTranspose, "--budget-ms", "fast"}
            << "--budget-ms: 'fast' is not a whole number of milliseconds";
        QTest::newRow("fast and budget-ms")
            << QStringList{kTranspose, "--fast", "--budget-ms", "50"}
            << "--budget-ms: the timing budget is already fast (give one of --fast, --accurate "
               "and --budget-ms N)";
        QTest::newRow("accurate and fast") << QStringList{kTranspose, "--accurate", "--fast"}
                                           << "--fast: the timing budget is already accurate";
        QTest::newRow("strategy")
            << QStringList{kTranspose, "--strategy", "annealing"}
            << "--strategy: expected exhaustive, random or local, got 'annealing'";
        QTest::newRow("budget") << QStringList{kTranspose, "--budget", "0"}
                                << "--budget: '0' is not a whole number >= 1";
        QTest::newRow("set without =")
            << QStringList{kTranspose, "--set", "bx"} << "--set 'bx': expected NAME=VALUES";
        QTest::newRow("set bad values")
            << QStringList{kTranspose, "--set", "bx=1,x"} << "--set bx: '1,x': 'x' is not a number";
        QTest::newRow("set bad name") << QStringList{kTranspose, "--set", "2T=1,2"}
                                      << "--set 2T: sweep.defines.2T: '2T' is not a name";
        QTest::newRow("no sweep section")
            << QStringList{kSaxpy} << "sweep: the project has no \"sweep\" section";
        QTest::newRow("json and csv")
            << QStringList{kTranspose, "--json", "--csv"} << "--json and --csv: choose one";
        QTest::newRow("devices with two runners")
            << QStringList{kTranspose, "--devices", "0,1", "--runner", "ssh:a", "--runner", "ssh:b"}
            << "--devices chooses devices of one runner; with 2 --runner options";
        QTest::newRow("bad runner")
            << QStringList{kTranspose, "--runner", "ssh:a", "--runner", "telnet:b"}
            << "--runner 'telnet:b': unknown kind of runner";
        QTest::newRow("results in a missing folder")
            << QStringList{kTranspose, "--results", "/nonexistent/dir/r.jsonl"}
            << "results file '/nonexistent/dir/r.jsonl' cannot be opened to append";
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir cache;
        const CliResult r = runCli(args, cache.path());
        QCOMPARE(r.exitCode, 4);
        // With --json the message is the JSON "error" on stdout.
        QVERIFY2((r.err + r.out).contains(message), qPrintable(r.err + r.out));
    }

    void badInputAsJson() {
        QTemporaryDir cache;
        const CliResult r = runCli({kTranspose, "--json", "--strategy", "x"}, cache.path());
        QCOMPARE(r.exitCode, 4);
        const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("bad-input"));
        QVERIFY(json.value(QStringLiteral("error"))
                    .toString()
                    .startsWith(QStringLiteral("--strategy")));
    }

    void sweepsOrSaysThereIsNoDevice() {
        QTemporaryDir dir;
        const QString results = dir.filePath(QStringLiteral("r.jsonl"));
        // Two block shapes through --set: quick with or without a device.
        const CliResult r = runCli(
            {kTranspose, "--set", "bx=16,32", "--set", "by=8", "--reps", "2", "--results", results},
            dir.path());
        QVERIFY2(r.err.contains(QStringLiteral("sweep: 2 of 2 configurations kept")),
                 qPrintable(r.err));
        if (!haveDevice()) {
            QCOMPARE(r.exitCode, 3);
            QVERIFY2(r.err.contains(QStringLiteral("no CUDA device")) &&
                         r.err.contains(QStringLiteral("A sweep needs a device")),
                     qPrintable(r.err));
            QFile file(results);
            QVERIFY(file.open(QIODevice::ReadOnly));
            QCOMPARE(file.readAll(), kHeader); // no record of a run that never ran
            return;
        }
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("2 of 2 configurations passed")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("best: bx=")), qPrintable(r.out));
    }

    void sweepsOverEveryDeviceOfTwoRunners() {
        kernelpad::test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake A100"));
        kernelpad::test::StandInRunner beta(QStringLiteral("beta"), QStringLiteral("Fake H100"));
        QTemporaryDir dir;
        // The runs counted below are the configurations': no A/B (sweepConfirmsItsBestOnce).
        const QStringList sweep{kTranspose, "--set",  "bx=8,16,32,64",
                                "--set",    "by=4,8", "--no-confirm"};
        const QStringList runners{"--runner", "cmd:" + alpha.spec().commandLine,
                                  "--runner", "cmd:/bin/sh -c \"echo 'Connection refused' >&2\"",
                                  "--runner", "cmd:" + beta.spec().commandLine};
        const auto names = [](const QString& text) {
            QSet<QString> seen;
            for (const QString& runner : {QStringLiteral("/bin/sh: Fake A100 (device 0)"),
                                          QStringLiteral("/bin/sh: Fake H100 (device 0)")})
                if (text.contains(runner))
                    seen.insert(runner);
            return seen;
        };
        CliResult r =
            runCli(sweep + runners + QStringList{"--results", dir.filePath("t.jsonl")}, dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.err.contains(QStringLiteral("sweep: left out runner /bin/sh: ")) &&
                     r.err.contains(QStringLiteral("Connection refused")),
                 qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("8 of 8 configurations passed")), qPrintable(r.out));
        QCOMPARE(names(r.out).size(), 2); // the table names both
        // Each device's busy share, after the best.
        const QRegularExpression busy(
            QStringLiteral("busy: /bin/sh: Fake [AH]100 \\(device 0\\) busy \\d+ %, /bin/sh: "
                           "Fake [AH]100 \\(device 0\\) busy \\d+ % of [0-9.]+ s"));
        QVERIFY2(busy.match(r.out).hasMatch(), qPrintable(r.out));
        // Where a configuration's time went: the stand-ins time nothing of their own.
        const QRegularExpression time(QStringLiteral(
            "time: per configuration, median: [0-9.]+ ms handed over to answered; this side: "
            "waiting in the pool [0-9.]+, settling the answer [0-9.]+, the way there and back "
            "[0-9.]+, recording [0-9.]+ ms\n"));
        QVERIFY2(time.match(r.out).hasMatch(), qPrintable(r.out));

        r = runCli(sweep + runners + QStringList{"--csv", "--results", dir.filePath("c.jsonl")},
                   dir.path());
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(names(r.out).size(), 2);

        r = runCli(sweep + runners + QStringList{"--json", "--results", dir.filePath("j.jsonl")},
                   dir.path());
        QCOMPARE(r.exitCode, 0);
        const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(json.value(QStringLiteral("passed")).toInt(), 8);
        QSet<QString> devices;
        for (const QJsonValue& v : json.value(QStringLiteral("results")).toArray())
            devices.insert(v.toObject().value(QStringLiteral("device")).toString());
        QCOMPARE(devices, names(r.out));
        const QJsonObject balance = json.value(QStringLiteral("balance")).toObject();
        const QJsonArray busyDevices = balance.value(QStringLiteral("devices")).toArray();
        QCOMPARE(busyDevices.size(), 2);
        int configurations = 0;
        for (const QJsonValue& v : busyDevices) {
            const double share = v.toObject().value(QStringLiteral("busyPercent")).toDouble(-1);
            QVERIFY2(share >= 0 && share <= 100, qPrintable(QString::number(share)));
            configurations += v.toObject().value(QStringLiteral("configurations")).toInt();
        }
        QCOMPARE(configurations, 8);
        QVERIFY(balance.value(QStringLiteral("wallMs")).toDouble() > 0);
        // Where each configuration's wall went: the stand-ins time nothing of their own, so
        // this side's steps hold it (the pool's queue, the way there and back, recording).
        const QJsonArray times = balance.value(QStringLiteral("configurations")).toArray();
        QCOMPARE(times.size(), 8);
        for (const QJsonValue& v : times) {
            const QJsonObject client = v.toObject().value(QStringLiteral("clientMs")).toObject();
            QVERIFY2(client.contains(QStringLiteral("waiting in the pool")) &&
                         client.value(QStringLiteral("the way there and back")).toDouble() >= 50 &&
                         client.contains(QStringLiteral("recording")),
                     qPrintable(QJsonDocument(v.toObject()).toJson()));
        }
        const QJsonObject stages = balance.value(QStringLiteral("stagesMs")).toObject();
        QVERIFY2(stages.value(QStringLiteral("wall")).toObject().value("median").toDouble() >= 50,
                 qPrintable(QJsonDocument(stages).toJson()));
        QCOMPARE(alpha.completed().size() + beta.completed().size(), 24);
    }

    /// --fast times each configuration with the fast budget, then the best once more with the
    /// project's timing: one run more than there are configurations, and the best's record
    /// names both.
    void fastSweepTimesTheBestAgain() {
        kernelpad::test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake A100"));
        kernelpad::test::StandInRunner beta(QStringLiteral("beta"), QStringLiteral("Fake H100"));
        QTemporaryDir dir;
        const QStringList args{kTranspose,     "--set",
                               "bx=8,16",      "--set",
                               "by=4,8",       "--fast",
                               "--no-confirm", "--json",
                               "--results",    dir.filePath("f.jsonl"),
                               "--runner",     "cmd:" + alpha.spec().commandLine,
                               "--runner",     "cmd:" + beta.spec().commandLine};
        const CliResult r = runCli(args, dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.err.contains(QStringLiteral("sweep: each configuration timed fast (10 samples "
                                               "after 2 warm-up launches)")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("again with the project's timing (accurate)")),
                 qPrintable(r.err));
        QCOMPARE(alpha.completed().size() + beta.completed().size(), 4 + 1);
        const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonObject best = json.value(QStringLiteral("best")).toObject();
        QCOMPARE(best.value(QStringLiteral("timingBudget")).toString(), QStringLiteral("fast"));
        QVERIFY2(best.contains(QStringLiteral("accurateMedianMs")),
                 QJsonDocument(best).toJson().constData());
        for (const QJsonValue& v : json.value(QStringLiteral("results")).toArray())
            QCOMPARE(v.toObject().value(QStringLiteral("timingBudget")).toString(),
                     QStringLiteral("fast"));
        // Resumed: every configuration and the best's second timing are in the file.
        const CliResult again = runCli(args, dir.path());
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(alpha.completed().size() + beta.completed().size(), 5);
    }

    /// The best is confirmed by an A/B against the runner-up on the stand-in runner (whose every
    /// run takes the same time: no difference), the verdict in the text and the JSON; a resumed
    /// sweep reads it from the results file and runs nothing; --no-confirm runs no A/B; a runner
    /// whose runs carry no times gives no verdict, and the sweep still ends with its records.
    void sweepConfirmsItsBestOnce() {
        kernelpad::test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake A100"),
                                             0.5);
        QTemporaryDir dir;
        const QStringList sweep{kTranspose,
                                "--set",
                                "bx=8,16",
                                "--set",
                                "by=8",
                                "--runner",
                                "cmd:" + alpha.spec().commandLine};
        const QString results = dir.filePath(QStringLiteral("a.jsonl"));
        CliResult r = runCli(sweep + QStringList{"--json", "--results", results}, dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.err.contains(QStringLiteral("sweep: confirming the best, bx=16,by=8, by an "
                                               "interleaved A/B against the runner-up, bx=8,by=8")),
                 qPrintable(r.err));
        const QJsonObject confirmation = QJsonDocument::fromJson(r.out.toUtf8())
                                             .object()
                                             .value(QStringLiteral("confirmation"))
                                             .toObject();
        QCOMPARE(confirmation.value(QStringLiteral("verdict")).toString(),
                 QStringLiteral("no difference"));
        QCOMPARE(confirmation.value(QStringLiteral("against")).toString(),
                 QStringLiteral("bx=8,by=8"));
        QCOMPARE(confirmation.value(QStringLiteral("best")).toString(),
                 QStringLiteral("bx=16,by=8"));
        // Two configurations, then at least 8 blocks: the sweep's runs of both, verified, size
        // them, so the A/B runs no verified runs of its own.
        const qsizetype runs = alpha.completed().size();
        QVERIFY2(runs >= 2 + 8 && (runs - 2) % 4 == 0, qPrintable(QString::number(runs)));

        r = runCli(sweep + QStringList{"--results", results}, dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QCOMPARE(alpha.completed().size(), runs); // resumed: nothing runs again
        QVERIFY2(r.out.contains(QStringLiteral("no detectable difference from bx=8,by=8 at "
                                               "\u00b10.0 %: either will do")),
                 qPrintable(r.out));
        QVERIFY2(!r.err.contains(QStringLiteral("confirming")), qPrintable(r.err));

        r = runCli(sweep + QStringList{"--no-confirm", "--json", "--results",
                                       dir.filePath(QStringLiteral("b.jsonl"))},
                   dir.path());
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(alpha.completed().size(), runs + 2);
        QVERIFY(!QJsonDocument::fromJson(r.out.toUtf8()).object().contains("confirmation"));

        // Runs without times: the A/B has no samples, says so, and the sweep still ends.
        kernelpad::test::StandInRunner untimed(QStringLiteral("beta"), QStringLiteral("Fake B"));
        r = runCli({kTranspose, "--set", "bx=8,16", "--set", "by=8", "--runner",
                    "cmd:" + untimed.spec().commandLine, "--results",
                    dir.filePath(QStringLiteral("c.jsonl"))},
                   dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("2 of 2 configurations passed")), qPrintable(r.out));
        QVERIFY2(
            r.out.contains(QStringLiteral("not confirmed: the A/B against bx=8,by=8 failed: ")),
            qPrintable(r.out));
    }

    /// Two runners: of one model, the A/B runs on both, its line says so and --json keeps each
    /// device's ratio; of two models, on one, and the line says why.
    void theAbRunsOnBothDevicesOfOneModel_data() {
        QTest::addColumn<QString>("gpuB");
        QTest::addColumn<QString>("line");
        const QString unchecked =
            QStringLiteral("; SM clocks and temperature were not checked: no telemetry");
        QTest::newRow("one model") << "Fake H100"
                                   << "no detectable difference on 2 devices from bx=8,by=8 at "
                                      "\u00b10.0 %: either will do" +
                                          unchecked;
        QTest::newRow("two models")
            << "Fake A100"
            << "no detectable difference from bx=8,by=8 at \u00b10.0 %: either will do" +
                   unchecked +
                   "; on one device: the sweep's devices are different models (Fake H100 (sm_90, "
                   "0 SMs), Fake A100 (sm_90, 0 SMs))";
    }
    void theAbRunsOnBothDevicesOfOneModel() {
        QFETCH(QString, gpuB);
        QFETCH(QString, line);
        kernelpad::test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake H100"),
                                             0.5);
        kernelpad::test::StandInRunner beta(QStringLiteral("beta"), gpuB, 0.5);
        QTemporaryDir dir;
        const CliResult r = runCli({kTranspose, "--set", "bx=8,16", "--set", "by=8", "--json",
                                    "--results", dir.filePath(QStringLiteral("d.jsonl")),
                                    "--runner", "cmd:" + alpha.spec().commandLine, "--runner",
                                    "cmd:" + beta.spec().commandLine},
                                   dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject confirmation = QJsonDocument::fromJson(r.out.toUtf8())
                                             .object()
                                             .value(QStringLiteral("confirmation"))
                                             .toObject();
        QCOMPARE(confirmation.value(QStringLiteral("text")).toString(), line);
        const QJsonArray devices = confirmation.value(QStringLiteral("devices")).toArray();
        const QString runs = QStringLiteral("%1 runs on alpha, %2 on beta")
                                 .arg(alpha.completed().size())
                                 .arg(beta.completed().size());
        if (gpuB == QLatin1String("Fake H100")) {
            QCOMPARE(devices.size(), 2);
            for (const QJsonValue& d : devices) {
                QCOMPARE(d.toObject().value(QStringLiteral("ratio")).toDouble(), 1.0);
                QCOMPARE(d.toObject().value(QStringLiteral("blocks")).toInt(), 4);
            }
            // Each its 4 blocks, and the two configurations (the sweep's verified runs size the
            // blocks: no verified runs of the A/B's own).
            QVERIFY2(alpha.completed().size() >= 4 && beta.completed().size() >= 4 &&
                         alpha.completed().size() + beta.completed().size() == 2 + 8,
                     qPrintable(runs));
        } else {
            QVERIFY(devices.isEmpty());
            QVERIFY(confirmation.value(QStringLiteral("oneDeviceReason"))
                        .toString()
                        .startsWith(QStringLiteral("the sweep's devices are different models")));
            QVERIFY2(std::min(alpha.completed().size(), beta.completed().size()) <= 2,
                     qPrintable(runs));
        }
    }

    /// A size sweep's best and runner-up differ in n: no A/B runs (two configurations, nothing
    /// more), and the line says why.
    void aSizeSweepSaysTheAbDoesNotApply() {
        kernelpad::test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake H100"),
                                             0.5);
        QTemporaryDir dir;
        QFile in(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy_sizes.kpad"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject project = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject sweep = project.value(QStringLiteral("sweep")).toObject();
        sweep.insert(QStringLiteral("objective"), QStringLiteral("time")); // the stand-in's
        project.insert(QStringLiteral("sweep"), sweep);
        const QString path = dir.filePath(QStringLiteral("sizes.kpad"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(project).toJson());
        out.close();
        const CliResult r =
            runCli({path, "--set", "n=1024,2048", "--runner", "cmd:" + alpha.spec().commandLine},
                   dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("not confirmed: an A/B does not apply (the "
                                               "configurations differ in n, so their inputs "
                                               "differ)")),
                 qPrintable(r.out));
        QVERIFY2(!r.err.contains(QStringLiteral("confirming")), qPrintable(r.err));
        QCOMPARE(alpha.completed().size(), 2);
    }

    void noRunnerWithADeviceExits3() {
        QTemporaryDir dir;
        const CliResult r =
            runCli({kTranspose, "--runner", "cmd:/bin/sh -c \"exit 3\"", "--runner",
                    "cmd:/bin/sh -c \"echo nope >&2\"", "--results", dir.filePath("r.jsonl")},
                   dir.path());
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains(QStringLiteral("no CUDA device on any of the 2 runners")),
                 qPrintable(r.err));
    }

    // An example's results go to the cache folder the window uses too, in the folder of the
    // project's canonical path, named like the window's file.
    void anExamplesResultsGoToTheCacheFolder() {
        QTemporaryDir cache;
        const CliResult r =
            runCli({kTranspose, "--set", "bx=32", "--set", "by=8", "--reps", "2"}, cache.path());
        QVERIFY2(r.exitCode == 0 || r.exitCode == 3, qPrintable(r.err));
        const QRegularExpression recording(
            QStringLiteral("sweep: recording into ") +
            QRegularExpression::escape(cache.path() + QStringLiteral("/kernelpad/sweeps/")) +
            QStringLiteral("([0-9a-f]{64})/transpose_sweep\\.sweep-[0-9a-f]{8}\\.jsonl\n"));
        const QRegularExpressionMatch m = recording.match(r.err);
        QVERIFY2(m.hasMatch(), qPrintable(r.err));
        QDir sweeps(cache.path() + QStringLiteral("/kernelpad/sweeps/") + m.captured(1));
        QCOMPARE(
            sweeps.entryList({QStringLiteral("transpose_sweep.sweep-*.jsonl")}, QDir::Files).size(),
            1);
        QVERIFY(QDir(QStringLiteral(KERNELPAD_EXAMPLES_DIR))
                    .entryList({QStringLiteral("*.jsonl")}, QDir::Files)
                    .isEmpty());
    }

    // A project in a folder of the user's: the file in the cache folder, never beside it; the
    // same command again finds it, --fresh starts it over.
    void inTheCacheFolderResumedOrStartedOver() {
        if (haveDevice())
            QSKIP("with a device the sweep runs: tst_gpusweep covers the resume on the device");
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("t.kpad"));
        QVERIFY(QFile::copy(kTranspose, project));
        CliResult r = runCli({project, "--set", "bx=16,32", "--set", "by=8"}, dir.path());
        QCOMPARE(r.exitCode, 3);
        const QRegularExpression recording(QStringLiteral("sweep: recording into (\\S+)\n"));
        const QRegularExpressionMatch m = recording.match(r.err);
        QVERIFY2(m.hasMatch(), qPrintable(r.err));
        const QString results = m.captured(1);
        QVERIFY2(results.startsWith(dir.path() + QStringLiteral("/kernelpad/sweeps/")),
                 qPrintable(results));
        QVERIFY(QFileInfo(results).fileName().startsWith(QStringLiteral("t.sweep-")));
        QCOMPARE(contents(results), kHeader);
        // One record, as an interrupted sweep leaves it.
        QFile file(results);
        QVERIFY(file.open(QIODevice::Append));
        file.write("{\"key\":\"bx=16,by=8\",\"names\":[\"bx\",\"by\"],\"parameters\":{\"bx\":16,"
                   "\"by\":8},\"status\":\"ok\",\"medianMs\":0.5,\"device\":\"Fake GPU\"}\n");
        file.close();
        r = runCli({project, "--set", "bx=16,32", "--set", "by=8"}, dir.path());
        QVERIFY2(r.err.contains(QStringLiteral("sweep: resuming %1: 1 of 2 configurations already "
                                               "done (--fresh starts over)")
                                    .arg(results)),
                 qPrintable(r.err));
        r = runCli({project, "--set", "bx=16,32", "--set", "by=8", "--fresh"}, dir.path());
        QVERIFY2(r.err.contains(QStringLiteral("sweep: recording into ") + results),
                 qPrintable(r.err));
        QCOMPARE(contents(results), kHeader);
    }

    // A project folder someone sent plants `t.sweep-HASH.jsonl -> ~/.bash_aliases` beside the
    // project, under the name the results file had there: the target was emptied and filled
    // with records. It is named as ignored and never opened.
    void aLinkBesideTheProjectIsIgnored() {
        if (haveDevice())
            QSKIP("with a device the sweep runs; the link is ignored alike (no device needed)");
        QTemporaryDir dir, cache, home;
        const QString project = dir.filePath(QStringLiteral("t.kpad"));
        QVERIFY(QFile::copy(kTranspose, project));
        const QStringList args{project, "--set", "bx=16,32", "--set", "by=8"};
        CliResult r = runCli(args, cache.path());
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("sweep: recording into (\\S+)\n")).match(r.err);
        QVERIFY2(m.hasMatch(), qPrintable(r.err));
        const QString profile = home.filePath(QStringLiteral(".bash_aliases"));
        QVERIFY(writePlain(profile, kProfile));
        const QString planted = dir.filePath(QFileInfo(m.captured(1)).fileName());
        QVERIFY(QFile::link(profile, planted));
        r = runCli(args, cache.path());
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains(QStringLiteral("sweep: ignoring %1: results beside a project are "
                                               "no longer read or written")
                                    .arg(planted)),
                 qPrintable(r.err));
        QCOMPARE(contents(profile), kProfile);
    }

    // --results names any file: a symbolic link or a file KernelPad did not write is refused
    // (and --fresh does not remove it), the file as it was.
    void resultsThatAreNotKernelPadsAreRefused_data() {
        QTest::addColumn<bool>("link");
        QTest::addColumn<bool>("fresh");
        QTest::addColumn<QString>("message");
        QTest::newRow("a link") << true << false << "is a symbolic link";
        QTest::newRow("a link, --fresh") << true << true << "is a symbolic link";
        QTest::newRow("a profile") << false << false << "line 1: not a KernelPad";
        QTest::newRow("a profile, --fresh") << false << true << "line 1: not a KernelPad";
    }
    void resultsThatAreNotKernelPadsAreRefused() {
        QFETCH(bool, link);
        QFETCH(bool, fresh);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString profile = dir.filePath(QStringLiteral(".bash_aliases"));
        QVERIFY(writePlain(profile, kProfile));
        QString results = profile;
        if (link) {
            results = dir.filePath(QStringLiteral("r.jsonl"));
            QVERIFY(QFile::link(profile, results));
        }
        QStringList args{kTranspose, "--set", "bx=16", "--set", "by=8", "--results", results};
        if (fresh)
            args.append(QStringLiteral("--fresh"));
        const CliResult r = runCli(args, dir.path());
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.err.contains(message) && r.err.contains(results), qPrintable(r.err));
        QCOMPARE(contents(profile), kProfile);
        QCOMPARE(QFileInfo(results).isSymLink(), link);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepCli)
} // namespace tst_sweepcli
#include "tst_sweepcli.moc"
