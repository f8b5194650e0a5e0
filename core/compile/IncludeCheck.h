#pragma once
// Finds every place a source may name a file for the preprocessor: KernelPad resolves and
// reads each such header itself (IncludeResolver.h) and NVRTC opens none, so this scan must
// find at least every directive NVRTC acts on, whatever its spelling. It is a superset on
// purpose: directives in comments and strings are reported too, since a scan that disagrees
// with NVRTC's lexer about where a comment ends would otherwise miss a real one.

#include <QString>
#include <QVector>

namespace kernelpad {

/// One include directive, __has_include or #embed of a text, or something that looks like one.
struct IncludeDirective {
    enum class Kind {
        Quoted,   ///< "name"
        Angled,   ///< <name>
        Computed, ///< a macro names the file: unknown before preprocessing
        Malformed ///< no readable name
    };
    Kind kind = Kind::Malformed;
    QString name;             ///< without its quotes or brackets
    QString keyword;          ///< "#include", "#include_next", "#import", "#embed", "__has_include"
    int line = 0;             ///< 1-based physical line of the keyword
    int column = 1;           ///< 1-based column of the name on its line, where it is known
    bool atLineStart = false; ///< only white space and comments before the '#' on its line
    /// Where the name (without its quotes or brackets) is in the text as given, or -1 when it
    /// is not there letter for letter (a line splice or a trigraph inside it).
    qsizetype nameOffset = -1;

    /// `#include <name>` as written, for messages.
    [[nodiscard]] QString spelled() const;
    /// One NVRTC may act on: a '#' directive at a line's start (a "#include" in prose after
    /// code or "//" is not one), and every __has_include.
    [[nodiscard]] bool mayBeReal() const {
        return atLineStart || keyword.startsWith(QLatin1String("__has_"));
    }
};

/// Every directive candidate of `text`: `#`, the digraph `%:` and the trigraph `??=` (scanned
/// with and without trigraphs replaced), white space, line splices (backslash, optional
/// blanks, newline) and /* */ comments (across lines) between the `#` and the keyword and
/// between the keyword and the name; `__has_include(...)` and `__has_embed(...)` anywhere.
/// Linear in the text's length. Ordered by position in the text of each pass.
[[nodiscard]] QVector<IncludeDirective> scanIncludeDirectives(const QString& text);

/// PATH_MAX on Linux: a longer header name cannot name a file.
inline constexpr qsizetype kMaxHeaderNameLength = 4096;

} // namespace kernelpad
