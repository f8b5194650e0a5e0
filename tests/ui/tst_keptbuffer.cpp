// The buffer viewer on an output kept on the runner (OutputBuffer::isKept), with a fake fetcher
// in place of the Workbench: the rows in view are asked for (one aligned chunk covers a screenful),
// show "…" until they arrive, cached rows are never asked for twice, a jump to the end asks only
// for the end, answers out of order fill the right rows, a failure is shown in keptNote, and the
// heat map fetches the window it draws.

#include "../support/TestMain.h"
#include "core/engine/OutputRangeReader.h"
#include "ui/models/BufferTableModel.h"
#include "ui/widgets/BufferViewer.h"
#include "ui/widgets/HeatMapView.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>

#include <cstring>

namespace tst_keptbuffer {

using namespace kernelpad;

namespace {

/// Records the ranges asked for; answers when the test says, with element i = i * 0.5.
class FakeFetcher final : public RangeFetcher {
public:
    struct Asked {
        quint64 id;
        qint64 offset;
        qint64 bytes;
    };
    QVector<Asked> asked;
    int answered = 0; ///< asked[0, answered) have been answered
    quint64 nextId = 1;

    quint64 fetchRange(quint64, const QString&, qint64 offset, qint64 bytes) override {
        asked.append({nextId, offset, bytes});
        return nextId++;
    }
    QString sourceName() const override { return QStringLiteral("gpu-box"); }

    void answer(int index) {
        const Asked a = asked.at(index);
        QByteArray data(qsizetype(a.bytes), Qt::Uninitialized);
        for (qint64 i = 0; i < a.bytes / 4; ++i) {
            const float v = float(a.offset / 4 + i) * 0.5f;
            std::memcpy(data.data() + i * 4, &v, 4);
        }
        emit fetched(a.id, data, {});
    }
    /// Answers everything asked so far, and what those answers make the reader ask next.
    void answerAll() {
        while (answered < asked.size())
            answer(answered++);
    }
};

OutputBuffer keptFloats(qint64 count) {
    OutputBuffer b;
    b.name = QStringLiteral("y");
    b.type = ValueType::of(ScalarType::Float32);
    b.count = count;
    b.keptRun = 3;
    return b;
}

constexpr qint64 kChunkFloats = OutputRangeReader::kChunkBytes / 4;

/// The elements the table shows now, [first, last].
QPair<qint64, qint64> visibleElements(BufferViewer& viewer) {
    QTableView* table = viewer.tableView();
    const int top = table->rowAt(0);
    int bottom = table->rowAt(table->viewport()->height() - 1);
    if (bottom < 0)
        bottom = viewer.pageModel()->rowCount() - 1;
    return {viewer.pageModel()->firstRow() + top, viewer.pageModel()->firstRow() + bottom};
}

} // namespace

class TestKeptBuffer : public QObject {
    Q_OBJECT
private slots:
    void modelFetchesWhatIsAskedFor() {
        FakeFetcher fetcher;
        BufferTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRangeFetcher(&fetcher);
        model.setBuffer(keptFloats(1000));
        QCOMPARE(model.rowCount(), 1000);
        const QModelIndex last = model.index(999, 0);
        QCOMPARE(model.data(last).toString(), QString::fromUtf8(BufferTableModel::kFetchingText));
        QVERIFY(model.data(last, Qt::ToolTipRole).toString().contains("being fetched"));
        QTRY_VERIFY(!fetcher.asked.isEmpty());
        QCOMPARE(fetcher.asked.size(), 1); // 4000 bytes: one chunk, asked for once
        QCOMPARE(fetcher.asked[0].offset, qint64(0));
        QCOMPARE(fetcher.asked[0].bytes, qint64(4000));
        fetcher.answerAll();
        QCOMPARE(model.data(last).toString().toDouble(), 999 * 0.5);
    }

