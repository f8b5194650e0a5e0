// What a compile tells the window: the kernel's own launch bounds from its PTX
// are checked as the device's limits are, with the reason shown beside the launch settings.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/KernelItems.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/ResourcesPanel.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestProjects.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_windowcompile {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

// NVRTC on a loaded machine can take several seconds for the first compile.
constexpr int kCompileTimeoutMs = 60000;

Project boundedProject(const QString& bounds, std::array<int, 3> block) {
    Project p =
        fillProject(QStringLiteral("extern \"C\" __global__ void %1 reduce(float* out, int n)\n{\n"
                                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    if (i < n)\n        out[i] = 1.0f;\n}\n")
                        .arg(bounds));
    p.name = QStringLiteral("Bounded");
    p.kernel = QStringLiteral("reduce");
    p.launch.grid = {2, 1, 1};
    p.launch.block = block;
    return p;
}

} // namespace

class TestWindowCompile : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void kernelLaunchBoundsChecked_data();
    void kernelLaunchBoundsChecked();
    void newProjectIsCleanAndCoversItsElements();
    void exampleOpensAsAnUntitledCopy();
    void cudaSourceOpensAsANewProject_data();
    void cudaSourceOpensAsANewProject();
    void coverCountsTheReductionsInput();
    void coverTakesAnExpressionInTheWindow();
    void templateTypeChangeIsMarkedAndUpdated();
    void resourcesWithoutDriverShowTheCompile();
};

void TestWindowCompile::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestWindowCompile::kernelLaunchBoundsChecked_data() {
    QTest::addColumn<QString>("bounds");
    QTest::addColumn<int>("blockX");
    QTest::addColumn<int>("blockY");
    QTest::addColumn<QString>("reason"); // empty: launchable
    QTest::addColumn<int>("fixedX");     // a block within the bounds, which clears the reason
    QTest::addColumn<int>("fixedY");
    QTest::newRow("__launch_bounds__(256) (.maxntid), block 512")
        << QStringLiteral("__launch_bounds__(256)") << 512 << 1
        << QStringLiteral("declares at most 256") << 256 << 1;
    QTest::newRow("__launch_bounds__(256), block 256")
        << QStringLiteral("__launch_bounds__(256)") << 256 << 1 << QString() << 256 << 1;
    QTest::newRow("__block_size__((32,8,1)) (.reqntid), block 256 x 1")
        << QStringLiteral("__block_size__((32,8,1))") << 256 << 1
        << QStringLiteral("requires a block of exactly 32 x 8 x 1") << 32 << 8;
    QTest::newRow("__block_size__((32,8,1)), block 32 x 8")
        << QStringLiteral("__block_size__((32,8,1))") << 32 << 8 << QString() << 32 << 8;
    QTest::newRow("no bounds, block 512") << QString() << 512 << 1 << QString() << 512 << 1;
}

void TestWindowCompile::kernelLaunchBoundsChecked() {
    QFETCH(QString, bounds);
    QFETCH(int, blockX);
    QFETCH(int, blockY);
    QFETCH(QString, reason);
    QFETCH(int, fixedX);
    QFETCH(int, fixedY);
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    window.document()->replace(boundedProject(bounds, {blockX, blockY, 1}));
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QVERIFY2(window.workbench()->lastCompile() && window.workbench()->lastCompile()->ok,
             qPrintable(window.workbench()->lastCompile() ? window.workbench()->lastCompile()->log
                                                          : QString()));

    auto* problem = test::part<LaunchPanel>(&window, "launchPanel")
                        ->findChild<QLabel*>(QStringLiteral("problemLabel"));
    QVERIFY(problem);
    if (reason.isEmpty()) {
        QCOMPARE(test::part<LaunchPanel>(&window, "launchPanel")->problem(), QString());
        return;
    }
    QVERIFY2(test::part<LaunchPanel>(&window, "launchPanel")->problem().contains(reason),
             qPrintable(test::part<LaunchPanel>(&window, "launchPanel")->problem()));
    QVERIFY(problem->text().contains(reason));
    QVERIFY(window.workbench()->runBlockedReason().contains(reason) ||
            !window.workbench()
                 ->runBlockedReason()
                 .isEmpty()); // without a driver, that reason comes first

    // Bringing the block within the bounds clears it.
    test::part<LaunchPanel>(&window, "launchPanel")
        ->findChild<QSpinBox*>(QStringLiteral("blockX"))
        ->setValue(fixedX);
    test::part<LaunchPanel>(&window, "launchPanel")
        ->findChild<QSpinBox*>(QStringLiteral("blockY"))
        ->setValue(fixedY);
    QCOMPARE(test::part<LaunchPanel>(&window, "launchPanel")->problem(), QString());
}

