// The argument table model: Qt model rules, syncing with a compiled kernel, invalid cells.

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QBrush>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QToolButton>

namespace tst_argumenttablemodel {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

QVector<ArgumentSpec> saxpyArguments() {
    ArgumentSpec x = buffer(QStringLiteral("x"), QStringLiteral("n"), Direction::In);
    x.buffer.init.kind = InitSpec::Kind::Uniform;
    x.buffer.init.seed = 42;
    ArgumentSpec y = buffer(QStringLiteral("y"), QStringLiteral("n"), Direction::InOut);
    y.buffer.verify.kind = VerifySpec::Kind::Expression;
    y.buffer.verify.expression = QStringLiteral("a*x+y");
    return {scalar(QStringLiteral("a"), ScalarType::Float32, QStringLiteral("2.5")), x, y,
            scalar(QStringLiteral("n"), ScalarType::Int32, QStringLiteral("4096"))};
}

const char* const kVectorAddSource = R"(
template <typename T>
__global__ void vector_add(const T* A, const T* B, T* C, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) C[i] = A[i] + B[i];
}
)";

/// vector_add<T> as the compiler reports it: the lowered name carries T.
KernelInfo vectorAddKernel(const QString& t) {
    KernelInfo k;
    k.name = QStringLiteral("vector_add<%1>").arg(t);
    k.lowered = t == QLatin1String("double") ? QStringLiteral("_Z10vector_addIdEvPKT_S2_PS0_i")
                                             : QStringLiteral("_Z10vector_addIfEvPKT_S2_PS0_i");
    k.params = {ptx(".u64", 8, true), ptx(".u64", 8, true), ptx(".u64", 8, true), ptx(".u32", 4)};
    return k;
}

} // namespace

class TestArgumentTableModel : public QObject {
    Q_OBJECT
private slots:
    void modelTesterSurvivesEdits();
    void syncWithKernel_data();
    void syncWithKernel();
    void syncKeepsSettingsAcrossRenameAndReorder();
    void invalidCellIsMarked_data();
    void invalidCellIsMarked();
    void cellsOfScalarsAreNotEditable();
    void tooltipsShowTheWholeValue();
    void templateTypeMismatchIsMarked();
    void updateTypesActionInTheView();
};

void TestArgumentTableModel::modelTesterSurvivesEdits() {
    ArgumentTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&model, &ArgumentTableModel::changed);
    model.setArguments(saxpyArguments());
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(ArgumentTableModel::ColumnCount));
    QVERIFY(!model.data(model.index(7, 0)).isValid());

    QVERIFY(model.insertRows(1, 2));
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.arguments().at(1).name.isEmpty(), false);
    QVERIFY(model.arguments().at(1).name != model.arguments().at(2).name);
    QVERIFY(model.removeRows(1, 2));
    QCOMPARE(describe(model.arguments()), describe(saxpyArguments()));

    QVERIFY(model.moveRow({}, 3, {}, 0)); // n first
    QCOMPARE(model.arguments().first().name, QStringLiteral("n"));
    QVERIFY(model.moveRow({}, 0, {}, 4)); // and back last
    QCOMPARE(model.arguments().last().name, QStringLiteral("n"));

    QVERIFY(!model.setData(model.index(0, ArgumentTableModel::ValueColumn), "3", Qt::DisplayRole));
    QVERIFY(model.setData(model.index(0, ArgumentTableModel::ValueColumn), "3"));
    QCOMPARE(model.arguments().at(0).value, QStringLiteral("3"));
    QVERIFY(model.setData(model.index(0, ArgumentTableModel::KindColumn), "buffer"));
    QVERIFY(model.arguments().at(0).isBuffer());
    QVERIFY(model.setData(model.index(0, ArgumentTableModel::TypeColumn), "float64"));
    QCOMPARE(model.arguments().at(0).buffer.elementType, ValueType::of(ScalarType::Float64));
    QVERIFY(!model.setData(model.index(0, ArgumentTableModel::TypeColumn), "no_such_type"));
    QVERIFY(changed.count() >= 7);
}

