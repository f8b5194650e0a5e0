// Module globals in the argument table: a project's __constant__ and
// __device__ variables shown below the parameters, edited into the document, followed across
// compiles (a new one offered, a vanished one marked and kept) and verified in the panel.

#include "../support/TestProjects.h"
#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/VerificationPanel.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QAbstractItemModelTester>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

namespace tst_globalstable {} // namespace tst_globalstable
Q_DECLARE_METATYPE(kernelpad::ModuleGlobal)
namespace tst_globalstable {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

// NVRTC on a loaded machine can take several seconds for a compile.
constexpr int kCompileTimeoutMs = 60000;

using Col = ArgumentTableModel::Column;

QString convolutionPath() {
    return QStringLiteral(KERNELPAD_EXAMPLES_DIR "/convolution.kpad");
}

ModuleGlobal moduleGlobal(const QString& name, const QString& space, const QString& sourceType,
                          int sizeBytes) {
    ModuleGlobal g;
    g.name = name;
    g.lowered = name;
    g.space = space;
    g.ptxType = sizeBytes == 4 ? QStringLiteral(".f32") : QStringLiteral(".b8");
    g.ptxCount = sizeBytes == 4 ? 1 : sizeBytes;
    g.sizeBytes = sizeBytes;
    g.alignBytes = 4;
    g.sourceType = sourceType;
    return g;
}

GlobalSpec globalSpec(const QString& name, const QString& count, const QString& initText) {
    GlobalSpec spec;
    spec.name = name;
    spec.value.count = count;
    spec.value.init = *parseInitSpec(initText, nullptr);
    return spec;
}

/// The row of the global called `name` in `model`, -1 when none.
int globalRow(const ArgumentTableModel& model, const QString& name) {
    for (int row = model.argumentCount(); row < model.rowCount(); ++row) {
        if (model.index(row, Col::NameColumn).data().toString() == name)
            return row;
    }
    return -1;
}

QString cell(const ArgumentTableModel& model, int row, int column) {
    return model.index(row, column).data().toString();
}

/// A window showing a copy of the example `name` in `dir`, its first compile shown.
std::unique_ptr<MainWindow> openExample(Engine* engine, const QTemporaryDir& dir,
                                        const QString& name, QString* path) {
    *path = dir.filePath(name);
    QFile::remove(*path);
    if (!QFile::copy(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/") + name, *path))
        return nullptr;
    auto window = std::make_unique<MainWindow>(engine);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    if (!window->openProject(*path))
        return nullptr;
    return window;
}

/// Replaces the document's source and waits until its compile is shown.
bool compileSource(MainWindow* window, const QString& source) {
    QSignalSpy shown(window->workbench(), &Workbench::compileShown);
    window->document()->setSource(source);
    window->compile();
    // A compile served from the cache may be shown before compile() returns.
    if (shown.isEmpty() && !shown.wait(kCompileTimeoutMs))
        return false;
    // A compile already queued by the open may be shown first: wait for this source's.
    for (int i = 0; i < 3 && window->workbench()->lastCompiledSource() != source; ++i) {
        if (!shown.wait(kCompileTimeoutMs))
            break;
    }
    return window->workbench()->lastCompile() && window->workbench()->lastCompile()->ok &&
           window->workbench()->lastCompiledSource() == source;
}

/// A window showing a copy of convolution.kpad in `dir`, its first compile shown.
std::unique_ptr<MainWindow> openConvolution(Engine* engine, const QTemporaryDir& dir,
                                            QString* path) {
    return openExample(engine, dir, QFileInfo(convolutionPath()).fileName(), path);
}

ArgumentTableModel* tableModel(const std::unique_ptr<MainWindow>& window) {
    return part<ArgumentTableView>(window, "arguments")->model();
}

} // namespace

class TestGlobalsTable : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void modelTesterSurvivesGlobalRows();
    void offeredGlobalHasDefaults_data();
    void offeredGlobalHasDefaults();
    void invalidGlobalCellIsMarked_data();
    void invalidGlobalCellIsMarked();
    void viewKeepsParametersAndGlobalsApart();
    void convolutionShowsItsGlobals();
    void toolkitGlobalsAreNotOffered();
    void editedGlobalReachesTheDocumentAndTheFile();
    void compileAddingAConstantOffersIt();
    void globalRemovedFromSourceIsMarkedNotLost();
    void verificationPanelShowsAGlobal();
    void verificationKeepsTheGlobalFlagThroughJson();
};

void TestGlobalsTable::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestGlobalsTable::modelTesterSurvivesGlobalRows() {
    ArgumentTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy globalsChanged(&model, &ArgumentTableModel::globalsChanged);
    QSignalSpy argumentsChanged(&model, &ArgumentTableModel::changed);
    model.setArguments({scalar(QStringLiteral("n"), ScalarType::Int32, QStringLiteral("64"))});
    model.setGlobals(
        {globalSpec(QStringLiteral("filter"), QStringLiteral("9"), QStringLiteral("iota 0 1"))});
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(model.isGlobalRow(1));
    QCOMPARE(model.headerData(1, Qt::Vertical).toString(), QStringLiteral("G1"));
    QCOMPARE(cell(model, 1, Col::KindColumn), QStringLiteral("global")); // not compiled yet

    // The compile declares filter and a new one: filter gets its memory space, gain is offered.
    model.setModuleGlobals(QVector<ModuleGlobal>{
        moduleGlobal(QStringLiteral("filter"), QStringLiteral("const"), QStringLiteral("float[9]"),
                     36),
        moduleGlobal(QStringLiteral("gain"), QStringLiteral("const"), QStringLiteral("float"), 4)});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(cell(model, 1, Col::KindColumn), QStringLiteral("__constant__"));
    QCOMPARE(model.globals().size(), 1); // gain is offered, not in the run
    QCOMPARE(model.index(2, Col::NameColumn).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));

