// A hostile runner elsewhere (a cmd: runner, as kernelpad-cli --runner names it) cannot make
// the client read or delete a folder of this computer, nor allocate outputs it never asked
// for. $KERNELPAD_RUNNER_SPEC once switched streamed buffers back off, so a reply naming a
// private kernelpad-runner-* folder here had its files read and removed; and a streamed result
// listing 2,000 outputs of 64 MiB was allocated whole before a byte arrived. No GPU needed: the
// runners are shell scripts that answer every run with a prepared reply.

#include "core/project/Project.h"
#include "core/project/RunnerSpec.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerClient.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_runnerreplies {

using namespace kernelpad;

namespace {

/// saxpy with n = 4: the client asks for 16 bytes of `out` (and of x and y).
RunRequest smallSaxpy() {
    QString error;
    std::optional<Project> p =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"), &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    for (ArgumentSpec& a : p->arguments)
        if (a.name == QLatin1String("n"))
            a.value = QStringLiteral("4");
    RunRequest r;
    r.project = *p;
    r.projectDir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
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

/// The run id a prepared reply carries; the script puts the request's own id in its place.
constexpr quint64 kReplyId = 987654321;

/// A runner script in a folder of its own: it says hello naming `outputDir` (with this build's
/// versions, so it passes as a runner elsewhere), then answers every run with the bytes of
/// `reply` (kReplyId replaced by the run's id) and keeps reading until its input ends.
class ScriptedRunner {
public:
    ScriptedRunner(const QString& outputDir, const QByteArray& reply) {
        write(QStringLiteral("reply"), reply);
        DeviceInfo device;
        device.name = QStringLiteral("stand-in");
        device.ccMajor = 9;
        write(QStringLiteral("devices"),
              QJsonDocument(QJsonObject{{"type", "devices"},
                                        {"id", double(kReplyId)},
                                        {"devices", QJsonArray{device.toJson()}},
                                        {"error", QJsonValue::Null}})
                      .toJson(QJsonDocument::Compact) +
                  '\n');
        const QString script =
            QStringLiteral("#!/bin/sh\n"
                           "printf '{\"type\":\"hello\",\"version\":%1,\"kernelpad\":\"%2\","
                           "\"pid\":%s,\"outputDir\":\"%3\"}\\n' $$\n"
                           "while IFS= read -r line; do\n"
                           "  id=${line#'{\"id\":'}; id=${id%%,*}\n"
                           "  case \"$line\" in\n"
                           "  *'\"type\":\"run\"'*) sed \"s/%4/$id/g\" '%5' ;;\n"
                           "  *'\"type\":\"devices\"'*) sed \"s/%4/$id/g\" '%6' ;;\n"
                           "  esac\n"
                           "done\n")
                .arg(kRunnerProtocolVersion)
                .arg(kernelpadVersion(), outputDir)
                .arg(kReplyId)
                .arg(m_dir.filePath(QStringLiteral("reply")),
                     m_dir.filePath(QStringLiteral("devices")));
        write(QStringLiteral("runner.sh"), script.toUtf8());
    }
    /// The --runner / $KERNELPAD_RUNNER_SPEC text that runs it.
    [[nodiscard]] QString specText() const {
        return QStringLiteral("cmd:/bin/sh %1").arg(m_dir.filePath(QStringLiteral("runner.sh")));
    }

private:
    void write(const QString& name, const QByteArray& bytes) {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(f.fileName()));
    }
    QTemporaryDir m_dir;
};

/// A result line with `outputs` (as the runner lists them) and `extra` after it (frames).
QByteArray resultReply(const QJsonArray& outputs, const QByteArray& extra = {}) {
    const quint64 id = kReplyId;
    RunResult ok;
    ok.status = RunStatus::Ok;
    const QJsonObject message{{"type", "result"},
                              {"id", double(id)},
                              {"result", ok.toJson()},
                              {"outputs", outputs},
                              {"poisoned", false}};
    return QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n' + extra;
}

QJsonObject float32Type() {
    return ValueType::of(ScalarType::Float32).toJson();
}

/// A folder of this user's, 0700 and named as a runner's: what a local runner's would be.
struct VictimFolder {
    QTemporaryDir dir{QDir::temp().filePath(QStringLiteral("kernelpad-runner-XXXXXX"))};
    QString file() const { return dir.filePath(QStringLiteral("out.bin")); }
    bool make() {
        QFile f(file());
        return dir.isValid() && f.open(QIODevice::WriteOnly) && f.write(QByteArray(16, 'k')) == 16;
    }
};

/// Restores $KERNELPAD_RUNNER_SPEC when a test ends.
struct SpecInEnvironment {
    explicit SpecInEnvironment(const QString& text) {
        qputenv("KERNELPAD_RUNNER_SPEC", text.toUtf8());
    }
    ~SpecInEnvironment() { qunsetenv("KERNELPAD_RUNNER_SPEC"); }
};

} // namespace

