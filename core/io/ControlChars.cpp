#include "core/io/ControlChars.h"

namespace kernelpad {

namespace {

constexpr char16_t kDelete = 0x7f;
constexpr char16_t kFirstC1 = 0x80;
constexpr char16_t kLastC1 = 0x9f;
constexpr char16_t kLineSeparator = 0x2028;
constexpr char16_t kParagraphSeparator = 0x2029;

bool isControl(char16_t c) {
    return c < u' ' || c == kDelete || (c >= kFirstC1 && c <= kLastC1) || c == kLineSeparator ||
           c == kParagraphSeparator;
}

/// "000A": four upper-case hex digits, as code points are written.
QString hexCode(char16_t c) {
    return QStringLiteral("%1").arg(int(c), 4, 16, QLatin1Char('0')).toUpper();
}

} // namespace

qsizetype findControlCharacter(const QString& text) {
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (isControl(text.at(i).unicode()))
            return i;
    }
    return -1;
}

QString controlCharacterError(const QString& field, const QString& text) {
    const qsizetype at = findControlCharacter(text);
    if (at < 0)
        return {};
    return QStringLiteral("%1: must not contain a control character (U+%2 at position %3)")
        .arg(field, hexCode(text.at(at).unicode()))
        .arg(at + 1);
}

QString escapeControlCharacters(const QString& text) {
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        if (isControl(c.unicode()))
            out += QStringLiteral("\\u") + hexCode(c.unicode());
        else
            out += c;
    }
    return out;
}

} // namespace kernelpad
