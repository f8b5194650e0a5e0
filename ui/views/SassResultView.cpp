#include "ui/views/SassResultView.h"

#include "core/engine/Engine.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/Theme.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/RegisterMargin.h"
#include "ui/widgets/SassView.h"
#include "ui/widgets/SourceLineBands.h"

#include <QPlainTextEdit>
#include <QTextBlock>

namespace kernelpad {

namespace {

/// Marks `ranges` (1-based PTX lines) in the PTX view and, with `scroll`, shows the first
/// when it is off screen.
void markPtxLines(PtxView* ptx, const QVector<LineRange>& ranges, bool scroll) {
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
QVector<int> sourceLinesOfPtxBlocks(const SassReport& report) {
    QVector<int> lines;
    const int count = int(report.compile.ptx.count(u'\n')) + 1;
    lines.reserve(count);
    for (int ptxLine = 1; ptxLine <= count; ++ptxLine)
        lines << report.lines.sourceLineOfPtx(ptxLine);
    return lines;
}

} // namespace

SassResultView::SassResultView(const ViewContext& context, PtxView* ptx)
    : m_workbench(context.workbench)
    , m_view(new SassView)
    , m_ptx(ptx)
    , m_editor(context.editor)
    , m_tag(QStringLiteral("sass-view-%1").arg(quintptr(this), 0, 16)) {
    m_view->setObjectName(QStringLiteral("sass"));
    // The matching colours: bands in the editor, the listings colour their own lines.
    if (m_editor) {
        m_bands = new SourceLineBands(m_editor);
        m_registers = new RegisterMargin(m_editor);
    }
    connect(m_workbench->document(), &ProjectDocument::sourceChanged, this,
            &SassResultView::updateRegisterStale);
    connectLineColours();
    connectLines();
    connect(m_view, &SassView::wanted, this, &SassResultView::requestIfOutdated);
    if (m_ptx)
        connect(m_ptx, &PtxView::shown, this, &SassResultView::requestIfOutdated);
    if (Engine* engine = m_workbench->engine()) {
        // The text as soon as nvdisasm has printed it; the colours come with the map.
        connect(engine, &Engine::sassListed, this, [this](quint64 id, const SassReport& report) {
            if (id == m_requestId)
                m_view->showReport(report);
        });
        connect(engine, &Engine::sassReady, this, &SassResultView::sassReady);
    }
}

QWidget* SassResultView::widget() const {
    return m_view;
}

void SassResultView::workbenchCleared(const Workbench&) {
    if (Engine* engine = m_workbench->engine())
        engine->cancelDisassembly(m_tag);
    m_requestId = 0;
    m_outdated = false;
    // A project opened while the tab is in front counts as shown (no show event comes).
    m_opened = m_view->isVisible();
    m_view->clear();
    if (m_bands)
        m_bands->setLines({});
    if (m_registers)
        m_registers->clear();
}

void SassResultView::compileStarted(const Workbench& workbench) {
    // A compile of other code: the disassembly in flight is of a source being replaced, and
    // its nvdisasm would hold a core while NVRTC compiles the new one.
    const Project& next = workbench.lastCompiledProject();
    ProgramOptions nextOptions = next.options;
    nextOptions.lineInfo = m_requestedProject.options.lineInfo;
    if (m_requestId != 0 && m_workbench->engine() &&
        (next.source != m_requestedProject.source || !(nextOptions == m_requestedProject.options)))
        m_workbench->engine()->cancelDisassembly(m_tag);
}

void SassResultView::compiled(const Workbench& workbench) {
    if (!workbench.lastCompile()->ok)
        return; // the SASS of the last good compile stays
    m_outdated = true;
    // At once while the tab is shown or was shown for this project, so that it is there when
    // the tab comes back; the PTX tab's colours come from the same -lineinfo compile.
    if (m_opened || m_view->isVisible() || (m_ptx && m_ptx->isVisible()))
        request();
}

void SassResultView::request() {
    const std::optional<CompileResult>& compile = m_workbench->lastCompile();
    if (!compile || !compile->ok || !m_workbench->engine())
        return;
    m_outdated = false;
    m_requestedProject = m_workbench->document()->project();
    m_requestedSource = m_requestedProject.source;
    // The compile worker compiles with -lineinfo and runs nvdisasm; the UI never does. The
    // tag cancels this view's older request still in flight.
    m_requestId = m_workbench->disassemble(m_requestedProject, m_workbench->document()->directory(),
                                           compile->arch, m_tag);
}

void SassResultView::requestIfOutdated() {
    if (m_view->isVisible())
        m_opened = true;
    // From now on the compiles carry -lineinfo, so that this view's request (and the line
    // colours the PTX view asks for) is a cache hit rather than a second NVRTC compile
    // (bench/sass measures both).
    m_workbench->setLineInfoWanted(true);
    if (m_outdated)
        request();
}

void SassResultView::sassReady(quint64 id, const SassReport& report) {
    if (id != m_requestId)
        return;
    if (report.sass.cancelled) {
        // Stopped for a newer compile: the SASS shown stays until that one's comes.
        m_requestId = 0;
        m_outdated = true;
        return;
    }
    m_view->showReport(report);
    // The PTX of the -lineinfo compile (the same code, with .loc lines), so that its lines
    // match the map.
    if (report.compile.ok && m_ptx) {
        m_ptx->setPtx(report.compile.ptx);
        m_ptx->setBlockSourceLines(sourceLinesOfPtxBlocks(report));
    }
    if (m_bands)
        m_bands->setLines(report.lines.sourceLines());
    if (m_registers) {
        // Off without SASS: the margin shows what this disassembly measured, nothing older.
        m_shownSource = m_requestedSource;
        m_registers->clear();
        if (report.ok())
            m_registers->show(mergedLines(m_view->registerUse()));
        updateRegisterStale();
    }
    if (m_editor) {
        int line = 0;
        int index = 0;
        m_editor->getCursorPosition(&line, &index);
        markSourceLine(line + 1, false);
    }
}

void SassResultView::updateRegisterStale() {
    if (!m_registers || !m_registers->isShown())
        return;
    const bool edited = m_workbench->document()->project().source != m_shownSource;
    m_registers->setStale(edited ? tr("Stale: the source was edited after this SASS was made; "
                                      "the numbers follow their lines but are of that source.")
                                 : QString());
}

void SassResultView::markSourceLine(int line, bool scroll) {
    m_view->highlightSourceLine(line, scroll);
    if (m_ptx && m_ptx->ptx() == m_view->report().compile.ptx)
        markPtxLines(m_ptx, m_view->report().lines.ptxRanges(line), scroll);
}

void SassResultView::selectSourceLine(int line) {
    if (!m_editor || line <= 0)
        return;
    m_echoLine = line;
    m_editor->ensureLineVisible(line - 1);
    m_editor->setCursorPosition(line - 1, 0);
    markSourceLine(line, false);
}

void SassResultView::emphasise(int hovered) {
    // A line without code (a comment, a brace) has no colour to strengthen.
    const int line = m_view->report().lines.sourceLines().contains(hovered) ? hovered : 0;
    m_view->setEmphasisedLine(line);
    if (m_ptx)
        m_ptx->setEmphasisedLine(line);
    if (m_bands)
        m_bands->setEmphasised(line);
}

void SassResultView::connectLineColours() {
    // The preference for matching colours applied to the three views; a line hovered in any of
    // them is emphasised in all (nothing scrolls: only a click does).
    const auto apply = [this] {
        const bool on = Preferences::load().lineColours;
        m_view->setLineColours(on);
        if (m_ptx)
            m_ptx->setLineColours(on);
        if (m_bands)
            m_bands->setEnabled(on);
    };
    apply();
    connect(PreferencesNotifier::instance(), &PreferencesNotifier::changed, this, apply);
    connect(m_view, &ListingView::sourceLineHovered, this, &SassResultView::emphasise);
    if (m_ptx)
        connect(m_ptx, &ListingView::sourceLineHovered, this, &SassResultView::emphasise);
    if (m_bands)
        connect(m_bands, &SourceLineBands::lineHovered, this, &SassResultView::emphasise);
}

void SassResultView::connectLines() {
    if (m_editor) {
        connect(m_editor, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) {
            const bool echo = m_echoLine == line + 1;
            m_echoLine = 0;
            if (!echo)
                markSourceLine(line + 1, true);
        });
    }
    connect(m_view, &SassView::sourceLineClicked, this, &SassResultView::selectSourceLine);
    if (m_ptx) {
        connect(m_ptx->textView(), &QPlainTextEdit::cursorPositionChanged, this, [this] {
            if (!m_ptx || m_ptx->ptx() != m_view->report().compile.ptx)
                return;
            const int ptxLine = m_ptx->textView()->textCursor().blockNumber() + 1;
            selectSourceLine(m_view->report().lines.sourceLineOfPtx(ptxLine));
        });
    }
}

} // namespace kernelpad
