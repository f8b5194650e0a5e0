// The runner process seen from the client: the protocol round trip, and the watchdog and
// crash handling, with stand-in runners that hang or crash (no GPU needed).

#include "core/engine/Engine.h"
#include "core/project/Project.h"
#include "core/run/RunStage.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerClient.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tst_runnerclient {

using namespace kernelpad;

namespace {

RunResult waitForResult(QSignalSpy& spy, int timeoutMs = 30000) {
    if (spy.isEmpty() && !spy.wait(timeoutMs)) {
        RunResult none;
        none.error = QStringLiteral("no result within the wait");
        return none;
    }
    return spy.takeFirst().at(1).value<RunResult>();
}

/// A stand-in runner: a shell script whose first line announces a private output folder the
/// way the real runner does, then `rest` (which may print forged or broken messages).
QStringList standIn(const QString& hello, const QString& rest) {
    return {QStringLiteral("-c"), QStringLiteral("d=$(mktemp -d /tmp/kernelpad-runner-XXXXXX); ") +
                                      hello + QStringLiteral("; ") + rest};
}

const QString kGoodHello =
    QStringLiteral("printf '{\"type\":\"hello\",\"version\":%1,\"pid\":1,\"outputDir\":\"%s\"}\\n' "
                   "\"$d\"");

/// One line from the runner's protocol channel, or an empty array after `timeoutMs`.
QByteArray readLine(QProcess& p, int timeoutMs = 10000) {
    while (!p.canReadLine())
        if (!p.waitForReadyRead(timeoutMs))
            return {};
    return p.readLine();
}

/// The first bytes written to `fd`, or an empty array after `timeoutMs` or at end of file.
QByteArray firstBytes(int fd, int timeoutMs) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, timeoutMs) != 1)
        return {};
    char buffer[512];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    return n > 0 ? QByteArray(buffer, qsizetype(n)) : QByteArray();
}

/// True once `pid` is gone (or a zombie nobody here can reap).
bool processGone(pid_t pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    return close > 0 && line.size() > close + 2 && line.at(close + 2) == 'Z';
}

/// Closing KernelPad may not wait for its runner's exit (quitting once took about 2 s
/// after the window closed). The old destructor waited a second for the exit and another
/// after killing; a runner's exit waits for the driver's CUDA context teardown.
constexpr qint64 kCloseWithoutWaitingMs = 500;
/// Stand-in runners below take this long to exit, as a context teardown can.
const QString kSlowExit = QStringLiteral("exec sleep 4");

/// The first line of the file a stand-in wrote, once it has.
QByteArray heardLine(const QString& heard) {
    QFile file(heard);
    return file.open(QIODevice::ReadOnly) ? file.readLine().trimmed() : QByteArray();
}

} // namespace

