#pragma once
// Light and dark colour schemes for the editor and the views, chosen from the application
// palette so that KernelPad follows the desktop's theme.

#include <QColor>
#include <QFont>
#include <QPalette>

namespace kernelpad {

/// The colours the editor, the PTX view and the banners use; one set per theme.
struct Theme {
    bool dark = false;
    QColor paper, text, lineNumberPaper, lineNumberText, currentLine, selection;
    QColor comment, keyword, cudaKeyword, number, string, preprocessor, operatorColor, type;
    QColor braceMatch, braceMismatch;
    QColor errorColor, warningColor, noteColor; ///< markers, underlines, list icons
    QColor errorPaper, warningPaper, notePaper; ///< inline annotation backgrounds
    QColor bannerPaper, bannerText;             ///< the compile-only banner
    QColor findMatch;                           ///< find bar highlights

    /// Dark when the palette's window colour is dark (lightness below the middle).
    [[nodiscard]] static bool isDarkPalette(const QPalette& palette);
    /// The theme for `palette` (QApplication::palette() by default).
    [[nodiscard]] static Theme forPalette(const QPalette& palette);
    [[nodiscard]] static Theme current();
    [[nodiscard]] static Theme light();
    [[nodiscard]] static Theme darkTheme();
};

/// The editor's monospace font: DejaVu Sans Mono where installed, else the system's fixed font.
[[nodiscard]] QFont monospaceFont(int pointSize = 10);

} // namespace kernelpad
