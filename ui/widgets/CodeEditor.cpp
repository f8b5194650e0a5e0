#include "ui/widgets/CodeEditor.h"

#include "ui/Preferences.h"
#include "ui/widgets/CompletionWords.h"
#include "ui/widgets/CudaLexer.h"

#include <Qsci/qscicommand.h>
#include <Qsci/qscicommandset.h>
#include <Qsci/qscistyle.h>
#include <Qsci/qscistyledtext.h>

#include <QAction>
#include <QEvent>
#include <QFontMetrics>
#include <QImage>
#include <QMap>
#include <QPainter>
#include <QPainterPath>

#include <climits>

#include <algorithm>

namespace kernelpad {

namespace {

constexpr int kLineNumberMargin = 0;
constexpr int kSymbolMargin = 1;
constexpr int kFoldMargin = 2;
constexpr int kTabWidth = 4;
constexpr int kSymbolMarginWidthPx = 18;
// Fixed style numbers for annotations: above every lexer style (inactive C++ styles end
// near 128) and away from Scintilla's predefined 32..39, so re-theming never collides.
constexpr int kErrorAnnotationStyle = 200;
constexpr int kWarningAnnotationStyle = 201;
constexpr int kNoteAnnotationStyle = 202;

int markerFor(Diagnostic::Severity s) {
    switch (s) {
    case Diagnostic::Severity::Error:
        return CodeEditor::ErrorMarker;
    case Diagnostic::Severity::Warning:
        return CodeEditor::WarningMarker;
    default:
        return CodeEditor::NoteMarker;
    }
}

int indicatorFor(Diagnostic::Severity s) {
    switch (s) {
    case Diagnostic::Severity::Error:
        return CodeEditor::ErrorIndicator;
    case Diagnostic::Severity::Warning:
        return CodeEditor::WarningIndicator;
    default:
        return CodeEditor::NoteIndicator;
    }
}

// A round (error, note) or triangular (warning) badge with a glyph, drawn at the margin's
// size so it stays crisp on any font size.
QImage badge(const QColor& colour, const QString& glyph, bool triangle, int sizePx) {
    QImage image(sizePx, sizePx, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    const QRectF r(1, 1, sizePx - 2, sizePx - 2);
    if (triangle) {
        QPainterPath path;
        path.moveTo(r.center().x(), r.top());
        path.lineTo(r.right(), r.bottom());
        path.lineTo(r.left(), r.bottom());
        path.closeSubpath();
        p.drawPath(path);
    } else {
        p.drawEllipse(r);
    }
    QFont f;
    f.setBold(true);
    f.setPixelSize(std::max(6, sizePx * 2 / 3));
    p.setFont(f);
    p.setPen(Qt::white);
    p.drawText(triangle ? r.adjusted(0, sizePx / 6.0, 0, 0) : r, Qt::AlignCenter, glyph);
    return image;
}

int rank(Diagnostic::Severity s) {
    switch (s) {
    case Diagnostic::Severity::Error:
        return 0;
    case Diagnostic::Severity::Warning:
        return 1;
    default:
        return 2;
    }
}

} // namespace

CodeEditor::CodeEditor(QWidget* parent)
    : QsciScintilla(parent)
    , m_lexer(new CudaLexer(this)) {
    setUtf8(true);
    setLexer(m_lexer);
    setAutoIndent(true);
    setIndentationsUseTabs(false);
    setTabWidth(kTabWidth);
    setIndentationGuides(true);
    setBackspaceUnindents(true);
    setBraceMatching(QsciScintilla::SloppyBraceMatch);
    setCaretLineVisible(true);
    setEolMode(QsciScintilla::EolUnix);
    setAnnotationDisplay(QsciScintilla::AnnotationBoxed);
    setWrapMode(QsciScintilla::WrapNone);
    setScrollWidthTracking(true);
    setScrollWidth(1);
    // The document's words, but never the one being typed (CompletionWords).
    new CompletionWords(m_lexer, this);
    setAutoCompletionSource(QsciScintilla::AcsAPIs);
    setAutoCompletionThreshold(3);
    setAutoCompletionCaseSensitivity(true);
    // An open list whose selection is exactly the word typed (nothing longer was left to
    // offer) is closed, so that Enter makes a new line; runs after QScintilla's own handler.
    connect(this, &QsciScintillaBase::SCN_CHARADDED, this, [this] {
        if (!isListActive())
            return;
        int line = 0;
        int index = 0;
        getCursorPosition(&line, &index);
        const QByteArray selected = completionSelection();
        if (!selected.isEmpty() && QString::fromUtf8(selected) == wordAtLineIndex(line, index))
            cancelList();
    });
    setUtf8(true);

    setUpMargins();

    // Scintilla binds Ctrl+/ to "word part left"; free it so the toggle-comment shortcut
    // reaches the action instead of being swallowed by the editor.
    if (QsciCommand* cmd =
            standardCommands()->boundTo(QKeyCombination(Qt::CTRL | Qt::Key_Slash).toCombined()))
        cmd->setKey(0);
    m_toggleCommentAction = new QAction(tr("Toggle &Comment"), this);
    m_toggleCommentAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    m_toggleCommentAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_toggleCommentAction, &QAction::triggered, this, &CodeEditor::toggleComment);
    addAction(m_toggleCommentAction);
    setUpZoom();

