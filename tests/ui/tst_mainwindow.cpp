// The main window: examples open, compile errors land on the right line, Run explains why
// it is off, projects round-trip through save and open, unsaved work is asked about.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/project/Examples.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/TimingChartView.h"
#include "ui/widgets/VerificationPanel.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/SmallFilesystem.h"
#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"

namespace tst_mainwindow {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

// NVRTC on a loaded CI machine can take several seconds for the first compile.
constexpr int kCompileTimeoutMs = 60000;

std::unique_ptr<MainWindow> makeWindow(Engine* engine) {
    auto window = std::make_unique<MainWindow>(engine);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    return window;
}

/// Compiles and waits until the window has shown the result.
bool compileAndWait(MainWindow& window) {
    QSignalSpy spy(window.workbench(), &Workbench::compileShown);
    window.compile();
    return spy.wait(kCompileTimeoutMs) || spy.count() > 0;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void openExamples_data();
    void openExamples();
    void compileErrorMarksLine_data();
    void compileErrorMarksLine();
    void compileFillsKernelSelectorAndPtx();
    void runDisabledWithoutDriver();
    void verificationPinnedBelowResults();
    void runBlockedReasons_data();
    void runBlockedReasons();
    void saveOpenRoundTrip();
    void saveToAFullDiskSaysSoAndKeepsTheWork();
    void brokenFileKeepsEditor();
    void unsavedWorkIsAskedAbout_data();
    void unsavedWorkIsAskedAbout();
    void titleShowsModified();

private:
    QTemporaryDir m_dir;
};

void TestMainWindow::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_dir.isValid());
}

void TestMainWindow::init() {
    QDir(ProjectDocument::recoveryDirectory()).removeRecursively();
}

void TestMainWindow::openExamples_data() {
    QTest::addColumn<QString>("path");
    const QVector<ExampleInfo> examples = listExamples(QStringLiteral(KERNELPAD_EXAMPLES_DIR));
    for (const ExampleInfo& e : examples)
        QTest::newRow(qPrintable(QFileInfo(e.path).fileName())) << e.path;
    if (examples.isEmpty())
        QTest::newRow("no examples") << QString();
}

void TestMainWindow::openExamples() {
    QFETCH(QString, path);
    if (path.isEmpty())
        QSKIP("resources/examples holds no .kpad files yet");
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->show();
    QSignalSpy compiled(window->workbench(), &Workbench::compileShown);
    QVERIFY2(window->openProject(path), qPrintable(window->lastError()));
    QString error;
    const std::optional<Project> project = Project::load(path, &error);
    QVERIFY2(project, qPrintable(error));
    QCOMPARE(test::part<CodeEditor>(window, "editor")->text(), project->source);
    // A shipped example opens as an untitled copy that names it (tst_shippedcopy).
    QVERIFY(window->document()->isUntitled());
    QVERIFY2(window->windowTitle().contains(QFileInfo(path).fileName()),
             qPrintable(window->windowTitle()));
    QVERIFY(!window->isWindowModified());
    // Opening compiles at once; an example must compile cleanly.
    QVERIFY(compiled.wait(kCompileTimeoutMs) || compiled.count() > 0);
    QVERIFY(window->workbench()->lastCompile());
    QVERIFY2(window->workbench()->lastCompile()->ok,
             qPrintable(window->workbench()->lastCompile()->log));
    QVERIFY(test::part<QComboBox>(window, "kernelSelector")->findText(project->kernel) >= 0 ||
            project->kernel.contains(QLatin1Char('<')));
    QCOMPARE(test::part<QComboBox>(window, "kernelSelector")->currentText(), project->kernel);
    QVERIFY(!test::part<PtxView>(window, "ptx")->ptx().isEmpty());
}

void TestMainWindow::compileErrorMarksLine_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<int>("errorLine"); // 1-based

    QTest::newRow("undeclared identifier on line 3")
        << QStringLiteral("extern \"C\" __global__ void fill(float* out, int n)\n{\n"
                          "    int i = blockIdx.x * blockDim.x + threadIdy.x;\n"
                          "    if (i < n) out[i] = 1.0f;\n}\n")
        << 3;
    QTest::newRow("bad initialisation on line 5")
        << QStringLiteral("extern \"C\" __global__ void fill(float* out, int n)\n{\n"
                          "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    // a comment line\n"
                          "    int j = \"text\";\n"
                          "    if (i < n) out[i] = j;\n}\n")
        << 5;
}

