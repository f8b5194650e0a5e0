// Engine::fetchRange end to end without a GPU: the Engine's runner is this test's own
// executable started as a stand-in runner ("stand-in-runner": speaks Protocol.h, answers a run
// with one output kept on it, answers fetches from it, and dies when asked for buffer "crash"),
// chosen as a command runner named gpu-box with streamed buffers on. The real runner cannot make
// an output here (no device); its fetch answers are covered by tst_streambuffers.

#include "core/engine/Engine.h"
#include "core/project/Project.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerClient.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTest>

#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"

namespace tst_keptfetch {

using namespace kernelpad;

namespace {

constexpr qint64 kKeptCount = 100000; ///< floats: 400 KB, beyond the test's keep limit

/// Element i of the output of the stand-in's run number `runs` (1 for the first).
float keptValue(qint64 i, int runs) {
    return float(i) * 0.5f + float(runs) * 1000.0f;
}

void sendOut(const QByteArray& bytes) {
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

/// The stand-in runner's loop: kept outputs and fetches, nothing else.
int standInRunner() {
    sendOut(encodeRunnerMessage(RunnerMessage::make(
        MessageType::Hello, 0,
        {{"version", kRunnerProtocolVersion},
         {"kernelpad", kernelpadVersion()},
         {"pid", double(::getpid())},
         {"outputDir", QStringLiteral("/elsewhere/kernelpad-runner-stand-in")}})));
    ProtocolReader reader;
    quint64 keptRun = 0;
    QByteArray kept;
    int runs = 0;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(0, buffer, sizeof buffer);
        if (n <= 0)
            return 0;
        for (const ProtocolReader::Item& item : reader.feed(buffer, n)) {
            if (!item.message)
                continue; // no frames come: the test's requests name no files
            const RunnerMessage& m = *item.message;
            if (m.type == MessageType::Shutdown)
                return 0;
            if (m.type == MessageType::Devices) {
                sendOut(encodeRunnerMessage(RunnerMessage::make(
                    MessageType::Devices, m.id,
                    {{"devices", QJsonArray()}, {"error", QStringLiteral("a stand-in")}})));
            } else if (m.type == MessageType::Run) {
                ++runs;
                kept = QByteArray(qsizetype(kKeptCount * 4), Qt::Uninitialized);
                for (qint64 i = 0; i < kKeptCount; ++i) {
                    const float v = keptValue(i, runs);
                    std::memcpy(kept.data() + i * 4, &v, 4);
                }
                keptRun = m.id;
                RunResult result;
                result.status = RunStatus::Ok;
                sendOut(encodeRunnerMessage(RunnerMessage::make(
                    MessageType::Result, m.id,
                    {{"result", result.toJson(true)},
                     {"outputs",
                      QJsonArray{QJsonObject{{"name", "y"},
                                             {"type", ValueType::of(ScalarType::Float32).toJson()},
                                             {"count", double(kKeptCount)},
                                             {"bytes", double(kept.size())},
                                             {"kept", true}}}},
                     {"poisoned", false}})));
            } else if (m.type == MessageType::Fetch) {
                const quint64 run = quint64(m.body.value("run").toDouble());
                const QString name = m.body.value("buffer").toString();
                const qint64 offset = qint64(m.body.value("offset").toDouble());
                const qint64 bytes = qint64(m.body.value("bytes").toDouble());
                if (name == QLatin1String("crash"))
                    std::_Exit(3);
                QString error;
                if (run != keptRun)
                    error = QStringLiteral("fetch: run: the outputs of run %1 are no longer on "
                                           "the runner")
                                .arg(run);
                else if (offset + bytes > kept.size())
                    error = QStringLiteral("fetch: offset: %1 + bytes: %2 runs past the end of "
                                           "'y' (%3 bytes)")
                                .arg(offset)
                                .arg(bytes)
                                .arg(kept.size());
                if (!error.isEmpty())
                    sendOut(encodeRunnerMessage(
                        RunnerMessage::make(MessageType::Error, m.id, {{"message", error}})));
                else
                    sendOut(encodeFrames(m.id, name, offset, kept.constData() + offset, bytes));
            }
        }
    }
}

RunnerSpec standInSpec(const QString& name) {
    RunnerSpec spec;
    spec.kind = RunnerSpec::Kind::Command;
    spec.name = name;
    spec.commandLine = QStringLiteral("\"%1\" %2 stand-in-runner")
                           .arg(QCoreApplication::applicationFilePath(), kptest::currentTestName());
    return spec;
}

struct Fetched {
    QByteArray data;
    QString error;
};

} // namespace

class TestKeptFetch : public QObject {
    Q_OBJECT

