// RunnerCodec without a process: the runner's bytes in any chunking, the hello's checks, each
// answer decoded, the errors a broken runner gives as values, and the requests encoded.

#include "../support/TestMain.h"
#include "core/runner/RunnerCodec.h"
#include "core/runner/RunnerTransfers.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

namespace tst_runnercodec {

using namespace kernelpad;

namespace {

QByteArray line(const QJsonObject& body) {
    return QJsonDocument(body).toJson(QJsonDocument::Compact) + '\n';
}

QByteArray hello(int version = kRunnerProtocolVersion, const QString& dir = "/nowhere") {
    return line({{"type", "hello"},
                 {"version", version},
                 {"kernelpad", kernelpadVersion()},
                 {"pid", 1},
                 {"outputDir", dir}});
}

QByteArray progress(quint64 id, const QString& stage) {
    return line(
        {{"type", "progress"}, {"id", double(id)}, {"stage", stage}, {"done", 2}, {"total", 5}});
}

QByteArray result(quint64 id, const QJsonArray& outputs) {
    RunResult r;
    r.status = RunStatus::Ok;
    return line({{"type", "result"},
                 {"id", double(id)},
                 {"result", r.toJson(false)},
                 {"poisoned", true},
                 {"outputs", outputs}});
}

/// A codec for a local runner whose outputs stream (its output folder is not checked).
RunnerCodec streamedCodec() {
    RunnerCodec codec;
    codec.setPeer(RunnerSpec::local(), QStringLiteral("/bin/kernelpad-cli"), true);
    return codec;
}

RunnerCodec sshCodec() {
    QString error;
    RunnerCodec codec;
    codec.setPeer(RunnerSpec::parse(QStringLiteral("ssh:gpu-box"), &error).value(),
                  QStringLiteral("ssh"), true);
    return codec;
}

/// One line per event, enough to compare two feedings.
QStringList describe(const QVector<RunnerCodec::Event>& events) {
    QStringList out;
    for (const RunnerCodec::Event& e : events) {
        if (e.problem != RunnerCodec::Problem::None)
            out << QStringLiteral("problem %1: %2").arg(int(e.problem)).arg(e.error);
        else if (e.frame)
            out << QStringLiteral("frame %1 %2 %3 %4")
                       .arg(e.frame->id)
                       .arg(e.frame->stream)
                       .arg(e.frame->offset)
                       .arg(QString::fromLatin1(e.data.toHex()));
        else
            out << QStringLiteral("%1 %2 %3 %4/%5 %6")
                       .arg(toString(e.type))
                       .arg(e.id)
                       .arg(e.type == MessageType::Progress ? toString(e.stage) : QString())
                       .arg(e.done)
                       .arg(e.total)
                       .arg(e.poisoned ? QStringLiteral("poisoned") : QStringLiteral("-"));
    }
    return out;
}

} // namespace

class TestRunnerCodec : public QObject {
    Q_OBJECT
private slots:
    void sameEventsAtEverySplit() {
        // A frame's bytes hold '\n' and '{': the codec must count them, not read them as lines.
        const QByteArray frameBytes("\n{\"type\":\"hello\"}\n", 18);
        const QByteArray stream =
            hello() + progress(7, "timing the pipeline") +
            encodeFrames(7, "y", 0, frameBytes.constData(), frameBytes.size()) + result(7, {}) +
            line({{"type", "error"}, {"id", 9}, {"message", "bad request"}});
        RunnerCodec whole = streamedCodec();
        const QStringList expected = describe(whole.feed(stream.constData(), stream.size()));
        QCOMPARE(expected.size(), 5);
        QCOMPARE(expected.at(1), QStringLiteral("progress 7 timing the pipeline 2/5 -"));
        QVERIFY2(expected.at(2).startsWith("frame 7 y 0 " + frameBytes.toHex()),
                 qPrintable(expected.at(2)));
        QCOMPARE(expected.at(3), QStringLiteral("result 7  0/0 poisoned"));
        for (qsizetype split = 0; split <= stream.size(); ++split) {
            RunnerCodec codec = streamedCodec();
            QVector<RunnerCodec::Event> events = codec.feed(stream.constData(), split);
            events += codec.feed(stream.constData() + split, stream.size() - split);
            QCOMPARE(describe(events), expected);
        }
        // Byte by byte.
        RunnerCodec codec = streamedCodec();
        QVector<RunnerCodec::Event> events;
        for (char c : stream)
            events += codec.feed(&c, 1);
        QCOMPARE(describe(events), expected);
    }

