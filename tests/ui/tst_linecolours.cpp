// Compiler Explorer's matching colours: a compiled example's source line has one colour in the
// editor, the PTX and the SASS (nvdisasm's recorded listing through a script in CUDA_HOME);
// hovering a line in one view emphasises it in the others without scrolling; View ▸ Line
// Colours turns them off and on; the listings' tooltips explain the opcode under the mouse.
#include "../support/RecordedSass.h"
#include "../support/TestProjects.h"
#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/LineColours.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/SassView.h"
#include "ui/widgets/SourceLineBands.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QAction>
#include <QFile>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QToolTip>
#include <QtTest>

namespace tst_linecolours {

using namespace kernelpad;

namespace {

constexpr int kCompileTimeoutMs = 60000;
/// Longer than either hover debounce, for QTRY_ to settle in.
constexpr int kHoverSettleMs = 4 * ListingView::kHoverDebounceMs;

/// A mouse move without buttons over `widget` at `at`, as the window system sends it.
void hover(QWidget* widget, const QPoint& at) {
    QMouseEvent move(QEvent::MouseMove, QPointF(at), widget->mapToGlobal(QPointF(at)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(widget, &move);
}

/// The middle of text block `block` of a listing, in its viewport.
QPoint pointOfBlock(QPlainTextEdit* text, int block, int column = 0) {
    QTextCursor cursor(text->document()->findBlockByNumber(block));
    cursor.setPosition(cursor.position() + column);
    return text->cursorRect(cursor).center();
}

/// The middle of 1-based `line` of the editor, in its viewport.
QPoint pointOfLine(CodeEditor* editor, int line) {
    const long position = editor->positionFromLineIndex(line - 1, 0);
    const int x =
        int(editor->SendScintilla(QsciScintillaBase::SCI_POINTXFROMPOSITION, 0UL, position));
    const int y =
        int(editor->SendScintilla(QsciScintillaBase::SCI_POINTYFROMPOSITION, 0UL, position));
    const int height =
        int(editor->SendScintilla(QsciScintillaBase::SCI_TEXTHEIGHT, (unsigned long)(line - 1)));
    return {x, y + height / 2};
}

} // namespace

class TestLineColours : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void paletteReadsApart();
    void oneColourPerSourceLineEverywhere();
    void sassBandsArePainted();
    void tooltipsExplainTheOpcode();

private:
    QTemporaryDir m_dir;
};

void TestLineColours::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_dir.isValid());
    QVERIFY(test::installNvdisasm(m_dir,
                                  "cat '" + test::recordedSassPath("saxpy.sass-gi.txt") + "'\n"));
}

void TestLineColours::paletteReadsApart() {
    for (const Theme& theme : {Theme::light(), Theme::darkTheme()}) {
        for (int line = 1; line <= 2 * kLineColourCount; ++line) {
            const QColor band = sourceLineColour(line, theme);
            const QColor strong = sourceLineColour(line, theme, true);
            // Neighbours differ, the palette repeats, emphasis is another shade of the hue.
            QVERIFY(band != sourceLineColour(line + 1, theme));
            QCOMPARE(band, sourceLineColour(line + kLineColourCount, theme));
            QVERIFY(strong != band);
            QCOMPARE(strong.hslHue(), band.hslHue());
            // The text stays readable: bands sit on the paper's side of the text.
            const int gap = qAbs(band.lightness() - theme.text.lightness());
            QVERIFY2(gap > 100, qPrintable(QStringLiteral("line %1 gap %2").arg(line).arg(gap)));
            QVERIFY(qAbs(strong.lightness() - theme.text.lightness()) > 60);
        }
    }
    QVERIFY(!sourceLineColour(0, Theme::light()).isValid());
}

