// OutputRangeReader against a fake fetcher that records every range asked for and answers
// when the test says: chunks are aligned and whole elements, cached chunks are never asked for
// again, answers out of order land in the right place, a failure is sticky and stops fetching,
// answers for a buffer shown before are dropped, and the cache stays bounded.

#include "../support/TestMain.h"
#include "core/engine/OutputRangeReader.h"

#include <QSignalSpy>
#include <QTest>

#include <cstring>

namespace tst_outputrangereader {

using namespace kernelpad;

namespace {

/// Records the ranges asked for; answer() replies with bytes computed from the offset.
class FakeFetcher final : public RangeFetcher {
public:
    struct Asked {
        quint64 id;
        quint64 run;
        QString buffer;
        qint64 offset;
        qint64 bytes;
    };
    QVector<Asked> asked;
    quint64 nextId = 100;

    quint64 fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes) override {
        asked.append({nextId, run, buffer, offset, bytes});
        return nextId++;
    }
    QString sourceName() const override { return QStringLiteral("gpu-box"); }

    /// Element i of the kept float buffer is i * 0.5.
    static QByteArray floats(qint64 offset, qint64 bytes) {
        QByteArray data(qsizetype(bytes), Qt::Uninitialized);
        for (qint64 i = 0; i < bytes / 4; ++i) {
            const float v = float(offset / 4 + i) * 0.5f;
            std::memcpy(data.data() + i * 4, &v, 4);
        }
        return data;
    }
    void answer(int index) {
        const Asked a = asked.at(index);
        emit fetched(a.id, floats(a.offset, a.bytes), {});
    }
};

OutputBuffer keptFloats(qint64 count, quint64 run = 7) {
    OutputBuffer b;
    b.name = QStringLiteral("y");
    b.type = ValueType::of(ScalarType::Float32);
    b.count = count;
    b.keptRun = run;
    return b;
}

float floatAt(OutputRangeReader& reader, qint64 index) {
    float v = 0;
    std::memcpy(&v, reader.element(index), 4);
    return v;
}

constexpr qint64 kChunkFloats = OutputRangeReader::kChunkBytes / 4;

} // namespace

class TestOutputRangeReader : public QObject {
    Q_OBJECT

private slots:
    void chunksAreAlignedAndWhole_data() {
        QTest::addColumn<int>("elementBytes");
        QTest::addColumn<qint64>("count");
        QTest::addColumn<qint64>("first");
        QTest::addColumn<qint64>("last");
        // offset and size of every range asked for, as pairs
        QTest::addColumn<QVector<qint64>>("expected");
        QTest::newRow("floats, one chunk")
            << 4 << qint64(1 << 20) << qint64(10) << qint64(40) << QVector<qint64>{0, 65536};
        QTest::newRow("floats across a chunk boundary")
            << 4 << qint64(1 << 20) << kChunkFloats - 2 << kChunkFloats + 2
            << QVector<qint64>{0, 65536, 65536, 65536};
        QTest::newRow("the short last chunk")
            << 4 << kChunkFloats * 3 + 10 << kChunkFloats * 3 + 1 << kChunkFloats * 3 + 9
            << QVector<qint64>{65536 * 3, 40};
        // 12-byte elements (a struct of three floats): 5461 whole elements a chunk, never one split
        // in two.
        QTest::newRow("float3 elements stay whole")
            << 12 << qint64(100000) << qint64(5461) << qint64(5461)
            << QVector<qint64>{5461 * 12, 5461 * 12};
    }
    void chunksAreAlignedAndWhole() {
        QFETCH(int, elementBytes);
        QFETCH(qint64, count);
        QFETCH(qint64, first);
        QFETCH(qint64, last);
        QFETCH(QVector<qint64>, expected);
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        OutputBuffer b = keptFloats(count);
        if (elementBytes == 12)
            b.type =
                ValueType::ofStruct(StructType{QStringLiteral("xyz"),
                                               {{QStringLiteral("x"), ScalarType::Float32, 1},
                                                {QStringLiteral("y"), ScalarType::Float32, 1},
                                                {QStringLiteral("z"), ScalarType::Float32, 1}}});
        QCOMPARE(b.type.sizeBytes(), elementBytes);
        reader.setBuffer(b);
        reader.want(first, last);
        QVector<qint64> got;
        for (const FakeFetcher::Asked& a : fetcher.asked) {
            QCOMPARE(a.run, quint64(7));
            QCOMPARE(a.buffer, QStringLiteral("y"));
            got << a.offset << a.bytes;
        }
        QCOMPARE(got, expected);
    }

