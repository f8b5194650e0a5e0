// Registers per source line in the editor's margin and the SASS view's "live" column, fed the
// listings recorded on the GPU machine (tests/data/sass/README.md; no nvdisasm here): the
// numbers and spill marks on the right lines, following edits, stale after an edit, and in the
// window only once the SASS was made (an nvdisasm script printing the recordings).
#include "../support/RecordedSass.h"
#include "../support/TestProjects.h"
#include "../support/WindowParts.h"
#include "core/compile/SassCache.h"
#include "core/compile/SassLiveRanges.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/RegisterMargin.h"
#include "ui/widgets/SassView.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QApplication>
#include <QDateTime>
#include <QFile>
#include <QPlainTextEdit>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

namespace tst_registermargin {

using namespace kernelpad;

namespace {

constexpr int kCompileTimeoutMs = 60000;

/// The report of a recorded example with its life ranges joined, as the compile worker makes
/// it; ptxas's -v report as its log.
SassReport recordedReport(const QString& example) {
    SassReport report;
    report.compile.ok = true;
    report.compile.log = test::recordedSass(example + QStringLiteral(".ptxas-v.txt"));
    report.sourceName = example + QStringLiteral(".cu");
    report.sass.ok = true;
    report.sass.listing = parseSass(test::recordedSass(example + QStringLiteral(".sass-gi.txt")));
    report.sass.liveRanges =
        joinLiveRanges(&report.sass.listing,
                       parseLiveRanges(test::recordedSass(
                           example + QStringLiteral(".sass-life-count.txt")))) > 0;
    report.lines = LineMap::build(QString(), report.sass.listing, report.sourceName);
    return report;
}

/// What Scintilla draws in the margin text of 0-based `line`.
QString marginTextOf(QsciScintilla& editor, int line) {
    const auto size =
        editor.SendScintilla(QsciScintillaBase::SCI_MARGINGETTEXT, static_cast<unsigned long>(line),
                             static_cast<void*>(nullptr));
    QByteArray text(qsizetype(size) + 1, '\0');
    editor.SendScintilla(QsciScintillaBase::SCI_MARGINGETTEXT, static_cast<unsigned long>(line),
                         static_cast<void*>(text.data()));
    return QString::fromUtf8(text.constData());
}

/// An editor holding `example`'s source, with the margin showing its registers.
struct MarginFixture {
    CodeEditor editor;
    RegisterMargin* margin = new RegisterMargin(&editor);
    explicit MarginFixture(const QString& example) {
        editor.setText(test::recordedSass(example + QStringLiteral(".cu")));
        margin->show(mergedLines(registerUse(recordedReport(example))));
    }
};

} // namespace

class TestRegisterMargin : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void numbersOnTheUnrolledLoop();
    void spillLinesAreMarked();
    void followsEditsAndGoesStale();
    void themeChangeRecolours();
    void sassViewHasALiveColumn();
    void windowShowsTheMarginOnlyWithSass();

private:
    QTemporaryDir m_dir;
};

void TestRegisterMargin::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_dir.isValid());
    // An nvdisasm that prints the unrolled kernel's recorded listing, or its life ranges when
    // asked for them.
    QVERIFY(test::installNvdisasm(
        m_dir, QByteArray(test::kNvdisasmTakesACubin) +
                   "case \" $* \" in *' --print-life-ranges '*) cat '" +
                   test::recordedSassPath("unrolled.sass-life-count.txt") + "';;\n*) cat '" +
                   test::recordedSassPath("unrolled.sass-gi.txt") + "';;\nesac\n"));
}

