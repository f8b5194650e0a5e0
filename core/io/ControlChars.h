#pragma once
// Names from untrusted files (a downloaded .kpad) end up in file names, NVRTC's command line and
// log lines; a control character there can forge a line (a newline plus a shell command in the
// first column of NVRTC's --time file) or hide text. Every loader refuses them with these.

#include <QString>

namespace kernelpad {

/// Index of the first control character in `text`, or -1: C0 (below U+0020), DEL, C1
/// (U+0080..U+009F, which holds NEL, a line break to some readers) and the Unicode line and
/// paragraph separators U+2028/U+2029.
[[nodiscard]] qsizetype findControlCharacter(const QString& text);

/// Empty when `text` has no control character, else "`field`: must not contain a control
/// character (U+000A at position 4)" with a 1-based position.
[[nodiscard]] QString controlCharacterError(const QString& field, const QString& text);

/// `text` with each control character written as \uXXXX, so a message can quote the value
/// without carrying the character itself into a log line.
[[nodiscard]] QString escapeControlCharacters(const QString& text);

} // namespace kernelpad
