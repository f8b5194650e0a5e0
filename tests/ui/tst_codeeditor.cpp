// The kernel editor: typing, CUDA highlighting, diagnostics in place, toggle comment and
// find/replace.

#include "../support/TestMain.h"
#include "ui/Theme.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompletionWords.h"
#include "ui/widgets/CudaLexer.h"
#include "ui/widgets/FindReplaceBar.h"

#include <Qsci/qscilexercpp.h>

#include <QApplication>
#include <QtTest>

namespace tst_codeeditor {

using namespace kernelpad;

namespace {

Diagnostic diag(int line, int column, Diagnostic::Severity severity, const QString& message,
                const QString& file = QStringLiteral("kernel.cu")) {
    Diagnostic d;
    d.file = file;
    d.line = line;
    d.column = column;
    d.severity = severity;
    d.message = message;
    return d;
}

int styleAt(CodeEditor& editor, int line, int index) {
    const long pos = editor.positionFromLineIndex(line, index);
    return int(editor.SendScintilla(QsciScintillaBase::SCI_GETSTYLEAT, pos));
}

bool indicatorAt(CodeEditor& editor, int indicator, int line, int index) {
    const long pos = editor.positionFromLineIndex(line, index);
    return editor.SendScintilla(QsciScintillaBase::SCI_INDICATORVALUEAT, indicator, pos) != 0;
}

const QString kSource =
    QStringLiteral("extern \"C\" __global__ void saxpy(float a, const float* x, float* y, int n)\n"
                   "{\n"
                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    if (i < n)\n"
                   "        y[i] = a * x[i] + y[i];\n"
                   "}\n");

} // namespace

class TestCodeEditor : public QObject {
    Q_OBJECT
private slots:
    void typing_data();
    void typing();
    void highlighting_data();
    void highlighting();
    void autoIndent();
    void diagnostics_data();
    void diagnostics();
    void diagnosticsClearedOnNextCompile();
    void severalDiagnosticsOnOneLine();
    void toggleComment_data();
    void toggleComment();
    void toggleCommentShortcut();
    void toggleCommentIsOneUndoStep();
    void find_data();
    void find();
    void replaceAll_data();
    void replaceAll();
    void replaceAllIsOneUndoStep();
    void findPreviousWraps();
    void themeFollowsPalette_data();
    void themeFollowsPalette();
    void completionWords_data();
    void completionWords();
    void completionNeverOffersTheTypedWord();
};

void TestCodeEditor::typing_data() {
    QTest::addColumn<QString>("typed");
    QTest::newRow("plain kernel line") << QStringLiteral("__global__ void k(int* p) { p[0] = 1; }");
    QTest::newRow("comment and string") << QStringLiteral("// printf(\"%d\\n\", i);");
}

void TestCodeEditor::typing() {
    QFETCH(QString, typed);
    CodeEditor editor;
    editor.setAutoCompletionSource(QsciScintilla::AcsNone); // no popup while typing
    editor.setBraceMatching(QsciScintilla::NoBraceMatch);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    QTest::keyClicks(&editor, typed);
    QCOMPARE(editor.text(), typed);
    QVERIFY(editor.isModified());
}

void TestCodeEditor::highlighting_data() {
    QTest::addColumn<QString>("word");
    QTest::addColumn<int>("expectedStyle");
    QTest::newRow("__global__ is CUDA") << "__global__" << int(QsciLexerCPP::KeywordSet2);
    QTest::newRow("threadIdx is CUDA") << "threadIdx" << int(QsciLexerCPP::KeywordSet2);
    QTest::newRow("__shfl_down_sync is CUDA")
        << "__shfl_down_sync" << int(QsciLexerCPP::KeywordSet2);
    QTest::newRow("__nv_bfloat16 is CUDA") << "__nv_bfloat16" << int(QsciLexerCPP::KeywordSet2);
    QTest::newRow("float4 is CUDA") << "float4" << int(QsciLexerCPP::KeywordSet2);
    QTest::newRow("int is C++") << "int" << int(QsciLexerCPP::Keyword);
    QTest::newRow("my_name is plain") << "my_name" << int(QsciLexerCPP::Identifier);
}

void TestCodeEditor::highlighting() {
    QFETCH(QString, word);
    QFETCH(int, expectedStyle);
    CodeEditor editor;
    editor.setText(QStringLiteral("x ") + word + QStringLiteral(" y\n"));
    // Scintilla styles lazily; ask it to style the whole (short) document now.
    editor.SendScintilla(QsciScintillaBase::SCI_COLOURISE, 0, -1);
    QCOMPARE(styleAt(editor, 0, 2), expectedStyle);
    QCOMPARE(styleAt(editor, 0, 2 + int(word.size()) - 1), expectedStyle);
    QVERIFY(CudaLexer::cudaKeywords().contains(QStringLiteral("__syncthreads")));
}

void TestCodeEditor::autoIndent() {
    CodeEditor editor;
    editor.setAutoCompletionSource(QsciScintilla::AcsNone);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    QTest::keyClicks(&editor, QStringLiteral("    int a;"));
    QTest::keyClick(&editor, Qt::Key_Return);
    QTest::keyClicks(&editor, QStringLiteral("b"));
    QCOMPARE(editor.text(1), QStringLiteral("    b"));
}

void TestCodeEditor::diagnostics_data() {
    QTest::addColumn<Diagnostic>("diagnostic");
    QTest::addColumn<int>("markerLine"); // 0-based, -1: not in the editor
    QTest::addColumn<int>("marker");
    QTest::addColumn<int>("underlinedFrom"); // index on the line
    QTest::addColumn<int>("underlinedTo");   // exclusive
    QTest::addColumn<int>("indicator");

    QTest::newRow("error with column underlines the word")
        << diag(3, 14, Diagnostic::Severity::Error,
                QStringLiteral("identifier \"blockIdx\" is wrong"))
        << 2 << int(CodeEditor::ErrorMarker) << 12 << 20 << int(CodeEditor::ErrorIndicator);
    QTest::newRow("warning without column underlines the line")
        << diag(4, 0, Diagnostic::Severity::Warning, QStringLiteral("comparison of int")) << 3
        << int(CodeEditor::WarningMarker) << 4 << 14 << int(CodeEditor::WarningIndicator);
    QTest::newRow("note on the first line")
        << diag(1, 1, Diagnostic::Severity::Note, QStringLiteral("declared here")) << 0
        << int(CodeEditor::NoteMarker) << 0 << 6 << int(CodeEditor::NoteIndicator);
    QTest::newRow("line past the end goes to the last line")
        << diag(99, 0, Diagnostic::Severity::Error, QStringLiteral("expected a }")) << 6
        << int(CodeEditor::ErrorMarker) << -1 << -1 << int(CodeEditor::ErrorIndicator);
    QTest::newRow("another file stays out of the editor")
        << diag(3, 5, Diagnostic::Severity::Error, QStringLiteral("in a header"),
                QStringLiteral("cuda_fp16.h"))
        << -1 << int(CodeEditor::ErrorMarker) << -1 << -1 << int(CodeEditor::ErrorIndicator);
}

void TestCodeEditor::diagnostics() {
    QFETCH(Diagnostic, diagnostic);
    QFETCH(int, markerLine);
    QFETCH(int, marker);
    QFETCH(int, underlinedFrom);
    QFETCH(int, underlinedTo);
    QFETCH(int, indicator);

    CodeEditor editor;
    editor.setText(kSource);
    editor.setDiagnostics({diagnostic}, QStringLiteral("kernel.cu"));

    for (int line = 0; line < editor.lines(); ++line) {
        const bool expected = line == markerLine;
        QCOMPARE(bool(editor.markersAtLine(line) & (1u << marker)), expected);
        QCOMPARE(editor.annotation(line).contains(diagnostic.message), expected);
    }
    QCOMPARE(editor.diagnostics().size(), markerLine < 0 ? 0 : 1);
    if (underlinedFrom >= 0) {
        QVERIFY(indicatorAt(editor, indicator, markerLine, underlinedFrom));
        QVERIFY(indicatorAt(editor, indicator, markerLine, underlinedTo - 1));
        QVERIFY(!indicatorAt(editor, indicator, markerLine, underlinedTo));
        if (underlinedFrom > 0)
            QVERIFY(!indicatorAt(editor, indicator, markerLine, underlinedFrom - 1));
    }
}

void TestCodeEditor::diagnosticsClearedOnNextCompile() {
    CodeEditor editor;
    editor.setText(kSource);
    editor.setDiagnostics({diag(3, 0, Diagnostic::Severity::Error, QStringLiteral("bad"))},
                          QStringLiteral("kernel.cu"));
    QVERIFY(editor.markersAtLine(2) != 0);
    editor.setDiagnostics({diag(5, 0, Diagnostic::Severity::Warning, QStringLiteral("meh"))},
                          QStringLiteral("kernel.cu"));
    QCOMPARE(editor.markersAtLine(2), 0u);
    QVERIFY(editor.annotation(2).isEmpty());
    QVERIFY(!indicatorAt(editor, CodeEditor::ErrorIndicator, 2, 6));
    QVERIFY(editor.markersAtLine(4) & (1u << CodeEditor::WarningMarker));
    editor.setDiagnostics({}, QStringLiteral("kernel.cu"));
    QCOMPARE(editor.markersAtLine(4), 0u);
    QVERIFY(editor.annotation(4).isEmpty());
}

void TestCodeEditor::severalDiagnosticsOnOneLine() {
    CodeEditor editor;
    editor.setText(kSource);
    editor.setDiagnostics({diag(3, 0, Diagnostic::Severity::Warning, QStringLiteral("first")),
                           diag(3, 9, Diagnostic::Severity::Error, QStringLiteral("second"))},
                          QStringLiteral("kernel.cu"));
    const unsigned markers = editor.markersAtLine(2);
    QVERIFY(markers & (1u << CodeEditor::ErrorMarker));
    QVERIFY(markers & (1u << CodeEditor::WarningMarker));
    const QString annotation = editor.annotation(2);
    // The error comes first: it is what stops the build.
    QVERIFY(annotation.indexOf(QStringLiteral("second")) >= 0);
    QVERIFY(annotation.indexOf(QStringLiteral("second")) <
            annotation.indexOf(QStringLiteral("first")));
}

void TestCodeEditor::toggleComment_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("lineFrom");
    QTest::addColumn<int>("lineTo"); // == lineFrom: no selection, cursor on the line
    QTest::addColumn<QString>("expected");
    // Toggling twice gives the text back only when it was written the way toggleComment
    // writes it ("// " at the smallest indent); otherwise the second toggle normalises it.
    QTest::addColumn<QString>("toggledTwice");

