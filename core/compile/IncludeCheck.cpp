#include "core/compile/IncludeCheck.h"

#include "core/io/SafeFile.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QVector>

namespace kernelpad {

namespace {

/// PATH_MAX on Linux: a longer header name cannot name a file.
constexpr qsizetype kMaxHeaderNameLength = 4096;

/// One include directive (or __has_include) of a text.
struct Directive {
    int line = 0;   ///< 1-based physical line where the logical line starts
    int column = 0; ///< 1-based column of the header name, 1 when it is past a line splice
    enum class Kind { Quoted, Angled, Computed, Malformed } kind = Kind::Malformed;
    QString name;      ///< the header name without its quotes or brackets
    QString keyword;   ///< "#include", "#include_next", "__has_include", for messages
    qsizetype end = 0; ///< index just past the header name in the text it was read from

    /// `#include <name>` as written, for messages.
    [[nodiscard]] QString spelled() const {
        const QString quoted = kind == Kind::Quoted   ? QLatin1Char('"') + name + QLatin1Char('"')
                               : kind == Kind::Angled ? QLatin1Char('<') + name + QLatin1Char('>')
                                                      : name;
        return keyword + QLatin1Char(' ') + quoted;
    }
};

/// A logical line: physical lines joined at a backslash-newline (translation phase 2).
struct LogicalLine {
    int firstLine = 0;
    qsizetype firstLength = 0; ///< length of the first physical line, for columns
    QString text;
};

QVector<LogicalLine> logicalLines(const QString& text) {
    QVector<LogicalLine> lines;
    const QStringList physical = text.split(u'\n');
    for (qsizetype i = 0; i < physical.size(); ++i) {
        LogicalLine line;
        line.firstLine = int(i + 1);
        QString part = physical.at(i);
        if (part.endsWith(u'\r'))
            part.chop(1);
        line.firstLength = part.size();
        while (part.endsWith(u'\\') && i + 1 < physical.size()) {
            part.chop(1);
            line.text += part;
            part = physical.at(++i);
            if (part.endsWith(u'\r'))
                part.chop(1);
        }
        line.text += part;
        lines.append(line);
    }
    return lines;
}

/// `text` with every same-line /* ... */ replaced by a space and an unclosed /* cut (translation
/// phase 3, done per line on purpose: see findUnsafeInclude). Linear in the line's length:
/// a line of a million "/*" must not cost a million scans.
QString withoutComments(const QString& text) {
    QString out;
    out.reserve(text.size());
    qsizetype from = 0;
    while (from < text.size()) {
        const qsizetype open = text.indexOf(QLatin1String("/*"), from);
        if (open < 0) {
            out += QStringView(text).mid(from);
            break;
        }
        out += QStringView(text).mid(from, open - from);
        const qsizetype close = text.indexOf(QLatin1String("*/"), open + 2);
        if (close < 0)
            break; // the comment runs past this line
        out += u' ';
        from = close + 2;
    }
    return out;
}

/// Reads a header name at `at` of `code`: "name" or <name>; the kind says which, or why not.
Directive headerName(const QString& code, qsizetype at) {
    Directive directive;
    while (at < code.size() && code.at(at).isSpace())
        ++at;
    directive.column = int(at + 1);
    if (at >= code.size()) {
        directive.kind = Directive::Kind::Malformed;
        return directive;
    }
    const QChar open = code.at(at);
    if (open != u'"' && open != u'<') {
        directive.kind = Directive::Kind::Computed;
        directive.name = code.mid(at).trimmed();
        return directive;
    }
    const QChar close = open == u'"' ? u'"' : u'>';
    // Bounded, so that many unterminated names on one line cost no more than the line.
    const qsizetype length = QStringView(code).mid(at + 1, kMaxHeaderNameLength + 1).indexOf(close);
    const qsizetype end = length < 0 ? -1 : at + 1 + length;
    if (end < 0 || end == at + 1) {
        directive.kind = Directive::Kind::Malformed;
        directive.name = code.mid(at).trimmed();
        return directive;
    }
    directive.kind = open == u'"' ? Directive::Kind::Quoted : Directive::Kind::Angled;
    directive.name = code.mid(at + 1, end - at - 1);
    directive.end = end + 1;
    return directive;
}

/// Every include directive and __has_include of `text`, commented out or not.
QVector<Directive> findDirectives(const QString& text) {
    static const QRegularExpression include(
        QStringLiteral("^\\s*#\\s*(include_next|include|import)\\b"));
    QVector<Directive> directives;
    for (const LogicalLine& line : logicalLines(text)) {
        // The line as written, and the text after its first "*/": a directive may follow the
        // end of a comment that began on an earlier line, and such a comment ends at the first
        // "*/". (Only the first, so a line of many "*/" costs one more pass, not one per "*/".)
        QStringList candidates{line.text};
        if (const qsizetype end = line.text.indexOf(QLatin1String("*/")); end >= 0)
            candidates.append(line.text.mid(end + 2));
        // A directive seen in two candidates is checked twice; that costs a stat().
        for (const QString& candidate : std::as_const(candidates)) {
            const QString code = withoutComments(candidate);
            const qsizetype offset = line.text.size() - candidate.size();
            const auto add = [&](Directive directive) {
                directive.line = line.firstLine;
                // Columns are exact unless comments were removed or lines spliced before it.
                const qsizetype column = directive.column + offset;
                directive.column =
                    code.size() == candidate.size() && column <= line.firstLength ? int(column) : 1;
                directives.append(directive);
            };
            const QRegularExpressionMatch match = include.match(code);
            if (match.hasMatch()) {
                qsizetype after = match.capturedEnd(0);
                // A trailing // comment is not part of the header name's line.
                QString rest = code.mid(after);
                const qsizetype slashes = rest.indexOf(QLatin1String("//"));
                const qsizetype quote = rest.indexOf(u'"');
                const qsizetype angle = rest.indexOf(u'<');
                if (slashes >= 0 && (quote < 0 || slashes < quote) &&
                    (angle < 0 || slashes < angle))
                    rest.truncate(slashes);
                Directive directive = headerName(code.left(after) + rest, after);
                directive.keyword = QLatin1Char('#') + match.captured(1);
                add(directive);
            }
            // Found by hand rather than by a regular expression: QRegularExpression::match()
            // with an offset re-validates the whole line each time, quadratic on a long line.
            // Each search starts past the last name read, so the line is read once.
            const QLatin1String keyword("__has_include");
            for (qsizetype from = code.indexOf(keyword); from >= 0;
                 from = code.indexOf(keyword, from)) {
                qsizetype at = from + keyword.size();
                if (QStringView(code).mid(at).startsWith(QLatin1String("_next")))
                    at += 5;
                while (at < code.size() && code.at(at).isSpace())
                    ++at;
                if (at >= code.size() || code.at(at) != u'(') {
                    from = at;
                    continue; // "#ifdef __has_include" and the like
                }
                Directive directive = headerName(code, at + 1);
                directive.keyword = QStringLiteral("__has_include");
                const bool usable = directive.kind == Directive::Kind::Quoted ||
                                    directive.kind == Directive::Kind::Angled;
                add(directive);
                if (!usable)
                    break;
                from = directive.end;
            }
        }
        // The walk stops at the first of these anyway; stopping here keeps a line of a
        // million malformed directives from being collected first.
        if (!directives.isEmpty() && (directives.last().kind == Directive::Kind::Computed ||
                                      directives.last().kind == Directive::Kind::Malformed))
            return directives;
    }
    return directives;
}

/// Walks the include tree; one instance per findUnsafeInclude() call.
class IncludeWalker {
public:
    explicit IncludeWalker(const IncludeSearch& search)
        : m_search(search) {}