void TestLineColours::oneColourPerSourceLineEverywhere() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.resize(1400, 900);
    window.show();
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    QSignalSpy sass(&engine, &Engine::sassReady);
    Project project = test::recordedSassProject(QStringLiteral("saxpy"));
    window.document()->replace(project);
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    auto* tabs = test::part<QTabWidget>(&window, "resultTabs");
    auto* view = test::part<SassView>(&window, "sass");
    auto* ptx = test::part<PtxView>(&window, "ptx");
    auto* editor = test::part<CodeEditor>(&window, "editor");
    auto* bands = editor->findChild<SourceLineBands*>();
    QVERIFY(bands);
    // Showing the PTX tab asks for the -lineinfo compile its colours come from.
    QCOMPARE(sass.count(), 0);
    tabs->setCurrentIndex(MainWindow::PtxTab);
    QVERIFY(sass.wait(kCompileTimeoutMs) || sass.count() > 0);
    QCoreApplication::processEvents();
    QVERIFY2(view->report().ok(), qPrintable(view->report().sass.error));
    QVERIFY(ptx->ptx().contains(QLatin1String(".loc")));

    // Line 6 (the loads, the FFMA, the store) has one colour in all three.
    const Theme theme = Theme::forPalette(view->palette());
    const QColor six = sourceLineColour(6, theme);
    QCOMPARE(bands->lines(), view->report().lines.sourceLines());
    QCOMPARE(bands->colourOfLine(6), six);
    QVERIFY(!bands->colourOfLine(3).isValid()); // no code on line 3
    const QVector<int> sassSix = view->blocksOfSourceLine(6);
    const QVector<int> ptxSix = ptx->blocksOfSourceLine(6);
    QCOMPARE(sassSix.size(), 16 + 1); // its 16 instructions and the "// saxpy.cu:6" line
    QCOMPARE(ptxSix.size(), view->report().lines.ptxLines(6).size());
    for (const int block : sassSix)
        QCOMPARE(view->blockColour(block), six);
    for (const int block : ptxSix)
        QCOMPARE(ptx->blockColour(block), six);
    // Line 5 has another colour, the same in all three again.
    const QColor five = sourceLineColour(5, theme);
    QVERIFY(five != six);
    QCOMPARE(bands->colourOfLine(5), five);
    QCOMPARE(view->blockColour(view->blocksOfSourceLine(5).first()), five);
    QCOMPARE(ptx->blockColour(ptx->blocksOfSourceLine(5).first()), five);

    // Hovering an EXIT of line 5 in the SASS emphasises line 5 in the editor and the PTX,
    // and scrolls nothing.
    tabs->setCurrentIndex(MainWindow::SassTab);
    QCoreApplication::processEvents();
    QCOMPARE(sass.count(), 1); // the SASS came with that report
    const int editorTop = editor->firstVisibleLine();
    hover(view->textView()->viewport(),
          pointOfBlock(view->textView(), view->blockOfInstruction(8), 8));
    QTRY_COMPARE_WITH_TIMEOUT(bands->emphasised(), 5, kHoverSettleMs * 10);
    QCOMPARE(ptx->emphasisedLine(), 5);
    QCOMPARE(view->emphasisedLine(), 5);
    QCOMPARE(bands->colourOfLine(5), sourceLineColour(5, theme, true));
    QCOMPARE(ptx->blockColour(ptx->blocksOfSourceLine(5).first()),
             sourceLineColour(5, theme, true));
    QCOMPARE(ptx->blockColour(ptxSix.first()), six); // the others keep their bands
    QCOMPARE(editor->firstVisibleLine(), editorTop);

    // Hovering line 6 in the editor moves the emphasis there in both listings.
    const int sassScroll = view->textView()->verticalScrollBar()->value();
    hover(editor->viewport(), pointOfLine(editor, 6));
    QTRY_COMPARE_WITH_TIMEOUT(view->emphasisedLine(), 6, kHoverSettleMs * 10);
    QCOMPARE(ptx->emphasisedLine(), 6);
    QCOMPARE(view->blockColour(sassSix.last()), sourceLineColour(6, theme, true));
    QCOMPARE(view->blockColour(view->blocksOfSourceLine(5).first()), five);
    QCOMPARE(bands->colourOfLine(5), five);
    QCOMPARE(view->textView()->verticalScrollBar()->value(), sassScroll);
    // Line 3 has no code: nothing to emphasise.
    hover(editor->viewport(), pointOfLine(editor, 3));
    QTRY_COMPARE_WITH_TIMEOUT(view->emphasisedLine(), 0, kHoverSettleMs * 10);
    QCOMPARE(bands->emphasised(), 0);
    QVERIFY(!bands->colourOfLine(3).isValid());

    // Hovering a PTX line of line 4 emphasises it in the editor and the SASS.
    tabs->setCurrentIndex(MainWindow::PtxTab);
    QCoreApplication::processEvents();
    hover(ptx->textView()->viewport(),
          pointOfBlock(ptx->textView(), ptx->blocksOfSourceLine(4).first()));
    QTRY_COMPARE_WITH_TIMEOUT(bands->emphasised(), 4, kHoverSettleMs * 10);
    QCOMPARE(view->emphasisedLine(), 4);

    // Leaving the text ends the emphasis.
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(ptx->textView()->viewport(), &leave);
    QTRY_COMPARE_WITH_TIMEOUT(view->emphasisedLine(), 0, kHoverSettleMs * 10);
    QCOMPARE(bands->emphasised(), 0);

    // View ▸ Line Colours off removes every band, is kept in Preferences, and on brings them
    // back.
    auto* toggle = window.findChild<QAction*>(QStringLiteral("lineColoursAction"));
    QVERIFY(toggle && toggle->isCheckable() && toggle->isChecked());
    toggle->trigger();
    QVERIFY(!Preferences::load().lineColours);
    QVERIFY(!bands->colourOfLine(6).isValid());
    QVERIFY(!view->blockColour(sassSix.first()).isValid());
    QVERIFY(!ptx->blockColour(ptxSix.first()).isValid());
    toggle->trigger();
    QVERIFY(Preferences::load().lineColours);
    QCOMPARE(bands->colourOfLine(6), six);
    QCOMPARE(view->blockColour(sassSix.first()), six);
    QCOMPARE(ptx->blockColour(ptxSix.first()), six);
}

