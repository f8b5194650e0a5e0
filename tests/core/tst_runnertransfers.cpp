// RunnerTransfers without a process: a streamed result's outputs announced and received as
// frames, fetched ranges, and the frames that break the protocol.

#include "../support/TestMain.h"
#include "core/io/JsonFields.h"
#include "core/runner/RunnerTransfers.h"

#include <QJsonArray>
#include <QTest>

#include <algorithm>

namespace tst_runnertransfers {

using namespace kernelpad;

namespace {

/// One output of a streamed result: `count` floats, streamed or kept.
QJsonObject outputJson(const QString& name, qint64 count, bool streamed) {
    return QJsonObject{
        {"name", name},           {"type", ValueType::of(ScalarType::Float32).toJson()},
        {"count", double(count)}, {"bytes", double(count * 4)},
        {"stream", streamed},     {"kept", !streamed}};
}

/// Announces `outputs` as request 7's result; `ready` gets it when nothing streams.
bool announce(RunnerTransfers* transfers, const QJsonArray& outputs,
              std::optional<RunnerTransfers::Delivery>* ready, QString* error) {
    const QJsonObject body{{"outputs", outputs}};
    const json::FieldReader fields(body, error);
    const QHash<QString, qint64> bounds{{QStringLiteral("y"), 16}, {QStringLiteral("z"), 64}};
    RunResult result;
    result.status = RunStatus::Ok;
    return transfers->announceOutputs(fields, 7, bounds, result, false, ready, error);
}

FrameHeader frame(quint64 id, const QString& stream, qint64 offset, qint64 bytes, bool last) {
    return FrameHeader{id, stream, offset, bytes, last};
}

} // namespace

class TestRunnerTransfers : public QObject {
    Q_OBJECT
private slots:
    void resultWaitsForItsFrames() {
        RunnerTransfers transfers;
        std::optional<RunnerTransfers::Delivery> ready;
        QString error;
        QVERIFY2(announce(&transfers, {outputJson("y", 4, true), outputJson("z", 16, false)},
                          &ready, &error),
                 qPrintable(error));
        QVERIFY(!ready);
        QVERIFY(transfers.hasPendingOutputs());
        RunnerTransfers::FrameOutcome first =
            transfers.onFrame(frame(7, "y", 0, 8, false), QByteArray(8, '\1'));
        QVERIFY2(first.violation.isEmpty(), qPrintable(first.violation));
        QVERIFY(!first.delivered);
        RunnerTransfers::FrameOutcome last =
            transfers.onFrame(frame(7, "y", 8, 8, true), QByteArray(8, '\2'));
        QVERIFY2(last.violation.isEmpty(), qPrintable(last.violation));
        QVERIFY(last.delivered);
        QCOMPARE(last.delivered->id, quint64(7));
        QCOMPARE(last.delivered->result.outputs.size(), 2);
        QCOMPARE(last.delivered->result.outputs[0].data, QByteArray(8, '\1') + QByteArray(8, '\2'));
        // The kept output names its run for a later fetch and holds no bytes here.
        QCOMPARE(last.delivered->result.outputs[1].keptRun, quint64(7));
        QVERIFY(last.delivered->result.outputs[1].data.isEmpty());
        QVERIFY(!transfers.hasPendingOutputs());
    }

    void keptOnlyResultIsReadyAtOnce() {
        RunnerTransfers transfers;
        std::optional<RunnerTransfers::Delivery> ready;
        QString error;
        QVERIFY2(announce(&transfers, {outputJson("z", 16, false)}, &ready, &error),
                 qPrintable(error));
        QVERIFY(ready);
        QCOMPARE(ready->result.outputs.size(), 1);
        QVERIFY(!transfers.hasPendingOutputs());
    }

