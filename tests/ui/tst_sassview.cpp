// The SASS tab: the listing per kernel, search and line marks on nvdisasm output recorded on
// the GPU machine; in the window, the SASS comes from the Engine's compile worker through an
// nvdisasm in CUDA_HOME (a script printing the recording) and a source line picked in the
// editor marks its PTX and SASS, and back.
#include "../support/RecordedSass.h"
#include "../support/TestProjects.h"
#include "../support/WindowParts.h"
#include "core/compile/SassCache.h"
#include "core/engine/Engine.h"
#include "ui/CompileHistory.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/SassView.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QPlainTextEdit>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QtTest>

namespace tst_sassview {

using namespace kernelpad;

namespace {

constexpr int kCompileTimeoutMs = 60000;

QVector<int> indicesFrom(int first, int last) {
    QVector<int> v;
    for (int i = first; i <= last; ++i)
        v << i;
    return v;
}

} // namespace

class TestSassView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void showsEachKernel();
    void marksASourceLineAndReportsClicks();
    void searchWraps();
    void errorIsShown();
    void windowShowsSassAndMatchesLines();
    void withoutNvdisasmThePtxKeepsItsLines();
    void oneCompilePerEditWhileSassIsShown();
    void sassAndDiffShareOneDisassembly();

private:
    [[nodiscard]] QString startsLog() const { return m_dir.filePath(QStringLiteral("starts.log")); }
    /// nvdisasm's starts since the log was last removed.
    [[nodiscard]] int starts() const {
        QFile file(startsLog());
        return file.open(QIODevice::ReadOnly) ? int(file.readAll().count('\n')) : 0;
    }

    QTemporaryDir m_dir;
};

void TestSassView::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_dir.isValid());
    // An nvdisasm that checks it was given a CUBIN, then prints the recorded listing.
    // Each start is logged, so that a test can count the processes.
    QVERIFY(test::installNvdisasm(m_dir, "echo \"$@\" >> '" + startsLog().toUtf8() + "'\n" +
                                             test::kNvdisasmTakesACubin + "cat '" +
                                             test::recordedSassPath("saxpy.sass-gi.txt") + "'\n"));
}

void TestSassView::showsEachKernel() {
    SassView view;
    view.showReport(test::recordedSassReport(QStringLiteral("transpose")));
    QCOMPARE(view.functions(), (QStringList{"transpose_tiled", "transpose_naive"}));
    auto* picker = view.findChild<QComboBox*>(QStringLiteral("sassKernels"));
    QVERIFY(picker && picker->isEnabled());
    QCOMPARE(view.currentFunction(), 0);
    // transpose_tiled: 48 instructions, each "  addr  text", with a "// file:N" line before
    // each change of source line.
    const QString text = view.textView()->toPlainText();
    QVERIFY(text.startsWith(QLatin1String("// transpose.cu:9\n  0000  LDC R1, c[0x0][0x28]\n")));
    QVERIFY(text.contains(QLatin1String("  00b0  @!P0 LDC.64 R2, c[0x0][0x210]\n")));
    QCOMPARE(text.count(QRegularExpression(QStringLiteral("^  [0-9a-f]{4}  "),
                                           QRegularExpression::MultilineOption)),
             48);
    view.setCurrentFunction(1);
    QVERIFY(view.textView()->toPlainText().contains(
        QLatin1String("  0130  STG.E desc[UR4][R4.64], R3")));
    // A recompile keeps the kernel being read.
    view.showReport(test::recordedSassReport(QStringLiteral("transpose")));
    QCOMPARE(view.currentFunction(), 1);
}

void TestSassView::marksASourceLineAndReportsClicks() {
    SassView view;
    view.showReport(test::recordedSassReport(QStringLiteral("saxpy")));
    // Line 6 of saxpy.cu (the loads, the FFMA, the store) is /*00a0*/-/*0190*/.
    QCOMPARE(view.highlightSourceLine(6), 16);
    QCOMPARE(view.highlightedInstructions(), indicesFrom(10, 25));
    QCOMPARE(view.textView()->extraSelections().size(), 16);
    QCOMPARE(view.textView()->extraSelections().first().cursor.block().text(),
             QStringLiteral("  00a0  ULDC.64 UR6, c[0x0][0x220]"));
    QCOMPARE(view.highlightSourceLine(3), 0); // a line without code
    QVERIFY(view.textView()->extraSelections().isEmpty());

    QSignalSpy clicked(&view, &SassView::sourceLineClicked);
    QTextCursor cursor(view.textView()->document()->findBlockByNumber(view.blockOfInstruction(24)));
    QCOMPARE(cursor.block().text(), QStringLiteral("  0180  FFMA R9, R2, UR6, R5"));
    view.textView()->setTextCursor(cursor);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.first().first().toInt(), 6);
}

