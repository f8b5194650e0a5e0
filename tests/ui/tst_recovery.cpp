// Unsaved work survives a crash: autosave writes a recovery file, a window torn down without
// the clean-close path leaves it, and the next window restores it.

#include "../support/TestMain.h"
#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/windows/MainWindow.h"

#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_recovery {

using namespace kernelpad;

namespace {

Project sampleProject() {
    Project p;
    p.name = QStringLiteral("Fill");
    p.source = QStringLiteral("extern \"C\" __global__ void fill(float* out, int n)\n{\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (i < n) out[i] = 1.0f;\n}\n");
    p.kernel = QStringLiteral("fill");
    p.launch.block = {256, 1, 1};
    return p;
}

std::unique_ptr<MainWindow> makeWindow(Engine* engine) {
    auto window = std::make_unique<MainWindow>(engine);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    return window;
}

} // namespace

class TestRecovery : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void restoreAfterCrash_data();
    void restoreAfterCrash();
    void cleanCloseRemovesRecovery();
    void saveRemovesRecovery();
    void nothingToRestore();

private:
    QTemporaryDir m_dir;
};

void TestRecovery::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_dir.isValid());
}

void TestRecovery::init() {
    QDir(ProjectDocument::recoveryDirectory()).removeRecursively();
}

void TestRecovery::restoreAfterCrash_data() {
    QTest::addColumn<bool>("savedBefore");
    QTest::newRow("untitled project") << false;
    QTest::newRow("project with a file") << true;
}

void TestRecovery::restoreAfterCrash() {
    QFETCH(bool, savedBefore);
    Engine engine;
    const QString typed = QStringLiteral("// typed after the last save");
    const QString path = m_dir.filePath(QStringLiteral("fill.kpad"));
    QString expectedText;
    {
        std::unique_ptr<MainWindow> crashing = makeWindow(&engine);
        crashing->show();
        QVERIFY(QTest::qWaitForWindowExposed(crashing.get()));
        crashing->document()->replace(sampleProject());
        if (savedBefore)
            QVERIFY(crashing->saveAs(path));
        crashing->document()->setAutosaveIntervalMs(50);
        CodeEditor* editor = test::part<CodeEditor>(crashing, "editor");
        editor->setAutoCompletionSource(QsciScintilla::AcsNone);
        editor->setFocus();
        editor->setCursorPosition(0, 0);
        QTest::keyClicks(editor, typed);
        QVERIFY(crashing->isWindowModified());
        expectedText = editor->text();
        QVERIFY(expectedText.startsWith(typed));
        QTRY_VERIFY(crashing->document()->hasRecoveryFile());
        // Simulated crash: the window goes away without closeEvent (no clean-close path).
    }

    std::unique_ptr<MainWindow> next = makeWindow(&engine);
    QCOMPARE(next->restoreRecovery(), 1);
    QCOMPARE(test::part<CodeEditor>(next, "editor")->text(), expectedText);
    QVERIFY(next->isWindowModified());
    QCOMPARE(next->document()->path(),
             savedBefore ? QFileInfo(path).absoluteFilePath() : QString());
    QVERIFY(next->windowTitle().contains(savedBefore ? QStringLiteral("fill.kpad")
                                                     : QStringLiteral("Fill")));
    // Restored work is still unsaved: it keeps its recovery file until saved or discarded.
    QVERIFY(next->document()->hasRecoveryFile());
    next->setUnsavedChoice(MainWindow::UnsavedChoice::Discard);
    QVERIFY(next->close());
    QVERIFY(ProjectDocument::findRecoveryFiles().isEmpty());
    QVERIFY(
        QDir(ProjectDocument::recoveryDirectory()).entryList({QStringLiteral("*.json")}).isEmpty());
}

void TestRecovery::cleanCloseRemovesRecovery() {
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->document()->replace(sampleProject());
    test::part<CodeEditor>(window, "editor")->append(QStringLiteral("\n// more"));
    QVERIFY(window->document()->isDirty());
    QVERIFY(window->document()->autosaveNow());
    const QString recovery = window->document()->recoveryPath();
    QVERIFY(QFileInfo::exists(recovery));

    // Cancel keeps the window and the recovery file.
    window->setUnsavedChoice(MainWindow::UnsavedChoice::Cancel);
    QVERIFY(!window->close());
    QVERIFY(QFileInfo::exists(recovery));

    window->setUnsavedChoice(MainWindow::UnsavedChoice::Discard);
    QVERIFY(window->close());
    QVERIFY(!QFileInfo::exists(recovery));
}

void TestRecovery::saveRemovesRecovery() {
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->document()->replace(sampleProject());
    test::part<CodeEditor>(window, "editor")->append(QStringLiteral("\n// more"));
    QVERIFY(window->document()->autosaveNow());
    const QString recovery = window->document()->recoveryPath();
    QVERIFY(window->saveAs(m_dir.filePath(QStringLiteral("saved.kpad"))));
    QVERIFY(!QFileInfo::exists(recovery));
    QVERIFY(!window->isWindowModified());
}

void TestRecovery::nothingToRestore() {
    Engine engine;
    std::unique_ptr<MainWindow> window = makeWindow(&engine);
    window->document()->replace(sampleProject());
    QCOMPARE(window->restoreRecovery(), 0);
    QCOMPARE(test::part<CodeEditor>(window, "editor")->text(), sampleProject().source);
    QVERIFY(!window->isWindowModified());
}

KERNELPAD_TEST_MAIN(TestRecovery)
} // namespace tst_recovery
#include "tst_recovery.moc"