    void refusesWrongAnnouncements_data() {
        QTest::addColumn<QJsonArray>("outputs");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not a buffer of the request")
            << QJsonArray{outputJson("w", 4, true)} << "is no buffer of the request";
        QTest::newRow("bigger than its buffer")
            << QJsonArray{outputJson("y", 5, true)} << "is more than the 16 bytes of 'y'";
        QTest::newRow("named twice")
            << QJsonArray{outputJson("y", 4, true), outputJson("y", 4, true)}
            << "is not a unique plain name";
    }
    void refusesWrongAnnouncements() {
        QFETCH(QJsonArray, outputs);
        QFETCH(QString, expected);
        RunnerTransfers transfers;
        std::optional<RunnerTransfers::Delivery> ready;
        QString error;
        QVERIFY(!announce(&transfers, outputs, &ready, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QVERIFY(!ready);
    }

    void refusesStreamsBeyondTheKeepLimit() {
        RunnerTransfers transfers;
        transfers.setKeepBeyondBytes(8);
        std::optional<RunnerTransfers::Delivery> ready;
        QString error;
        QVERIFY(!announce(&transfers, {outputJson("y", 4, true)}, &ready, &error));
        QVERIFY2(error.contains(QStringLiteral("beyond the 8 allowed to stream")),
                 qPrintable(error));
    }

    void framesOutOfOrderBreakTheProtocol_data() {
        QTest::addColumn<qint64>("offset");
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<bool>("last");
        QTest::addColumn<QString>("stream");
        QTest::addColumn<QString>("expected");
        QTest::newRow("gap") << qint64(4) << qint64(4) << false << "y"
                             << "frame.offset: 4";
        QTest::newRow("past the end") << qint64(0) << qint64(20) << true << "y"
                                      << "frame.bytes: 20";
        QTest::newRow("last too early") << qint64(0) << qint64(8) << true << "y"
                                        << "frame.last";
        QTest::newRow("not announced") << qint64(0) << qint64(4) << false << "q"
                                       << "frame.stream: 'q' of request 7 was not announced";
    }
    void framesOutOfOrderBreakTheProtocol() {
        QFETCH(qint64, offset);
        QFETCH(qint64, bytes);
        QFETCH(bool, last);
        QFETCH(QString, stream);
        QFETCH(QString, expected);
        RunnerTransfers transfers;
        std::optional<RunnerTransfers::Delivery> ready;
        QString error;
        QVERIFY2(announce(&transfers, {outputJson("y", 4, true)}, &ready, &error),
                 qPrintable(error));
        const RunnerTransfers::FrameOutcome outcome =
            transfers.onFrame(frame(7, stream, offset, bytes, last), QByteArray(int(bytes), 'x'));
        QVERIFY2(outcome.violation.contains(expected), qPrintable(outcome.violation));
        QVERIFY(!outcome.delivered);
    }

    void fetchAssemblesItsRange() {
        RunnerTransfers transfers;
        QCOMPARE(transfers.beginFetch(3, QStringLiteral("z"), 100, 6), QString());
        QVERIFY(transfers.beginFetch(3, QStringLiteral("z"), 0, 1).contains("already waiting"));
        RunnerTransfers::FrameOutcome a = transfers.onFrame(frame(3, "z", 100, 4, false), "abcd");
        QVERIFY2(a.violation.isEmpty(), qPrintable(a.violation));
        QVERIFY(!a.fetchedId);
        RunnerTransfers::FrameOutcome b = transfers.onFrame(frame(3, "z", 104, 2, true), "ef");
        QVERIFY2(b.violation.isEmpty(), qPrintable(b.violation));
        QVERIFY(b.fetchedId);
        QCOMPARE(*b.fetchedId, quint64(3));
        QCOMPARE(b.fetched, QByteArray("abcdef"));
        QVERIFY(!transfers.endFetch(3)); // answered: nothing waits any more
    }

    void fetchOfAnotherBufferBreaksTheProtocol() {
        RunnerTransfers transfers;
        QCOMPARE(transfers.beginFetch(3, QStringLiteral("z"), 0, 4), QString());
        const RunnerTransfers::FrameOutcome outcome =
            transfers.onFrame(frame(3, "y", 0, 4, true), "abcd");
        QVERIFY2(outcome.violation.contains(QStringLiteral("answers a fetch of 'z'")),
                 qPrintable(outcome.violation));
    }

    void rangesThatAreNone() {
        QVERIFY(!RunnerTransfers::rangeProblem(-1, 4).isEmpty());
        QVERIFY(!RunnerTransfers::rangeProblem(0, -4).isEmpty());
        QVERIFY(RunnerTransfers::rangeProblem(0, 4).isEmpty());
    }

    void dropAllEndsEveryFetchAndTheResult() {
        RunnerTransfers transfers;
        std::optional<RunnerTransfers::Delivery> ready;
        QString error;
        QVERIFY2(announce(&transfers, {outputJson("y", 4, true)}, &ready, &error),
                 qPrintable(error));
        QCOMPARE(transfers.beginFetch(1, QStringLiteral("z"), 0, 4), QString());
        QCOMPARE(transfers.beginFetch(2, QStringLiteral("z"), 4, 4), QString());
        QList<quint64> ids = transfers.dropAll();
        std::sort(ids.begin(), ids.end());
        QCOMPARE(ids, (QList<quint64>{1, 2}));
        QVERIFY(!transfers.hasPendingOutputs());
        // A frame of the dropped result is no longer expected.
        QVERIFY(!transfers.onFrame(frame(7, "y", 0, 16, true), QByteArray(16, 'x'))
                     .violation.isEmpty());
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestRunnerTransfers)
} // namespace tst_runnertransfers
#include "tst_runnertransfers.moc"