// unrolled.cu: 48 registers; the loads of the unrolled loop (line 10) hold 45 at once.
void TestRegisterMargin::numbersOnTheUnrolledLoop() {
    MarginFixture f(QStringLiteral("unrolled"));
    QVERIFY(f.margin->isShown());
    QVERIFY(f.editor.marginWidth(RegisterMargin::kMargin) > 0);
    QCOMPARE(f.margin->textAt(9), QStringLiteral("45")); // 0-based: line 10
    QCOMPARE(f.margin->levelAt(9), RegisterMargin::kLevels);
    QCOMPARE(marginTextOf(f.editor, 9), QStringLiteral("45"));
    QCOMPARE(f.margin->textAt(3), QStringLiteral("4")); // int i = ...
    QCOMPARE(f.margin->levelAt(3), 1);
    QVERIFY(f.margin->textAt(0).isEmpty()); // the comment has no code
    QVERIFY(!f.margin->spillsAt(9));
    const QString tip = f.margin->toolTipAt(9);
    QVERIFY2(tip.contains(QStringLiteral("at most 45 live")) &&
                 tip.contains(QStringLiteral("48 registers per thread")),
             qPrintable(tip));
    QCOMPARE(RegisterMargin::levelFor(48, 48), RegisterMargin::kLevels);
    QCOMPARE(RegisterMargin::levelFor(1, 48), 1);
    QCOMPARE(RegisterMargin::levelFor(0, 48), 0);
    QVERIFY(f.margin->levelColour(1) != f.margin->levelColour(RegisterMargin::kLevels));
    f.margin->clear();
    QVERIFY(!f.margin->isShown());
    QCOMPARE(f.editor.marginWidth(RegisterMargin::kMargin), 0);
    QVERIFY(marginTextOf(f.editor, 9).isEmpty());
}

// spill.cu, held to 32 registers: STL/LDL at lines 10, 14 and 15, marked with '!'.
void TestRegisterMargin::spillLinesAreMarked() {
    MarginFixture f(QStringLiteral("spill"));
    for (const int line : {10, 14, 15}) {
        QVERIFY2(f.margin->spillsAt(line - 1), qPrintable(QString::number(line)));
        QVERIFY2(f.margin->textAt(line - 1).endsWith(u'!'), qPrintable(f.margin->textAt(line - 1)));
    }
    QCOMPARE(f.margin->textAt(9), QStringLiteral("30!"));
    QVERIFY(!f.margin->spillsAt(3));
    QVERIFY(!f.margin->textAt(3).endsWith(u'!'));
    QVERIFY2(f.margin->toolTipAt(9).contains(QStringLiteral("spill: 115 stores, 91 loads")),
             qPrintable(f.margin->toolTipAt(9)));
    for (int line = 0; line < f.editor.lines(); ++line) {
        const QString text = f.margin->textAt(line);
        QVERIFY2(text.isEmpty() || QString(text).remove(u'!').toInt() <= 32, qPrintable(text));
    }
}

void TestRegisterMargin::followsEditsAndGoesStale() {
    MarginFixture f(QStringLiteral("unrolled"));
    // Two lines typed above the kernel: the numbers move with their lines.
    f.editor.insertAt(QStringLiteral("// one\n// two\n"), 0, 0);
    QCOMPARE(f.margin->textAt(11), QStringLiteral("45"));
    QCOMPARE(marginTextOf(f.editor, 11), QStringLiteral("45"));
    QVERIFY(f.margin->textAt(9) != QStringLiteral("45"));
    const QString reason = QStringLiteral("Stale: edited");
    f.margin->setStale(reason);
    QVERIFY(f.margin->isStale());
    QVERIFY(f.margin->toolTipAt(11).startsWith(reason));
    QCOMPARE(f.margin->levelColour(1), f.margin->levelColour(RegisterMargin::kLevels));
    QCOMPARE(marginTextOf(f.editor, 11), QStringLiteral("45"));
    f.margin->setStale(QString());
    QVERIFY(!f.margin->toolTipAt(11).startsWith(reason));
}