void TestMainWindow::compileErrorMarksLine() {
    QFETCH(QString, source);
    QFETCH(int, errorLine);
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->document()->replace(fillProject());
    QVERIFY(compileAndWait(*window));
    test::part<CodeEditor>(window, "editor")->setText(source);
    QVERIFY(compileAndWait(*window));
    QVERIFY(window->workbench()->lastCompile());
    QVERIFY(!window->workbench()->lastCompile()->ok);

    CodeEditor* editor = test::part<CodeEditor>(window, "editor");
    QVERIFY2(editor->markersAtLine(errorLine - 1) & (1u << CodeEditor::ErrorMarker),
             qPrintable(window->workbench()->lastCompile()->log));
    QVERIFY(!editor->annotation(errorLine - 1).isEmpty());
    QCOMPARE(editor->markersAtLine(0), 0u);
    QVERIFY(test::part<DiagnosticsList>(window, "diagnostics")->topLevelItemCount() >= 1);
    QVERIFY(test::part<QTabWidget>(window, "resultTabs")
                ->tabText(MainWindow::DiagnosticsTab)
                .contains(QLatin1Char('(')));
    QVERIFY(test::part<QPlainTextEdit>(window, "programLog")
                ->toPlainText()
                .contains(QStringLiteral("error")));
    // The editor kept the broken text: nothing the compiler says replaces what was typed.
    QCOMPARE(editor->text(), source);

    // Fixing it clears the markers on the next compile.
    test::part<CodeEditor>(window, "editor")->setText(fillProject().source);
    QVERIFY(compileAndWait(*window));
    QVERIFY(window->workbench()->lastCompile()->ok);
    QCOMPARE(editor->markersAtLine(errorLine - 1) & (1u << CodeEditor::ErrorMarker), 0u);
    QVERIFY(editor->annotation(errorLine - 1).isEmpty());
}

void TestMainWindow::compileFillsKernelSelectorAndPtx() {
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    Project p = fillProject(QStringLiteral(
        "extern \"C\" __global__ void fill(float* out, int n) { if (n) out[0] = 1.0f; }\n"
        "extern \"C\" __global__ void other(int* p) { *p = 2; }\n"));
    window->document()->replace(p);
    QVERIFY(compileAndWait(*window));
    QComboBox* selector = test::part<QComboBox>(window, "kernelSelector");
    QVERIFY(selector->findText(QStringLiteral("fill")) >= 0);
    QVERIFY(selector->findText(QStringLiteral("other")) >= 0);
    QCOMPARE(selector->currentText(), QStringLiteral("fill")); // the selection is kept
    QVERIFY(test::part<PtxView>(window, "ptx")->entries().contains(QStringLiteral("fill")));
    QVERIFY(test::part<PtxView>(window, "ptx")->entries().contains(QStringLiteral("other")));
    // Recompiling keeps the user's choice.
    selector->setCurrentText(QStringLiteral("other"));
    QVERIFY(compileAndWait(*window));
    QCOMPARE(selector->currentText(), QStringLiteral("other"));
    QCOMPARE(window->document()->project().kernel, QStringLiteral("other"));
    QCOMPARE(test::part<ArgumentTableView>(window, "arguments")->model()->rowCount(),
             1); // synced to other(int* p)
}

void TestMainWindow::runDisabledWithoutDriver() {
    Engine engine;
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->show();
    QVERIFY(devices.wait(kCompileTimeoutMs) || devices.count() > 0);
    const QString driverError = devices.last().at(1).toString();
    if (driverError.isEmpty())
        QSKIP("a CUDA driver is present: this test is about compile-only mode");
    QVERIFY(!test::part<QAction>(window, "runAction")->isEnabled());
    QVERIFY(window->workbench()->runBlockedReason().contains(QStringLiteral("driver")));
    QVERIFY(test::part<QAction>(window, "runAction")
                ->toolTip()
                .contains(window->workbench()->runBlockedReason()));
    QVERIFY(test::part<QWidget>(window, "driverBanner")->isVisible());
    const auto labels = window->findChildren<QLabel*>();
    bool bannerSaysIt = false;
    for (QLabel* label : labels)
        bannerSaysIt |= label->text().startsWith(QStringLiteral("No CUDA driver found"));
    QVERIFY(bannerSaysIt);
    // Everything but Run still works: compile.
    window->document()->replace(fillProject());
    QVERIFY(compileAndWait(*window));
    QVERIFY(window->workbench()->lastCompile()->ok);
    QVERIFY(!test::part<QAction>(window, "runAction")->isEnabled());
}