void TestArgumentTableModel::syncWithKernel_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<KernelInfo>("kernel");
    QTest::addColumn<QString>("expected");

    QTest::newRow("saxpy-names-and-types-from-source")
        << QString::fromLatin1(kSaxpySource) << saxpyKernel()
        << QStringLiteral("a:scalar:float32,x:buffer:float32:in,y:buffer:float32:inout,"
                          "n:scalar:int32");

    // How sources are read (structs, templates, fallbacks) is tested in
    // tests/core/tst_kernelsignature.cpp; here the model's signals and rows.
}

void TestArgumentTableModel::syncWithKernel() {
    QFETCH(QString, source);
    QFETCH(KernelInfo, kernel);
    QFETCH(QString, expected);
    ArgumentTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&model, &ArgumentTableModel::changed);
    model.syncWithKernel(kernel, source);
    QCOMPARE(describe(model.arguments()), expected);
    QCOMPARE(changed.count(), 1);
    // A second sync with nothing new changes nothing.
    model.syncWithKernel(kernel, source);
    QCOMPARE(changed.count(), 1);
}

void TestArgumentTableModel::syncKeepsSettingsAcrossRenameAndReorder() {
    ArgumentTableModel model;
    model.setArguments(saxpyArguments());
    // The author renamed a -> alpha and moved n to the front.
    const QString source =
        QStringLiteral("__global__ void saxpy(int n, float alpha, const float* x, float* y) {}");
    KernelInfo k = saxpyKernel();
    k.params = {ptx(".u32", 4), ptx(".f32", 4), ptx(".u64", 8, true), ptx(".u64", 8, true)};
    model.syncWithKernel(k, source);
    const QVector<ArgumentSpec> args = model.arguments();
    QCOMPARE(describe(args), QStringLiteral("n:scalar:int32,alpha:scalar:float32,"
                                            "x:buffer:float32:in,y:buffer:float32:inout"));
    QCOMPARE(args.at(0).value, QStringLiteral("4096")); // kept
    QCOMPARE(args.at(2).buffer.init.kind, InitSpec::Kind::Uniform);
    QCOMPARE(args.at(2).buffer.init.seed, quint64(42));                     // kept
    QCOMPARE(args.at(3).buffer.verify.expression, QStringLiteral("a*x+y")); // kept
    QVERIFY(args.at(1).value != QStringLiteral("2.5"));                     // a new argument
}

void TestArgumentTableModel::invalidCellIsMarked_data() {
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("argument");

    QTest::newRow("int-value-not-a-number") << 3 << int(ArgumentTableModel::ValueColumn)
                                            << QStringLiteral("abc") << QStringLiteral("n");
    QTest::newRow("count-names-unknown-argument") << 1 << int(ArgumentTableModel::ValueColumn)
                                                  << QStringLiteral("m*2") << QStringLiteral("x");
    QTest::newRow("count-zero") << 2 << int(ArgumentTableModel::ValueColumn) << QStringLiteral("0")
                                << QStringLiteral("y");
    QTest::newRow("expression-empty") << 2 << int(ArgumentTableModel::VerifyColumn)
                                      << QStringLiteral("expression") << QStringLiteral("y");
    QTest::newRow("input-buffer-verified")
        << 1 << int(ArgumentTableModel::VerifyColumn) << QStringLiteral("reference ref")
        << QStringLiteral("x");
    QTest::newRow("uniform-low-above-high") << 1 << int(ArgumentTableModel::InitColumn)
                                            << QStringLiteral("uniform 1 0") << QStringLiteral("x");
    QTest::newRow("duplicate-name")
        << 0 << int(ArgumentTableModel::NameColumn) << QStringLiteral("n") << QStringLiteral("n");
}