class TestRunnerClient : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<kernelpad::RunResult>(); }

    void protocolRejectsBadLines_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not JSON") << QByteArray("{oops") << "not JSON";
        QTest::newRow("array") << QByteArray("[1,2]") << "object";
        QTest::newRow("no type") << QByteArray("{\"id\":1}") << "type";
        QTest::newRow("unknown type")
            << QByteArray("{\"type\":\"format-disk\",\"id\":1}") << "unknown";
        QTest::newRow("run without id") << QByteArray("{\"type\":\"run\"}") << "id";
        QTest::newRow("negative id") << QByteArray("{\"type\":\"run\",\"id\":-3}") << "id";
        QTest::newRow("fractional id") << QByteArray("{\"type\":\"run\",\"id\":1.5}") << "id";
    }
    void protocolRejectsBadLines() {
        QFETCH(QByteArray, line);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(!decodeRunnerMessage(line, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void protocolRoundTrip() {
        const RunnerMessage m =
            RunnerMessage::make(MessageType::Progress, 42, {{"stage", "timing"}, {"done", 3}});
        const QByteArray line = encodeRunnerMessage(m);
        QVERIFY(line.endsWith('\n'));
        QCOMPARE(line.count('\n'), 1);
        QString error;
        const std::optional<RunnerMessage> back = decodeRunnerMessage(line, &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->type == MessageType::Progress);
        QCOMPARE(back->id, quint64(42));
        QCOMPARE(back->body.value("done").toInt(), 3);
    }

    void realRunnerAnswersWithoutADriver() {
        RunnerClient client;
        client.setCommand(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("serve")});
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(7, test::exampleRequest("vector_add.kpad"));
        const RunResult r = waitForResult(finished);
        QVERIFY(r.compile.ok);
        QVERIFY(r.compile.findKernel("vector_add<float>"));
        // Without a driver the runner compiles and says why it cannot run; with one it runs.
        QVERIFY2(r.status == RunStatus::DriverUnavailable || r.status == RunStatus::Ok,
                 qPrintable(r.error));
        QVERIFY(client.runnerPid() > 0); // kept warm for the next run
        QCOMPARE(client.startCount(), 1);
        QSignalSpy again(&client, &RunnerClient::runFinished);
        client.run(8, test::exampleRequest("saxpy.kpad"));
        QVERIFY(waitForResult(again).compile.ok);
        QCOMPARE(client.startCount(), 1);
    }

    void realRunnerSaysWhereItsTimeWent() {
        // A sweep's per-configuration breakdown (SweepBalance) rests on these: the runner's
        // own steps and each stage the run passed through, in order, within the round trip.
        RunnerClient client;
        client.setCommand(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("serve")});
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        QElapsedTimer roundTrip;
        roundTrip.start();
        client.run(9, test::exampleRequest("saxpy.kpad"));
        const RunResult r = waitForResult(finished);
        const double roundTripMs = double(roundTrip.nsecsElapsed()) / 1e6;
        QStringList stages;
        double sum = 0;
        for (const StageTime& s : r.stagesMs) {
            stages << s.stage;
            QVERIFY2(s.ms >= 0 && !s.client, qPrintable(s.stage));
            sum += s.ms;
        }
        const QString got = stages.join(QStringLiteral(", "));
        QVERIFY2(stages.size() >= 5, qPrintable(got));
        QCOMPARE(stages.mid(0, 4),
                 (QStringList{QStringLiteral("waiting in the runner"),
                              QStringLiteral("reading the request"),
                              QStringLiteral("starting the run"), toString(RunStage::Compiling)}));
        QCOMPARE(stages.last(), QStringLiteral("writing the result"));
        // Without a driver the run ends after compiling; with one it passes through the rest.
        if (r.status == RunStatus::Ok)
            QVERIFY2(stages.contains(toString(RunStage::Timing)), qPrintable(got));
        QVERIFY2(sum <= roundTripMs,
                 qPrintable(QStringLiteral("%1 ms of stages in a %2 ms round trip: %3")
                                .arg(sum)
                                .arg(roundTripMs)
                                .arg(got)));
        // They travel in the result's JSON, and a result without them reads as before.
        QString error;
        const std::optional<RunResult> back = RunResult::fromJson(r.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->stagesMs.size(), r.stagesMs.size());
        QCOMPARE(back->stagesMs.last().stage, r.stagesMs.last().stage);
        QJsonObject without = r.toJson();
        without.remove(QStringLiteral("stagesMs"));
        const std::optional<RunResult> old = RunResult::fromJson(without, &error);
        QVERIFY2(old && old->stagesMs.isEmpty(), qPrintable(error));
    }

    void hangingRunnerIsKilledByTheWatchdog() {
        RunnerClient client;
        client.setCommand(QStringLiteral("/bin/sh"),
                          {QStringLiteral("-c"), QStringLiteral("cat > /dev/null")});
        client.setPreparationLimitMs(200);
        RunRequest request = test::exampleRequest("saxpy.kpad");
        request.project.timing.timeLimitMs = 100;
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        QSignalSpy restarted(&client, &RunnerClient::runnerRestarted);
        client.run(1, request);
        const RunResult r = waitForResult(finished, 5000);
        QCOMPARE(r.status, RunStatus::Timeout);
        QVERIFY2(r.error.contains("time limit") && r.error.contains("saxpy") &&
                     r.error.contains("source is unchanged"),
                 qPrintable(r.error));
        QCOMPARE(restarted.count(), 1);
        QCOMPARE(client.startCount(), 2); // a fresh runner waits for the next run
        QVERIFY(!client.isRunning());
    }

    void crashingRunnerEndsTheRunWithAMessage() {
        RunnerClient client;
        client.setCommand(QStringLiteral("/bin/sh"),
                          {QStringLiteral("-c"), QStringLiteral("read line; kill -SEGV $$")});
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(3, test::exampleRequest("saxpy.kpad"));
        const RunResult r = waitForResult(finished, 5000);
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(r.error.contains("stopped unexpectedly") && r.error.contains("crashed"),
                 qPrintable(r.error));
    }

    void cancelOfAHungRunnerKillsIt() {
        RunnerClient client;
        client.setCommand(QStringLiteral("/bin/sh"),
                          {QStringLiteral("-c"), QStringLiteral("cat > /dev/null")});
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(5, test::exampleRequest("saxpy.kpad"));
        QTest::qWait(100);
        const qint64 pid = client.runnerPid();
        QVERIFY(pid > 0);
        client.cancel();
        const RunResult r = waitForResult(finished, 5000);
        QCOMPARE(r.status, RunStatus::Cancelled);
        QVERIFY2(r.error.contains("Cancelled"), qPrintable(r.error));
        QVERIFY(client.runnerPid() != pid);
    }

    void helloIsChecked_data() {
        QTest::addColumn<QStringList>("script");
        QTest::addColumn<QString>("mustSay");
        const QString hello = kGoodHello.arg(kRunnerProtocolVersion);
        QTest::newRow("a second hello")
            << standIn(hello, QStringLiteral("read line; ") + hello + QStringLiteral("; cat"))
            << "second hello";
        QTest::newRow("output folder '.'")
            << standIn(QStringLiteral("printf "
                                      "'{\"type\":\"hello\",\"version\":1,\"outputDir\":"
                                      "\".\"}\\n'"),
                       QStringLiteral("cat"))
            << "not a clean absolute path";
        QTest::newRow("output folder open to others")
            << standIn(QStringLiteral("chmod 755 \"$d\"; ") + hello, QStringLiteral("cat"))
            << "not private";
        QTest::newRow("output folder is a link")
            << standIn(QStringLiteral("rmdir \"$d\"; ln -s \"$KEEP_DIR\" \"$d\"; ") + hello,
                       QStringLiteral("cat"))
            << "is not a folder";
        // A private kernelpad-runner-* folder of this user's, but not where the runner this
        // client started makes its own (the temporary folder): not one to read or delete.
        QTest::newRow("output folder outside the temporary folder")
            << standIn(QStringLiteral("d=\"$KEEP_DIR/kernelpad-runner-x\"; mkdir -m 700 \"$d\"; ") +
                           hello,
                       QStringLiteral("cat"))
            << "not in this computer's temporary folder";
        QTest::newRow("protocol from the future")
            << standIn(kGoodHello.arg(kRunnerProtocolVersion + 1), QStringLiteral("cat"))
            << "update the KernelPad application";
        QTest::newRow("protocol from the past")
            << standIn(kGoodHello.arg(kRunnerProtocolVersion - 1), QStringLiteral("cat"))
            << "update the runner";
        QTest::newRow("a result before the hello")
            << QStringList{QStringLiteral("-c"),
                           QStringLiteral("read line; printf '{\"type\":\"result\",\"id\":4,"
                                          "\"result\":{\"status\":\"ok\"}}\\n'; cat")}
            << "before its hello";
        // A message the client cannot read is a protocol error naming the field, never a run
        // with zeros in it.
        QTest::newRow("a result missing its parts")
            << standIn(hello, QStringLiteral("read line; printf '{\"type\":\"result\",\"id\":4,"
                                             "\"result\":{\"status\":\"ok\"},\"outputs\":[],"
                                             "\"poisoned\":false}\\n'; cat"))
            << "runner result: compile: missing";
        QTest::newRow("progress with a count as text")
            << standIn(hello, QStringLiteral("read line; printf '{\"type\":\"progress\",\"id\":4,"
                                             "\"stage\":\"timing\",\"done\":\"5\","
                                             "\"total\":20}\\n'; cat"))
            << "runner progress: done: expected a whole number, got a string";
    }
    void helloIsChecked() {
        QFETCH(QStringList, script);
        QFETCH(QString, mustSay);
        // A folder the forged hellos point at: the client must not delete what is in it.
        QTemporaryDir keep;
        QVERIFY(QFile(keep.filePath(QStringLiteral("work.kpad"))).open(QIODevice::WriteOnly));
        qputenv("KEEP_DIR", QFile::encodeName(keep.path()));
        const QString cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(keep.path()));
        {
            RunnerClient client;
            client.setCommand(QStringLiteral("/bin/sh"), script);
            QSignalSpy finished(&client, &RunnerClient::runFinished);
            client.run(4, test::exampleRequest("saxpy.kpad"));
            const RunResult r = waitForResult(finished, 10000);
            QCOMPARE(r.status, RunStatus::CudaError);
            QVERIFY2(r.error.contains("broke the protocol") && r.error.contains(mustSay),
                     qPrintable(r.error));
        }
        QVERIFY(QDir::setCurrent(cwd));
        QVERIFY(QFile::exists(keep.filePath(QStringLiteral("work.kpad"))));
    }

    void runnerRefusesAnswersAndOverlongLines() {
        QProcess runner;
        runner.start(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("serve")});
        QVERIFY(runner.waitForStarted());
        QVERIFY(readLine(runner).contains("\"hello\""));
        runner.write("{\"type\":\"hello\",\"version\":1,\"outputDir\":\"/tmp\"}\n");
        runner.write("{\"type\":\"result\",\"id\":3,\"result\":{\"status\":\"ok\"}}\n");
        for (const char* type : {"hello", "result"}) {
            const QByteArray line = readLine(runner);
            QVERIFY2(line.contains("\"error\"") && line.contains("is not a request") &&
                         line.contains(type),
                     line.constData());
        }
        runner.write(QByteArray(kMaxRunnerMessageBytes + 1, 'x') + '\n');
        const QByteArray refused = readLine(runner);
        QVERIFY2(refused.contains("longer than"), refused.constData());
        runner.write("{\"type\":\"devices\",\"id\":5}\n"); // still serving
        const QByteArray devices = readLine(runner, 30000);
        QVERIFY2(devices.contains("\"devices\"") && devices.contains("\"id\":5"),
                 devices.constData());
        runner.closeWriteChannel(); // end of input: the runner exits by itself
        QVERIFY(runner.waitForFinished(10000));
        QCOMPARE(runner.exitCode(), 0);
    }

    void runnerDiesWithItsParent() {
        // parent (killed here) -> runner, whose stdin stays open: only the parent-death
        // signal can end it.
        int input[2];
        int report[2];
        int protocol[2];
        QCOMPARE(::pipe(input), 0);
        QCOMPARE(::pipe(report), 0);
        QCOMPARE(::pipe(protocol), 0);
        const QByteArray cli = QByteArrayLiteral(KERNELPAD_CLI_PATH);
        const pid_t parent = ::fork();
        if (parent == 0) {
            const pid_t runner = ::fork();
            if (runner == 0) {
                ::dup2(input[0], STDIN_FILENO);
                ::dup2(protocol[1], STDOUT_FILENO);
                ::execl(cli.constData(), cli.constData(), "serve", static_cast<char*>(nullptr));
                ::_exit(127);
            }
            (void)!::write(report[1], &runner, sizeof runner);
            ::pause();
            ::_exit(0);
        }
        ::close(report[1]);
        ::close(protocol[1]);
        pid_t runner = 0;
        QCOMPARE(::read(report[0], &runner, sizeof runner), ssize_t(sizeof runner));
        ::close(report[0]);
        // The runner says hello only once its parent-death signal is armed
        // (core/runner/RunnerServer.cpp, runRunnerServer).
        const QByteArray hello = firstBytes(protocol[0], 10000);
        QVERIFY2(hello.contains("hello"), hello.constData());
        QVERIFY(!processGone(runner));
        ::kill(parent, SIGKILL);
        ::waitpid(parent, nullptr, 0);
        QTRY_VERIFY_WITH_TIMEOUT(processGone(runner), 5000);
        ::close(protocol[0]);
        ::close(input[0]);
        ::close(input[1]);
    }

    void closingDoesNotWaitForTheRunnersExit_data() {
        QTest::addColumn<bool>("midRun");
        QTest::addColumn<QByteArray>("mustHear"); // the request the runner gets before it goes
        QTest::newRow("between runs: told to exit") << false << QByteArray("shutdown");
        QTest::newRow("in a run: killed") << true << QByteArray("run");
    }
    void closingDoesNotWaitForTheRunnersExit() {
        QFETCH(bool, midRun);
        QFETCH(QByteArray, mustHear);
        QTemporaryDir dir;
        const QString heard = dir.filePath(QStringLiteral("heard"));
        qputenv("HEARD", QFile::encodeName(heard));
        // Writes down its first request, then takes its time to exit.
        const QStringList script = standIn(
            kGoodHello.arg(kRunnerProtocolVersion),
            QStringLiteral(
                "echo > \"$HEARD.hello\"; read line; printf '%s\\n' \"$line\" > \"$HEARD\"; ") +
                kSlowExit);
        const QByteArray request = QByteArray("\"type\":\"") + mustHear + '"';
        auto client = std::make_unique<RunnerClient>();
        client->setCommand(QStringLiteral("/bin/sh"), script);
        if (midRun)
            client->run(1, test::exampleRequest("saxpy.kpad"));
        else
            client->warmUp();
        const qint64 pid = client->runnerPid();
        QVERIFY(pid > 0);
        if (midRun)
            QTRY_VERIFY_WITH_TIMEOUT(heardLine(heard).contains(request), 5000);
        else // its hello sent
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(heard + QStringLiteral(".hello")), 5000);

        QElapsedTimer clock;
        clock.start();
        client.reset();
        const qint64 tookMs = clock.elapsed();
        QVERIFY2(tookMs < kCloseWithoutWaitingMs,
                 qPrintable(QStringLiteral("closing took %1 ms").arg(tookMs)));

        QTRY_VERIFY_WITH_TIMEOUT(heardLine(heard).contains(request), 5000);
        // Killed at once, or gone by itself after its slow exit; either way it does not stay.
        QTRY_VERIFY_WITH_TIMEOUT(processGone(pid_t(pid)), midRun ? 2000 : 10000);
    }

    void closingTheEngineDoesNotWaitForTheRunnersExit() {
        // As the application closes: the runner belongs to the engine's GPU thread, which
        // ends with the engine.
        QTemporaryDir dir;
        const QString runner = dir.filePath(QStringLiteral("runner"));
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        QFile file(runner);
        QVERIFY(file.open(QIODevice::WriteOnly));
        // Its pid is written once its hello is sent.
        file.write(QStringLiteral("#!/bin/sh\nd=$(mktemp -d /tmp/kernelpad-runner-XXXXXX)\n%2\n"
                                  "echo $$ > \"%1\"\ncat > /dev/null\n%3\n")
                       .arg(pidFile, kGoodHello.arg(kRunnerProtocolVersion), kSlowExit)
                       .toUtf8());
        file.close();
        QVERIFY(file.setPermissions(file.permissions() | QFileDevice::ExeOwner));
        qputenv("KERNELPAD_RUNNER", QFile::encodeName(runner));
        auto engine = std::make_unique<Engine>(nullptr, Engine::Isolation::Process);
        engine->refreshDevices(); // starts the runner; it asks for devices (left unanswered)
        QTRY_VERIFY_WITH_TIMEOUT(heardLine(pidFile).toInt() > 0, 5000);
        qunsetenv("KERNELPAD_RUNNER");
        const pid_t pid = heardLine(pidFile).toInt();

        QElapsedTimer clock;
        clock.start();
        engine.reset();
        const qint64 tookMs = clock.elapsed();
        QVERIFY2(tookMs < kCloseWithoutWaitingMs,
                 qPrintable(QStringLiteral("closing took %1 ms").arg(tookMs)));
        // Told to exit (its input ends), and gone with the thread that started it.
        QTRY_VERIFY_WITH_TIMEOUT(processGone(pid), 10000);
    }

    void missingRunnerIsAClearError() {
        RunnerClient client;
        client.setCommand(QStringLiteral("/nonexistent/kernelpad-cli"), {QStringLiteral("serve")});
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(9, test::exampleRequest("saxpy.kpad"));
        const RunResult r = waitForResult(finished, 5000);
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(r.error.contains("could not be started"), qPrintable(r.error));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestRunnerClient)
} // namespace tst_runnerclient
#include "tst_runnerclient.moc"