class TestRunnerReplies : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        qRegisterMetaType<kernelpad::RunResult>();
        qunsetenv("KERNELPAD_STREAM_BUFFERS");
        qunsetenv("KERNELPAD_RUNNER_SPEC");
        qunsetenv("KERNELPAD_STREAM_KEEP_BYTES");
    }

    void runnerElsewhereAlwaysStreams() {
        ScriptedRunner runner(QStringLiteral("/nowhere"), {});
        SpecInEnvironment spec(runner.specText());
        RunnerClient client;
        QVERIFY(client.streamBuffers());
        client.setStreamBuffers(false);
        QVERIFY(client.streamBuffers());
        // A local runner still follows the setting.
        RunnerClient local;
        QString error;
        QVERIFY2(local.setSpec(RunnerSpec::local(), &error), qPrintable(error));
        local.setStreamBuffers(false);
        QVERIFY(!local.streamBuffers());
    }

    void outputDirOfARunnerElsewhereIsNeverTouched() {
        VictimFolder victim;
        QVERIFY(victim.make());
        const QJsonArray listed{QJsonObject{
            {"name", "out"}, {"type", float32Type()}, {"count", 4}, {"file", "out.bin"}}};
        ScriptedRunner runner(victim.dir.path(), resultReply(listed));
        {
            SpecInEnvironment spec(runner.specText());
            RunnerClient client;
            QSignalSpy finished(&client, &RunnerClient::runFinished);
            client.run(3, smallSaxpy());
            const RunResult r = waitForResult(finished);
            QVERIFY2(r.outputs.isEmpty(), qPrintable(r.error));
            QVERIFY2(r.error.contains(QLatin1String("broke the protocol")), qPrintable(r.error));
        }
        QVERIFY(QFile::exists(victim.file()));
        QVERIFY(QFileInfo(victim.dir.path()).isDir());
    }

    void outputDirThroughTheCli() {
        VictimFolder victim;
        QVERIFY(victim.make());
        const QJsonArray listed{QJsonObject{
            {"name", "out"}, {"type", float32Type()}, {"count", 4}, {"file", "out.bin"}}};
        ScriptedRunner runner(victim.dir.path(), resultReply(listed));
        QTemporaryDir work;
        const QString project = work.filePath(QStringLiteral("saxpy.kpad"));
        QString error;
        QVERIFY2(smallSaxpy().project.save(project, &error), qPrintable(error));
        QProcess cli;
        cli.start(QStringLiteral(KERNELPAD_CLI_PATH),
                  {QStringLiteral("run"), project, QStringLiteral("--runner"), runner.specText()});
        QVERIFY(cli.waitForFinished(60000));
        const QString output =
            QString::fromLocal8Bit(cli.readAllStandardOutput() + cli.readAllStandardError());
        QVERIFY2(cli.exitCode() != 0, qPrintable(output));
        QVERIFY2(QFile::exists(victim.file()), qPrintable(output));
    }

    void streamedOutputsAreBoundedByTheRequest_data() {
        QTest::addColumn<QByteArray>("reply");
        QTest::addColumn<QString>("mustSay");
        constexpr qint64 k64MiB = qint64(64) << 20;
        QJsonArray many;
        for (int k = 0; k < 2000; ++k)
            many.append(QJsonObject{{"name", QStringLiteral("o%1").arg(k)},
                                    {"type", float32Type()},
                                    {"count", double(k64MiB / 4)},
                                    {"bytes", double(k64MiB)},
                                    {"stream", true},
                                    {"kept", false}});
        QTest::newRow("2,000 outputs of 64 MiB nobody asked for")
            << resultReply(many) << "outputs[0].name: 'o0' is no buffer of the request";
        const QJsonArray large{QJsonObject{{"name", "out"},
                                           {"type", float32Type()},
                                           {"count", double(k64MiB / 4)},
                                           {"bytes", double(k64MiB)},
                                           {"stream", true},
                                           {"kept", false}}};
        QTest::newRow("an output larger than its buffer")
            << resultReply(large)
            << "outputs[0].bytes: 67108864 is more than the 16 bytes of 'out'";
        const QJsonArray kept{QJsonObject{{"name", "out"},
                                          {"type", float32Type()},
                                          {"count", double(k64MiB / 4)},
                                          {"bytes", double(k64MiB)},
                                          {"stream", false},
                                          {"kept", true}}};
        QTest::newRow("a kept output larger than its buffer")
            << resultReply(kept) << "outputs[0].bytes: 67108864 is more than the 16 bytes of 'out'";
    }
    void streamedOutputsAreBoundedByTheRequest() {
        QFETCH(QByteArray, reply);
        QFETCH(QString, mustSay);
        ScriptedRunner runner(QStringLiteral("/nowhere/kernelpad-runner-x"), reply);
        SpecInEnvironment spec(runner.specText());
        RunnerClient client;
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(5, smallSaxpy());
        const RunResult r = waitForResult(finished);
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(r.error.contains(mustSay), qPrintable(r.error));
        QVERIFY(r.outputs.isEmpty());
    }

    void streamedOutputArrivesInFrames() {
        // What was asked for still arrives: 16 bytes in two frames, appended as they come.
        const QJsonArray listed{QJsonObject{{"name", "out"},
                                            {"type", float32Type()},
                                            {"count", 4},
                                            {"bytes", 16},
                                            {"stream", true},
                                            {"kept", false}}};
        const QByteArray first("0123456789"), second("abcdef");
        const QByteArray frames =
            encodeFrameHeader(
                FrameHeader{kReplyId, QStringLiteral("out"), 0, first.size(), false}) +
            first +
            encodeFrameHeader(
                FrameHeader{kReplyId, QStringLiteral("out"), first.size(), second.size(), true}) +
            second;
        ScriptedRunner runner(QStringLiteral("/nowhere/kernelpad-runner-x"),
                              resultReply(listed, frames));
        SpecInEnvironment spec(runner.specText());
        RunnerClient client;
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(6, smallSaxpy());
        const RunResult r = waitForResult(finished);
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QCOMPARE(r.outputs.size(), 1);
        QCOMPARE(r.outputs[0].name, QStringLiteral("out"));
        QCOMPARE(r.outputs[0].data, first + second);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestRunnerReplies)
} // namespace tst_runnerreplies
#include "tst_runnerreplies.moc"