    void rowsInViewAreFetchedOnceAndFilled() {
        FakeFetcher fetcher;
        BufferViewer viewer;
        viewer.setRangeFetcher(&fetcher);
        viewer.resize(640, 420);
        const qint64 count = qint64(10) << 20; // 40 MiB of floats, 100+ pages of rows
        viewer.setOutputs({keptFloats(count)});
        viewer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&viewer));
        QTRY_VERIFY(!fetcher.asked.isEmpty());
        QVERIFY2(viewer.keptNote().startsWith("kept on gpu-box: ") &&
                     viewer.keptNote().endsWith("rows fetched as you scroll"),
                 qPrintable(viewer.keptNote()));
        QVERIFY(viewer.findChild<QLabel*>(QStringLiteral("keptNote"))->isVisible());

        // The rows in view: the first chunk covers them; nothing else is asked for.
        const auto [first, last] = visibleElements(viewer);
        QCOMPARE(first, qint64(0));
        QVERIFY(last > 5 && last < kChunkFloats);
        QCOMPARE(fetcher.asked.size(), 1);
        QCOMPARE(fetcher.asked[0].offset, qint64(0));
        QCOMPARE(fetcher.asked[0].bytes, OutputRangeReader::kChunkBytes);
        QAbstractItemModel* page = viewer.pageModel();
        QCOMPARE(page->index(3, 0).data().toString(),
                 QString::fromUtf8(BufferTableModel::kFetchingText));
        QSignalSpy pageChanged(page, &QAbstractItemModel::dataChanged);
        fetcher.answerAll();
        QCOMPARE(page->index(3, 0).data().toString().toDouble(), 1.5);
        // The page tells its view, for the rows of this page that arrived.
        QCOMPARE(pageChanged.size(), 1);
        QCOMPARE(pageChanged[0][0].value<QModelIndex>().row(), 0);
        QCOMPARE(pageChanged[0][1].value<QModelIndex>().row(), int(kChunkFloats - 1));

        // A jump to the end asks for the end only.
        QVERIFY(viewer.goToIndex(count - 1));
        QTRY_COMPARE(fetcher.asked.size(), 2);
        QTest::qWait(50);
        QCOMPARE(fetcher.asked.size(), 2);
        QCOMPARE(fetcher.asked[1].offset, (count - kChunkFloats) * 4);
        const auto [endFirst, endLast] = visibleElements(viewer);
        QCOMPARE(endLast, count - 1);
        QVERIFY(endFirst >= count - kChunkFloats);
        fetcher.answerAll();
        const QModelIndex lastCell =
            page->index(int(count - 1 - viewer.pageModel()->firstRow()), 0);
        QCOMPARE(lastCell.data().toString().toDouble(), double(count - 1) * 0.5);

        // Back to the start: cached, nothing asked.
        QVERIFY(viewer.goToIndex(10));
        QTest::qWait(50);
        QCOMPARE(fetcher.asked.size(), 2);
        QCOMPARE(viewer.pageModel()->index(10, 0).data().toString().toDouble(), 5.0);