    std::optional<IncludeProblem> walk(const QString& text, const QString& shownName,
                                       const QString& directory, int depth) {
        for (const Directive& directive : findDirectives(text)) {
            const auto problem = [&](const QString& message) {
                return IncludeProblem{shownName, directive.line, directive.column, message};
            };
            switch (directive.kind) {
            case Directive::Kind::Computed:
                return problem(QStringLiteral("%1: an include named by a macro is not "
                                              "supported; KernelPad checks every included file "
                                              "before NVRTC opens it, so write the name in "
                                              "quotes or angle brackets")
                                   .arg(directive.spelled()));
            case Directive::Kind::Malformed:
                return problem(QStringLiteral("%1: cannot read the file name; write it "
                                              "as \"name\" or <name>")
                                   .arg(directive.spelled()));
            case Directive::Kind::Quoted:
            case Directive::Kind::Angled:
                break;
            }
            const Found found = resolve(directive, directory);
            if (found.path.isEmpty())
                continue; // NVRTC reports a missing header itself
            if (isSpecialFile(found.path)) {
                return problem(QStringLiteral("%1: '%2' is not a regular file (a "
                                              "FIFO, device, socket or folder); NVRTC would "
                                              "hang or fail reading it")
                                   .arg(directive.spelled(), QDir::toNativeSeparators(found.path)));
            }
            if (found.inToolkit)
                continue;
            const QString canonical = QFileInfo(found.path).canonicalFilePath();
            const QString key = canonical.isEmpty() ? found.path : canonical;
            if (m_visited.contains(key))
                continue;
            if (depth + 1 > kMaxIncludeDepth || m_visited.size() >= kMaxCheckedHeaders) {
                return problem(QStringLiteral("%1: more than %2 nested or %3 "
                                              "headers; KernelPad stops checking here")
                                   .arg(directive.spelled())
                                   .arg(kMaxIncludeDepth)
                                   .arg(kMaxCheckedHeaders));
            }
            m_visited.insert(key);
            QString why;
            const std::optional<QByteArray> bytes =
                readRegularFile(found.path, ReadLimits{kMaxHeaderBytes, true}, &why);
            if (!bytes)
                return problem(QStringLiteral("%1: %2").arg(directive.spelled(), why));
            if (auto nested = walk(QString::fromUtf8(*bytes), found.path,
                                   QFileInfo(found.path).absolutePath(), depth + 1))
                return nested;
        }
        return std::nullopt;
    }

private:
    struct Found {
        QString path; ///< empty: found nowhere
        bool inToolkit = false;
    };

