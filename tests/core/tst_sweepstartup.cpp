// kernelpad-cli sweep's start-up and exit: when --devices names the devices of one runner, the
// sweep's runners start while the command still lists the devices (their names key the results
// file), not after; a --devices ordinal the runner lacks is still refused with the same message
// and exit 4; and the command leaves no runner process behind, whether it swept or refused. A
// pool made before the listing learns the devices' names from it (RunnerPool::nameDevices).
// The runner is a stand-in (tests/support/StandInRunner.h) behind a wrapper script that records
// each start's time and process id; KERNELPAD_TRACE gives the time the devices were listed.

#include "../support/CliProcess.h"
#include "../support/StandInRunner.h"
#include "core/runner/RunnerPool.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

namespace tst_sweepstartup {

namespace {

const QString kTranspose = QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad");

using kernelpad::test::CliResult;

/// `kernelpad-cli sweep <args>` with its cache and trace in `dir`.
CliResult runCli(const QStringList& args, const QString& dir) {
    return kernelpad::test::runCli(
        QStringList{QStringLiteral("sweep")} + args,
        {{QStringLiteral("XDG_CACHE_HOME"), dir},
         {QStringLiteral("KERNELPAD_TRACE"), dir + QStringLiteral("/trace")}},
        120'000);
}

/// A runner command that appends "EPOCH_MS PID" to DIR/starts, waits 0.3 s, then becomes
/// `runner`'s stand-in: the listing of the devices ends at least 0.3 s after its runner started,
/// so runners started with it are recorded before its end, and those started after it, after.
QString recordingRunner(const QString& dir, const kernelpad::test::StandInRunner& runner) {
    const QString path = dir + QStringLiteral("/recording.sh");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(QStringLiteral("#!/bin/sh\n"
                           "echo \"$(date +%s%3N) $$\" >> '%1/starts'\n"
                           "sleep 0.3\n"
                           "exec %2\n")
                .arg(dir, runner.spec().commandLine)
                .toUtf8());
    f.close();
    return QStringLiteral("cmd:/bin/sh %1").arg(path);
}

struct Start {
    qint64 epochMs = 0;
    qint64 pid = 0;
};

QVector<Start> starts(const QString& dir) {
    QFile f(dir + QStringLiteral("/starts"));
    QVector<Start> out;
    if (!f.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QList<QByteArray> fields = line.split(' ');
        if (fields.size() == 2)
            out.append({fields[0].toLongLong(), fields[1].toLongLong()});
    }
    return out;
}

/// The epoch ms of the CLI's trace line `phase` ("kernelpad-trace PID EPOCH +… (+…) PHASE"),
/// 0 when missing.
qint64 tracedAt(const QString& dir, const QString& phase) {
    QFile f(dir + QStringLiteral("/trace"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QString& line : QString::fromUtf8(f.readAll()).split(QLatin1Char('\n')))
        if (line.endsWith(phase))
            return line.section(QLatin1Char(' '), 2, 2).toLongLong();
    return 0;
}

/// Whether process `pid` still runs (a zombie does not).
bool running(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const qsizetype paren = text.lastIndexOf(')');
    return paren >= 0 && text.mid(paren + 2, 1) != "Z";
}

/// The recorded runners still running 3 s after the command ended (a runner told to exit
/// takes a moment), as "PID PID …".
QString survivors(const QVector<Start>& recorded) {
    QDeadlineTimer deadline(3000);
    QStringList alive;
    do {
        alive.clear();
        for (const Start& s : recorded)
            if (running(s.pid))
                alive.append(QString::number(s.pid));
        if (alive.isEmpty())
            break;
        QThread::msleep(50);
    } while (!deadline.hasExpired());
    return alive.join(QLatin1Char(' '));
}

} // namespace

class TestSweepStartup : public QObject {
    Q_OBJECT
private slots:
    void runnersStartWhileTheDevicesAreListed() {
        QTemporaryDir dir;
        kernelpad::test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake H200"));
        const QString runner = recordingRunner(dir.path(), alpha);
        const CliResult r =
            runCli({kTranspose, "--set", "bx=16,32", "--set", "by=8", "--no-confirm", "--devices",
                    "0,0", "--runner", runner, "--results", dir.filePath("r.jsonl")},
                   dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("2 of 2 configurations passed")), qPrintable(r.out));
        const qint64 surveyed = tracedAt(dir.path(), QStringLiteral("sweep: devices surveyed"));
        QVERIFY2(surveyed > 0, "no 'sweep: devices surveyed' in the trace");
        const QVector<Start> recorded = starts(dir.path());
        // The listing's runner and the sweep's two.
        QCOMPARE(recorded.size(), 3);
        QStringList before;
        for (const Start& s : recorded)
            if (s.epochMs < surveyed)
                before.append(QString::number(s.epochMs));
        QVERIFY2(before.size() == 3,
                 qPrintable(QStringLiteral("runners started before the devices were listed at "
                                           "%1: %2 of 3 (%3)")
                                .arg(surveyed)
                                .arg(before.size())
                                .arg(before.join(QLatin1Char(' ')))));
        const QString alive = survivors(recorded);
        QVERIFY2(alive.isEmpty(), qPrintable(QStringLiteral("runners left running: ") + alive));
    }

    void aDeviceTheRunnerLacksIsStillRefused() {
        QTemporaryDir dir;
        kernelpad::test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake H200"));
        const QString runner = recordingRunner(dir.path(), alpha);
        const QString results = dir.filePath(QStringLiteral("r.jsonl"));
        const CliResult r = runCli(
            {kTranspose, "--devices", "0,3", "--runner", runner, "--results", results}, dir.path());
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.err.contains(QStringLiteral("--devices: there is no device 3 (")) &&
                     r.err.contains(QStringLiteral(" has 1)")),
                 qPrintable(r.err));
        QVERIFY2(!QFile::exists(results), "a refused sweep wrote its results file");
        const QVector<Start> recorded = starts(dir.path());
        QVERIFY2(!recorded.isEmpty(), "no runner started");
        const QString alive = survivors(recorded);
        QVERIFY2(alive.isEmpty(), qPrintable(QStringLiteral("runners left running: ") + alive));
    }

    void aPoolMadeBeforeTheListingLearnsItsDeviceNames() {
        using kernelpad::PoolEntry;
        using kernelpad::RunnerSpec;
        kernelpad::RunnerPool pool(QVector<PoolEntry>{PoolEntry{RunnerSpec::local(), 0, {}},
                                                      PoolEntry{RunnerSpec::local(), 1, {}}});
        pool.nameDevices({PoolEntry{RunnerSpec::local(), 0, QStringLiteral("NVIDIA H200")},
                          PoolEntry{RunnerSpec::local(), 1, QStringLiteral("NVIDIA H100")}});
        QCOMPARE(pool.runnerEntry(0).deviceName, QStringLiteral("NVIDIA H200"));
        QCOMPARE(pool.runnerEntry(1).deviceName, QStringLiteral("NVIDIA H100"));
        // Entries of other devices name nothing.
        pool.nameDevices({PoolEntry{RunnerSpec::local(), 1, QStringLiteral("other")}});
        QCOMPARE(pool.runnerEntry(0).deviceName, QStringLiteral("NVIDIA H200"));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepStartup)
} // namespace tst_sweepstartup
#include "tst_sweepstartup.moc"
