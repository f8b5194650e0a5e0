// The batch system's account of a runner's end, read from its standard error
// (core/runner/RunnerConnectionBatch.h): srun's and slurmstepd's lines recorded from Slurm 22.05
// (scripts/slurm-local: scancel, --time) and those of its other reasons, each row one ending;
// and a stand-in runner that prints them and exits as srun does, mid-run, without a Slurm
// (tst_slurmrunner has the real one).

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "core/project/Project.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/RunnerConnectionBatch.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "TestPaths.h"

namespace tst_batchsystemend {

using namespace kernelpad;

namespace {

constexpr int kAnswerLimitMs = 20000;

/// A runner that says hello, then answers its first request as srun does when Slurm cancels
/// the job: slurmstepd's and srun's lines (recorded from scripts/slurm-local's Slurm 22.05) on
/// standard error, exit code 143.
/// With `stepdLine` false, slurmstepd's line is lost, as it sometimes is when the task dies
/// before srun forwards it (recorded in CI), and the hello names the job step as a runner under
/// srun does.
RunnerSpec cancelledBySlurmStandIn(const QTemporaryDir& dir, bool stepdLine = true) {
    const QString file = dir.filePath(QStringLiteral("cancelled.sh"));
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(file));
    f.write(QStringLiteral(
                "printf '{\"type\":\"hello\",\"version\":%1,\"kernelpad\":\"%2\",\"pid\":%s,"
                "\"outputDir\":\"%s\"%4}\\n' $$ \"%3\"\n"
                "read -r line\n"
                "echo 'srun: Job step aborted: Waiting up to 4 seconds for job step to finish.' "
                ">&2\n"
                "%5"
                "echo 'srun: error: localhost: task 0: Terminated' >&2\n"
                "exit 143\n")
                .arg(kRunnerProtocolVersion)
                .arg(kernelpadVersion(), dir.path(),
                     stepdLine ? QString() : QStringLiteral(",\"batchStep\":\"2.0\""),
                     stepdLine ? QStringLiteral("echo 'slurmstepd-localhost: error: *** STEP 2.0 "
                                                "ON localhost CANCELLED AT 2026-11-28T06:44:30 "
                                                "***' >&2\n")
                               : QString())
                .toUtf8());
    f.close();
    RunnerSpec s;
    s.kind = RunnerSpec::Kind::Command;
    s.name = QStringLiteral("cluster");
    s.commandLine = QStringLiteral("/bin/sh \"%1\"").arg(file);
    return s;
}

} // namespace