void TestSassView::searchWraps() {
    SassView view;
    view.showReport(test::recordedSassReport(QStringLiteral("saxpy")));
    QSignalSpy clicked(&view, &SassView::sourceLineClicked);
    QVERIFY(view.find(QStringLiteral("FFMA")));
    QCOMPARE(view.textView()->textCursor().block().text(),
             QStringLiteral("  0180  FFMA R9, R2, UR6, R5"));
    QVERIFY(view.find(QStringLiteral("FFMA"))); // the only one: found again after wrapping
    QVERIFY(!view.find(QStringLiteral("HMMA")));
    QCOMPARE(clicked.count(), 0); // searching is not picking a line
}

void TestSassView::errorIsShown() {
    SassView view;
    view.showReport(test::recordedSassReport(QStringLiteral("saxpy")));
    SassReport missing;
    missing.compile.ok = true;
    missing.sass.error = QStringLiteral("nvdisasm not found (...); looked in: /x/bin/nvdisasm");
    view.showReport(missing);
    QCOMPARE(view.message(), missing.sass.error);
    QVERIFY(view.functions().isEmpty());
    QVERIFY(view.textView()->toPlainText().isEmpty());
    view.showReport(test::recordedSassReport(QStringLiteral("saxpy")));
    QCOMPARE(view.message(), QString());
}

void TestSassView::withoutNvdisasmThePtxKeepsItsLines() {
    // A toolkit root without bin/ (it has the header that makes it one) and a PATH of
    // nowhere: no nvdisasm, whatever this machine has installed.
    const QString bare = m_dir.filePath(QStringLiteral("bare-cuda"));
    QVERIFY(QDir().mkpath(bare + QStringLiteral("/include")));
    QFile header(bare + QStringLiteral("/include/cuda_fp16.h"));
    QVERIFY(header.open(QIODevice::WriteOnly));
    header.close();
    const QByteArray home = qgetenv("CUDA_HOME");
    const QByteArray path = qgetenv("PATH");
    const auto restore = qScopeGuard([&] {
        qputenv("CUDA_HOME", home);
        qputenv("PATH", path);
    });
    qputenv("CUDA_HOME", bare.toUtf8());
    qputenv("PATH", m_dir.filePath(QStringLiteral("nowhere")).toUtf8());

    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.show();
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QSignalSpy sass(&engine, &Engine::sassReady);
    Project project = test::recordedSassProject(QStringLiteral("saxpy"));
    window.document()->replace(project);
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    auto* tabs = test::part<QTabWidget>(&window, "resultTabs");
    auto* view = test::part<SassView>(&window, "sass");
    tabs->setCurrentIndex(MainWindow::SassTab);
    QVERIFY(sass.wait(kCompileTimeoutMs) || sass.count() > 0);
    QCoreApplication::processEvents();

    // The SASS tab says what is missing and where it looked, in its banner and its listing.
    const QString expected =
        QStringLiteral("nvdisasm not found (install the CUDA toolkit's binary utilities; "
                       "looked in ");
    QVERIFY2(view->message().startsWith(expected), qPrintable(view->message()));
    QVERIFY2(view->message().contains(bare + QStringLiteral("/bin/nvdisasm")),
             qPrintable(view->message()));
    QCOMPARE(view->textView()->placeholderText(), view->message());
    QVERIFY(!view->textView()->placeholderText().contains(QLatin1String("Compile to see")));

    // The PTX of the -lineinfo compile is shown with its lines mapped; the editor's cursor on
    // line 6 marks that line's PTX.
    auto* ptx = test::part<PtxView>(&window, "ptx");
    QCOMPARE(ptx->ptx(), view->report().compile.ptx);
    QVERIFY(!view->report().lines.ptxLines(6).isEmpty());
    auto* editor = test::part<CodeEditor>(&window, "editor");
    editor->setCursorPosition(5, 4);
    QTRY_VERIFY(!ptx->textView()->extraSelections().isEmpty());
    for (const QTextEdit::ExtraSelection& mark : ptx->textView()->extraSelections())
        QCOMPARE(view->report().lines.sourceLineOfPtx(mark.cursor.blockNumber() + 1), 6);
}