// A dark palette: the editor's paper changes, and the margin's steps are drawn over the new one.
void TestRegisterMargin::themeChangeRecolours() {
    MarginFixture f(QStringLiteral("unrolled"));
    f.editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.editor));
    const auto background = [&] {
        return f.editor.SendScintilla(QsciScintillaBase::SCI_STYLEGETBACK,
                                      static_cast<unsigned long>(RegisterMargin::kFirstStyle));
    };
    const long before = background();
    const QPalette light = QApplication::palette();
    const auto restore = qScopeGuard([&] { QApplication::setPalette(light); });
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor(0x20, 0x22, 0x25));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    QApplication::setPalette(dark);
    QTRY_VERIFY(f.editor.theme().dark);
    QTRY_VERIFY(background() != before);
    QCOMPARE(f.margin->textAt(9), QStringLiteral("45"));
}

void TestRegisterMargin::sassViewHasALiveColumn() {
    SassView view;
    view.showReport(recordedReport(QStringLiteral("unrolled")));
    const QStringList lines = view.textView()->toPlainText().split(u'\n');
    QVERIFY2(lines.first().contains(QStringLiteral("live: registers, predicates, uniform")),
             qPrintable(lines.first()));
    // `/*0060*/ ISETP.GE.AND P0, PT, R2, R41, PT ;  // |   3   |   1    |        |`
    const int isetp = view.report().sass.listing.functions.first().indexOfAddress(0x60);
    const int block = view.blockOfInstruction(isetp);
    QCOMPARE(lines.value(block),
             QStringLiteral("  0060    3 1  0  ISETP.GE.AND P0, PT, R2, R41, PT"));
    QVERIFY(std::any_of(lines.cbegin(), lines.cend(), [](const QString& line) {
        return line.startsWith(QStringLiteral("// unrolled.cu:10  ·  at most 45 live registers "
                                              "(of 48)"));
    }));
    // Without life ranges: the listing as before, no column.
    SassReport plain = recordedReport(QStringLiteral("unrolled"));
    plain.sass.listing = parseSass(test::recordedSass(QStringLiteral("unrolled.sass-gi.txt")));
    plain.sass.liveRanges = false;
    view.showReport(plain);
    const QStringList before = view.textView()->toPlainText().split(u'\n');
    QCOMPARE(before.value(view.blockOfInstruction(isetp)),
             QStringLiteral("  0060  ISETP.GE.AND P0, PT, R2, R41, PT"));
}

// In the window: no margin after a compile while the SASS is not shown; the SASS tab shown,
// the margin appears with the unrolled loop's numbers; an edit greys it.
void TestRegisterMargin::windowShowsTheMarginOnlyWithSass() {
    SassCache::instance().clear();
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.show();
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QSignalSpy sass(&engine, &Engine::sassReady);
    Project project = test::recordedSassProject(QStringLiteral("unrolled"));
    project.options.arch = QStringLiteral("sm_90");
    window.document()->replace(project);
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    auto* editor = test::part<CodeEditor>(&window, "editor");
    QCOMPARE(editor->marginWidth(RegisterMargin::kMargin), 0);

    auto* tabs = test::part<QTabWidget>(&window, "resultTabs");
    tabs->setCurrentIndex(MainWindow::SassTab);
    QVERIFY(sass.wait(kCompileTimeoutMs) || sass.count() > 0);
    QCoreApplication::processEvents();
    auto* margin = editor->findChild<RegisterMargin*>(QStringLiteral("registerMargin"));
    QVERIFY(margin);
    auto* view = test::part<SassView>(&window, "sass");
    QVERIFY2(view->report().sass.liveRanges, qPrintable(view->report().sass.liveRangeError));
    QTRY_VERIFY(margin->isShown());
    QVERIFY(editor->marginWidth(RegisterMargin::kMargin) > 0);
    QCOMPARE(margin->textAt(9), QStringLiteral("45"));
    QVERIFY(!margin->isStale());

    window.document()->setSource(project.source + QStringLiteral("\n// edited\n"));
    QTRY_VERIFY(margin->isStale());
    QCOMPARE(margin->textAt(9), QStringLiteral("45"));
}

KERNELPAD_TEST_MAIN(TestRegisterMargin)
} // namespace tst_registermargin
#include "tst_registermargin.moc"