    QTest::newRow("comment the cursor line") << "int a;\nint b;\n"
                                             << 1 << 1 << "int a;\n// int b;\n"
                                             << "int a;\nint b;\n";
    QTest::newRow("uncomment the cursor line") << "int a;\n// int b;\n"
                                               << 1 << 1 << "int a;\nint b;\n"
                                               << "int a;\n// int b;\n";
    QTest::newRow("selection at the smallest indent, blank lines kept")
        << "{\n    a();\n\n        b();\n}\n"
        << 1 << 3 << "{\n    // a();\n\n    //     b();\n}\n"
        << "{\n    a();\n\n        b();\n}\n";
    QTest::newRow("mixed selection comments everything") << "// a();\nb();\n"
                                                         << 0 << 1 << "// // a();\n// b();\n"
                                                         << "// a();\nb();\n";
    QTest::newRow("all commented selection uncomments") << "  // a();\n  //b();\n"
                                                        << 0 << 1 << "  a();\n  b();\n"
                                                        << "  // a();\n  // b();\n";
}

void TestCodeEditor::toggleComment() {
    QFETCH(QString, text);
    QFETCH(int, lineFrom);
    QFETCH(int, lineTo);
    QFETCH(QString, expected);
    QFETCH(QString, toggledTwice);
    CodeEditor editor;
    editor.setText(text);
    if (lineFrom == lineTo)
        editor.setCursorPosition(lineFrom, 0);
    else
        editor.setSelection(lineFrom, 0, lineTo, int(editor.text(lineTo).size()) - 1);
    editor.toggleComment();
    QCOMPARE(editor.text(), expected);
    editor.toggleComment();
    QCOMPARE(editor.text(), toggledTwice);
}

