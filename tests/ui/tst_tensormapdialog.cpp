// The tensor map editor: the dialog reads and writes every field, refuses a map the driver
// would refuse (with the field and rule named) until it is fixed, keeps what was typed past
// the rank, and the argument table shows a tensorMap row and opens the dialog from it.

#include "../support/TestMain.h"
#include "ui/dialogs/TensorMapDialog.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QToolButton>

namespace tst_tensormapdialog {

using namespace kernelpad;

namespace {

template <typename W> W* mapPart(QWidget* root, const QString& name) {
    W* w = root->findChild<W*>(name);
    if (!w)
        qFatal("no %s in the dialog", qPrintable(name));
    return w;
}

QPushButton* mapOk(QWidget* dialog) {
    return dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
}

/// src (float32, rows*cols), rows = 32, cols = 64, and a 2D map over src with box 32 x 8.
QVector<ArgumentSpec> project() {
    ArgumentSpec src;
    src.name = QStringLiteral("src");
    src.kind = ArgumentSpec::Kind::Buffer;
    src.buffer.count = QStringLiteral("rows*cols");
    ArgumentSpec rows, cols;
    rows.name = QStringLiteral("rows");
    rows.type = ValueType::of(ScalarType::Int32);
    rows.value = QStringLiteral("32");
    cols = rows;
    cols.name = QStringLiteral("cols");
    cols.value = QStringLiteral("64");
    ArgumentSpec map = makeTensorMapArgument(QStringLiteral("map"), QStringLiteral("src"));
    map.tensorMap.globalDims = {QStringLiteral("cols"), QStringLiteral("rows")};
    map.tensorMap.globalStrides = {QStringLiteral("cols*4")};
    map.tensorMap.boxDims = {32, 8};
    map.tensorMap.elementStrides = {1, 1};
    return {src, rows, cols, map};
}

} // namespace

class TestTensorMapDialog : public QObject {
    Q_OBJECT
private slots:
    void showsTheArgument();
    void editsEverySetting();
    void refusesUntilFixed_data();
    void refusesUntilFixed();
    void keepsWhatWasTypedPastTheRank();
    void tableShowsATensorMapRow();
    void tableOpensTheDialog();
};

void TestTensorMapDialog::showsTheArgument() {
    const QVector<ArgumentSpec> args = project();
    TensorMapDialog dialog(args, 3);
    QCOMPARE(dialog.windowTitle(), QStringLiteral("Tensor map 'map'"));
    QCOMPARE(mapPart<QComboBox>(&dialog, "tensorMapBuffer")->currentText(), QStringLiteral("src"));
    QCOMPARE(mapPart<QSpinBox>(&dialog, "tensorMapRank")->value(), 2);
    QCOMPARE(mapPart<QLineEdit>(&dialog, "tensorMapDim1")->text(), QStringLiteral("rows"));
    QCOMPARE(mapPart<QLineEdit>(&dialog, "tensorMapStride1")->text(), QStringLiteral("cols*4"));
    QCOMPARE(mapPart<QSpinBox>(&dialog, "tensorMapBox0")->value(), 32);
    QVERIFY(!mapPart<QLineEdit>(&dialog, "tensorMapDim2")->isEnabled());
    QVERIFY(!mapPart<QLineEdit>(&dialog, "tensorMapLowerCorner")->isEnabled());
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    QVERIFY(mapOk(&dialog)->isEnabled());
    QVERIFY(dialog.argument().tensorMap == args[3].tensorMap); // nothing changed, nothing lost
}

void TestTensorMapDialog::editsEverySetting() {
    TensorMapDialog dialog(project(), 3);
    mapPart<QSpinBox>(&dialog, "tensorMapBox0")->setValue(16);
    mapPart<QSpinBox>(&dialog, "tensorMapBox1")->setValue(4);
    mapPart<QSpinBox>(&dialog, "tensorMapElementStride1")->setValue(2);
    mapPart<QComboBox>(&dialog, "tensorMapSwizzle")->setCurrentText(QStringLiteral("64B"));
    mapPart<QComboBox>(&dialog, "tensorMapL2Promotion")->setCurrentText(QStringLiteral("256B"));
    mapPart<QComboBox>(&dialog, "tensorMapOobFill")
        ->setCurrentText(QStringLiteral("nanRequestZeroFma"));
    mapPart<QLineEdit>(&dialog, "tensorMapDim1")->setText(QStringLiteral("rows/2"));
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    const TensorMapSpec s = dialog.argument().tensorMap;
    QCOMPARE(s.boxDims, (QVector<int>{16, 4}));
    QCOMPARE(s.elementStrides, (QVector<int>{1, 2}));
    QCOMPARE(s.swizzle, TensorMapSwizzle::B64);
    QCOMPARE(s.l2Promotion, TensorMapL2Promotion::B256);
    QCOMPARE(s.oobFill, TensorMapOobFill::NanRequestZeroFma);
    QCOMPARE(s.globalDims, (QStringList{"cols", "rows/2"}));
    // Im2col: rank 3 with corners, channels and pixels.
    mapPart<QComboBox>(&dialog, "tensorMapMode")->setCurrentText(QStringLiteral("im2col"));
    mapPart<QSpinBox>(&dialog, "tensorMapRank")->setValue(3);
    mapPart<QLineEdit>(&dialog, "tensorMapDim0")->setText(QStringLiteral("4"));
    mapPart<QLineEdit>(&dialog, "tensorMapDim1")->setText(QStringLiteral("16"));
    mapPart<QLineEdit>(&dialog, "tensorMapDim2")->setText(QStringLiteral("2"));
    mapPart<QLineEdit>(&dialog, "tensorMapStride1")->setText(QStringLiteral("16"));
    mapPart<QLineEdit>(&dialog, "tensorMapStride2")->setText(QStringLiteral("256"));
    mapPart<QSpinBox>(&dialog, "tensorMapElementStride1")->setValue(1);
    mapPart<QSpinBox>(&dialog, "tensorMapElementStride2")->setValue(1);
    mapPart<QLineEdit>(&dialog, "tensorMapLowerCorner")->setText(QStringLiteral("-1"));
    mapPart<QLineEdit>(&dialog, "tensorMapUpperCorner")->setText(QStringLiteral("1"));
    mapPart<QSpinBox>(&dialog, "tensorMapChannelsPerPixel")->setValue(4);
    mapPart<QSpinBox>(&dialog, "tensorMapPixelsPerColumn")->setValue(8);
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    const TensorMapSpec im = dialog.argument().tensorMap;
    QCOMPARE(im.mode, TensorMapMode::Im2col);
    QCOMPARE(im.lowerCorner, QVector<int>{-1});
    QCOMPARE(im.channelsPerPixel, 4);
    QCOMPARE(im.pixelsPerColumn, 8);
}

void TestTensorMapDialog::refusesUntilFixed_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    QTest::newRow("box over 256") << "box"
                                  << "tensor map 'map': boxDims[1]: 300 is outside 1 to 256";
    QTest::newRow("stride not a multiple of 16")
        << "stride"
        << "tensor map 'map': globalStrides[0]: 260 bytes is not a multiple of 16";
    QTest::newRow("swizzle span") << "swizzle"
                                  << "tensor map 'map': boxDims[0]: the inner box, 32 × 4 "
                                     "bytes = 128 bytes, exceeds the 32-byte span";
    QTest::newRow("no such buffer") << "buffer"
                                    << "tensor map 'map': buffer: no argument named 'dst'";
    QTest::newRow("a corner that is no number") << "corner"
                                                << "lowerCorner: 'a' is not a list of whole "
                                                   "numbers";
}

