// Streamed buffers (Protocol.h) with the real runner (kernelpad-cli serve,
// KERNELPAD_STREAM_BUFFERS=1) started in another working directory and never told the project
// folder: local headers travel as frames, paths outside the project are refused by name, the runner
// opens no path it was not sent, bad frames and fetches are refused naming the field, and a runner
// killed in the middle of an output's frames ends the run with the usual message and no output. No
// GPU needed: the runs compile (NVRTC needs no driver) and stop at the device.

#include "core/project/Project.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/StreamFiles.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"

namespace tst_streambuffers {

using namespace kernelpad;

namespace {

RunResult waitForResult(QSignalSpy& spy, int timeoutMs = 60000) {
    if (spy.isEmpty() && !spy.wait(timeoutMs)) {
        RunResult none;
        none.error = QStringLiteral("no result within the wait");
        return none;
    }
    return spy.takeFirst().at(1).value<RunResult>();
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// The real runner in `/` as its working directory, so that no relative path of the test's
/// resolves there either.
QStringList runnerElsewhere() {
    return {QStringLiteral("-c"),
            QStringLiteral("cd / && exec '%1' serve").arg(QStringLiteral(KERNELPAD_CLI_PATH))};
}

/// One line from the runner, or empty after `timeoutMs`.
QByteArray readLine(QProcess& p, int timeoutMs = 20000) {
    while (!p.canReadLine())
        if (!p.waitForReadyRead(timeoutMs))
            return {};
    return p.readLine();
}

/// The next line from `p` that is not progress.
QJsonObject nextAnswer(QProcess& p) {
    for (;;) {
        const QByteArray line = readLine(p);
        if (line.isEmpty())
            return {};
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value("type").toString() != QLatin1String("progress"))
            return o;
    }
}

} // namespace

class TestStreamBuffers : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        qRegisterMetaType<kernelpad::RunResult>();
        qputenv("KERNELPAD_STREAM_BUFFERS", "1");
        QVERIFY(QFileInfo(QStringLiteral(KERNELPAD_CLI_PATH)).isExecutable());
    }

    void environmentTurnsStreamingOn() {
        RunnerClient client;
        QVERIFY(client.streamBuffers());
        client.setStreamBuffers(false);
        QVERIFY(!client.streamBuffers());
    }

    void localHeadersTravelAsFrames() {
        // The kernel needs two headers of the project folder (one includes the other); the
        // runner gets no project folder and runs in '/', so it compiles only if both came.
        QTemporaryDir project;
        QVERIFY(writeFile(project.filePath("inc/scale.h"), "#include \"detail/factor.h\"\n"
                                                           "#define SCALE (FACTOR * 2.0f)\n"));
        QVERIFY(writeFile(project.filePath("inc/detail/factor.h"), "#define FACTOR 1.5f\n"));
        RunRequest r = test::saxpyRequest();
        r.projectDir = project.path();
        r.project.options.includeDirs = {QStringLiteral("inc")};
        r.project.source.prepend(QStringLiteral("#include <scale.h>\n"));
        r.project.source.replace(QStringLiteral("a * x[tid]"),
                                 QStringLiteral("SCALE * a * x[tid]"));

        RunRequest listed = r;
        QString error;
        const std::optional<QVector<StreamedFile>> files = collectStreamedFiles(&listed, &error);
        QVERIFY2(files, qPrintable(error));
        QStringList names;
        for (const StreamedFile& f : *files)
            names << f.name;
        names.sort();
        QCOMPARE(names, (QStringList{"inc/detail/factor.h", "inc/scale.h"}));

        RunnerClient client;
        client.setCommand(QStringLiteral("/bin/sh"), runnerElsewhere());
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(1, r);
        const RunResult result = waitForResult(finished);
        QVERIFY2(result.compile.ok, qPrintable(result.compile.log + result.error));

        // The same request without streaming points the runner at a folder it cannot see.
        RunnerClient plain;
        plain.setStreamBuffers(false);
        plain.setCommand(QStringLiteral("/bin/sh"), runnerElsewhere());
        QSignalSpy plainFinished(&plain, &RunnerClient::runFinished);
        RunRequest hidden = r;
        hidden.projectDir = QStringLiteral("/nonexistent-kernelpad-project");
        plain.run(2, hidden);
        QVERIFY(!waitForResult(plainFinished).compile.ok);
    }

    void pathsOutsideTheProjectAreRefused_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected");
        QTest::newRow("absolute outside") << "/etc/hostname"
                                          << "arguments[1].init.path";
        QTest::newRow("parent folder") << "../x.npy"
                                       << "outside the project folder";
        QTest::newRow("missing") << "absent.npy"
                                 << "not a readable file";
    }
    void pathsOutsideTheProjectAreRefused() {
        QFETCH(QString, path);
        QFETCH(QString, expected);
        QTemporaryDir project;
        RunRequest r = test::saxpyRequest();
        r.projectDir = project.path();
        r.project.arguments[1].buffer.init.kind = InitSpec::Kind::File;
        r.project.arguments[1].buffer.init.path = path;
        RunnerClient client;
        client.setCommand(QStringLiteral("/bin/sh"), runnerElsewhere());
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(3, r);
        const RunResult result = waitForResult(finished);
        QCOMPARE(result.status, RunStatus::BadInput);
        QVERIFY2(result.error.contains(expected), qPrintable(result.error));
    }

    void runnerOpensOnlyWhatWasSent() {
        // A peer that names a path of the runner's machine in a streamed request is refused
        // by the runner itself, naming the field, before anything is opened.
        QProcess runner;
        runner.start(QStringLiteral("/bin/sh"), runnerElsewhere());
        QVERIFY(runner.waitForStarted());
        QCOMPARE(QJsonDocument::fromJson(readLine(runner)).object().value("type").toString(),
                 QStringLiteral("hello"));
        RunRequest r = test::saxpyRequest();
        r.project.arguments[1].buffer.init.kind = InitSpec::Kind::File;
        r.project.arguments[1].buffer.init.path = QStringLiteral("/etc/hostname");
        const QByteArray data("\x93NUMPY\n", 7); // any bytes; '\n' inside on purpose
        runner.write(encodeRunnerMessage(RunnerMessage::make(
            MessageType::Run, 5,
            {{"request", r.toJson()},
             {"stream",
              QJsonObject{{"files", QJsonArray{QJsonObject{{"name", "x.npy"},
                                                           {"bytes", data.size()}}}}}}})));
        runner.write(encodeFrames(5, "x.npy", 0, data.constData(), data.size()));
        QJsonObject answer = nextAnswer(runner);
        QCOMPARE(answer.value("type").toString(), QStringLiteral("error"));
        QCOMPARE(answer.value("id").toInt(), 5);
        QVERIFY2(answer.value("message").toString().contains("arguments[1].init.path"),
                 qPrintable(answer.value("message").toString()));

        // A frame out of order is refused naming its field, and the request is dropped.
        runner.write(encodeRunnerMessage(RunnerMessage::make(
            MessageType::Run, 6,
            {{"request", test::saxpyRequest().toJson()},
             {"stream",
              QJsonObject{{"files", QJsonArray{QJsonObject{{"name", "x.npy"}, {"bytes", 8}}}}}}})));
        runner.write(encodeFrameHeader(FrameHeader{6, "x.npy", 4, 4, true}) + "abcd");
        answer = nextAnswer(runner);
        QCOMPARE(answer.value("id").toInt(), 6);
        QVERIFY2(answer.value("message").toString().contains("frame.offset"),
                 qPrintable(answer.value("message").toString()));

        // A name that escapes the folder is refused in the announcement.
        runner.write(encodeRunnerMessage(RunnerMessage::make(
            MessageType::Run, 7,
            {{"request", test::saxpyRequest().toJson()},
             {"stream", QJsonObject{{"files", QJsonArray{QJsonObject{{"name", "../../x"},
                                                                     {"bytes", 1}}}}}}})));
        answer = nextAnswer(runner);
        QCOMPARE(answer.value("id").toInt(), 7);
        QVERIFY2(answer.value("message").toString().contains("stream.files[0].name"),
                 qPrintable(answer.value("message").toString()));

        // Nothing was kept: a fetch is refused naming the run.
        runner.write(encodeRunnerMessage(RunnerMessage::make(
            MessageType::Fetch, 8, {{"run", 5}, {"buffer", "out"}, {"offset", 0}, {"bytes", 4}})));
        answer = nextAnswer(runner);
        QCOMPARE(answer.value("id").toInt(), 8);
        QVERIFY2(answer.value("message").toString().contains("fetch: run:"),
                 qPrintable(answer.value("message").toString()));

        // A header announcing more than a frame may carry ends the conversation.
        runner.write(QByteArray(R"({"type":"frame","id":9,"stream":"a","offset":0,"bytes":)") +
                     QByteArray::number(kMaxFrameBytes * 4) + R"(,"last":true})" + "\n");
        answer = nextAnswer(runner);
        QVERIFY2(answer.value("message").toString().contains("frame.bytes"),
                 qPrintable(answer.value("message").toString()));
        QVERIFY(runner.waitForFinished(20000));
    }

    void killedMidFrameShowsNoPartialOutput() {
        // A stand-in runner announces a 4000-byte streamed output, sends 10 of its bytes and
        // dies: the run ends with the usual message and no output at all.
        QTemporaryDir dir;
        RunResult fake;
        fake.status = RunStatus::Ok;
        QByteArray script =
            encodeRunnerMessage(RunnerMessage::make(
                MessageType::Result, 1,
                {{"result", fake.toJson(true)},
                 {"outputs",
                  QJsonArray{QJsonObject{{"name", "out"},
                                         {"type", ValueType::of(ScalarType::Float32).toJson()},
                                         {"count", 1000},
                                         {"bytes", 4000},
                                         {"stream", true}}}},
                 {"poisoned", false}})) +
            encodeFrameHeader(FrameHeader{1, "out", 0, 4000, true}) + QByteArray(10, '\n');
        QVERIFY(writeFile(dir.filePath("answer"), script));
        RunnerClient client;
        client.setCommand(
            QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"),
             QStringLiteral("printf '{\"type\":\"hello\",\"version\":%1,\"pid\":1,\"outputDir\":"
                            "\"/elsewhere/kernelpad-runner-x\"}\\n'; read line; cat '%2'; "
                            "sleep 0.2; kill -9 $$")
                 .arg(kRunnerProtocolVersion)
                 .arg(dir.filePath("answer"))});
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        QSignalSpy restarted(&client, &RunnerClient::runnerRestarted);
        client.run(1, test::saxpyRequest());
        const RunResult result = waitForResult(finished);
        QCOMPARE(result.status, RunStatus::CudaError);
        QVERIFY2(result.error.contains("stopped unexpectedly"), qPrintable(result.error));
        QVERIFY(result.outputs.isEmpty());
        QVERIFY(restarted.count() == 1 || restarted.wait(5000));
        QVERIFY(!client.isRunning());
        // The remote runner's folder was neither checked nor touched here.
        QVERIFY(!QFileInfo::exists(QStringLiteral("/elsewhere")));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestStreamBuffers)
} // namespace tst_streambuffers
#include "tst_streambuffers.moc"