void TestCodeEditor::toggleCommentShortcut() {
    CodeEditor editor;
    editor.setText(QStringLiteral("int a;\n"));
    editor.show();
    editor.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    editor.setFocus();
    QTest::keyClick(&editor, Qt::Key_Slash, Qt::ControlModifier);
    QCOMPARE(editor.text(), QStringLiteral("// int a;\n"));
}

void TestCodeEditor::toggleCommentIsOneUndoStep() {
    CodeEditor editor;
    editor.setText(QStringLiteral("a;\nb;\nc;\n"));
    editor.setSelection(0, 0, 2, 2);
    editor.toggleComment();
    QCOMPARE(editor.text(), QStringLiteral("// a;\n// b;\n// c;\n"));
    editor.undo();
    QCOMPARE(editor.text(), QStringLiteral("a;\nb;\nc;\n"));
}

void TestCodeEditor::find_data() {
    QTest::addColumn<QString>("needle");
    QTest::addColumn<bool>("matchCase");
    QTest::addColumn<bool>("wholeWord");
    QTest::addColumn<bool>("regex");
    QTest::addColumn<int>("matches");

    // blockIdx and threadIdx; blockDim does not match.
    QTest::newRow("plain, any case") << "IDX" << false << false << false << 2;
    QTest::newRow("case sensitive") << "Idx" << true << false << false << 2;
    QTest::newRow("case sensitive rejects other case") << "idx" << true << false << false << 0;
    // extern, const, int (twice) and the parameter n (twice).
    QTest::newRow("plain substring counts inside words") << "n" << false << false << false << 6;
    QTest::newRow("whole word") << "i" << true << true << false << 5;
    QTest::newRow("regex over indexing") << "[xy]\\[i\\]" << true << false << true << 3;
    QTest::newRow("absent") << "__shared__" << false << false << false << 0;
}