        // Scrolling within the last page asks for the chunks that come into view, in order.
        QVERIFY(viewer.goToIndex(count - 3 * kChunkFloats + 200));
        QTRY_COMPARE(fetcher.asked.size(), 3);
        QCOMPARE(fetcher.asked[2].offset, (count - 3 * kChunkFloats) * 4);
    }

    void answersOutOfOrderFillTheirRows() {
        FakeFetcher fetcher;
        BufferTableModel model;
        model.setRangeFetcher(&fetcher);
        model.setBuffer(keptFloats(kChunkFloats * 4));
        model.reader()->want(0, kChunkFloats * 3 - 1);
        QCOMPARE(fetcher.asked.size(), 3);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        fetcher.answer(2);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed[0][0].value<QModelIndex>().row(), int(kChunkFloats * 2));
        QCOMPARE(changed[0][1].value<QModelIndex>().row(), int(kChunkFloats * 3 - 1));
        QCOMPARE(model.data(model.index(int(kChunkFloats * 2), 0)).toString().toDouble(),
                 double(kChunkFloats * 2) * 0.5);
        QCOMPARE(model.data(model.index(0, 0)).toString(),
                 QString::fromUtf8(BufferTableModel::kFetchingText));
        fetcher.answer(0);
        QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("0"));
    }

    void failureIsShownInTheViewer() {
        FakeFetcher fetcher;
        BufferViewer viewer;
        viewer.setRangeFetcher(&fetcher);
        viewer.resize(640, 420);
        viewer.setOutputs({keptFloats(100000)});
        viewer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&viewer));
        QTRY_VERIFY(!fetcher.asked.isEmpty());
        const QString gone = QStringLiteral("this output was kept on gpu-box and is gone: the "
                                            "runner restarted; run again to see it");
        emit fetcher.fetched(fetcher.asked[0].id, {}, gone);
        QCOMPARE(viewer.keptNote(), gone);
        QCOMPARE(viewer.findChild<QLabel*>(QStringLiteral("keptNote"))->text(), gone);
        const QModelIndex cell = viewer.pageModel()->index(0, 0);
        QCOMPARE(cell.data().toString(), QString());
        QCOMPARE(cell.data(Qt::ToolTipRole).toString(), gone);
        QCOMPARE(viewer.heatMap()->keptCaption(), gone);
        // A new run's outputs start afresh.
        OutputBuffer here = keptFloats(4);
        here.keptRun = 0;
        here.data = QByteArray(16, '\0');
        viewer.setOutputs({here});
        QCOMPARE(viewer.keptNote(), QString());
        QVERIFY(!viewer.findChild<QLabel*>(QStringLiteral("keptNote"))->isVisible());
    }

    void heatMapFetchesTheWindowItDraws() {
        FakeFetcher fetcher;
        BufferViewer viewer;
        viewer.setRangeFetcher(&fetcher);
        // 2048 rows of 1024 floats (8 MiB): the window is 4 MiB, 1024 rows.
        viewer.findChild<QSpinBox*>(QStringLiteral("rowWidth"))->setValue(1024);
        viewer.setOutputs({keptFloats(qint64(2048) * 1024)});
        viewer.resize(640, 420);
        viewer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&viewer));
        HeatMapView* heat = viewer.heatMap();
        QCOMPARE(heat->dataWidth(), qint64(1024));
        QCOMPARE(heat->windowRows(), qint64(1024));
        QImage image = heat->render(QSize(64, 64));
        QVERIFY(!image.isNull());
        QVERIFY2(heat->keptCaption().contains("fetching"), qPrintable(heat->keptCaption()));
        // Its 64 chunks, at most kMaxInFlight at a time, all inside the window (the table's
        // first rows are in it too).
        QVERIFY(fetcher.asked.size() <= OutputRangeReader::kMaxInFlight);
        fetcher.answerAll();
        QCOMPARE(fetcher.asked.size(), 64);
        for (const FakeFetcher::Asked& a : std::as_const(fetcher.asked))
            QVERIFY(a.offset + a.bytes <= HeatMapView::kKeptWindowBytes);
        image = heat->render(QSize(64, 64));
        QVERIFY2(!heat->keptCaption().contains("fetching"), qPrintable(heat->keptCaption()));
        // 64 × 64 samples of rows 0..1023: the last is row 1008, column 1008.
        QCOMPARE(heat->rangeMin(), 0.0);
        QCOMPARE(heat->rangeMax(), (1008.0 * 1024 + 1008) * 0.5);

        // The window follows the table, and near the end starts early enough to stay full.
        QVERIFY(viewer.goToIndex(qint64(600) * 1024));
        QTRY_VERIFY(heat->windowRow() > 500 && heat->windowRow() < 600);
        QVERIFY(viewer.goToIndex(qint64(1500) * 1024));
        QTRY_COMPARE(heat->windowRow(), qint64(1024));
        const qint64 top = heat->windowRow();
        QCOMPARE(heat->windowRows(), qint64(1024));
        image = heat->render(QSize(64, 64));
        QVERIFY(fetcher.asked.size() > 64);
        fetcher.answerAll();
        for (int i = 64; i < fetcher.asked.size(); ++i)
            QVERIFY(fetcher.asked[i].offset >= OutputRangeReader::kChunkBytes * 64);
        image = heat->render(QSize(64, 64));
        QVERIFY2(!heat->keptCaption().contains("fetching"), qPrintable(heat->keptCaption()));
        QCOMPARE(heat->rangeMin(), double(top) * 1024 * 0.5);
    }
};

KERNELPAD_TEST_MAIN(TestKeptBuffer)
} // namespace tst_keptbuffer
#include "tst_keptbuffer.moc"