void TestSassView::windowShowsSassAndMatchesLines() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.show();
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QSignalSpy sass(&engine, &Engine::sassReady);
    Project project = test::recordedSassProject(QStringLiteral("saxpy"));
    window.document()->replace(project);
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QVERIFY(window.workbench()->lastCompile() && window.workbench()->lastCompile()->ok);

    // Hidden, the SASS is not asked for; showing the tab asks the compile worker.
    auto* tabs = test::part<QTabWidget>(&window, "resultTabs");
    auto* view = test::part<SassView>(&window, "sass");
    QCOMPARE(tabs->widget(MainWindow::SassTab), view);
    QCOMPARE(tabs->tabText(MainWindow::SassTab), QStringLiteral("SASS"));
    QCOMPARE(sass.count(), 0);
    tabs->setCurrentIndex(MainWindow::SassTab);
    QVERIFY(sass.wait(kCompileTimeoutMs) || sass.count() > 0);
    QCoreApplication::processEvents();
    QVERIFY2(view->report().ok(), qPrintable(view->report().sass.error));
    QCOMPARE(view->functions(), QStringList{QStringLiteral("saxpy")});
    // The view's compile had -lineinfo, and the PTX tab now shows its PTX (with .loc).
    QVERIFY(view->report().compile.flags.contains(QStringLiteral("-lineinfo")));
    auto* ptx = test::part<PtxView>(&window, "ptx");
    QCOMPARE(ptx->ptx(), view->report().compile.ptx);
    QVERIFY(ptx->ptx().contains(QLatin1String(".loc")));

    // The editor's cursor on line 6 marks its SASS and its PTX lines (QScintilla reports the
    // move when it next updates).
    auto* editor = test::part<CodeEditor>(&window, "editor");
    editor->setCursorPosition(5, 4);
    QTRY_COMPARE(view->highlightedInstructions(), indicesFrom(10, 25));
    const QList<QTextEdit::ExtraSelection> ptxMarks = ptx->textView()->extraSelections();
    QVERIFY(!ptxMarks.isEmpty());
    for (const QTextEdit::ExtraSelection& mark : ptxMarks)
        QCOMPARE(view->report().lines.sourceLineOfPtx(mark.cursor.blockNumber() + 1), 6);

    // Clicking the bounds check's EXIT in the SASS selects line 5 in the editor.
    view->textView()->setTextCursor(
        QTextCursor(view->textView()->document()->findBlockByNumber(view->blockOfInstruction(8))));
    int line = -1;
    int index = -1;
    editor->getCursorPosition(&line, &index);
    QCOMPARE(line, 4);
    QTRY_COMPARE(view->highlightedInstructions(), indicesFrom(5, 9));
    // The editor's late report of that move does not scroll the SASS off the EXIT clicked.
    QTest::qWait(100);
    QCOMPARE(view->textView()->textCursor().blockNumber(), view->blockOfInstruction(8));

    // Clicking a PTX line of line 4 (the index) selects it in the editor.
    const QVector<int> ptxOfLine4 = view->report().lines.ptxLines(4);
    QVERIFY(!ptxOfLine4.isEmpty());
    ptx->textView()->setTextCursor(
        QTextCursor(ptx->textView()->document()->findBlockByNumber(ptxOfLine4.first() - 1)));
    editor->getCursorPosition(&line, &index);
    QCOMPARE(line, 3);
    QTRY_COMPARE(view->highlightedInstructions(), indicesFrom(1, 4));
}