void TestCodeEditor::find() {
    QFETCH(QString, needle);
    QFETCH(bool, matchCase);
    QFETCH(bool, wholeWord);
    QFETCH(bool, regex);
    QFETCH(int, matches);
    CodeEditor editor;
    editor.setText(kSource);
    FindReplaceBar bar(&editor);
    bar.setFindText(needle);
    bar.setCaseSensitive(matchCase);
    bar.setWholeWord(wholeWord);
    bar.setRegularExpression(regex);
    QCOMPARE(bar.matchCount(), matches);
    editor.setCursorPosition(0, 0);
    QCOMPARE(bar.findNext(), matches > 0);
    if (matches > 0) {
        const QString selected = editor.selectedText();
        QVERIFY(!selected.isEmpty());
        if (!regex)
            QCOMPARE(selected.compare(needle, matchCase ? Qt::CaseSensitive : Qt::CaseInsensitive),
                     0);
        // Walking forward visits every match and comes back to the first.
        int first = 0, dummy = 0;
        editor.getSelection(&dummy, &first, &dummy, &dummy);
        int firstLine = 0;
        editor.getSelection(&firstLine, &dummy, &dummy, &dummy);
        for (int i = 0; i < matches; ++i)
            QVERIFY(bar.findNext());
        int line = 0, index = 0;
        editor.getSelection(&line, &index, &dummy, &dummy);
        QCOMPARE(line, firstLine);
        QCOMPARE(index, first);
    }
}

void TestCodeEditor::replaceAll_data() {
    QTest::addColumn<QString>("needle");
    QTest::addColumn<QString>("replacement");
    QTest::addColumn<bool>("wholeWord");
    QTest::addColumn<bool>("regex");
    QTest::addColumn<int>("replaced");
    QTest::addColumn<QString>("expected");

    const QString text = QStringLiteral("x = xs[x] + x;\n");
    QTest::newRow("plain") << "x"
                           << "yy" << false << false << 4 << "yy = yys[yy] + yy;\n";
    QTest::newRow("whole word keeps xs") << "x"
                                         << "i" << true << false << 3 << "i = xs[i] + i;\n";
    QTest::newRow("replacement containing the needle")
        << "x"
        << "xx" << true << false << 3 << "xx = xs[xx] + xx;\n";
    QTest::newRow("regex with a group") << "xs\\[(\\w)\\]"
                                        << "at(\\1)" << false << true << 1 << "x = at(x) + x;\n";
}

void TestCodeEditor::replaceAll() {
    QFETCH(QString, needle);
    QFETCH(QString, replacement);
    QFETCH(bool, wholeWord);
    QFETCH(bool, regex);
    QFETCH(int, replaced);
    QFETCH(QString, expected);
    CodeEditor editor;
    editor.setText(QStringLiteral("x = xs[x] + x;\n"));
    FindReplaceBar bar(&editor);
    bar.setFindText(needle);
    bar.setReplaceText(replacement);
    bar.setCaseSensitive(true);
    bar.setWholeWord(wholeWord);
    bar.setRegularExpression(regex);
    QCOMPARE(bar.replaceAll(), replaced);
    QCOMPARE(editor.text(), expected);
}

void TestCodeEditor::replaceAllIsOneUndoStep() {
    CodeEditor editor;
    editor.setText(kSource);
    FindReplaceBar bar(&editor);
    bar.setFindText(QStringLiteral("float"));
    bar.setReplaceText(QStringLiteral("double"));
    QCOMPARE(bar.replaceAll(), 3);
    QVERIFY(!editor.text().contains(QStringLiteral("float")));
    editor.undo();
    QCOMPARE(editor.text(), kSource);
}

