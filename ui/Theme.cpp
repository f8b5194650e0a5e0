#include "ui/Theme.h"

#include <QApplication>
#include <QFontDatabase>

namespace kernelpad {

namespace {
// Lightness (HSL, 0..255) below which a window colour reads as a dark theme.
constexpr int kDarkLightnessThreshold = 128;
} // namespace

bool Theme::isDarkPalette(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < kDarkLightnessThreshold;
}

Theme Theme::forPalette(const QPalette& palette) {
    return isDarkPalette(palette) ? darkTheme() : light();
}

Theme Theme::current() {
    return forPalette(QApplication::palette());
}

Theme Theme::light() {
    Theme t;
    t.dark = false;
    t.paper = QColor(0xff, 0xff, 0xff);
    t.text = QColor(0x1f, 0x23, 0x28);
    t.lineNumberPaper = QColor(0xf3, 0xf4, 0xf6);
    t.lineNumberText = QColor(0x8a, 0x91, 0x99);
    t.currentLine = QColor(0xf4, 0xf7, 0xfb);
    t.selection = QColor(0xc8, 0xdd, 0xf7);
    t.comment = QColor(0x6a, 0x73, 0x7d);
    t.keyword = QColor(0xa6, 0x26, 0xa4);
    t.cudaKeyword = QColor(0x00, 0x6e, 0x3c); // NVIDIA-ish green, readable on white
    t.number = QColor(0x98, 0x68, 0x01);
    t.string = QColor(0x0a, 0x7e, 0x2f);
    t.preprocessor = QColor(0x4b, 0x69, 0xc6);
    t.operatorColor = QColor(0x38, 0x3a, 0x42);
    t.type = QColor(0x01, 0x5c, 0xc5);
    t.braceMatch = QColor(0xd7, 0xf0, 0xd0);
    t.braceMismatch = QColor(0xf8, 0xc8, 0xc8);
    t.errorColor = QColor(0xd1, 0x24, 0x2f);
    t.warningColor = QColor(0xbf, 0x87, 0x00);
    t.noteColor = QColor(0x09, 0x69, 0xda);
    t.errorPaper = QColor(0xff, 0xeb, 0xe9);
    t.warningPaper = QColor(0xff, 0xf8, 0xc5);
    t.notePaper = QColor(0xdd, 0xf4, 0xff);
    t.bannerPaper = QColor(0xff, 0xf8, 0xc5);
    t.bannerText = QColor(0x4d, 0x3b, 0x00);
    t.findMatch = QColor(0xff, 0xd3, 0x3d);
    return t;
}

Theme Theme::darkTheme() {
    Theme t;
    t.dark = true;
    t.paper = QColor(0x1e, 0x1f, 0x22);
    t.text = QColor(0xdc, 0xdf, 0xe4);
    t.lineNumberPaper = QColor(0x25, 0x27, 0x2b);
    t.lineNumberText = QColor(0x6e, 0x76, 0x81);
    t.currentLine = QColor(0x2a, 0x2d, 0x32);
    t.selection = QColor(0x26, 0x4f, 0x78);
    t.comment = QColor(0x7f, 0x84, 0x8e);
    t.keyword = QColor(0xc6, 0x78, 0xdd);
    t.cudaKeyword = QColor(0x76, 0xb9, 0x00); // NVIDIA green
    t.number = QColor(0xd1, 0x9a, 0x66);
    t.string = QColor(0x98, 0xc3, 0x79);
    t.preprocessor = QColor(0x61, 0xaf, 0xef);
    t.operatorColor = QColor(0xab, 0xb2, 0xbf);
    t.type = QColor(0xe5, 0xc0, 0x7b);
    t.braceMatch = QColor(0x3b, 0x51, 0x4d);
    t.braceMismatch = QColor(0x6b, 0x2b, 0x2b);
    t.errorColor = QColor(0xf8, 0x51, 0x49);
    t.warningColor = QColor(0xd2, 0x99, 0x22);
    t.noteColor = QColor(0x58, 0xa6, 0xff);
    t.errorPaper = QColor(0x4a, 0x1f, 0x22);
    t.warningPaper = QColor(0x45, 0x3a, 0x14);
    t.notePaper = QColor(0x1a, 0x33, 0x4d);
    t.bannerPaper = QColor(0x45, 0x3a, 0x14);
    t.bannerText = QColor(0xf2, 0xe3, 0xb3);
    t.findMatch = QColor(0x8a, 0x6d, 0x00);
    return t;
}

QFont monospaceFont(int pointSize) {
    static const QString kPreferred = QStringLiteral("DejaVu Sans Mono");
    QFont font;
    if (QFontDatabase::families().contains(kPreferred)) {
        font = QFont(kPreferred);
    } else {
        font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    }
    font.setStyleHint(QFont::Monospace);
    font.setFixedPitch(true);
    font.setPointSize(pointSize);
    return font;
}

} // namespace kernelpad