void TestMainWindow::runBlockedReasons_data() {
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<int>("blockX");
    QTest::addColumn<QString>("scalarValue");
    QTest::addColumn<QString>("reasonMentions"); // empty: Run is enabled

    QTest::newRow("valid project runs") << "fill" << 256 << "1024" << QString();
    QTest::newRow("no kernel") << "" << 256 << "1024"
                               << "kernel";
    QTest::newRow("block too large") << "fill" << 2048 << "1024"
                                     << "Launch";
    QTest::newRow("scalar not a number") << "fill" << 256 << "lots"
                                         << "Arguments";
}

void TestMainWindow::runBlockedReasons() {
    QFETCH(QString, kernel);
    QFETCH(int, blockX);
    QFETCH(QString, scalarValue);
    QFETCH(QString, reasonMentions);
    Engine engine;
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    QVERIFY(devices.wait(kCompileTimeoutMs) || devices.count() > 0);
    // Pretend a device is there, so that the other reasons can be seen without a GPU.
    emit engine.devicesChanged({fakeDevice()}, QString());
    QVERIFY(!test::part<QWidget>(window, "driverBanner")->isVisibleTo(window.get()));

    Project p = fillProject();
    p.kernel = kernel;
    p.launch.block = {blockX, 1, 1};
    p.arguments[1].value = scalarValue;
    window->document()->replace(p);
    if (kernel.isEmpty())
        test::part<QComboBox>(window, "kernelSelector")->setCurrentText(QString());
    const QString reason = window->workbench()->runBlockedReason();
    if (reasonMentions.isEmpty()) {
        QVERIFY2(reason.isEmpty(), qPrintable(reason));
        QVERIFY(test::part<QAction>(window, "runAction")->isEnabled());
    } else {
        QVERIFY2(reason.contains(reasonMentions), qPrintable(reason));
        QVERIFY(!test::part<QAction>(window, "runAction")->isEnabled());
        QVERIFY(test::part<QAction>(window, "runAction")->toolTip().contains(reason));
        QLabel* label = window->findChild<QLabel*>(QStringLiteral("runBlockedLabel"));
        QVERIFY(label);
        QVERIFY(label->text().contains(reason));
    }
}

void TestMainWindow::saveOpenRoundTrip() {
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->document()->replace(fillProject());
    test::part<CodeEditor>(window, "editor")->append(QStringLiteral("// edited before saving\n"));
    QVERIFY(window->isWindowModified());
    const QString path = m_dir.filePath(QStringLiteral("roundtrip.kpad"));
    QVERIFY2(window->saveAs(path), qPrintable(window->lastError()));
    QVERIFY(!window->isWindowModified());
    QVERIFY(window->windowTitle().startsWith(QStringLiteral("roundtrip.kpad")));
    const Project saved = window->document()->project();

    std::unique_ptr<MainWindow> other = makeWindow(&engine);
    QVERIFY2(other->openProject(path), qPrintable(other->lastError()));
    const Project reopened = other->document()->project();
    QCOMPARE(reopened.source, saved.source);
    QVERIFY(reopened.source.contains(QStringLiteral("edited before saving")));
    QCOMPARE(reopened.kernel, saved.kernel);
    QVERIFY(reopened.launch == saved.launch);
    QCOMPARE(reopened.arguments.size(), saved.arguments.size());
    for (int i = 0; i < saved.arguments.size(); ++i)
        QCOMPARE(reopened.arguments.at(i).toJson(), saved.arguments.at(i).toJson());
    QVERIFY(reopened.timing == saved.timing);
    QVERIFY(!other->isWindowModified());
}

void TestMainWindow::saveToAFullDiskSaysSoAndKeepsTheWork() {
    test::SmallFilesystem fs;
    if (!fs.ok())
        QSKIP(qPrintable(fs.why()));
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->document()->replace(fillProject());
    const QString path = fs.path(QStringLiteral("work.kpad"));
    QVERIFY2(window->saveAs(path), qPrintable(window->lastError()));
    QFile saved(path);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QByteArray before = saved.readAll();
    saved.close();

    test::part<CodeEditor>(window, "editor")
        ->append(QStringLiteral("// ") + QString(80 * 1024, QLatin1Char('x')) +
                 QStringLiteral("\n"));
    QVERIFY(window->document()->autosaveNow());
    fs.fill();
    QVERIFY(!window->saveAs(path));
    QVERIFY2(window->lastError().contains(QStringLiteral("No space left on device")),
             qPrintable(window->lastError()));
    QVERIFY(window->isWindowModified());            // still unsaved, so closing will ask
    QVERIFY(window->document()->hasRecoveryFile()); // and the typed text is kept for recovery
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QCOMPARE(saved.readAll(), before); // the old file is whole
}