void TestCodeEditor::findPreviousWraps() {
    CodeEditor editor;
    editor.setText(QStringLiteral("a b a b a\n"));
    FindReplaceBar bar(&editor);
    bar.setFindText(QStringLiteral("a"));
    editor.setCursorPosition(0, 0);
    QVERIFY(bar.findPrevious()); // nothing before the start: wraps to the last "a"
    int line = 0, index = 0, lineTo = 0, indexTo = 0;
    editor.getSelection(&line, &index, &lineTo, &indexTo);
    QCOMPARE(index, 8);
    QVERIFY(bar.findPrevious());
    editor.getSelection(&line, &index, &lineTo, &indexTo);
    QCOMPARE(index, 4);
}

void TestCodeEditor::themeFollowsPalette_data() {
    QTest::addColumn<QColor>("window");
    QTest::addColumn<bool>("dark");
    QTest::newRow("light window") << QColor(0xef, 0xef, 0xef) << false;
    QTest::newRow("dark window") << QColor(0x2b, 0x2b, 0x2b) << true;
    QTest::newRow("mid grey counts as light") << QColor(0x90, 0x90, 0x90) << false;
}

void TestCodeEditor::themeFollowsPalette() {
    QFETCH(QColor, window);
    QFETCH(bool, dark);
    QPalette palette;
    palette.setColor(QPalette::Window, window);
    QCOMPARE(Theme::isDarkPalette(palette), dark);

    CodeEditor editor;
    editor.applyTheme(Theme::forPalette(palette));
    QCOMPARE(editor.theme().dark, dark);
    // QsciScintilla::paper() is the colour used without a lexer; with the CUDA lexer the
    // background Scintilla paints is the default style's, so ask Scintilla for that.
    const long bgr =
        editor.SendScintilla(QsciScintillaBase::SCI_STYLEGETBACK, QsciScintillaBase::STYLE_DEFAULT);
    const QColor paper(int(bgr & 0xff), int((bgr >> 8) & 0xff), int((bgr >> 16) & 0xff));
    QCOMPARE(paper.lightness() < 128, dark);
    QCOMPARE(paper, editor.theme().paper);
}

void TestCodeEditor::completionWords_data() {
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QString>("current");
    QTest::addColumn<QStringList>("expected");
    const QString text = QStringLiteral("float a; float4 b; floaty c; int n; flo");
    QTest::newRow("typing flo offers the longer words")
        << "flo"
        << "flo" << QStringList{"float", "float4", "floaty"};
    QTest::newRow("typed float: not float itself") << "float"
                                                   << "float" << QStringList{"float4", "floaty"};
    QTest::newRow("typed float4: nothing longer") << "float4"
                                                  << "float4" << QStringList{};
    QTest::newRow("caret inside floaty: not floaty") << "flo"
                                                     << "floaty" << QStringList{"float", "float4"};
    QTest::newRow("case matters") << "Flo"
                                  << "Flo" << QStringList{};
}

void TestCodeEditor::completionWords() {
    QFETCH(QString, prefix);
    QFETCH(QString, current);
    QFETCH(QStringList, expected);
    const QString text = QStringLiteral("float a; float4 b; floaty c; int n; flo");
    QCOMPARE(CompletionWords::completions(text, prefix, current), expected);
}

// The completion popup offered exactly the word just typed, so Enter went to the
// popup instead of starting a new line.
void TestCodeEditor::completionNeverOffersTheTypedWord() {
    CodeEditor editor;
    editor.setBraceMatching(QsciScintilla::NoBraceMatch);
    editor.setText(QStringLiteral("int count; float4 v; float x;\n"));
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    editor.setCursorPosition(1, 0);
    QTest::keyClicks(&editor, QStringLiteral("flo"));
    QVERIFY(editor.isListActive()); // "float" and "float4" continue it
    QTest::keyClicks(&editor, QStringLiteral("at"));
    // float is typed: the list may offer float4, never float itself.
    QVERIFY(!editor.isListActive() || editor.completionSelection() == "float4");
    QTest::keyClicks(&editor, QStringLiteral("4"));
    QVERIFY(!editor.isListActive()); // nothing but the typed word was left
    QTest::keyClick(&editor, Qt::Key_Return);
    QCOMPARE(editor.text(1), QStringLiteral("float4\n"));

    // A word typed in full where another occurrence exists: no list of just that word.
    QTest::keyClicks(&editor, QStringLiteral("count"));
    QVERIFY(!editor.isListActive() || editor.completionSelection() != "count");
    QCOMPARE(editor.text(2), QStringLiteral("count"));
}

KERNELPAD_TEST_MAIN(TestCodeEditor)
} // namespace tst_codeeditor
#include "tst_codeeditor.moc"