    connect(this, &QsciScintilla::linesChanged, this, &CodeEditor::updateLineNumberWidth);
    m_font = Preferences::load().editorFont();
    connect(PreferencesNotifier::instance(), &PreferencesNotifier::changed, this,
            [this] { setEditorFont(Preferences::load().editorFont()); });
    applyTheme(Theme::current());
}

CodeEditor::~CodeEditor() = default;

void CodeEditor::setUpZoom() {
    // Scintilla binds Ctrl++ and Ctrl+- (without Shift) and types any other Ctrl+key that
    // has text into the document: Ctrl+0, Ctrl+= and Ctrl+Shift+=. Its bindings
    // would win the shortcut override, so they go; the window-wide actions take the keys.
    for (QsciCommand::Command command : {QsciCommand::ZoomIn, QsciCommand::ZoomOut}) {
        if (QsciCommand* cmd = standardCommands()->find(command)) {
            cmd->setKey(0);
            cmd->setAlternateKey(0);
        }
    }
    auto make = [this](const QString& text, const QList<QKeySequence>& keys, auto slot) {
        auto* action = new QAction(text, this);
        action->setShortcuts(keys);
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
        return action;
    };
    // Ctrl+= is Ctrl++ without Shift on most layouts; with Shift some send Ctrl+Shift++.
    m_zoomInAction =
        make(tr("Zoom &In"),
             {QKeySequence(Qt::CTRL | Qt::Key_Plus), QKeySequence(Qt::CTRL | Qt::Key_Equal),
              QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Plus),
              QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Equal)},
             [this] { zoomIn(); });
    m_zoomOutAction =
        make(tr("Zoom &Out"), {QKeySequence(Qt::CTRL | Qt::Key_Minus)}, [this] { zoomOut(); });
    m_zoomResetAction =
        make(tr("&Reset Zoom"), {QKeySequence(Qt::CTRL | Qt::Key_0)}, [this] { zoomTo(0); });
}

void CodeEditor::setEditorFont(const QFont& font) {
    if (font == m_font)
        return;
    m_font = font;
    applyTheme(m_theme);
}

QByteArray CodeEditor::completionSelection() const {
    if (!isListActive())
        return {};
    const int length =
        int(SendScintilla(SCI_AUTOCGETCURRENTTEXT, 0UL, static_cast<void*>(nullptr)));
    QByteArray text(length + 1, '\0');
    SendScintilla(SCI_AUTOCGETCURRENTTEXT, 0UL, static_cast<void*>(text.data()));
    text.truncate(length);
    return text;
}

int CodeEditor::zoomLevel() const {
    return int(SendScintilla(SCI_GETZOOM));
}

void CodeEditor::setUpMargins() {
    setMarginType(kLineNumberMargin, QsciScintilla::NumberMargin);
    setMarginLineNumbers(kLineNumberMargin, true);
    setMarginType(kSymbolMargin, QsciScintilla::SymbolMargin);
    setMarginWidth(kSymbolMargin, kSymbolMarginWidthPx);
    setMarginSensitivity(kSymbolMargin, false);
    setMarginMarkerMask(kSymbolMargin,
                        (1 << ErrorMarker) | (1 << WarningMarker) | (1 << NoteMarker));
    setMarginMarkerMask(kLineNumberMargin, 0);
    setFolding(QsciScintilla::BoxedTreeFoldStyle, kFoldMargin);
    updateLineNumberWidth();
}

void CodeEditor::setUpMarkers() {
    const int size = std::min(kSymbolMarginWidthPx - 2,
                              QFontMetrics(m_lexer->font(QsciLexerCPP::Default)).height());
    markerDefine(badge(m_theme.errorColor, QStringLiteral("\u00d7"), false, size), ErrorMarker);
    markerDefine(badge(m_theme.warningColor, QStringLiteral("!"), true, size), WarningMarker);
    markerDefine(badge(m_theme.noteColor, QStringLiteral("i"), false, size), NoteMarker);

    const struct {
        int indicator;
        QColor colour;
    } indicators[] = {{ErrorIndicator, m_theme.errorColor},
                      {WarningIndicator, m_theme.warningColor},
                      {NoteIndicator, m_theme.noteColor}};
    for (const auto& i : indicators) {
        indicatorDefine(QsciScintilla::SquiggleLowIndicator, i.indicator);
        setIndicatorForegroundColor(i.colour, i.indicator);
        setIndicatorDrawUnder(false, i.indicator);
    }
    indicatorDefine(QsciScintilla::StraightBoxIndicator, FindIndicator);
    QColor find = m_theme.findMatch;
    find.setAlpha(110);
    setIndicatorForegroundColor(find, FindIndicator);
    setIndicatorDrawUnder(true, FindIndicator);
}

