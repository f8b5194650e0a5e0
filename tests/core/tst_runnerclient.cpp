// The runner process seen from the client: the protocol round trip, and the watchdog and
// crash handling, with stand-in runners that hang or crash (no GPU needed).

#include "core/project/Project.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerClient.h"

#include <QSignalSpy>
#include <QTest>

using namespace kernelpad;

namespace {

RunRequest exampleRequest(const QString& file) {
    QString error;
    const QString dir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
    std::optional<Project> p = Project::load(dir + QLatin1Char('/') + file, &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    RunRequest r;
    r.project = *p;
    r.projectDir = dir;
    return r;
}

RunResult waitForResult(QSignalSpy& spy, int timeoutMs = 30000) {
    if (spy.isEmpty() && !spy.wait(timeoutMs)) {
        RunResult none;
        none.error = QStringLiteral("no result within the wait");
        return none;
    }
    return spy.takeFirst().at(1).value<RunResult>();
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
            RunnerMessage::make("progress", 42, {{"stage", "timing"}, {"done", 3}});
        const QByteArray line = encodeRunnerMessage(m);
        QVERIFY(line.endsWith('\n'));
        QCOMPARE(line.count('\n'), 1);
        QString error;
        const std::optional<RunnerMessage> back = decodeRunnerMessage(line, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->type, QStringLiteral("progress"));
        QCOMPARE(back->id, quint64(42));
        QCOMPARE(back->body.value("done").toInt(), 3);
    }

    void realRunnerAnswersWithoutADriver() {
        RunnerClient client;
        client.setCommand(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("serve")});
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(7, exampleRequest("vector_add.kpad"));
        const RunResult r = waitForResult(finished);
        QVERIFY(r.compile.ok);
        QVERIFY(r.compile.findKernel("vector_add<float>"));
        // Without a driver the runner compiles and says why it cannot run; with one it runs.
        QVERIFY2(r.status == RunStatus::DriverUnavailable || r.status == RunStatus::Ok,
                 qPrintable(r.error));
        QVERIFY(client.runnerPid() > 0); // kept warm for the next run
        QCOMPARE(client.startCount(), 1);
        QSignalSpy again(&client, &RunnerClient::runFinished);
        client.run(8, exampleRequest("saxpy.kpad"));
        QVERIFY(waitForResult(again).compile.ok);
        QCOMPARE(client.startCount(), 1);
    }

    void hangingRunnerIsKilledByTheWatchdog() {
        RunnerClient client;
        client.setCommand(QStringLiteral("/bin/sh"),
                          {QStringLiteral("-c"), QStringLiteral("cat > /dev/null")});
        client.setPreparationLimitMs(200);
        RunRequest request = exampleRequest("saxpy.kpad");
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
        client.run(3, exampleRequest("saxpy.kpad"));
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
        client.run(5, exampleRequest("saxpy.kpad"));
        QTest::qWait(100);
        const qint64 pid = client.runnerPid();
        QVERIFY(pid > 0);
        client.cancel();
        const RunResult r = waitForResult(finished, 5000);
        QCOMPARE(r.status, RunStatus::Cancelled);
        QVERIFY2(r.error.contains("Cancelled"), qPrintable(r.error));
        QVERIFY(client.runnerPid() != pid);
    }

    void missingRunnerIsAClearError() {
        RunnerClient client;
        client.setCommand(QStringLiteral("/nonexistent/kernelpad-cli"), {QStringLiteral("serve")});
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(9, exampleRequest("saxpy.kpad"));
        const RunResult r = waitForResult(finished, 5000);
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(r.error.contains("could not be started"), qPrintable(r.error));
    }
};

QTEST_GUILESS_MAIN(TestRunnerClient)
#include "tst_runnerclient.moc"