    void answersOutOfOrderLandInPlace() {
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        reader.setBuffer(keptFloats(kChunkFloats * 10));
        QSignalSpy arrived(&reader, &OutputRangeReader::arrived);
        reader.want(0, kChunkFloats * 3 - 1);
        QCOMPARE(fetcher.asked.size(), 3);
        QVERIFY(!reader.element(5));
        fetcher.answer(2);
        fetcher.answer(0);
        fetcher.answer(1);
        QCOMPARE(arrived.size(), 3);
        QCOMPARE(arrived.at(0).at(0).toLongLong(), kChunkFloats * 2);
        QCOMPARE(arrived.at(0).at(1).toLongLong(), kChunkFloats * 3 - 1);
        QCOMPARE(floatAt(reader, 5), 2.5f);
        QCOMPARE(floatAt(reader, kChunkFloats + 1), float(kChunkFloats + 1) * 0.5f);
        QCOMPARE(floatAt(reader, kChunkFloats * 3 - 1), float(kChunkFloats * 3 - 1) * 0.5f);
        QCOMPARE(reader.fetchedBytes(), OutputRangeReader::kChunkBytes * 3);
    }

    void cachedChunksAreNotAskedAgain() {
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        reader.setBuffer(keptFloats(kChunkFloats * 10));
        reader.want(100, 200);
        QCOMPARE(fetcher.asked.size(), 1);
        reader.want(100, 200); // in flight: not asked twice
        QCOMPARE(fetcher.asked.size(), 1);
        fetcher.answer(0);
        reader.want(0, kChunkFloats - 1); // cached
        reader.want(300, 400);
        QCOMPARE(fetcher.asked.size(), 1);
        reader.want(kChunkFloats - 1, kChunkFloats); // only the second chunk is new
        QCOMPARE(fetcher.asked.size(), 2);
        QCOMPARE(fetcher.asked.last().offset, OutputRangeReader::kChunkBytes);
    }

    void boundedInFlightAndANewerWantDropsTheQueue() {
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        reader.setBuffer(keptFloats(kChunkFloats * 1000));
        reader.want(0, kChunkFloats * 20 - 1); // 20 chunks
        QCOMPARE(fetcher.asked.size(), OutputRangeReader::kMaxInFlight);
        // Scrolled to the end: the 16 queued chunks are no longer wanted.
        reader.want(kChunkFloats * 1000 - 10, kChunkFloats * 1000 - 1);
        QCOMPARE(fetcher.asked.size(), OutputRangeReader::kMaxInFlight);
        fetcher.answer(0);
        QCOMPARE(fetcher.asked.size(), OutputRangeReader::kMaxInFlight + 1);
        QCOMPARE(fetcher.asked.last().offset, OutputRangeReader::kChunkBytes * 999);
        for (int i = 1; i < fetcher.asked.size(); ++i)
            fetcher.answer(i);
        QCOMPARE(fetcher.asked.size(), OutputRangeReader::kMaxInFlight + 1);
        QCOMPARE(floatAt(reader, kChunkFloats * 1000 - 1), float(kChunkFloats * 1000 - 1) * 0.5f);
    }

    void twoSlotsKeepTheirOwnWants() {
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        reader.setBuffer(keptFloats(kChunkFloats * 100));
        reader.want(0, 0, 0);
        reader.want(kChunkFloats * 50, kChunkFloats * 50, 1);
        QCOMPARE(fetcher.asked.size(), 2);
        QCOMPARE(fetcher.asked.at(1).offset, OutputRangeReader::kChunkBytes * 50);
    }