void CodeEditor::updateLineNumberWidth() {
    // Room for the digits of the last line plus one, so the margin does not jump at 99->100.
    const int digits = std::max(3, int(QString::number(lines()).size()) + 1);
    setMarginWidth(kLineNumberMargin, QString(digits, QLatin1Char('9')));
}

void CodeEditor::setSourceLanguage(SourceLanguage language) {
    if (m_lexer->sourceLanguage() == language)
        return;
    m_lexer->setSourceLanguage(language);
    applyTheme(m_theme); // re-sets the lexer, so Scintilla reads the new keyword sets
}

SourceLanguage CodeEditor::sourceLanguage() const {
    return m_lexer->sourceLanguage();
}

void CodeEditor::applyTheme(const Theme& theme) {
    m_applyingTheme = true;
    m_theme = theme;
    const QFont font = m_font;
    m_lexer->applyTheme(theme, font);
    // Re-setting the lexer makes Scintilla pick up the new style colours at once.
    setLexer(m_lexer);
    setFont(font);
    setMarginsFont(font);
    setMarginsBackgroundColor(theme.lineNumberPaper);
    setMarginsForegroundColor(theme.lineNumberText);
    setFoldMarginColors(theme.lineNumberPaper, theme.lineNumberPaper);
    setCaretLineBackgroundColor(theme.currentLine);
    setCaretForegroundColor(theme.text);
    setSelectionBackgroundColor(theme.selection);
    setSelectionForegroundColor(theme.text);
    setMatchedBraceBackgroundColor(theme.braceMatch);
    setMatchedBraceForegroundColor(theme.text);
    setUnmatchedBraceBackgroundColor(theme.braceMismatch);
    setUnmatchedBraceForegroundColor(theme.text);
    setIndentationGuidesBackgroundColor(theme.paper);
    setIndentationGuidesForegroundColor(theme.lineNumberText);
    setPaper(theme.paper);
    setColor(theme.text);
    setUpMarkers();
    updateLineNumberWidth();
    // Annotations carry their style; show the current diagnostics in the new colours.
    if (!m_diagnostics.isEmpty()) {
        const QVector<Diagnostic> diagnostics = m_diagnostics;
        const QString file = diagnostics.first().file;
        setDiagnostics(diagnostics, file);
    }
    m_applyingTheme = false;
}

void CodeEditor::changeEvent(QEvent* event) {
    QsciScintilla::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && !m_applyingTheme) {
        const Theme next = Theme::forPalette(palette());
        if (next.dark != m_theme.dark)
            applyTheme(next);
    }
}

void CodeEditor::clearDiagnostics() {
    m_diagnostics.clear();
    markerDeleteAll(ErrorMarker);
    markerDeleteAll(WarningMarker);
    markerDeleteAll(NoteMarker);
    const int lastLine = std::max(0, lines() - 1);
    const int lastIndex = text(lastLine).size();
    for (int indicator : {ErrorIndicator, WarningIndicator, NoteIndicator})
        clearIndicatorRange(0, 0, lastLine, lastIndex, indicator);
    clearAnnotations();
}

void CodeEditor::setDiagnostics(const QVector<Diagnostic>& diagnostics, const QString& sourceName) {
    clearDiagnostics();
    const QFont annotationFont = [this] {
        QFont f = m_lexer->font(QsciLexerCPP::Default);
        f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1));
        return f;
    }();
    const QsciStyle styles[] = {
        QsciStyle(kErrorAnnotationStyle, tr("Error annotation"), m_theme.errorColor,
                  m_theme.errorPaper, annotationFont),
        QsciStyle(kWarningAnnotationStyle, tr("Warning annotation"), m_theme.warningColor,
                  m_theme.warningPaper, annotationFont),
        QsciStyle(kNoteAnnotationStyle, tr("Note annotation"), m_theme.text, m_theme.notePaper,
                  annotationFont),
    };

    // Several messages can share a line: annotate once with all of them, worst first.
    QMap<int, QVector<Diagnostic>> byLine;
    for (const Diagnostic& d : diagnostics) {
        if (d.file != sourceName || d.line <= 0)
            continue;
        m_diagnostics.append(d);
        const int line = std::min(d.line - 1, std::max(0, lines() - 1));
        byLine[line].append(d);
    }
    for (auto it = byLine.begin(); it != byLine.end(); ++it) {
        QVector<Diagnostic>& list = it.value();
        std::stable_sort(list.begin(), list.end(), [](const Diagnostic& a, const Diagnostic& b) {
            return rank(a.severity) < rank(b.severity);
        });
        QList<QsciStyledText> texts;
        for (int i = 0; i < list.size(); ++i) {
            const Diagnostic& d = list.at(i);
            markerAdd(it.key(), markerFor(d.severity));
            underline(d, it.key());
            QString line = QStringLiteral("%1: %2").arg(severityName(d.severity), d.message);
            if (i + 1 < list.size())
                line += QLatin1Char('\n');
            texts.append(QsciStyledText(line, styles[std::min(rank(d.severity), 2)]));
        }
        annotate(it.key(), texts);
    }
}