    /// The first existing match along NVRTC's search path: the including file's directory for
    /// a quoted name, then the -I directories in order.
    [[nodiscard]] Found resolve(const Directive& directive, const QString& directory) const {
        if (QDir::isAbsolutePath(directive.name))
            return exists(directive.name) ? Found{directive.name, false} : Found{};
        if (directive.kind == Directive::Kind::Quoted) {
            const QString path = QDir(directory).filePath(directive.name);
            if (exists(path))
                return {path, false};
        }
        for (const QString& dir : m_search.userDirs) {
            const QString path = QDir(dir).filePath(directive.name);
            if (exists(path))
                return {path, false};
        }
        for (const QString& dir : m_search.toolkitDirs) {
            const QString path = QDir(dir).filePath(directive.name);
            if (exists(path))
                return {path, true};
        }
        return {};
    }

    /// Exists after following links; a dangling link is as absent to NVRTC as to us.
    [[nodiscard]] static bool exists(const QString& path) { return QFileInfo::exists(path); }

    const IncludeSearch& m_search;
    QSet<QString> m_visited;
};

} // namespace

std::optional<IncludeProblem> findUnsafeInclude(const QString& source, const QString& sourceName,
                                                const IncludeSearch& search) {
    IncludeWalker walker(search);
    return walker.walk(source, sourceName, search.mainDirectory, 0);
}

} // namespace kernelpad