class TestBatchSystemEnd : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<kernelpad::RunResult>(); }

    void aRunnerEndedBySlurmIsReportedAsSuch() {
        // Runs everywhere: a stand-in prints what srun printed when scancel ended its job.
        QTemporaryDir dir;
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(cancelledBySlurmStandIn(dir), &error));
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        QSignalSpy restarted(&client, &RunnerClient::runnerRestarted);
        client.run(1, test::saxpyRequest());
        QVERIFY(finished.wait(kAnswerLimitMs));
        const RunResult r = finished.first().at(1).value<RunResult>();
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(r.error.startsWith(QLatin1String("KernelPad's runner was stopped by Slurm while "
                                                  "running 'saxpy': its job step 2.0 was "
                                                  "cancelled (scancel")),
                 qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String("(it exited with code 143)")), qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String("\nSlurm said:\nsrun: Job step aborted")),
                 qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String("CANCELLED AT 2026-11-28T06:44:30 ***\nsrun: "
                                                "error: localhost: task 0: Terminated")),
                 qPrintable(r.error));
        QVERIFY(restarted.size() == 1 || restarted.wait(kAnswerLimitMs));
        QCOMPARE(restarted.first().at(0).toString(),
                 QStringLiteral("Slurm stopped it: its job step 2.0 was cancelled (scancel, or "
                                "the job's owner or an administrator ended it)"));
    }

    void aStepWhoseCancellationLineWasLostIsStillNamed() {
        // srun closed the step's output before slurmstepd's line came: its "Job step aborted"
        // and the task's signal are all there is, and the hello's step names the job.
        QTemporaryDir dir;
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(cancelledBySlurmStandIn(dir, false), &error));
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(1, test::saxpyRequest());
        QVERIFY(finished.wait(kAnswerLimitMs));
        const RunResult r = finished.first().at(1).value<RunResult>();
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(r.error.startsWith(QLatin1String(
                     "KernelPad's runner was stopped by Slurm while running 'saxpy': its job "
                     "step 2.0 was aborted by Slurm (scancel, a time limit or a failed node; "
                     "srun did not say which), and its task on localhost was terminated "
                     "(SIGTERM) (it exited with code 143)")),
                 qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String("\nSlurm said:\nsrun: Job step aborted: Waiting "
                                                "up to 4 seconds for job step to finish.\nsrun: "
                                                "error: localhost: task 0: Terminated")),
                 qPrintable(r.error));
    }

    void readsTheReason_data() {
        QTest::addColumn<QString>("stderrText");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("quotedLast");
        QTest::addColumn<QString>("batchStep");
        // Recorded: `scancel 2` of `srun -N1 -n1 sleep 60`.
        QTest::newRow("scancel")
            << QStringLiteral("srun: Job step aborted: Waiting up to 4 seconds for job step to "
                              "finish.\n"
                              "slurmstepd-localhost: error: *** STEP 2.0 ON localhost CANCELLED "
                              "AT 2026-11-28T06:44:30 ***\n"
                              "srun: error: localhost: task 0: Terminated\n")
            << QStringLiteral("its job step 2.0 was cancelled (scancel, or the job's owner or an "
                              "administrator ended it)")
            << QStringLiteral("srun: error: localhost: task 0: Terminated") << QString();
        // Recorded: `srun --time=00:00:01 sleep 200`.
        QTest::newRow("time limit")
            << QStringLiteral("kernelpad-cli: a line of its own first\n"
                              "slurmstepd-localhost: error: *** STEP 3.0 ON localhost CANCELLED "
                              "AT 2026-11-28T06:45:53 DUE TO TIME LIMIT ***\n"
                              "srun: Job step aborted: Waiting up to 4 seconds for job step to "
                              "finish.\n"
                              "srun: error: localhost: task 0: Terminated\n")
            << QStringLiteral("its job step 3.0 reached its time limit (srun --time; ask for "
                              "more, or start a new runner)")
            << QStringLiteral("srun: error: localhost: task 0: Terminated") << QString();
        QTest::newRow("preemption")
            << QStringLiteral("slurmstepd: error: *** JOB 41 ON gpu07 CANCELLED AT "
                              "2026-01-02T03:04:05 DUE TO PREEMPTION ***\n")
            << QStringLiteral("its job 41 was preempted by another job")
            << QStringLiteral("slurmstepd: error: *** JOB 41 ON gpu07 CANCELLED AT "
                              "2026-01-02T03:04:05 DUE TO PREEMPTION ***")
            << QString();
        QTest::newRow("node failure")
            << QStringLiteral("slurmstepd: error: *** JOB 41 ON gpu07 CANCELLED AT "
                              "2026-01-02T03:04:05 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR "
                              "DETAILS ***\n")
            << QStringLiteral("its job 41 was cancelled because its node gpu07 failed")
            << QStringLiteral("slurmstepd: error: *** JOB 41 ON gpu07 CANCELLED AT "
                              "2026-01-02T03:04:05 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR "
                              "DETAILS ***")
            << QString();
        QTest::newRow("out of memory")
            << QStringLiteral("slurmstepd: error: Detected 1 oom_kill event in StepId=9.0. Some "
                              "of the step tasks have been OOM Killed.\n"
                              "srun: error: gpu07: task 0: Out Of Memory\n")
            << QStringLiteral("its job went beyond its memory limit and was killed (ask for more "
                              "with srun --mem)")
            << QStringLiteral("srun: error: gpu07: task 0: Out Of Memory") << QString();
        QTest::newRow("killed without a reason")
            << QStringLiteral("srun: error: gpu07: task 0: Killed\n")
            << QStringLiteral("its task on gpu07 was killed (SIGKILL)")
            << QStringLiteral("srun: error: gpu07: task 0: Killed") << QString();
        QTest::newRow("force terminated")
            << QStringLiteral("srun: Force Terminated job 77\n")
            << QStringLiteral("its job 77 was ended (srun: Force Terminated)")
            << QStringLiteral("srun: Force Terminated job 77") << QString();
        QTest::newRow("allocation revoked")
            << QStringLiteral("srun: error: Job allocation 12 has been revoked\n")
            << QStringLiteral("its job allocation 12 was revoked")
            << QStringLiteral("srun: error: Job allocation 12 has been revoked") << QString();
        // Recorded in CI: scancel of a runner whose slurmstepd line never reached srun.
        QTest::newRow("scancel, slurmstepd's line lost")
            << QStringLiteral("srun: Job step aborted: Waiting up to 4 seconds for job step to "
                              "finish.\n"
                              "srun: error: localhost: task 0: Terminated\n")
            << QStringLiteral("its job step 5.0 was aborted by Slurm (scancel, a time limit or a "
                              "failed node; srun did not say which), and its task on localhost "
                              "was terminated (SIGTERM)")
            << QStringLiteral("srun: error: localhost: task 0: Terminated")
            << QStringLiteral("5.0");
        QTest::newRow("aborted in a batch script")
            << QStringLiteral("srun: Job step aborted: Waiting up to 4 seconds for job step to "
                              "finish.\n"
                              "srun: error: gpu07: task 0: Killed\n")
            << QStringLiteral("its job 5 was aborted by Slurm (scancel, a time limit or a failed "
                              "node; srun did not say which), and its task on gpu07 was killed "
                              "(SIGKILL)")
            << QStringLiteral("srun: error: gpu07: task 0: Killed") << QStringLiteral("5");
        QTest::newRow("aborted, step unknown")
            << QStringLiteral("srun: Job step aborted: Waiting up to 4 seconds for job step to "
                              "finish.\n"
                              "srun: error: gpu07: task 0: Killed\n")
            << QStringLiteral("its job step was aborted by Slurm (scancel, a time limit or a "
                              "failed node; srun did not say which), and its task on gpu07 was "
                              "killed (SIGKILL)")
            << QStringLiteral("srun: error: gpu07: task 0: Killed") << QString();
    }

    void readsTheReason() {
        QFETCH(QString, stderrText);
        QFETCH(QString, reason);
        QFETCH(QString, quotedLast);
        QFETCH(QString, batchStep);
        const std::optional<BatchSystemEnd> end = findBatchSystemEnd(stderrText, batchStep);
        QVERIFY(end);
        QCOMPARE(end->system, QStringLiteral("Slurm"));
        QCOMPARE(end->reason, reason);
        QVERIFY(!end->said.isEmpty());
        QCOMPARE(end->said.last(), quotedLast);
        QCOMPARE(end->summary(), QStringLiteral("Slurm stopped it: ") + reason);
        // The runner's own lines are not Slurm's.
        QVERIFY(!end->said.join(QLatin1Char('\n')).contains(QLatin1String("kernelpad-cli")));
    }

    void theMessagesNameTheKernelAndQuoteSlurm() {
        const std::optional<BatchSystemEnd> end = findBatchSystemEnd(
            QStringLiteral("slurmstepd-localhost: error: *** STEP 2.0 ON localhost CANCELLED AT "
                           "2026-11-28T06:44:30 ***\n"
                           "srun: error: localhost: task 0: Terminated"));
        QVERIFY(end);
        QCOMPARE(
            end->runMessage(QStringLiteral("saxpy"), QStringLiteral("it exited with code 143")),
            QStringLiteral("KernelPad's runner was stopped by Slurm while running 'saxpy': "
                           "its job step 2.0 was cancelled (scancel, or the job's owner or "
                           "an administrator ended it) (it exited with code 143). A fresh "
                           "runner will serve the next run (a new job); your source is "
                           "unchanged.\n"
                           "Slurm said:\n"
                           "slurmstepd-localhost: error: *** STEP 2.0 ON localhost "
                           "CANCELLED AT 2026-11-28T06:44:30 ***\n"
                           "srun: error: localhost: task 0: Terminated"));
        QVERIFY(end->unansweredMessage(QStringLiteral("it exited with code 143"))
                    .startsWith(QLatin1String("KernelPad's runner was stopped by Slurm before it "
                                              "answered: its job step 2.0 was cancelled")));
    }

    void otherEndsAreNotTheBatchSystems_data() {
        QTest::addColumn<QString>("stderrText");
        QTest::newRow("nothing") << QString();
        QTest::newRow("a crash") << QStringLiteral("Segmentation fault (core dumped)");
        // The runner's own exit code, as srun passes it on: not Slurm's doing.
        QTest::newRow("the task's own exit")
            << QStringLiteral("srun: error: gpu07: task 0: Exited with exit code 3");
        QTest::newRow("no allocation")
            << QStringLiteral("srun: error: Unable to allocate resources: Requested node "
                              "configuration is not available");
        QTest::newRow("aborted alone")
            << QStringLiteral("srun: Job step aborted: Waiting up to 32 seconds for job step to "
                              "finish.");
    }

    void otherEndsAreNotTheBatchSystems() {
        QFETCH(QString, stderrText);
        QVERIFY(!findBatchSystemEnd(stderrText));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestBatchSystemEnd)
} // namespace tst_batchsystemend
#include "tst_batchsystemend.moc"