void CodeEditor::underline(const Diagnostic& diagnostic, int line) {
    const QString lineText = text(line);
    int length = int(lineText.size());
    while (length > 0 && (lineText.at(length - 1) == QLatin1Char('\n') ||
                          lineText.at(length - 1) == QLatin1Char('\r')))
        --length;
    int from = 0;
    int to = length;
    if (diagnostic.column > 0 && diagnostic.column - 1 < length) {
        // The whole word under the column (at least one character): EDG's caret can sit
        // inside an identifier, and half a word underlined reads as a different name.
        auto isWord = [](QChar c) { return c.isLetterOrNumber() || c == QLatin1Char('_'); };
        from = diagnostic.column - 1;
        while (from > 0 && isWord(lineText.at(from)) && isWord(lineText.at(from - 1)))
            --from;
        to = diagnostic.column - 1;
        while (to < length && isWord(lineText.at(to)))
            ++to;
        if (to == from)
            to = from + 1;
    } else {
        // The whole line, without its indentation.
        while (from < length && lineText.at(from).isSpace())
            ++from;
    }
    if (from >= to) {
        // An empty line: mark where the line is so the squiggle still shows somewhere.
        from = 0;
        to = std::min(1, length);
    }
    if (to > from)
        fillIndicatorRange(line, from, line, to, indicatorFor(diagnostic.severity));
}

void CodeEditor::goToLine(int line, int column) {
    const int l = std::clamp(line - 1, 0, std::max(0, lines() - 1));
    const int c = std::clamp(column - 1, 0, std::max(0, int(text(l).size())));
    ensureLineVisible(l);
    setCursorPosition(l, c);
    setFocus(Qt::OtherFocusReason);
}

void CodeEditor::toggleComment() {
    int lineFrom = 0, indexFrom = 0, lineTo = 0, indexTo = 0;
    const bool selection = hasSelectedText();
    if (selection) {
        getSelection(&lineFrom, &indexFrom, &lineTo, &indexTo);
        // A selection ending at column 0 does not include that line.
        if (lineTo > lineFrom && indexTo == 0)
            --lineTo;
    } else {
        getCursorPosition(&lineFrom, &indexFrom);
        lineTo = lineFrom;
    }

    static const QString kMarker = QStringLiteral("//");
    auto leadingSpaces = [](const QString& t) {
        int n = 0;
        while (n < t.size() && (t.at(n) == QLatin1Char(' ') || t.at(n) == QLatin1Char('\t')))
            ++n;
        return n;
    };
    bool allCommented = true;
    int minIndent = INT_MAX;
    for (int l = lineFrom; l <= lineTo; ++l) {
        const QString t = text(l);
        if (t.trimmed().isEmpty())
            continue;
        minIndent = std::min(minIndent, leadingSpaces(t));
        if (!t.mid(leadingSpaces(t)).startsWith(kMarker))
            allCommented = false;
    }
    if (minIndent == INT_MAX)
        return; // only blank lines: nothing to comment

    int cursorShift = 0;
    beginUndoAction();
    for (int l = lineFrom; l <= lineTo; ++l) {
        const QString t = text(l);
        if (t.trimmed().isEmpty())
            continue;
        if (allCommented) {
            const int at = leadingSpaces(t);
            int len = int(kMarker.size());
            if (at + len < t.size() && t.at(at + len) == QLatin1Char(' '))
                ++len;
            setSelection(l, at, l, at + len);
            removeSelectedText();
            if (l == lineFrom)
                cursorShift = -len;
        } else {
            insertAt(kMarker + QLatin1Char(' '), l, minIndent);
            if (l == lineFrom)
                cursorShift = int(kMarker.size()) + 1;
        }
    }
    endUndoAction();

    if (selection) {
        QString last = text(lineTo);
        while (last.endsWith(QLatin1Char('\n')) || last.endsWith(QLatin1Char('\r')))
            last.chop(1);
        setSelection(lineFrom, 0, lineTo, int(last.size()));
    } else {
        setCursorPosition(lineFrom, std::max(0, indexFrom + cursorShift));
    }
}

} // namespace kernelpad