    void failureIsStickyAndStopsFetching() {
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        reader.setBuffer(keptFloats(kChunkFloats * 10));
        QSignalSpy failed(&reader, &OutputRangeReader::failed);
        reader.want(0, kChunkFloats * 2 - 1);
        const QString gone = QStringLiteral("this output was kept on gpu-box and is gone: the "
                                            "runner restarted; run again to see it");
        emit fetcher.fetched(fetcher.asked.at(1).id, {}, gone);
        QCOMPARE(failed.size(), 1);
        QCOMPARE(reader.error(), gone);
        fetcher.answer(0); // a late answer after the failure is dropped
        QVERIFY(!reader.element(0));
        reader.want(kChunkFloats * 5, kChunkFloats * 5);
        QCOMPARE(fetcher.asked.size(), 2);
        // A new buffer starts afresh.
        reader.setBuffer(keptFloats(kChunkFloats, 8));
        QVERIFY(reader.error().isEmpty());
        reader.want(0, 0);
        QCOMPARE(fetcher.asked.size(), 3);
        QCOMPARE(fetcher.asked.last().run, quint64(8));
    }

    void wrongSizeIsAFailure() {
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        reader.setBuffer(keptFloats(100));
        reader.want(0, 99);
        emit fetcher.fetched(fetcher.asked.at(0).id, QByteArray(16, '\0'), {});
        QVERIFY2(reader.error().contains("16 bytes"), qPrintable(reader.error()));
        QVERIFY(!reader.element(0));
    }

    void answersForAnEarlierBufferAreDropped() {
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        reader.setBuffer(keptFloats(kChunkFloats * 4, 1));
        reader.want(0, 10);
        reader.setBuffer(keptFloats(kChunkFloats * 4, 2));
        QSignalSpy arrived(&reader, &OutputRangeReader::arrived);
        fetcher.answer(0);
        QCOMPARE(arrived.size(), 0);
        QVERIFY(!reader.element(0));
        QCOMPARE(reader.cachedChunks(), 0);
    }

    void cacheIsBoundedLeastRecentlyReadFirst() {
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        const int chunks = OutputRangeReader::kMaxCachedChunks + 8;
        reader.setBuffer(keptFloats(kChunkFloats * chunks));
        for (int c = 0; c < chunks; ++c) {
            reader.want(kChunkFloats * c, kChunkFloats * c);
            fetcher.answer(int(fetcher.asked.size()) - 1);
            if (c > 0)
                QVERIFY(reader.element(0)); // chunk 0 stays the most recently read
        }
        QCOMPARE(reader.cachedChunks(), OutputRangeReader::kMaxCachedChunks);
        QVERIFY(reader.contains(0));
        QVERIFY(!reader.contains(kChunkFloats * 1)); // among the least recently read
        QVERIFY(reader.contains(kChunkFloats * (chunks - 1)));
        // An evicted chunk is asked for again.
        const int before = int(fetcher.asked.size());
        reader.want(kChunkFloats, kChunkFloats);
        QCOMPARE(int(fetcher.asked.size()), before + 1);
    }

    void bytesHereAreReadDirectly() {
        FakeFetcher fetcher;
        OutputRangeReader reader;
        reader.setFetcher(&fetcher);
        OutputBuffer b;
        b.name = QStringLiteral("y");
        b.type = ValueType::of(ScalarType::Float32);
        b.count = 1000; // more than the bytes: never trusted
        b.data = FakeFetcher::floats(0, 40);
        reader.setBuffer(b);
        QCOMPARE(reader.elementCount(), qint64(10));
        QCOMPARE(floatAt(reader, 9), 4.5f);
        QVERIFY(!reader.element(10));
        reader.want(0, 9);
        QVERIFY(fetcher.asked.isEmpty());
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestOutputRangeReader)
} // namespace tst_outputrangereader
#include "tst_outputrangereader.moc"
