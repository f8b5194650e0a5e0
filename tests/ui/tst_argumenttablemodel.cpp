// The argument table model: Qt model rules, syncing with a compiled kernel, invalid cells.

#include "../support/TestProjects.h"
#include "ui/models/ArgumentTableModel.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QSignalSpy>
#include <QTest>

Q_DECLARE_METATYPE(kernelpad::KernelInfo)

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

QTEST_MAIN(TestArgumentTableModel)
#include "tst_argumenttablemodel.moc"