void TestMainWindow::brokenFileKeepsEditor() {
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->document()->replace(fillProject());
    test::part<CodeEditor>(window, "editor")->append(QStringLiteral("// precious unsaved line\n"));
    const QString before = test::part<CodeEditor>(window, "editor")->text();
    const QString path = m_dir.filePath(QStringLiteral("broken.kpad"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(
        R"({"format":"kernelpad-project","version":1,"source":"x","kernel":"k","launch":{"block":"big"}})");
    file.close();
    // Even when told to discard, a file that cannot be read must not wipe the editor.
    window->setUnsavedChoice(MainWindow::UnsavedChoice::Discard);
    QVERIFY(!window->openProject(path));
    QVERIFY2(window->lastError().contains(QStringLiteral("launch")),
             qPrintable(window->lastError()));
    QCOMPARE(test::part<CodeEditor>(window, "editor")->text(), before);
}

void TestMainWindow::unsavedWorkIsAskedAbout_data() {
    QTest::addColumn<int>("choice");
    QTest::addColumn<bool>("opened");
    QTest::addColumn<bool>("savedFirst");
    QTest::newRow("cancel keeps the work")
        << int(MainWindow::UnsavedChoice::Cancel) << false << false;
    QTest::newRow("discard opens the other")
        << int(MainWindow::UnsavedChoice::Discard) << true << false;
    QTest::newRow("save writes then opens") << int(MainWindow::UnsavedChoice::Save) << true << true;
}

void TestMainWindow::unsavedWorkIsAskedAbout() {
    QFETCH(int, choice);
    QFETCH(bool, opened);
    QFETCH(bool, savedFirst);
    Engine engine;
    const QString first = m_dir.filePath(QStringLiteral("first.kpad"));
    const QString second = m_dir.filePath(QStringLiteral("second.kpad"));
    QString error;
    QVERIFY(fillProject().save(first, &error));
    Project other = fillProject();
    other.source += QStringLiteral("// second\n");
    QVERIFY(other.save(second, &error));

    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    QVERIFY(window->openProject(first));
    test::part<CodeEditor>(window, "editor")->append(QStringLiteral("// unsaved\n"));
    window->setUnsavedChoice(MainWindow::UnsavedChoice(choice));
    QCOMPARE(window->openProject(second), opened);
    QCOMPARE(test::part<CodeEditor>(window, "editor")->text().contains(QStringLiteral("// second")),
             opened);
    const std::optional<Project> onDisk = Project::load(first, &error);
    QVERIFY(onDisk);
    QCOMPARE(onDisk->source.contains(QStringLiteral("// unsaved")), savedFirst);
}

void TestMainWindow::titleShowsModified() {
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->document()->replace(fillProject());
    QCOMPARE(window->windowTitle(), QStringLiteral("Fill[*] — KernelPad"));
    QVERIFY(!window->isWindowModified());
    test::part<CodeEditor>(window, "editor")->append(QStringLiteral("x"));
    QVERIFY(window->isWindowModified());
    test::part<LaunchPanel>(window, "launchPanel")
        ->setConfig(fillProject().launch); // programmatic: still modified
    QVERIFY(window->isWindowModified());
}

void TestMainWindow::verificationPinnedBelowResults() {
    // Timing and verification seen together (the --screenshot --run arrangement); the tab
    // indices stay valid so that code switching tabs keeps working.
    std::unique_ptr<MainWindow> window = makeWindow(nullptr);
    window->resize(1280, 800);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    auto* panel = window->findChild<VerificationPanel*>();
    QVERIFY(panel);
    QTabWidget* tabs = test::part<QTabWidget>(window, "resultTabs");
    const int tabCount = tabs->count();
    QCOMPARE(tabs->widget(MainWindow::VerificationTab), panel);

    window->setVerificationPinned(true);
    QVERIFY(window->verificationPinned());
    QCOMPARE(tabs->count(), tabCount);
    QVERIFY(tabs->widget(MainWindow::VerificationTab) != panel);
    tabs->setCurrentIndex(MainWindow::TimingTab);
    QTRY_VERIFY(panel->isVisible());
    QVERIFY(window->findChild<TimingChartView*>()->isVisible());
    // Both get a usable height at 1280x800.
    QTRY_VERIFY(panel->height() >= 80);
    QVERIFY(tabs->height() >= 200);

    window->setVerificationPinned(false);
    QVERIFY(!window->verificationPinned());
    QCOMPARE(tabs->count(), tabCount);
    QCOMPARE(tabs->widget(MainWindow::VerificationTab), panel);
    QVERIFY(!panel->isVisible()); // back in its tab, which is not the current one
}

KERNELPAD_TEST_MAIN(TestMainWindow)
} // namespace tst_mainwindow
#include "tst_mainwindow.moc"
