// Binary frames of the runner protocol (Protocol.h): encoding, reading them back however the
// reads split them, raw bytes that contain '\n', and refusals that name the field.

#include "../support/TestMain.h"
#include "core/runner/Protocol.h"

#include <QJsonArray>
#include <QTest>

namespace tst_protocolframes {

using namespace kernelpad;

namespace {

/// Every byte value, so that '\n', '{' and NUL all appear inside frame data.
QByteArray allBytes(qsizetype size) {
    QByteArray data(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        data[i] = char((i * 7 + 10) & 0xff);
    return data;
}

/// Feeds `wire` to a reader in pieces of `step` bytes.
QVector<ProtocolReader::Item> readInSteps(const QByteArray& wire, qsizetype step) {
    ProtocolReader reader;
    QVector<ProtocolReader::Item> items;
    for (qsizetype at = 0; at < wire.size(); at += step)
        items += reader.feed(wire.constData() + at, std::min(step, wire.size() - at));
    return items;
}

} // namespace

class TestProtocolFrames : public QObject {
    Q_OBJECT

private slots:
    void framesSurviveAnySplit_data() {
        QTest::addColumn<qsizetype>("dataBytes");
        QTest::addColumn<qsizetype>("step");
        QTest::newRow("one read") << qsizetype(1000) << qsizetype(1 << 30);
        QTest::newRow("byte by byte") << qsizetype(300) << qsizetype(1);
        QTest::newRow("odd pieces") << qsizetype(5000) << qsizetype(7);
        QTest::newRow("several frames") << qsizetype(kMaxFrameBytes * 2 + 123) << qsizetype(65536);
        QTest::newRow("empty") << qsizetype(0) << qsizetype(3);
    }
    void framesSurviveAnySplit() {
        QFETCH(qsizetype, dataBytes);
        QFETCH(qsizetype, step);
        const QByteArray data = allBytes(dataBytes);
        QVERIFY(dataBytes == 0 || data.contains('\n'));
        const QByteArray before = encodeRunnerMessage(
            RunnerMessage::make(MessageType::Progress, 7, {{"stage", "timing"}}));
        const QByteArray after = encodeRunnerMessage(
            RunnerMessage::make(MessageType::Devices, 8, {{"devices", QJsonArray()}}));
        const QByteArray wire =
            before + encodeFrames(7, "out", 0, data.constData(), data.size()) + after;
        const QVector<ProtocolReader::Item> items = readInSteps(wire, step);
        const qsizetype frames =
            dataBytes == 0 ? 1 : (dataBytes + kMaxFrameBytes - 1) / kMaxFrameBytes;
        QCOMPARE(items.size(), frames + 2);
        QVERIFY(items.first().message);
        QVERIFY(items.first().message->type == MessageType::Progress);
        QByteArray joined;
        for (qsizetype k = 1; k <= frames; ++k) {
            const ProtocolReader::Item& item = items[k];
            QVERIFY2(item.frame, qPrintable(item.error));
            QCOMPARE(item.frame->id, quint64(7));
            QCOMPARE(item.frame->stream, QStringLiteral("out"));
            QCOMPARE(item.frame->offset, qint64(joined.size()));
            QCOMPARE(item.frame->last, k == frames);
            QVERIFY(item.frame->bytes <= kMaxFrameBytes);
            joined += item.data;
        }
        QCOMPARE(joined, data);
        QVERIFY(items.last().message);
        QVERIFY(items.last().message->type == MessageType::Devices);
    }

    void aLineBufferedTransportPassesTheLastFrameOn() {
        // srun without -u passes a task's output on up to its last '\n' and holds the rest
        // until the next one: the empty line after the frames (Protocol.h) is that '\n'.
        QByteArray data = allBytes(5000);
        data += QByteArray(100, 'x'); // the tail after the data's own last '\n'
        const QByteArray frames = encodeFrames(7, "out", 0, data.constData(), data.size());
        QCOMPARE(frames.back(), kFramesEnd);
        const auto passedOn = [](const QByteArray& wire) {
            return readInSteps(wire.left(wire.lastIndexOf('\n') + 1), 1024);
        };
        const QVector<ProtocolReader::Item> items = passedOn(frames);
        QCOMPARE(items.size(), 1); // the frame; the empty line is no item
        QVERIFY(items.first().frame);
        QVERIFY(items.first().frame->last);
        QCOMPARE(items.first().data, data);
        // Without the empty line the frame would wait for whatever the runner says next.
        QVERIFY(passedOn(frames.chopped(1)).isEmpty());
    }

    void emptyLinesAreSkipped() {
        const QByteArray wire =
            QByteArray("\n\n") +
            encodeRunnerMessage(RunnerMessage::make(MessageType::Shutdown, 0, {})) +
            QByteArray("\n");
        const QVector<ProtocolReader::Item> items = readInSteps(wire, 1);
        QCOMPARE(items.size(), 1);
        QVERIFY(items.first().message);
        QVERIFY(items.first().message->type == MessageType::Shutdown);
    }