    void answersDecoded() {
        RunnerCodec codec = streamedCodec();
        const QByteArray bytes = hello() +
                                 line({{"type", "resources"},
                                       {"id", 3},
                                       {"kernel", "saxpy"},
                                       {"error", "no such kernel"}}) +
                                 line({{"type", "devices"},
                                       {"id", 4},
                                       {"devices", QJsonArray()},
                                       {"error", "no driver"}}) +
                                 line({{"type", "error"}, {"id", 5}, {"message", "cannot read"}});
        const QVector<RunnerCodec::Event> events = codec.feed(bytes.constData(), bytes.size());
        QCOMPARE(events.size(), 4);
        QVERIFY(codec.helloSeen());
        QCOMPARE(events[1].kernel, QStringLiteral("saxpy"));
        QVERIFY(!events[1].resources); // not loaded: the panel keeps its view
        QCOMPARE(events[2].deviceError, QStringLiteral("no driver"));
        QCOMPARE(events[3].message, QStringLiteral("cannot read"));
        for (const RunnerCodec::Event& e : events)
            QVERIFY(e.isMessage());
    }

    void programAnswersDecoded() {
        // A compiled program's bytes (any bytes: base64 on the wire), or the runner's reason.
        RunnerCodec codec = streamedCodec();
        const QByteArray program("\0\n{KPCC", 8);
        const QByteArray bytes =
            hello() +
            line({{"type", "program"},
                  {"id", 6},
                  {"program", QString::fromLatin1(program.toBase64())}}) +
            line({{"type", "program"}, {"id", 7}, {"error", "this runner holds no program"}});
        const QVector<RunnerCodec::Event> events = codec.feed(bytes.constData(), bytes.size());
        QCOMPARE(events.size(), 3);
        QVERIFY(events[1].isMessage() && events[1].type == MessageType::Program);
        QCOMPARE(events[1].program, program);
        QVERIFY(events[1].message.isEmpty());
        QVERIFY(events[2].program.isEmpty());
        QCOMPARE(events[2].message, QStringLiteral("this runner holds no program"));
    }

    void resultListsItsFiles() {
        QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/kernelpad-runner-XXXXXX"));
        QVERIFY(dir.isValid());
        RunnerCodec codec;
        codec.setPeer(RunnerSpec::local(), QStringLiteral("kernelpad-cli"), false);
        const QByteArray bytes =
            hello(kRunnerProtocolVersion, dir.path()) +
            result(7, {QJsonObject{{"name", "y"},
                                   {"type", ValueType::of(ScalarType::Float32).toJson()},
                                   {"count", 4},
                                   {"file", "7-0.bin"},
                                   {"bytes", 16}}});
        const QVector<RunnerCodec::Event> events = codec.feed(bytes.constData(), bytes.size());
        QCOMPARE(events.size(), 2);
        QVERIFY2(events[0].isMessage(), qPrintable(events[0].error));
        QCOMPARE(codec.outputDir(), dir.path());
        QVERIFY2(events[1].isMessage(), qPrintable(events[1].error));
        QCOMPARE(events[1].outputFiles.size(), 1);
        QCOMPARE(events[1].outputFiles[0].first.name, QStringLiteral("y"));
        QCOMPARE(events[1].outputFiles[0].first.count, qint64(4));
        QCOMPARE(events[1].outputFiles[0].second, QStringLiteral("7-0.bin"));
        QVERIFY(events[1].poisoned);
    }