void TestWindowCompile::newProjectIsCleanAndCoversItsElements() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QVERIFY(window.newProject());
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QVERIFY2(window.workbench()->lastCompile() && window.workbench()->lastCompile()->ok,
             qPrintable(window.workbench()->lastCompile() ? window.workbench()->lastCompile()->log
                                                          : QString()));
    QCoreApplication::processEvents();
    // Untouched, it is not "modified": opening something else asks nothing.
    QVERIFY2(!window.isWindowModified(), qPrintable(window.windowTitle()));
    const Project p = window.document()->project();
    const LaunchConfig& launch = p.launch;
    const qint64 threads = qint64(launch.grid[0]) * launch.block[0];
    QCOMPARE(p.arguments.size(), 2);
    QCOMPARE(threads, p.arguments.at(1).value.toLongLong()); // covers n, all of it
    QCOMPARE(test::part<LaunchPanel>(&window, "launchPanel")->problem(), QString());
}

void TestWindowCompile::exampleOpensAsAnUntitledCopy() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    const QString example = QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad");
    QFile shipped(example);
    QVERIFY(shipped.open(QIODevice::ReadOnly));
    const QByteArray before = shipped.readAll();
    shipped.close();
    QVERIFY(window.openExample(example));
    QVERIFY(window.document()->isUntitled());
    QCOMPARE(window.document()->directory(), QFileInfo(example).absolutePath());
    QVERIFY2(window.windowTitle().startsWith(QStringLiteral("SAXPY")),
             qPrintable(window.windowTitle()));
    test::part<CodeEditor>(&window, "editor")->append(QStringLiteral("// my change\n"));
    // Save on an untitled copy asks where (no dialog in tests: nothing is written).
    QVERIFY(!window.save());
    QVERIFY(shipped.open(QIODevice::ReadOnly));
    QCOMPARE(shipped.readAll(), before);
}

void TestWindowCompile::cudaSourceOpensAsANewProject_data() {
    QTest::addColumn<QString>("fileName");
    QTest::newRow(".cu (was 'not valid JSON')") << QStringLiteral("heavy.cu");
    QTest::newRow(".cuh") << QStringLiteral("heavy.cuh");
}

void TestWindowCompile::cudaSourceOpensAsANewProject() {
    QFETCH(QString, fileName);
    QTemporaryDir dir;
    const QString path = dir.filePath(fileName);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("// two kernels: the first is opened\n"
               "__global__ void scale(const float* in, float* out, float a, int n)\n"
               "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = a * in[i]; }\n"
               "__global__ void other(int* p) { *p = 1; }\n");
    file.close();
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QVERIFY2(window.openProject(path), qPrintable(window.lastError()));
    QVERIFY2(window.windowTitle().startsWith(fileName), qPrintable(window.windowTitle()));
    QVERIFY(window.document()->isUntitled()); // Save asks where the .kpad goes
    QCOMPARE(window.document()->directory(), QFileInfo(path).absolutePath());
    const Project p = window.document()->project();
    QCOMPARE(p.kernel, QStringLiteral("scale"));
    QStringList names;
    for (const ArgumentSpec& a : p.arguments)
        names << a.name;
    QCOMPARE(names, (QStringList{"in", "out", "a", "n"}));
    QVERIFY(p.arguments.at(0).isBuffer() && p.arguments.at(1).isBuffer());
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QVERIFY2(window.workbench()->lastCompile() && window.workbench()->lastCompile()->ok,
             qPrintable(window.workbench()->lastCompile() ? window.workbench()->lastCompile()->log
                                                          : QString()));
}