void TestTensorMapDialog::refusesUntilFixed() {
    QFETCH(QString, field);
    QFETCH(QString, message);
    TensorMapDialog dialog(project(), 3);
    QVERIFY(mapOk(&dialog)->isEnabled());
    std::function<void()> fix;
    if (field == "box") {
        mapPart<QSpinBox>(&dialog, "tensorMapBox1")->setValue(300);
        fix = [&] { mapPart<QSpinBox>(&dialog, "tensorMapBox1")->setValue(8); };
    } else if (field == "stride") {
        mapPart<QLineEdit>(&dialog, "tensorMapStride1")->setText(QStringLiteral("cols*4+4"));
        fix = [&] { mapPart<QLineEdit>(&dialog, "tensorMapStride1")->setText("cols*4"); };
    } else if (field == "swizzle") {
        mapPart<QComboBox>(&dialog, "tensorMapSwizzle")->setCurrentText(QStringLiteral("32B"));
        fix = [&] { mapPart<QSpinBox>(&dialog, "tensorMapBox0")->setValue(8); };
    } else if (field == "buffer") {
        mapPart<QComboBox>(&dialog, "tensorMapBuffer")->setCurrentText(QStringLiteral("dst"));
        fix = [&] { mapPart<QComboBox>(&dialog, "tensorMapBuffer")->setCurrentText("src"); };
    } else {
        mapPart<QComboBox>(&dialog, "tensorMapMode")->setCurrentText(QStringLiteral("im2col"));
        mapPart<QLineEdit>(&dialog, "tensorMapLowerCorner")->setText(QStringLiteral("a"));
        fix = [&] {
            mapPart<QComboBox>(&dialog, "tensorMapMode")->setCurrentText(QStringLiteral("tiled"));
        };
    }
    QVERIFY2(dialog.problem().startsWith(message), qPrintable(dialog.problem()));
    QVERIFY(!mapOk(&dialog)->isEnabled());
    QCOMPARE(mapPart<QLabel>(&dialog, "tensorMapProblem")->text(), dialog.problem());
    fix();
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    QVERIFY(mapOk(&dialog)->isEnabled());
}