void TestLineColours::sassBandsArePainted() {
    SassView view;
    view.resize(900, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.showReport(test::recordedSassReport(QStringLiteral("saxpy")));
    const Theme theme = Theme::forPalette(view.palette());
    QPlainTextEdit* text = view.textView();
    // Far right of the FFMA's line, past its text: the band of line 6.
    const int block = view.blockOfInstruction(24);
    const QPoint inside(text->viewport()->width() - 4, pointOfBlock(text, block).y());
    // Compared as RGB: the palette is made in HSL, the image holds RGB.
    QCOMPARE(text->viewport()->grab().toImage().pixel(inside), sourceLineColour(6, theme).rgb());
    view.setLineColours(false);
    QCOMPARE(text->viewport()->grab().toImage().pixel(inside), theme.paper.rgb());
}

void TestLineColours::tooltipsExplainTheOpcode() {
    SassView sass;
    sass.resize(900, 700);
    sass.show();
    QVERIFY(QTest::qWaitForWindowExposed(&sass));
    sass.showReport(test::recordedSassReport(QStringLiteral("saxpy")));
    QPlainTextEdit* text = sass.textView();
    const int ffma = sass.blockOfInstruction(24); // "  0180  FFMA R9, R2, UR6, R5"
    const QString onOpcode = sass.toolTipAt(pointOfBlock(text, ffma, 9));
    QVERIFY2(onOpcode.contains(QLatin1String("<b>FFMA</b>")), qPrintable(onOpcode));
    QVERIFY(onOpcode.contains(QLatin1String("fused multiply-add")));
    QCOMPARE(sass.toolTipAt(pointOfBlock(text, ffma, 16)), QString()); // on a register
    // The tooltip event shows the same text.
    const QPoint at = pointOfBlock(text, ffma, 9);
    QHelpEvent help(QEvent::ToolTip, at, text->viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(text->viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), onOpcode);
    QToolTip::hideText();

    PtxView ptx;
    ptx.resize(900, 700);
    ptx.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ptx));
    ptx.setPtx(test::recordedSass(QStringLiteral("saxpy.ptx")));
    QTextBlock block = ptx.textView()->document()->begin();
    while (block.isValid() && !block.text().contains(QLatin1String("ld.global.")))
        block = block.next();
    QVERIFY(block.isValid());
    const int column = int(block.text().indexOf(QLatin1String("ld.global.")));
    const QString ld = ptx.toolTipAt(pointOfBlock(ptx.textView(), block.blockNumber(), column + 1));
    QVERIFY2(ld.contains(QLatin1String("<b>ld</b>")), qPrintable(ld));
    QVERIFY(ld.contains(QLatin1String("<b>.global</b>")));
}

KERNELPAD_TEST_MAIN(TestLineColours)
} // namespace tst_linecolours
#include "tst_linecolours.moc"