void TestWindowCompile::coverCountsTheReductionsInput() {
    // The reduction's output has n/256 elements; a launch must cover its n inputs.
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    QVERIFY(window.openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/reduction.kpad")));
    auto* count = test::part<LaunchPanel>(&window, "launchPanel")
                      ->findChild<QLineEdit*>(QStringLiteral("coverCount"));
    QVERIFY(count);
    QCOMPARE(count->text(), QStringLiteral("4194304"));
}

// Typing "n/2" into the cover field became "2".
void TestWindowCompile::coverTakesAnExpressionInTheWindow() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.show();
    QVERIFY(window.openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/reduction.kpad")));
    auto* panel = test::part<LaunchPanel>(&window, "launchPanel");
    auto* count = panel->findChild<QLineEdit*>(QStringLiteral("coverCount"));
    auto* cover = panel->findChild<QPushButton*>(QStringLiteral("coverButton"));
    QVERIFY(count && cover);
    count->selectAll();
    QTest::keyClicks(count, QStringLiteral("n/2"));
    QCOMPARE(count->text(), QStringLiteral("n/2"));
    QVERIFY2(cover->isEnabled(), qPrintable(cover->toolTip()));
    QTest::mouseClick(cover, Qt::LeftButton);
    const LaunchConfig launch = window.document()->project().launch;
    QCOMPARE(launch.block[0], 256);
    QCOMPARE(launch.grid[0], 4194304 / 2 / 256); // n/2 elements, n = 4,194,304
    QVERIFY(window.isWindowModified());
}

// Vector_add<float> typed as vector_add<double> and recompiled with Enter
// left A, B and C float32 without a word.
void TestWindowCompile::templateTypeChangeIsMarkedAndUpdated() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.show();
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QVERIFY(window.openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/vector_add.kpad")));
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    ArgumentTableModel* model = test::part<ArgumentTableView>(&window, "arguments")->model();
    QVERIFY(model->typeMismatches().isEmpty());

    QLineEdit* kernelEdit = test::part<QComboBox>(&window, "kernelSelector")->lineEdit();
    QVERIFY(kernelEdit);
    kernelEdit->selectAll();
    QTest::keyClicks(kernelEdit, QStringLiteral("vector_add<double>"));
    const qsizetype before = shown.count();
    QTest::keyClick(kernelEdit, Qt::Key_Return); // compiles: no other action needed
    QVERIFY(shown.count() > before || shown.wait(kCompileTimeoutMs));
    QVERIFY2(window.workbench()->lastCompile() && window.workbench()->lastCompile()->ok,
             qPrintable(window.workbench()->lastCompile() ? window.workbench()->lastCompile()->log
                                                          : QString()));
    QCOMPARE(test::part<QComboBox>(&window, "kernelSelector")->currentText(),
             QStringLiteral("vector_add<double>"));
    // The kernel box lists the lowered name beside the name.
    const int item = test::part<QComboBox>(&window, "kernelSelector")
                         ->findText(QStringLiteral("vector_add<double>"));
    QVERIFY(item >= 0);
    QCOMPARE(test::part<QComboBox>(&window, "kernelSelector")
                 ->itemData(item, kLoweredNameRole)
                 .toString(),
             QStringLiteral("_Z10vector_addIdEvPKT_S2_PS0_m"));

    QCOMPARE(model->typeMismatches().size(), 3);
    QVERIFY2(model->index(0, ArgumentTableModel::TypeColumn)
                 .data(Qt::ToolTipRole)
                 .toString()
                 .contains(QStringLiteral("A is float32 but vector_add<double> takes double")),
             qPrintable(
                 model->index(0, ArgumentTableModel::TypeColumn).data(Qt::ToolTipRole).toString()));
    auto* bar = test::part<ArgumentTableView>(&window, "arguments")
                    ->findChild<QWidget*>(QStringLiteral("typeMismatchBar"));
    QVERIFY(bar && bar->isVisible());
    test::part<ArgumentTableView>(&window, "arguments")->updateTypesAction()->trigger();
    const Project p = window.document()->project();
    for (int i = 0; i < 3; ++i)
        QCOMPARE(p.arguments.at(i).buffer.elementType, ValueType::of(ScalarType::Float64));
    QCOMPARE(p.arguments.at(3).type, ValueType::of(ScalarType::UInt64)); // size_t N: as it was
    QVERIFY(window.isWindowModified());
    QVERIFY(!bar->isVisible());
}

// Without a driver the Resources tab said "No kernel compiled for a device
// yet" after a compile.
void TestWindowCompile::resourcesWithoutDriverShowTheCompile() {
    Engine engine;
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    engine.refreshDevices();
    QVERIFY(devices.wait(kCompileTimeoutMs) || devices.count() > 0);
    if (!devices.last().at(0).value<QVector<DeviceInfo>>().isEmpty())
        QSKIP("a CUDA device is present: the driver's figures replace the compile's");
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    window.document()->replace(
        boundedProject(QStringLiteral("__launch_bounds__(256)"), {128, 1, 1}));
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QVERIFY(window.workbench()->lastCompile() && window.workbench()->lastCompile()->ok);
    auto* resources =
        test::part<QTabWidget>(&window, "resultTabs")->widget(MainWindow::ResourcesTab);
    auto* panel = qobject_cast<ResourcesPanel*>(resources);
    QVERIFY(panel);
    auto* title = panel->findChild<QLabel*>(QStringLiteral("resourcesTitle"));
    QVERIFY2(!title->text().contains(QStringLiteral("No kernel compiled")),
             qPrintable(title->text()));
    QVERIFY2(panel->valueText(QStringLiteral("Launch bounds")).contains(QStringLiteral("256")),
             qPrintable(panel->valueText(QStringLiteral("Launch bounds"))));
}

KERNELPAD_TEST_MAIN(TestWindowCompile)
} // namespace tst_windowcompile
#include "tst_windowcompile.moc"
