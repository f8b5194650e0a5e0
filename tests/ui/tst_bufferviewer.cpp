// The buffer viewer: a lazy table that stays O(1) to set up at 100 million elements, paging,
// 2-D rows, go-to-index and the sampled heat map.

#include "../support/TestMain.h"
#include "ui/models/BufferTableModel.h"
#include "ui/widgets/BufferViewer.h"
#include "ui/widgets/HeatMapView.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QTableView>
#include <QTest>

#include <cstring>

namespace tst_bufferviewer {

using namespace kernelpad;

namespace {

OutputBuffer floats(const QString& name, qint64 count, bool fill) {
    OutputBuffer b;
    b.name = name;
    b.type = ValueType::of(ScalarType::Float32);
    b.count = count;
    b.data = QByteArray(count * qint64(sizeof(float)), Qt::Uninitialized);
    auto* values = reinterpret_cast<float*>(b.data.data());
    if (fill) {
        for (qint64 i = 0; i < count; ++i)
            values[i] = float(i) * 0.5f;
    } else {
        values[count - 1] = 12345.5f; // only the element the test reads
    }
    return b;
}

} // namespace

class TestBufferViewer : public QObject {
    Q_OBJECT
private slots:
    void modelShapes_data();
    void modelShapes();
    void hundredMillionFloatsAreLazy();
    void goToIndexPagesAndSelects();
    void heatMapSamplesToWidgetSize();
    void beforeARunSaysBuffersComeAfterOne();
    void lowPrecisionShowsDecodedValues();
};

void TestBufferViewer::modelShapes_data() {
    QTest::addColumn<qint64>("count");
    QTest::addColumn<qint64>("width");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("columns");
    QTest::newRow("1d") << qint64(50) << qint64(0) << 50 << 1;
    QTest::newRow("2d-exact") << qint64(48) << qint64(8) << 6 << 8;
    QTest::newRow("2d-ragged-last-row") << qint64(50) << qint64(8) << 7 << 8;
}

void TestBufferViewer::modelShapes() {
    QFETCH(qint64, count);
    QFETCH(qint64, width);
    QFETCH(int, rows);
    QFETCH(int, columns);
    BufferTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    BufferPageModel page(&model);
    QAbstractItemModelTester pageTester(&page,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
    page.setPageRows(4);
    model.setBuffer(floats(QStringLiteral("y"), count, true));
    model.setRowWidth(width);
    QCOMPARE(model.rowCount(), rows);
    QCOMPARE(model.columnCount(), columns);
    const qint64 last = count - 1;
    const QModelIndex cell = model.indexOfElement(last);
    QCOMPARE(model.elementAt(cell), last);
    QCOMPARE(model.data(cell).toString().toDouble(), double(last) * 0.5);
    if (width > 1 && count % width)
        QVERIFY(!model.data(model.index(rows - 1, columns - 1)).isValid());
    QCOMPARE(page.pageCount(), qint64((rows + 3) / 4));
    page.setPage(page.pageCount() - 1);
    QCOMPARE(page.rowCount(), rows - int(page.firstRow()));
    QCOMPARE(page.data(page.index(0, 0)), model.data(model.index(int(page.firstRow()), 0)));
}

void TestBufferViewer::hundredMillionFloatsAreLazy() {
    constexpr qint64 kCount = 100000000;
    const QVector<OutputBuffer> outputs{floats(QStringLiteral("big"), kCount, false)};
    BufferViewer viewer;
    viewer.resize(800, 600);
    viewer.show();
    viewer.setOutputs(outputs);
    QCoreApplication::processEvents();
    // The bytes are shared, not copied: nothing proportional to the buffer was allocated.
    QCOMPARE(viewer.model()->buffer().data.constData(), outputs.first().data.constData());
    QCOMPARE(viewer.model()->rowCount(), int(kCount));
    QCOMPARE(viewer.pageModel()->rowCount(), BufferPageModel::kDefaultPageRows);
    const QModelIndex last = viewer.model()->index(int(kCount - 1), 0);
    QCOMPARE(viewer.model()->data(last).toString(), QStringLiteral("12345.5"));
    // A page holds a page of rows, not the buffer (how long it takes is bench/'s business).
    QVERIFY(viewer.goToIndex(kCount - 1));
    QCoreApplication::processEvents();
    QCOMPARE(viewer.pageModel()->rowCount(), BufferPageModel::kDefaultPageRows);
    QCOMPARE(viewer.tableView()->currentIndex().data().toString(), QStringLiteral("12345.5"));
}

void TestBufferViewer::goToIndexPagesAndSelects() {
    BufferViewer viewer;
    viewer.setOutputs(
        {floats(QStringLiteral("a"), 10, true), floats(QStringLiteral("b"), 250000, true)});
    QCOMPARE(viewer.model()->buffer().name, QStringLiteral("a"));
    auto* combo = viewer.findChild<QComboBox*>(QStringLiteral("bufferCombo"));
    combo->setCurrentIndex(1);
    QCOMPARE(viewer.model()->elementCount(), qint64(250000));
    QVERIFY(viewer.goToIndex(212345));
    QCOMPARE(viewer.pageModel()->page(), qint64(2));
    QCOMPARE(viewer.tableView()->currentIndex().data().toString().toDouble(), 212345 * 0.5);
    QVERIFY(!viewer.goToIndex(250000));
    // Re-running keeps the selected buffer.
    viewer.setOutputs(
        {floats(QStringLiteral("a"), 10, true), floats(QStringLiteral("b"), 20, true)});
    QCOMPARE(viewer.model()->buffer().name, QStringLiteral("b"));
}

void TestBufferViewer::heatMapSamplesToWidgetSize() {
    HeatMapView heat;
    constexpr qint64 kWidth = 4000;
    OutputBuffer b = floats(QStringLiteral("img"), kWidth * 3000, true);
    heat.setBuffer(b, kWidth);
    QCOMPARE(heat.dataHeight(), qint64(3000));
    const QImage image = heat.render(QSize(200, 100));
    QCOMPARE(image.size(), QSize(200, 100));
    // Values rise with the index, so the first sample is the minimum and the colours differ.
    QCOMPARE(heat.rangeMin(), 0.0);
    QVERIFY(heat.rangeMax() > heat.rangeMin());
    QVERIFY(image.pixel(0, 0) != image.pixel(199, 99));
    // Fewer elements than pixels: one pixel per element, never invented data.
    heat.setBuffer(floats(QStringLiteral("small"), 6, true), 3);
    QCOMPARE(heat.render(QSize(200, 100)).size(), QSize(3, 2));
}

// Before any run the tab said "No output buffers" for a project that has
// them.
void TestBufferViewer::beforeARunSaysBuffersComeAfterOne() {
    BufferViewer viewer;
    auto* info = viewer.findChild<QLabel*>(QStringLiteral("bufferInfo"));
    QVERIFY(info);
    QVERIFY2(!info->text().contains(QStringLiteral("No output buffers")), qPrintable(info->text()));
    QVERIFY2(info->text().contains(QStringLiteral("after a run")), qPrintable(info->text()));
    viewer.setOutputs({floats(QStringLiteral("C"), 16, true)});
    QVERIFY(info->text().contains(QStringLiteral("float32")));
    // A run that returned nothing says so, and a new project starts over.
    viewer.setOutputs({});
    QVERIFY2(info->text().contains(QStringLiteral("last run")), qPrintable(info->text()));
    viewer.clear();
    QVERIFY(info->text().contains(QStringLiteral("after a run")));
}

/// bfloat16 elements show their value, not their bits; fp4 pairs both nibbles, low first.
void TestBufferViewer::lowPrecisionShowsDecodedValues() {
    OutputBuffer b;
    b.name = QStringLiteral("y");
    b.type = ValueType::of(ScalarType::BFloat16);
    b.count = 4;
    const quint16 bits[] = {0x3FC0, 0x4049, 0xFF80, 0xC2F7}; // 1.5, 3.140625, -inf, -123.5
    b.data = QByteArray(reinterpret_cast<const char*>(bits), sizeof bits);
    BufferTableModel model;
    model.setBuffer(b);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("1.5"));
    // 0x4049 is 3.140625; the shortest text that reads back to those bits is shown.
    QCOMPARE(model.data(model.index(1, 0)).toString(), QStringLiteral("3.14"));
    QCOMPARE(model.data(model.index(2, 0)).toString(), QStringLiteral("-inf"));
    QCOMPARE(model.data(model.index(3, 0)).toString(), QStringLiteral("-123.5"));

    OutputBuffer pairs;
    pairs.name = QStringLiteral("q");
    pairs.type = ValueType::of(ScalarType::Float4E2M1x2);
    pairs.count = 1;
    pairs.data = QByteArray(1, char(0xC3)); // low nibble 0x3 = 1.5, high 0xC = -2
    model.setBuffer(pairs);
    QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("(1.5, -2)"));
}

KERNELPAD_TEST_MAIN(TestBufferViewer)
} // namespace tst_bufferviewer
#include "tst_bufferviewer.moc"
