// bind::sass: the SASS view follows the compiles; every source line with code gets a colour in
// the editor, the PTX and the SASS (Compiler Explorer's matching colours), a line hovered in
// one is emphasised in all three, and a line picked in one is marked in the other two.

#include "core/engine/Engine.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/Theme.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/SassView.h"
#include "ui/widgets/SourceLineBands.h"
#include "ui/windows/PanelBindings.h"

#include <QPlainTextEdit>
#include <QPointer>
#include <QTextBlock>

#include <memory>

namespace kernelpad::bind {

namespace {

/// What the binding keeps between callbacks.
struct SassState {
    quint64 requestId = 0; ///< the disassemble request whose answer is awaited
    bool outdated = false; ///< a compile came back since the SASS shown was asked for
    /// The line this binding moved the editor's cursor to: QScintilla reports the move later,
    /// and answering it would scroll the SASS away from the instruction clicked.
    int echoLine = 0;
};

/// Marks `ranges` (1-based PTX lines) in the PTX view and, with `scroll`, shows the first
/// when it is off screen.
void markPtx(PtxView* ptx, const QVector<LineRange>& ranges, bool scroll) {
    QPlainTextEdit* text = ptx->textView();
    QList<QTextEdit::ExtraSelection> selections;
    const Theme theme = Theme::forPalette(text->palette());
    for (const LineRange& range : ranges) {
        for (int line = range.first; line <= range.last; ++line) {
            QTextEdit::ExtraSelection selection;
            selection.format.setBackground(theme.findMatch);
            selection.format.setProperty(QTextFormat::FullWidthSelection, true);
            selection.cursor = QTextCursor(text->document()->findBlockByNumber(line - 1));
            selections << selection;
        }
    }
    text->setExtraSelections(selections);
    if (scroll && !selections.isEmpty()) {
        // Without reporting a click: the cursor moves only to scroll.
        const QSignalBlocker blocker(text);
        text->setTextCursor(selections.first().cursor);
        text->ensureCursorVisible();
    }
}

/// The source line of each PTX block (line 1 is block 0), from the report's map.
QVector<int> ptxBlockLines(const SassReport& report) {
    QVector<int> lines;
    const int count = int(report.compile.ptx.count(u'\n')) + 1;
    lines.reserve(count);
    for (int ptxLine = 1; ptxLine <= count; ++ptxLine)
        lines << report.lines.sourceLineOfPtx(ptxLine);
    return lines;
}

/// The preference for matching colours applied to the three views, and a line hovered in any
/// of them emphasised in all (nothing scrolls: only a click does).
void connectLineColours(SassView* view, const QPointer<PtxView>& ptxView,
                        const QPointer<SourceLineBands>& bands) {
    const auto applyLineColours = [=] {
        const bool on = Preferences::load().lineColours;
        view->setLineColours(on);
        if (ptxView)
            ptxView->setLineColours(on);
        if (bands)
            bands->setEnabled(on);
    };
    applyLineColours();
    QObject::connect(PreferencesNotifier::instance(), &PreferencesNotifier::changed, view,
                     applyLineColours);
    const auto emphasise = [=](int hovered) {
        // A line without code (a comment, a brace) has no colour to strengthen.
        const int line = view->report().lines.sourceLines().contains(hovered) ? hovered : 0;
        view->setEmphasisedLine(line);
        if (ptxView)
            ptxView->setEmphasisedLine(line);
        if (bands)
            bands->setEmphasised(line);
    };
    QObject::connect(view, &ListingView::sourceLineHovered, view, emphasise);
    if (ptxView)
        QObject::connect(ptxView, &ListingView::sourceLineHovered, view, emphasise);
    if (bands)
        QObject::connect(bands, &SourceLineBands::lineHovered, view, emphasise);
}

} // namespace

void sass(Workbench* workbench, SassView* view, CodeEditor* editor, PtxView* ptx) {
    const auto state = std::make_shared<SassState>();
    const QPointer<PtxView> ptxView(ptx);
    const QPointer<CodeEditor> sourceEditor(editor);

    const auto request = [=] {
        const std::optional<CompileResult>& compile = workbench->lastCompile();
        if (!compile || !compile->ok)
            return;
        state->outdated = false;
        // The compile worker compiles with -lineinfo and runs nvdisasm; the UI never does.
        state->requestId = workbench->engine()->disassemble(
            workbench->document()->project(), workbench->document()->directory(), compile->arch);
    };
    // Marks `line` everywhere; `scroll` moves the SASS and the PTX to it (not when it was
    // clicked there).
    const auto markSourceLine = [=](int line, bool scroll) {
        view->highlightSourceLine(line, scroll);
        if (ptxView && ptxView->ptx() == view->report().compile.ptx)
            markPtx(ptxView, view->report().lines.ptxRanges(line), scroll);
    };
    const auto selectSourceLine = [=](int line) {
        if (!sourceEditor || line <= 0)
            return;
        state->echoLine = line;
        sourceEditor->ensureLineVisible(line - 1);
        sourceEditor->setCursorPosition(line - 1, 0);
        markSourceLine(line, false);
    };

    // The matching colours: bands in the editor, the listings colour their own lines.
    const QPointer<SourceLineBands> bands(editor ? new SourceLineBands(editor) : nullptr);
    connectLineColours(view, ptxView, bands);

    PanelViewer* viewer = makeViewer(view);
    viewer->onCleared = [=](const Workbench&) {
        state->requestId = 0;
        state->outdated = false;
        view->clear();
        if (bands)
            bands->setLines({});
    };
    viewer->onCompiled = [=](const Workbench& s) {
        if (!s.lastCompile()->ok)
            return; // the SASS of the last good compile stays
        state->outdated = true;
        // The PTX tab's colours come from the same -lineinfo compile.
        if (view->isVisible() || (ptxView && ptxView->isVisible()))
            request();
    };
    workbench->addViewer(viewer);

    const auto requestIfOutdated = [=] {
        // From now on the compiles carry -lineinfo, so that this view's request (and the line
        // colours the PTX view asks for) is a cache hit rather than a second NVRTC compile
        // (bench/sass measures both).
        workbench->setLineInfoWanted(true);
        if (state->outdated)
            request();
    };
    QObject::connect(view, &SassView::wanted, view, requestIfOutdated);
    if (ptx)
        QObject::connect(ptx, &PtxView::shown, view, requestIfOutdated);
    // The text as soon as nvdisasm has printed it; the colours come with the map.
    if (workbench->engine()) {
        QObject::connect(workbench->engine(), &Engine::sassListed, view,
                         [=](quint64 id, const SassReport& report) {
                             if (id == state->requestId)
                                 view->showReport(report);
                         });
    }
    QObject::connect(workbench->engine(), &Engine::sassReady, view,
                     [=](quint64 id, const SassReport& report) {
                         if (id != state->requestId)
                             return;
                         view->showReport(report);
                         // The PTX of the -lineinfo compile (the same code, with .loc lines),
                         // so that its lines match the map.
                         if (report.compile.ok && ptxView) {
                             ptxView->setPtx(report.compile.ptx);
                             ptxView->setBlockSourceLines(ptxBlockLines(report));
                         }
                         if (bands)
                             bands->setLines(report.lines.sourceLines());
                         if (sourceEditor) {
                             int line = 0;
                             int index = 0;
                             sourceEditor->getCursorPosition(&line, &index);
                             markSourceLine(line + 1, false);
                         }
                     });
    if (editor) {
        QObject::connect(editor, &QsciScintilla::cursorPositionChanged, view, [=](int line, int) {
            const bool echo = state->echoLine == line + 1;
            state->echoLine = 0;
            if (!echo)
                markSourceLine(line + 1, true);
        });
    }
    QObject::connect(view, &SassView::sourceLineClicked, view, selectSourceLine);
    if (ptx) {
        QObject::connect(ptx->textView(), &QPlainTextEdit::cursorPositionChanged, view, [=] {
            if (!ptxView || ptxView->ptx() != view->report().compile.ptx)
                return;
            const int ptxLine = ptxView->textView()->textCursor().blockNumber() + 1;
            selectSourceLine(view->report().lines.sourceLineOfPtx(ptxLine));
        });
    }
}

} // namespace kernelpad::bind