    void readerHoldsOnlyTheAnnouncedFrame() {
        // A header announcing 10 bytes followed by 30: the reader takes 10 as the frame and
        // reads the rest as lines, never holding more than the frame.
        ProtocolReader reader;
        const QByteArray header = encodeFrameHeader(FrameHeader{3, "x.npy", 0, 10, true});
        QVector<ProtocolReader::Item> items = reader.feed(header.constData(), header.size());
        QVERIFY(items.isEmpty());
        const QByteArray payload("0123456789{\"type\":\"shutdown\"}\n");
        items = reader.feed(payload.constData(), payload.size());
        QCOMPARE(items.size(), 2);
        QVERIFY(items[0].frame);
        QCOMPARE(items[0].data, QByteArray("0123456789"));
        QVERIFY(items[1].message);
        QVERIFY(items[1].message->type == MessageType::Shutdown);
        QCOMPARE(reader.pendingBytes(), qsizetype(0));
    }

    void badHeadersAreFatalAndNamed_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("field");
        QTest::newRow("oversize frame")
            << QByteArray(R"({"type":"frame","id":1,"stream":"a","offset":0,"bytes":)") +
                   QByteArray::number(kMaxFrameBytes + 1) + R"(,"last":true})"
            << "frame.bytes";
        QTest::newRow("negative bytes")
            << QByteArray(
                   R"({"type":"frame","id":1,"stream":"a","offset":0,"bytes":-1,"last":true})")
            << "frame.bytes";
        QTest::newRow("no bytes")
            << QByteArray(R"({"type":"frame","id":1,"stream":"a","offset":0,"last":true})")
            << "frame.bytes";
        QTest::newRow("negative offset")
            << QByteArray(
                   R"({"type":"frame","id":1,"stream":"a","offset":-5,"bytes":1,"last":true})")
            << "frame.offset";
        QTest::newRow("escaping stream")
            << QByteArray(
                   R"({"type":"frame","id":1,"stream":"../etc/passwd","offset":0,"bytes":1,"last":true})")
            << "frame.stream";
        QTest::newRow("absolute stream")
            << QByteArray(
                   R"({"type":"frame","id":1,"stream":"/etc/passwd","offset":0,"bytes":1,"last":true})")
            << "frame.stream";
        QTest::newRow("last not a bool")
            << QByteArray(
                   R"({"type":"frame","id":1,"stream":"a","offset":0,"bytes":1,"last":"yes"})")
            << "frame.last";
        QTest::newRow("no id")
            << QByteArray(R"({"type":"frame","stream":"a","offset":0,"bytes":1,"last":true})")
            << "id";
    }
    void badHeadersAreFatalAndNamed() {
        QFETCH(QByteArray, line);
        QFETCH(QString, field);
        ProtocolReader reader;
        const QByteArray wire =
            line + "\n" + encodeRunnerMessage(RunnerMessage::make(MessageType::Shutdown, 0));
        const QVector<ProtocolReader::Item> items = reader.feed(wire.constData(), wire.size());
        QCOMPARE(items.size(), 1); // nothing after a bad header is read
        QVERIFY(!items[0].message);
        QVERIFY(!items[0].frame);
        QVERIFY2(items[0].error.contains(field), qPrintable(items[0].error));
        QVERIFY(items[0].fatal);
        // Nothing more is read from a broken stream.
        QVERIFY(reader.feed(wire.constData(), wire.size()).isEmpty());
    }

    void overlongLineIsRefusedWithoutHoldingIt() {
        ProtocolReader reader(64);
        const QByteArray longLine = QByteArray(1000, 'x') + "\n";
        const QVector<ProtocolReader::Item> items =
            reader.feed(longLine.constData(), longLine.size());
        QCOMPARE(items.size(), 1);
        QVERIFY(items[0].tooLong);
        QVERIFY(reader.pendingBytes() <= 64);
    }

    void streamNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("safe");
        QTest::newRow("plain") << "x.npy" << true;
        QTest::newRow("sub folder") << "data/x.npy" << true;
        QTest::newRow("parent") << "../x.npy" << false;
        QTest::newRow("inner parent") << "data/../../x" << false;
        QTest::newRow("absolute") << "/etc/passwd" << false;
        QTest::newRow("dot") << "./x" << false;
        QTest::newRow("empty part") << "a//b" << false;
        QTest::newRow("backslash") << "a\\b" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("too long") << QString(300, QLatin1Char('a')) << false;
    }
    void streamNames() {
        QFETCH(QString, name);
        QFETCH(bool, safe);
        QCOMPARE(isSafeStreamName(name), safe);
    }

    void frameAndFetchAreRequests() {
        QVERIFY(isRunnerRequestType(MessageType::Frame));
        QVERIFY(isRunnerRequestType(MessageType::Fetch));
        QString error;
        QVERIFY(!decodeRunnerMessage(R"({"type":"fetch"})", &error));
        QVERIFY2(error.contains("id"), qPrintable(error));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestProtocolFrames)
} // namespace tst_protocolframes
#include "tst_protocolframes.moc"