    void outputFolderChecked() {
        RunnerCodec codec;
        codec.setPeer(RunnerSpec::local(), QStringLiteral("kernelpad-cli"), false);
        const QByteArray bytes = hello(kRunnerProtocolVersion, QStringLiteral("/etc"));
        const QVector<RunnerCodec::Event> events = codec.feed(bytes.constData(), bytes.size());
        QCOMPARE(events.size(), 1);
        QCOMPARE(events[0].problem, RunnerCodec::Problem::Violation);
        QVERIFY2(events[0].error.contains("kernelpad-runner-*"), qPrintable(events[0].error));
        QVERIFY(codec.outputDir().isEmpty());
    }

    void malformedInput_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("problem");
        QTest::addColumn<QString>("says");
        using P = RunnerCodec::Problem;
        QTest::newRow("banner") << QByteArray("== sanitizer ==\n") << int(P::Unreadable) << "JSON";
        QTest::newRow("before hello")
            << progress(1, "timing") << int(P::Violation) << "'progress' before its hello";
        QTest::newRow("second hello") << hello() + hello() << int(P::Violation) << "a second hello";
        QTest::newRow("no version")
            << line({{"type", "hello"}, {"outputDir", "/x"}}) << int(P::Violation) << "version";
        QTest::newRow("newer protocol") << hello(99) << int(P::Violation) << "protocol version 99";
        QTest::newRow("unknown stage")
            << hello() + progress(1, "dreaming") << int(P::Violation) << "unknown stage 'dreaming'";
        QTest::newRow("progress without done")
            << hello() + line({{"type", "progress"}, {"id", 1}, {"stage", "timing"}})
            << int(P::Violation) << "runner progress: ";
        QTest::newRow("result without result") << hello() + line({{"type", "result"}, {"id", 1}})
                                               << int(P::Violation) << "runner result message";
        QTest::newRow("program neither bytes nor reason")
            << hello() + line({{"type", "program"}, {"id", 1}}) << int(P::Violation)
            << "runner program: program: neither an error nor a program in base64";
        QTest::newRow("program not base64")
            << hello() + line({{"type", "program"}, {"id", 1}, {"program", "#not base64#"}})
            << int(P::Violation) << "runner program";
        QTest::newRow("program not a string")
            << hello() + line({{"type", "program"}, {"id", 1}, {"program", 12}})
            << int(P::Violation) << "runner program: program";
        QTest::newRow("oversized frame") << hello() +
                                                line({{"type", "frame"},
                                                      {"id", 1},
                                                      {"stream", "y"},
                                                      {"offset", 0},
                                                      {"bytes", double(kMaxFrameBytes + 1)},
                                                      {"last", true}}) +
                                                progress(1, "timing")
                                         << int(P::BadFrame) << "bytes";
    }
    void malformedInput() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, problem);
        QFETCH(QString, says);
        RunnerCodec codec = streamedCodec();
        const QVector<RunnerCodec::Event> events = codec.feed(bytes.constData(), bytes.size());
        QVERIFY(!events.isEmpty());
        const RunnerCodec::Event& last = events.last();
        QCOMPARE(int(last.problem), problem);
        QVERIFY2(last.error.contains(says), qPrintable(describe(events).join('\n')));
        QVERIFY(!last.isMessage());
    }

    void tooLongLine() {
        RunnerCodec codec = streamedCodec();
        const QByteArray big(kMaxRunnerMessageBytes + 1, 'x');
        QVector<RunnerCodec::Event> events = codec.feed(big.constData(), big.size());
        events += codec.feed("\n", 1);
        QCOMPARE(events.size(), 1);
        QCOMPARE(events[0].problem, RunnerCodec::Problem::TooLong);
        QVERIFY(events[0].error.contains(QString::number(kMaxRunnerMessageBytes)));
    }

    void elsewhereGreetingAndVersion() {
        RunnerCodec greeted = sshCodec();
        const QByteArray greeting("bash: kernelpad-cli: command not found\n");
        const QVector<RunnerCodec::Event> g = greeted.feed(greeting.constData(), greeting.size());
        QCOMPARE(g.size(), 1);
        QCOMPARE(g[0].problem, RunnerCodec::Problem::Greeting);
        QCOMPARE(g[0].text, greeting.chopped(1));

        RunnerCodec old = sshCodec();
        const QByteArray bytes = hello(0);
        const QVector<RunnerCodec::Event> v = old.feed(bytes.constData(), bytes.size());
        QCOMPARE(v.size(), 1);
        QCOMPARE(v[0].problem, RunnerCodec::Problem::VersionMismatch);
        QVERIFY2(v[0].error.contains("update kernelpad-cli on"), qPrintable(v[0].error));
    }

    void frameBeforeItsAnnouncement() {
        // The codec hands a frame on; the transfers refuse one nobody announced.
        RunnerCodec codec = streamedCodec();
        const QByteArray bytes = hello() + encodeFrames(7, "y", 0, "abcd", 4);
        const QVector<RunnerCodec::Event> events = codec.feed(bytes.constData(), bytes.size());
        QCOMPARE(events.size(), 2);
        QVERIFY(events[1].frame);
        RunnerTransfers transfers;
        const RunnerTransfers::FrameOutcome outcome =
            transfers.onFrame(*events[1].frame, events[1].data);
        QVERIFY2(!outcome.violation.isEmpty(), "a frame nobody announced was accepted");
    }

    void requestsEncoded() {
        QString error;
        std::optional<RunnerMessage> m =
            decodeRunnerMessage(RunnerCodec::encodeFetch(12, 7, "out", 64, 128), &error);
        QVERIFY2(m, qPrintable(error));
        QVERIFY(m->type == MessageType::Fetch);
        QCOMPARE(m->id, quint64(12));
        QCOMPARE(m->body.value("run").toInt(), 7);
        QCOMPARE(m->body.value("buffer").toString(), QStringLiteral("out"));
        QCOMPARE(m->body.value("offset").toInt(), 64);
        QCOMPARE(m->body.value("bytes").toInt(), 128);
        RunRequest compile;
        compile.project.kernel = QStringLiteral("scale");
        m = decodeRunnerMessage(RunnerCodec::encodeProgram(13, compile, "sm_90"), &error);
        QVERIFY2(m && m->type == MessageType::Program && m->id == 13, qPrintable(error));
        QCOMPARE(m->body.value("arch").toString(), QStringLiteral("sm_90"));
        QCOMPARE(m->body.value("request")
                     .toObject()
                     .value("project")
                     .toObject()
                     .value("kernel")
                     .toString(),
                 QStringLiteral("scale"));
        m = decodeRunnerMessage(RunnerCodec::encodeCompile(14, compile, QByteArray("\x01\x02")),
                                &error);
        QVERIFY2(m && m->type == MessageType::Compile, qPrintable(error));
        QCOMPARE(QByteArray::fromBase64(m->body.value("program").toString().toLatin1()),
                 QByteArray("\x01\x02"));
        m = decodeRunnerMessage(RunnerCodec::encodeCompile(15, compile), &error);
        QVERIFY2(m && !m->body.contains("program"), qPrintable(error)); // none: compiled there
        m = decodeRunnerMessage(RunnerCodec::encodeCancel(7), &error);
        QVERIFY2(m && m->type == MessageType::Cancel && m->id == 7, qPrintable(error));
        m = decodeRunnerMessage(RunnerCodec::encodeShutdown(), &error);
        QVERIFY2(m && m->type == MessageType::Shutdown, qPrintable(error));
        RunRequest request;
        request.project.kernel = QStringLiteral("saxpy");
        const QByteArray run = RunnerCodec::encodeRun(3, request);
        QVERIFY(run.endsWith('\n'));
        m = decodeRunnerMessage(run, &error);
        QVERIFY2(m && m->type == MessageType::Run && m->id == 3, qPrintable(error));
        QCOMPARE(m->body.value("request").toObject(), request.toJson());
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestRunnerCodec)
} // namespace tst_runnercodec
#include "tst_runnercodec.moc"