void TestArgumentTableModel::invalidCellIsMarked() {
    QFETCH(int, row);
    QFETCH(int, column);
    QFETCH(QString, text);
    QFETCH(QString, argument);
    ArgumentTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setArguments(saxpyArguments());
    QVERIFY2(model.isValid(), qPrintable(model.problems().join(QLatin1Char('\n'))));
    const QModelIndex cell = model.index(row, column);
    QVERIFY(!model.data(cell, Qt::BackgroundRole).isValid());

    QSignalSpy dataChanged(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(model.setData(cell, text));
    QVERIFY(dataChanged.count() >= 1);
    QVERIFY(!model.isValid());
    const QBrush background = model.data(cell, Qt::BackgroundRole).value<QBrush>();
    QVERIFY(background.color().red() > background.color().green());
    const QString tip = model.data(cell, Qt::ToolTipRole).toString();
    QVERIFY(!tip.isEmpty());
    QCOMPARE(model.data(cell, ArgumentTableModel::ProblemRole).toString(), tip);
    QVERIFY(model.data(cell, Qt::DecorationRole).isValid());
    const QStringList problems = model.problems();
    QVERIFY(!problems.isEmpty());
    QVERIFY2(problems.join(QLatin1Char('\n')).contains(QStringLiteral("'%1'").arg(argument)),
             qPrintable(problems.join(QLatin1Char('\n'))));
}

void TestArgumentTableModel::cellsOfScalarsAreNotEditable() {
    ArgumentTableModel model;
    model.setArguments(saxpyArguments());
    for (int column : {ArgumentTableModel::InitColumn, ArgumentTableModel::DirectionColumn,
                       ArgumentTableModel::VerifyColumn}) {
        QVERIFY(!(model.flags(model.index(0, column)) & Qt::ItemIsEditable));
        QVERIFY(model.flags(model.index(1, column)) & Qt::ItemIsEditable);
        QVERIFY(!model.setData(model.index(0, column), "out"));
    }
    QVERIFY(model.flags(model.index(0, ArgumentTableModel::ValueColumn)) & Qt::ItemIsEditable);
}

void TestArgumentTableModel::tooltipsShowTheWholeValue() {
    // A narrow Verify or Init column cuts its text: the tooltip holds all of it, tolerances
    // and seed included, before the syntax help.
    ArgumentTableModel model;
    model.setArguments(saxpyArguments());
    const QString verifyTip =
        model.index(2, ArgumentTableModel::VerifyColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(verifyTip.startsWith(QStringLiteral("expression a*x+y atol=")), qPrintable(verifyTip));
    QVERIFY2(verifyTip.contains(QStringLiteral("rtol=")), qPrintable(verifyTip));
    QVERIFY2(verifyTip.contains(QStringLiteral("reference KERNEL")), qPrintable(verifyTip));
    const QString initTip =
        model.index(1, ArgumentTableModel::InitColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(initTip.startsWith(QStringLiteral("uniform")), qPrintable(initTip));
    QVERIFY2(initTip.contains(QStringLiteral("seed=42")), qPrintable(initTip));
    // Scalars have no Verify cell and no tooltip there.
    QVERIFY(model.index(0, ArgumentTableModel::VerifyColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .isEmpty());
}

// Vector_add<float> recompiled as vector_add<double> kept float32 buffers
// with no warning (the source says T, so the sync cannot tell).
void TestArgumentTableModel::templateTypeMismatchIsMarked() {
    ArgumentTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy mismatchesChanged(&model, &ArgumentTableModel::typeMismatchesChanged);
    model.syncWithKernel(vectorAddKernel(QStringLiteral("float")),
                         QString::fromLatin1(kVectorAddSource));
    QCOMPARE(describe(model.arguments()), QStringLiteral("A:buffer:float32:in,B:buffer:float32:in,"
                                                         "C:buffer:float32:inout,n:scalar:int32"));
    QVERIFY(model.typeMismatches().isEmpty());
    // Values the user set on the float version, to be kept by the update.
    const QModelIndex count = model.index(0, ArgumentTableModel::ValueColumn);
    QVERIFY(model.setData(count, QStringLiteral("n*2")));
    QVERIFY(model.setData(model.index(0, ArgumentTableModel::InitColumn),
                          QStringLiteral("constant 3")));

    model.syncWithKernel(vectorAddKernel(QStringLiteral("double")),
                         QString::fromLatin1(kVectorAddSource));
    QCOMPARE(model.typeMismatches().size(), 3);
    QVERIFY(mismatchesChanged.count() >= 1);
    const QModelIndex type = model.index(0, ArgumentTableModel::TypeColumn);
    QCOMPARE(type.data().toString(), QStringLiteral("float32"));
    const QString why = type.data(ArgumentTableModel::TypeMismatchRole).toString();
    QCOMPARE(why, QStringLiteral("A is float32 but vector_add<double> takes double const*"));
    QVERIFY(type.data(Qt::ToolTipRole).toString().startsWith(why));
    QVERIFY(type.data(Qt::BackgroundRole).value<QBrush>().style() != Qt::NoBrush);
    QVERIFY(type.data(Qt::DecorationRole).isValid());
    QCOMPARE(model.headerData(0, Qt::Vertical, Qt::ToolTipRole).toString(), why);
    QVERIFY(model.headerData(0, Qt::Vertical, Qt::DecorationRole).isValid());
    // n is an int as the kernel says: not marked.
    QVERIFY(!model.headerData(3, Qt::Vertical, Qt::DecorationRole).isValid());
    QVERIFY(!model.index(3, ArgumentTableModel::TypeColumn).data(Qt::BackgroundRole).isValid());
    // A type mismatch is a warning: the table stays runnable.
    QVERIFY(model.isValid());

    QSignalSpy changed(&model, &ArgumentTableModel::changed);
    QCOMPARE(model.updateTypesToKernel(), 3);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(describe(model.arguments()), QStringLiteral("A:buffer:float64:in,B:buffer:float64:in,"
                                                         "C:buffer:float64:inout,n:scalar:int32"));
    QCOMPARE(model.arguments().at(0).buffer.count, QStringLiteral("n*2"));
    QCOMPARE(model.arguments().at(0).buffer.init.kind, InitSpec::Kind::Constant);
    QVERIFY(model.typeMismatches().isEmpty());
    QVERIFY(!type.data(Qt::BackgroundRole).isValid());
    QCOMPARE(model.updateTypesToKernel(), 0);

    // Editing a type back by hand marks the row again.
    QVERIFY(model.setData(model.index(2, ArgumentTableModel::TypeColumn), QStringLiteral("int32")));
    QCOMPARE(model.typeMismatches().size(), 1);
    QCOMPARE(model.typeMismatches().first().index, 2);
    // Another project's rows are compared with its own kernel, once one is set; without one,
    // nothing is marked.
    model.setKernel(std::nullopt);
    model.setArguments(saxpyArguments());
    QVERIFY(model.typeMismatches().isEmpty());
}

void TestArgumentTableModel::updateTypesActionInTheView() {
    ArgumentTableView view;
    view.show();
    ArgumentTableModel* model = view.model();
    auto* bar = view.findChild<QWidget*>(QStringLiteral("typeMismatchBar"));
    auto* text = view.findChild<QLabel*>(QStringLiteral("typeMismatchText"));
    auto* button = view.findChild<QToolButton*>(QStringLiteral("updateTypesButton"));
    QVERIFY(bar && text && button);
    model->syncWithKernel(vectorAddKernel(QStringLiteral("float")),
                          QString::fromLatin1(kVectorAddSource));
    QVERIFY(bar->isHidden());
    QVERIFY(!view.updateTypesAction()->isEnabled());

    model->syncWithKernel(vectorAddKernel(QStringLiteral("double")),
                          QString::fromLatin1(kVectorAddSource));
    QVERIFY(bar->isVisible());
    QVERIFY2(text->text().contains(QLatin1String("3")), qPrintable(text->text()));
    QVERIFY(bar->toolTip().contains(
        QStringLiteral("C is float32 but vector_add<double> takes double*")));
    // The same action is in the table's context menu.
    QVERIFY(view.tableView()->actions().contains(view.updateTypesAction()));
    QVERIFY(view.updateTypesAction()->isEnabled());
    QSignalSpy changed(&view, &ArgumentTableView::changed);
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(changed.count(), 1);
    QVERIFY(model->typeMismatches().isEmpty());
    QCOMPARE(model->arguments().at(2).buffer.elementType, ValueType::of(ScalarType::Float64));
    QVERIFY(bar->isHidden());
}

KERNELPAD_TEST_MAIN(TestArgumentTableModel)
} // namespace tst_argumenttablemodel
#include "tst_argumenttablemodel.moc"