// With the SASS tab open, an edit costs one NVRTC compile (with -lineinfo), not two: the
// view's disassemble request is answered by the compile cache (bench/sass measures both).
void TestSassView::oneCompilePerEditWhileSassIsShown() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.show();
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QSignalSpy sass(&engine, &Engine::sassReady);
    Project project = test::recordedSassProject(QStringLiteral("saxpy"));
    window.document()->replace(project);
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    test::part<QTabWidget>(&window, "resultTabs")->setCurrentIndex(MainWindow::SassTab);
    QVERIFY(sass.wait(kCompileTimeoutMs) || sass.count() > 0);
    QVERIFY(window.workbench()->lineInfoWanted());

    // Every answer after an edit, compile and SASS alike, says whether NVRTC ran for it.
    for (int edit = 1; edit <= 2; ++edit) {
        shown.clear();
        sass.clear();
        window.document()->setSource(project.source +
                                     QStringLiteral("\n// edit %1 at %2\n")
                                         .arg(edit)
                                         .arg(QDateTime::currentMSecsSinceEpoch()));
        window.workbench()->compile();
        QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
        QVERIFY(sass.wait(kCompileTimeoutMs) || sass.count() > 0);
        const CompileResult compiled = shown.first().at(0).value<CompileResult>();
        const SassReport report = sass.first().at(1).value<SassReport>();
        QVERIFY(compiled.ok);
        QVERIFY(compiled.flags.contains(QStringLiteral("-lineinfo")));
        const int nvrtcCompiles = (compiled.cacheHit ? 0 : 1) + (report.compile.cacheHit ? 0 : 1);
        QCOMPARE(nvrtcCompiles, 1);
        QVERIFY(report.compile.cacheHit);
        QCOMPARE(report.compile.ptx, compiled.ptx);
    }
    // The document's own options are unchanged: -lineinfo is the workbench's, not the project's.
    QVERIFY(!window.document()->project().options.lineInfo);
}

// The SASS tab's request and the Diff tab's for the same compile: one nvdisasm process, the
// same SASS and map in both, and the SASS text shown before its map (sassListed).
void TestSassView::sassAndDiffShareOneDisassembly() {
    SassCache::instance().clear();
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.show();
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QSignalSpy listed(&engine, &Engine::sassListed);
    QSignalSpy sass(&engine, &Engine::sassReady);
    Project project = test::recordedSassProject(QStringLiteral("saxpy"));
    // A source no other test compiled: no CUBIN of it is in the cache.
    project.source += QStringLiteral("\n__device__ int shareOneDisassembly%1;\n")
                          .arg(QDateTime::currentMSecsSinceEpoch());
    window.document()->replace(project);
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QFile::remove(startsLog());

    auto* tabs = test::part<QTabWidget>(&window, "resultTabs");
    tabs->setCurrentIndex(MainWindow::SassTab);
    QVERIFY(sass.wait(kCompileTimeoutMs) || sass.count() > 0);
    QCoreApplication::processEvents();
    auto* view = test::part<SassView>(&window, "sass");
    QVERIFY2(view->report().ok(), qPrintable(view->report().sass.error));
    // The listing's nvdisasm and the life ranges' beside it.
    QCOMPARE(starts(), 2);
    QCOMPARE(view->report().sass.processes, 2);
    // The text came first, with the same listing and no map yet.
    QCOMPARE(listed.count(), 1);
    const SassReport early = listed.first().at(1).value<SassReport>();
    QCOMPARE(listed.first().at(0).toULongLong(), sass.first().at(0).toULongLong());
    QVERIFY(early.lines.isEmpty());
    QCOMPARE(early.sass.listing.text, view->report().sass.listing.text);
    QVERIFY(!view->report().lines.isEmpty());

    // The Diff tab asks for the reports of its compiles: the cache answers.
    tabs->setCurrentIndex(MainWindow::DiffTab);
    auto* history = window.findChild<CompileHistory*>(QStringLiteral("compileHistory"));
    QVERIFY(history);
    history->requestReports();
    QTRY_VERIFY_WITH_TIMEOUT(history->current() && history->current()->report, kCompileTimeoutMs);
    const SassReport& diffReport = *history->current()->report;
    QVERIFY2(diffReport.sass.ok, qPrintable(diffReport.sass.error));
    QCOMPARE(starts(), 2);
    QVERIFY(diffReport.sass.cacheHit);
    QCOMPARE(diffReport.sass.processes, 0);
    QCOMPARE(diffReport.sass.listing.text, view->report().sass.listing.text);
    QCOMPARE(diffReport.lines.sourceLines(), view->report().lines.sourceLines());
}

KERNELPAD_TEST_MAIN(TestSassView)
} // namespace tst_sassview
#include "tst_sassview.moc"