    QVERIFY(model.setData(model.index(2, Col::NameColumn), Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(model.globals().size(), 2);
    QVERIFY(model.setData(model.index(1, Col::InitColumn), QStringLiteral("constant 2")));
    QCOMPARE(model.globals().at(0).value.init.kind, InitSpec::Kind::Constant);
    QVERIFY(!model.setData(model.index(1, Col::InitColumn), QStringLiteral("sometimes 3")));
    QVERIFY(!model.setData(model.index(1, Col::KindColumn), QStringLiteral("buffer")));
    QVERIFY(!(model.flags(model.index(1, Col::KindColumn)) & Qt::ItemIsEditable));
    QCOMPARE(globalsChanged.count(), 2);

    // Parameter rows keep their rules: a row is added among them, not among the globals.
    QVERIFY(!model.insertRows(2, 1));
    QVERIFY(model.insertRows(1, 1));
    QCOMPARE(model.argumentCount(), 2);
    QVERIFY(!model.moveRow({}, 0, {}, 3));
    QVERIFY(!model.removeRows(1, 2)); // one parameter and one global at once

    QVERIFY(model.removeRows(2, 1)); // filter: no longer set by the run
    QCOMPARE(model.globals().size(), 1);
    QCOMPARE(model.globals().at(0).name, QStringLiteral("gain"));
    QCOMPARE(globalsChanged.count(), 3);
    QVERIFY(argumentsChanged.count() >= 1);

    // The module still declares filter: the next compile offers it again, with defaults.
    model.setModuleGlobals(QVector<ModuleGlobal>{
        moduleGlobal(QStringLiteral("filter"), QStringLiteral("const"), QStringLiteral("float[9]"),
                     36),
        moduleGlobal(QStringLiteral("gain"), QStringLiteral("const"), QStringLiteral("float"), 4)});
    QCOMPARE(model.rowCount(), 4);
    const int filter = globalRow(model, QStringLiteral("filter"));
    QVERIFY(filter >= model.argumentCount());
    QCOMPARE(model.index(filter, Col::NameColumn).data(Qt::CheckStateRole).toInt(),
             int(Qt::Unchecked));
    model.setModuleGlobals(std::nullopt);
    QCOMPARE(model.rowCount(), 3); // nothing offered without a compile; gain stays
}

void TestGlobalsTable::offeredGlobalHasDefaults_data() {
    QTest::addColumn<ModuleGlobal>("declared");
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("count");
    QTest::addColumn<QString>("direction");
    QTest::newRow("__constant__ float[9]: nine float32, in")
        << moduleGlobal(QStringLiteral("filter"), QStringLiteral("const"),
                        QStringLiteral("float[9]"), 36)
        << QStringLiteral("float32") << QStringLiteral("9") << QStringLiteral("in");
    QTest::newRow("__device__ unsigned int: one uint32, inout")
        << moduleGlobal(QStringLiteral("blocksDone"), QStringLiteral("global"),
                        QStringLiteral("unsigned int"), 4)
        << QStringLiteral("uint32") << QStringLiteral("1") << QStringLiteral("inout");
    QTest::newRow("unknown source type: the PTX's bytes")
        << moduleGlobal(QStringLiteral("table"), QStringLiteral("const"), QString(), 12)
        << QStringLiteral("uint8") << QStringLiteral("12") << QStringLiteral("in");
}

void TestGlobalsTable::offeredGlobalHasDefaults() {
    QFETCH(ModuleGlobal, declared);
    QFETCH(QString, type);
    QFETCH(QString, count);
    QFETCH(QString, direction);
    ArgumentTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setModuleGlobals(QVector<ModuleGlobal>{declared});
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(cell(model, 0, Col::NameColumn), declared.name);
    QCOMPARE(cell(model, 0, Col::TypeColumn), type);
    QCOMPARE(cell(model, 0, Col::ValueColumn), count);
    QCOMPARE(cell(model, 0, Col::DirectionColumn), direction);
    QCOMPARE(cell(model, 0, Col::InitColumn), QStringLiteral("zeros"));
    QCOMPARE(cell(model, 0, Col::KindColumn), declared.spaceKeyword());
    // Offered, so not in the run; the tooltip says why and how to include it.
    QVERIFY(model.globals().isEmpty());
    QVERIFY(model.index(0, Col::NameColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("Not set by the run")));
    QVERIFY(model.problems().isEmpty());
    // Editing a cell of an offered row means setting it: it is included.
    QVERIFY(model.setData(model.index(0, Col::InitColumn), QStringLiteral("ones")));
    QCOMPARE(model.globals().size(), 1);
    QCOMPARE(model.globals().at(0).value.count, count);
    QCOMPARE(model.index(0, Col::NameColumn).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
}

void TestGlobalsTable::invalidGlobalCellIsMarked_data() {
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("problem");
    QTest::newRow("count not the declaration's size")
        << int(Col::ValueColumn) << QStringLiteral("8") << QStringLiteral("36 bytes");
    QTest::newRow("count names no scalar")
        << int(Col::ValueColumn) << QStringLiteral("taps") << QStringLiteral("taps");
    QTest::newRow("uniform low above high")
        << int(Col::InitColumn) << QStringLiteral("uniform 2 1 seed=1") << QStringLiteral("low");
    QTest::newRow("reference kernel cannot check a global")
        << int(Col::VerifyColumn) << QStringLiteral("reference conv_ref")
        << QStringLiteral("one copy");
}

void TestGlobalsTable::invalidGlobalCellIsMarked() {
    QFETCH(int, column);
    QFETCH(QString, text);
    QFETCH(QString, problem);
    ArgumentTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    GlobalSpec filter =
        globalSpec(QStringLiteral("filter"), QStringLiteral("9"), QStringLiteral("zeros"));
    filter.value.direction = Direction::InOut;
    model.setGlobals({filter});
    model.setModuleGlobals(QVector<ModuleGlobal>{moduleGlobal(
        QStringLiteral("filter"), QStringLiteral("const"), QStringLiteral("float"), 36)});
    QVERIFY(model.problems().isEmpty());
    QVERIFY(model.setData(model.index(0, column), text));
    const QString shown = model.index(0, column).data(ArgumentTableModel::ProblemRole).toString();
    QVERIFY2(shown.contains(problem), qPrintable(shown));
    QCOMPARE(model.index(0, column).data(Qt::ToolTipRole).toString(), shown);
    QVERIFY(model.index(0, column).data(Qt::BackgroundRole).isValid());
    QCOMPARE(model.problems().size(), 1);
    QVERIFY2(model.problems().first().startsWith(QStringLiteral("Global 'filter'")),
             qPrintable(model.problems().first()));
}

void TestGlobalsTable::viewKeepsParametersAndGlobalsApart() {
    ArgumentTableView view;
    ArgumentTableModel* model = view.model();
    model->setArguments({scalar(QStringLiteral("a"), ScalarType::Float32, QStringLiteral("1")),
                         scalar(QStringLiteral("n"), ScalarType::Int32, QStringLiteral("4"))});
    model->setGlobals(
        {globalSpec(QStringLiteral("gain"), QStringLiteral("1"), QStringLiteral("ones"))});
    QSignalSpy changed(&view, &ArgumentTableView::changed);
    view.tableView()->setCurrentIndex(model->index(2, Col::InitColumn));
    auto* up = view.findChild<QToolButton*>(QStringLiteral("moveArgumentUp"));
    auto* add = view.findChild<QToolButton*>(QStringLiteral("addArgument"));
    auto* remove = view.findChild<QToolButton*>(QStringLiteral("removeArgument"));
    QVERIFY(up && add && remove);
    QVERIFY(!up->isEnabled()); // a global has no place in the call
    QVERIFY(remove->isEnabled());
    add->click(); // adds a parameter after the last one, not among the globals
    QCOMPARE(model->argumentCount(), 3);
    QVERIFY(model->isGlobalRow(3));
    QCOMPARE(model->globals().size(), 1);
    view.tableView()->clearSelection();
    view.tableView()->setCurrentIndex(model->index(3, Col::NameColumn));
    remove->click();
    QVERIFY(model->globals().isEmpty());
    QCOMPARE(model->argumentCount(), 3);
    QVERIFY(changed.count() >= 2); // the add and the removal both reach the document
}

void TestGlobalsTable::convolutionShowsItsGlobals() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Engine engine;
    QString path;
    const auto window = openConvolution(&engine, dir, &path);
    QVERIFY(window);
    ArgumentTableModel* model = tableModel(window);
    QCOMPARE(model->argumentCount(), 3);
    const int filter = globalRow(*model, QStringLiteral("filter"));
    const int gain = globalRow(*model, QStringLiteral("gain"));
    const int blocks = globalRow(*model, QStringLiteral("blocksDone"));
    QVERIFY(filter >= 3 && gain >= 3 && blocks >= 3);
    QCOMPARE(cell(*model, filter, Col::TypeColumn), QStringLiteral("float32"));
    QCOMPARE(cell(*model, filter, Col::ValueColumn), QStringLiteral("9"));
    QCOMPARE(cell(*model, filter, Col::InitColumn), QStringLiteral("uniform 0 1 seed=11"));
    QCOMPARE(cell(*model, gain, Col::InitColumn), QStringLiteral("constant 0.5"));
    QCOMPARE(cell(*model, blocks, Col::TypeColumn), QStringLiteral("uint32"));
    QCOMPARE(cell(*model, blocks, Col::DirectionColumn), QStringLiteral("inout"));
    QVERIFY(cell(*model, blocks, Col::VerifyColumn).startsWith(QStringLiteral("expression n/256")));
    QCOMPARE(model->globals(), window->document()->project().globals);
    QVERIFY(!window->isWindowModified()); // showing them is no edit

    // After the compile, each names its memory space and none is marked.
    QVERIFY(compileSource(window.get(), window->document()->project().source));
    QCOMPARE(cell(*model, filter, Col::KindColumn), QStringLiteral("__constant__"));
    QCOMPARE(cell(*model, blocks, Col::KindColumn), QStringLiteral("__device__"));
    QCOMPARE(model->rowCount(), 6); // the module declares nothing the project does not set
    QVERIFY2(model->problems().isEmpty(), qPrintable(model->problems().join('\n')));
}

void TestGlobalsTable::toolkitGlobalsAreNotOffered() {
    // cluster_histogram includes <cooperative_groups.h>, whose PTX declares about a thousand
    // libcu++ and cooperative-groups constants: they were offered as rows G1-G1039.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Engine engine;
    QString path;
    const auto window = openExample(&engine, dir, QStringLiteral("cluster_histogram.kpad"), &path);
    QVERIFY(window);
    ArgumentTableModel* model = tableModel(window);
    const QString source = window->document()->project().source;
    QVERIFY(compileSource(window.get(), source));
    QVERIFY2(window->workbench()->lastCompile()->globals.size() > 100,
             "the toolkit's globals are still in the module");
    QCOMPARE(model->argumentCount(), 3); // bins, input, n
    QCOMPARE(model->rowCount(), 3);      // and no global of its own

    // One of its own, even in a namespace and beside the toolkit's, is offered: only it.
    const QString own =
        source + QStringLiteral("\nnamespace stats { __device__ unsigned int overflow; }\n"
                                "__constant__ int value;\n");
    QVERIFY(compileSource(window.get(), own));
    QStringList offered;
    for (int row = model->argumentCount(); row < model->rowCount(); ++row)
        offered << cell(*model, row, Col::NameColumn);
    offered.sort();
    QCOMPARE(offered, (QStringList{QStringLiteral("stats::overflow"), QStringLiteral("value")}));
}

void TestGlobalsTable::editedGlobalReachesTheDocumentAndTheFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Engine engine;
    QString path;
    const auto window = openConvolution(&engine, dir, &path);
    QVERIFY(window);
    ArgumentTableModel* model = tableModel(window);
    QSignalSpy globalsChanged(window->document(), &ProjectDocument::globalsChanged);
    const int gain = globalRow(*model, QStringLiteral("gain"));
    QVERIFY(gain >= 0);
    QVERIFY(model->setData(model->index(gain, Col::InitColumn), QStringLiteral("constant 0.25")));
    QCOMPARE(globalsChanged.count(), 1);
    const GlobalSpec* edited = window->document()->project().findGlobal(QStringLiteral("gain"));
    QVERIFY(edited);
    QCOMPARE(edited->value.init.kind, InitSpec::Kind::Constant);
    QCOMPARE(edited->value.init.value, 0.25);
    QVERIFY(window->document()->isDirty());

    const QString saved = dir.filePath(QStringLiteral("saved.kpad"));
    QVERIFY2(window->saveAs(saved), qPrintable(window->lastError()));
    QString error;
    const std::optional<Project> reread = ProjectDocument::read(saved, &error);
    QVERIFY2(reread, qPrintable(error));
    QCOMPARE(reread->globals, window->document()->project().globals);
    QCOMPARE(reread->findGlobal(QStringLiteral("gain"))->value.init.value, 0.25);

    // Opened again, the table shows the saved value.
    const auto other = std::make_unique<MainWindow>(&engine);
    other->setPromptsEnabled(false);
    QVERIFY2(other->openProject(saved), qPrintable(other->lastError()));
    ArgumentTableModel* otherModel = tableModel(other);
    QCOMPARE(cell(*otherModel, globalRow(*otherModel, QStringLiteral("gain")), Col::InitColumn),
             QStringLiteral("constant 0.25"));

    // An edit made elsewhere (the document) reaches the table.
    QVector<GlobalSpec> globals = window->document()->project().globals;
    globals.removeLast();
    window->document()->setGlobals(globals);
    QCOMPARE(globalRow(*model, QStringLiteral("blocksDone")) < 0 ||
                 model->index(globalRow(*model, QStringLiteral("blocksDone")), Col::NameColumn)
                         .data(Qt::CheckStateRole)
                         .toInt() == Qt::Unchecked,
             true);
    QCOMPARE(model->globals(), globals);
}

void TestGlobalsTable::compileAddingAConstantOffersIt() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Engine engine;
    QString path;
    const auto window = openConvolution(&engine, dir, &path);
    QVERIFY(window);
    ArgumentTableModel* model = tableModel(window);
    const QVector<GlobalSpec> before = window->document()->project().globals;
    const QString source =
        QString(window->document()->project().source)
            .replace(QStringLiteral("__constant__ float gain;"),
                     QStringLiteral("__constant__ float gain;\n__constant__ float bias[4];"));
    QVERIFY2(compileSource(window.get(), source),
             qPrintable(window->workbench()->lastCompile() ? window->workbench()->lastCompile()->log
                                                           : QStringLiteral("no compile")));
    const int bias = globalRow(*model, QStringLiteral("bias"));
    QVERIFY2(bias >= 0, "the new __constant__ has no row");
    QCOMPARE(cell(*model, bias, Col::KindColumn), QStringLiteral("__constant__"));
    QCOMPARE(cell(*model, bias, Col::TypeColumn), QStringLiteral("float32"));
    QCOMPARE(cell(*model, bias, Col::ValueColumn), QStringLiteral("4"));
    QCOMPARE(model->index(bias, Col::NameColumn).data(Qt::CheckStateRole).toInt(),
             int(Qt::Unchecked));
    // Offered, not set: the project's globals are as they were until the user checks it.
    QCOMPARE(window->document()->project().globals, before);
    QVERIFY(model->setData(model->index(bias, Col::NameColumn), Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(window->document()->project().globals.size(), before.size() + 1);
    QVERIFY(window->document()->project().findGlobal(QStringLiteral("bias")));
}

void TestGlobalsTable::globalRemovedFromSourceIsMarkedNotLost() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Engine engine;
    QString path;
    const auto window = openConvolution(&engine, dir, &path);
    QVERIFY(window);
    ArgumentTableModel* model = tableModel(window);
    const QVector<GlobalSpec> before = window->document()->project().globals;
    // gain becomes a macro: the module no longer has the variable.
    const QString source = QString(window->document()->project().source)
                               .replace(QStringLiteral("__constant__ float gain;"),
                                        QStringLiteral("#define gain 0.5f"));
    QVERIFY2(compileSource(window.get(), source),
             qPrintable(window->workbench()->lastCompile() ? window->workbench()->lastCompile()->log
                                                           : QStringLiteral("no compile")));
    const int gain = globalRow(*model, QStringLiteral("gain"));
    QVERIFY2(gain >= 0, "the vanished global was dropped");
    QCOMPARE(cell(*model, gain, Col::InitColumn), QStringLiteral("constant 0.5"));
    const QString problem =
        model->index(gain, Col::NameColumn).data(ArgumentTableModel::ProblemRole).toString();
    QVERIFY2(problem.contains(QStringLiteral("declares no")), qPrintable(problem));
    QVERIFY(problem.contains(QStringLiteral("filter"))); // what it does declare
    QVERIFY(model->index(gain, Col::NameColumn).data(Qt::BackgroundRole).isValid());
    QVERIFY(!model->isValid());
    // The user's settings are kept in the project until the row is removed.
    QCOMPARE(window->document()->project().globals, before);
    QVERIFY(model->removeRow(gain));
    QVERIFY(!window->document()->project().findGlobal(QStringLiteral("gain")));
    QCOMPARE(window->document()->project().globals.size(), before.size() - 1);
    QVERIFY2(model->problems().isEmpty(), qPrintable(model->problems().join('\n')));
}

void TestGlobalsTable::verificationPanelShowsAGlobal() {
    VerificationPanel panel;
    RunResult result;
    result.status = RunStatus::VerificationFailed;
    BufferVerification out;
    out.buffer = QStringLiteral("out");
    out.method = QStringLiteral("reference kernel convolve_reference");
    out.passed = true;
    out.checked = 1024;
    BufferVerification blocks;
    blocks.buffer = QStringLiteral("blocksDone");
    blocks.method = QStringLiteral("expression n/256");
    blocks.global = true;
    blocks.passed = false;
    blocks.checked = 1;
    blocks.mismatches = 1;
    blocks.maxAbsError = 3;
    blocks.firstMismatches = {Mismatch{0, 4093, 4096}};
    result.verification = {out, blocks};
    panel.showResult(result);
    QTableWidget* summary = panel.summaryTable();
    QCOMPARE(summary->rowCount(), 2);
    QCOMPARE(summary->item(0, 0)->text(), QStringLiteral("out"));
    QCOMPARE(summary->item(1, 0)->text(), QStringLiteral("blocksDone (global)"));
    QVERIFY(summary->item(1, 0)->toolTip().contains(QStringLiteral("__device__")));
    QCOMPARE(summary->item(1, 1)->text(), QStringLiteral("FAIL"));
    QVERIFY2(panel.message().contains(QStringLiteral("Global 'blocksDone' failed")),
             qPrintable(panel.message()));
    // The failing global is selected and its mismatches listed.
    QCOMPARE(summary->currentRow(), 1);
    QCOMPARE(panel.mismatchTable()->rowCount(), 1);
    QCOMPARE(panel.mismatchTable()->item(0, 1)->text().toDouble(), 4093.0);

    blocks.passed = true;
    blocks.mismatches = 0;
    blocks.firstMismatches.clear();
    result.status = RunStatus::Ok;
    result.verification = {out, blocks};
    panel.showResult(result);
    QVERIFY2(panel.message().contains(QStringLiteral("1 module global")),
             qPrintable(panel.message()));
}

void TestGlobalsTable::verificationKeepsTheGlobalFlagThroughJson() {
    // The runner sends its result as JSON: the flag must survive it, and a buffer's report
    // must not gain it.
    BufferVerification v;
    v.buffer = QStringLiteral("blocksDone");
    v.global = true;
    QString error;
    std::optional<BufferVerification> back = BufferVerification::fromJson(v.toJson(), &error);
    QVERIFY2(back && back->global, qPrintable(error));
    v.global = false;
    QVERIFY(!v.toJson().contains(QStringLiteral("global")));
    back = BufferVerification::fromJson(v.toJson(), &error);
    QVERIFY2(back && !back->global, qPrintable(error));
}

KERNELPAD_TEST_MAIN(TestGlobalsTable)
} // namespace tst_globalstable
#include "tst_globalstable.moc"
