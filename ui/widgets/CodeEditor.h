#pragma once
// The kernel source editor: QScintilla with CUDA highlighting and NVRTC diagnostics in place.

#include "core/compile/CompileResult.h"
#include "ui/Theme.h"

#include <Qsci/qsciscintilla.h>

#include <QVector>

class QAction;

namespace kernelpad {

class CudaLexer;

/// QsciScintilla set up for CUDA: line numbers, folding, brace matching, auto-indent,
/// current-line highlight, a monospace font, themes, toggle comment and diagnostics shown
/// as margin markers, underlines and inline annotations.
class CodeEditor : public QsciScintilla {
    Q_OBJECT
public:
    /// Marker numbers in the symbol margin (Scintilla reserves 25..31 for folding).
    enum Marker { ErrorMarker = 1, WarningMarker = 2, NoteMarker = 3 };
    /// Container indicators (0..7 belong to lexers).
    enum Indicator {
        ErrorIndicator = 8,
        WarningIndicator = 9,
        NoteIndicator = 10,
        FindIndicator = 11
    };

    explicit CodeEditor(QWidget* parent = nullptr);
    ~CodeEditor() override;

    /// Shows the diagnostics of `sourceName` (others are ignored) in place, replacing any
    /// shown before. Lines and columns are 1-based as NVRTC reports them.
    void setDiagnostics(const QVector<Diagnostic>& diagnostics, const QString& sourceName);
    void clearDiagnostics();
    /// The diagnostics currently shown (those that matched the source name).
    [[nodiscard]] const QVector<Diagnostic>& diagnostics() const { return m_diagnostics; }

    /// Comments out the selected lines (or the current one) with "// ", or uncomments them
    /// when every non-blank line is already commented. One undo step.
    void toggleComment();
    /// Moves the cursor to a 1-based line and column and shows it.
    void goToLine(int line, int column = 0);

    /// Highlights the source as CUDA C++, PTX or NVVM IR (the project's language).
    void setSourceLanguage(SourceLanguage language);
    [[nodiscard]] SourceLanguage sourceLanguage() const;

    /// Re-colours the editor for `theme` (called on palette changes too).
    void applyTheme(const Theme& theme);
    /// The font of the text and the margins (Preferences; followed when they change).
    void setEditorFont(const QFont& font);
    [[nodiscard]] QFont editorFont() const { return m_font; }
    [[nodiscard]] const Theme& theme() const { return m_theme; }

    /// The Ctrl+/ action, to be listed in the Edit menu.
    [[nodiscard]] QAction* toggleCommentAction() const { return m_toggleCommentAction; }
    /// View ▸ Zoom: Ctrl++ (and Ctrl+=), Ctrl+- and Ctrl+0, anywhere in the window.
    [[nodiscard]] QAction* zoomInAction() const { return m_zoomInAction; }
    [[nodiscard]] QAction* zoomOutAction() const { return m_zoomOutAction; }
    [[nodiscard]] QAction* zoomResetAction() const { return m_zoomResetAction; }
    /// Scintilla's zoom: points added to every style's size (0 = the theme's size).
    [[nodiscard]] int zoomLevel() const;
    [[nodiscard]] CudaLexer* cudaLexer() const { return m_lexer; }
    /// The completion list's selected word (UTF-8); empty when no list is open.
    [[nodiscard]] QByteArray completionSelection() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void setUpMargins();
    void setUpMarkers();
    void setUpZoom();
    void underline(const Diagnostic& diagnostic, int line);
    void updateLineNumberWidth();

    CudaLexer* m_lexer = nullptr;
    QAction* m_toggleCommentAction = nullptr;
    QAction* m_zoomInAction = nullptr;
    QAction* m_zoomOutAction = nullptr;
    QAction* m_zoomResetAction = nullptr;
    Theme m_theme;
    QFont m_font; ///< Preferences::editorFont(), set before the first applyTheme()
    QVector<Diagnostic> m_diagnostics;
    bool m_applyingTheme = false;
};

} // namespace kernelpad