    /// Runs the project through `engine` and returns the result.
    static RunResult runOnce(Engine& engine, quint64* id) {
        QSignalSpy finished(&engine, &Engine::runFinished);
        *id = engine.run(test::saxpyRequest());
        while (true) {
            if (finished.isEmpty() && !finished.wait(30000))
                return {};
            const QList<QVariant> answer = finished.takeFirst();
            if (answer.at(0).toULongLong() == *id)
                return answer.at(1).value<RunResult>();
        }
    }
    static Fetched fetch(Engine& engine, quint64 run, const QString& buffer, qint64 offset,
                         qint64 bytes) {
        QSignalSpy fetched(&engine, &Engine::rangeFetched);
        const quint64 id = engine.fetchRange(run, buffer, offset, bytes);
        while (true) {
            if (fetched.isEmpty() && !fetched.wait(30000))
                return {{}, QStringLiteral("no answer within 30 s")};
            const QList<QVariant> answer = fetched.takeFirst();
            if (answer.at(0).toULongLong() == id)
                return {answer.at(1).toByteArray(), answer.at(2).toString()};
        }
    }
    static float floatIn(const QByteArray& data, qint64 index) {
        float v = 0;
        std::memcpy(&v, data.constData() + index * 4, 4);
        return v;
    }

private slots:
    void initTestCase() {
        qputenv("KERNELPAD_STREAM_BUFFERS", "1");
        qputenv("KERNELPAD_STREAM_KEEP_BYTES", "1024");
    }

    void keptOutputIsFetchedByRangeUntilGone() {
        Engine engine(nullptr, Engine::Isolation::Process);
        engine.setRunner(standInSpec(QStringLiteral("gpu-box")));
        quint64 first = 0;
        const RunResult result = runOnce(engine, &first);
        QVERIFY2(result.status == RunStatus::Ok, qPrintable(result.error));
        QCOMPARE(result.outputs.size(), 1);
        QVERIFY(result.outputs[0].isKept());
        QCOMPARE(result.outputs[0].keptRun, first);
        QVERIFY(result.outputs[0].data.isEmpty());
        QCOMPARE(result.outputs[0].sizeBytes(), kKeptCount * 4);

        // The end of the output, and only it.
        Fetched f = fetch(engine, first, QStringLiteral("y"), (kKeptCount - 10) * 4, 40);
        QVERIFY2(f.error.isEmpty(), qPrintable(f.error));
        QCOMPARE(f.data.size(), 40);
        for (int i = 0; i < 10; ++i)
            QCOMPARE(floatIn(f.data, i), keptValue(kKeptCount - 10 + i, 1));

        // The runner's own refusal reaches the caller, saying where from.
        f = fetch(engine, first, QStringLiteral("y"), (kKeptCount - 1) * 4, 8);
        QVERIFY(f.data.isEmpty());
        QVERIFY2(f.error.startsWith("fetching 'y' from gpu-box: ") && f.error.contains("offset"),
                 qPrintable(f.error));

        // A later run replaces what the runner keeps: said without asking it.
        quint64 second = 0;
        QCOMPARE(runOnce(engine, &second).status, RunStatus::Ok);
        f = fetch(engine, first, QStringLiteral("y"), 0, 4);
        QCOMPARE(f.error, RunnerClient::keptOutputGoneMessage(
                              QStringLiteral("gpu-box"),
                              QStringLiteral("a later run replaced it (the runner keeps the last "
                                             "run's outputs only)")));
        f = fetch(engine, second, QStringLiteral("y"), 0, 8);
        QVERIFY2(f.error.isEmpty(), qPrintable(f.error));
        QCOMPARE(floatIn(f.data, 1), keptValue(1, 2));

        // The runner dies under a fetch: that fetch and the next say it is gone.
        const QString ended = QStringLiteral("this output was kept on gpu-box and is gone: the "
                                             "runner has ended; run again to see it");
        f = fetch(engine, second, QStringLiteral("crash"), 0, 4);
        QCOMPARE(f.error, ended);
        f = fetch(engine, second, QStringLiteral("y"), 0, 4);
        QCOMPARE(f.error, ended);

        // The next run starts a fresh runner, whose output is fetched again.
        quint64 third = 0;
        QCOMPARE(runOnce(engine, &third).status, RunStatus::Ok);
        f = fetch(engine, third, QStringLiteral("y"), 4, 4);
        QVERIFY2(f.error.isEmpty(), qPrintable(f.error));
        QCOMPARE(floatIn(f.data, 0), keptValue(1, 1)); // the fresh runner's first run

        // Another runner chosen: the output was kept on the first one.
        engine.setRunner(standInSpec(QStringLiteral("other-box")));
        f = fetch(engine, third, QStringLiteral("y"), 4, 4);
        QCOMPARE(f.error,
                 RunnerClient::keptOutputGoneMessage(
                     QStringLiteral("gpu-box"), QStringLiteral("another runner was chosen since")));
    }

    void inProcessKeepsNothing() {
        Engine engine(nullptr, Engine::Isolation::InProcess);
        const Fetched f = fetch(engine, 5, QStringLiteral("y"), 0, 4);
        QVERIFY(f.data.isEmpty());
        QVERIFY2(f.error.contains("inside this process") && f.error.contains("'y'"),
                 qPrintable(f.error));
    }
};

static int runTest(int argc, char** argv) {
    // The Engine starts this executable as its runner.
    if (argc > 1 && std::strcmp(argv[1], "stand-in-runner") == 0) {
        QCoreApplication app(argc, argv);
        return standInRunner();
    }
    QCoreApplication app(argc, argv);
    TestKeptFetch test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

KERNELPAD_TEST_CUSTOM_MAIN(runTest)
} // namespace tst_keptfetch
#include "tst_keptfetch.moc"