void TestTensorMapDialog::keepsWhatWasTypedPastTheRank() {
    TensorMapDialog dialog(project(), 3);
    auto* rank = mapPart<QSpinBox>(&dialog, "tensorMapRank");
    rank->setValue(3);
    mapPart<QLineEdit>(&dialog, "tensorMapDim2")->setText(QStringLiteral("batch"));
    rank->setValue(2); // a smaller rank hides the field but keeps the text
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    rank->setValue(3);
    QCOMPARE(mapPart<QLineEdit>(&dialog, "tensorMapDim2")->text(), QStringLiteral("batch"));
    QCOMPARE(dialog.argument().tensorMap.globalDims.value(2), QStringLiteral("batch"));
}

void TestTensorMapDialog::tableShowsATensorMapRow() {
    ArgumentTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setArguments(project());
    const auto cell = [&](int column) { return model.index(3, column); };
    QCOMPARE(cell(ArgumentTableModel::KindColumn).data().toString(), QStringLiteral("tensorMap"));
    QCOMPARE(cell(ArgumentTableModel::TypeColumn).data().toString(), QStringLiteral("CUtensorMap"));
    QCOMPARE(cell(ArgumentTableModel::ValueColumn).data().toString(),
             QStringLiteral("src [cols x rows], box 32 x 8"));
    QVERIFY(!(model.flags(cell(ArgumentTableModel::ValueColumn)) & Qt::ItemIsEditable));
    QVERIFY(!(model.flags(cell(ArgumentTableModel::InitColumn)) & Qt::ItemIsEditable));
    QVERIFY(model.isValid());
    // A bad map shows in the Value cell with the field named.
    ArgumentSpec bad = model.arguments().at(3);
    bad.tensorMap.boxDims = {6, 8};
    QVERIFY(model.setArgument(3, bad));
    QVERIFY2(model.cellProblem(3, ArgumentTableModel::ValueColumn)
                 .startsWith(QStringLiteral("tensor map 'map': boxDims[0]:")),
             qPrintable(model.cellProblem(3, ArgumentTableModel::ValueColumn)));
    QVERIFY(!model.isValid());
    // The kind column turns a scalar into a tensor map and back.
    QVERIFY(
        model.setData(model.index(1, ArgumentTableModel::KindColumn), QStringLiteral("tensorMap")));
    QCOMPARE(model.arguments().at(1).kind, ArgumentSpec::Kind::TensorMap);
    QVERIFY(
        model.setData(model.index(1, ArgumentTableModel::KindColumn), QStringLiteral("scalar")));
    QCOMPARE(model.arguments().at(1).kind, ArgumentSpec::Kind::Scalar);
}

void TestTensorMapDialog::tableOpensTheDialog() {
    ArgumentTableView view;
    view.model()->setArguments(project());
    auto* button = view.findChild<QToolButton*>(QStringLiteral("editTexture"));
    QVERIFY(button);
    view.tableView()->setCurrentIndex(view.model()->index(0, ArgumentTableModel::NameColumn));
    QVERIFY(!button->isEnabled()); // a buffer row
    view.tableView()->setCurrentIndex(view.model()->index(3, ArgumentTableModel::NameColumn));
    QVERIFY(button->isEnabled());
    bool seen = false;
    QTimer::singleShot(0, this, [&] {
        auto* dialog = qobject_cast<TensorMapDialog*>(QApplication::activeModalWidget());
        seen = dialog != nullptr;
        if (!dialog)
            return;
        mapPart<QComboBox>(dialog, "tensorMapSwizzle")->setCurrentText(QStringLiteral("128B"));
        mapOk(dialog)->click();
    });
    button->click();
    QVERIFY(seen);
    QCOMPARE(view.model()->arguments().at(3).tensorMap.swizzle, TensorMapSwizzle::B128);
}

KERNELPAD_TEST_MAIN(TestTensorMapDialog)
} // namespace tst_tensormapdialog
#include "tst_tensormapdialog.moc"
