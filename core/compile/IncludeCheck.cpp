#include "core/compile/IncludeCheck.h"

#include <QHash>

#include <algorithm>
#include <vector>

namespace kernelpad {

namespace {

/// A name longer than this is cut in messages (a computed include's macro text, say).
constexpr qsizetype kShownNameLength = 120;

/// Maps positions of a text with characters taken out back to the text they came from.
class ShiftMap {
public:
    /// `count` characters were taken out just before position `at` of the new text.
    void removed(qsizetype at, qsizetype count) {
        m_total += count;
        m_points.emplace_back(at, m_total);
    }
    [[nodiscard]] qsizetype toSource(qsizetype at) const {
        const auto after =
            std::upper_bound(m_points.begin(), m_points.end(), at,
                             [](qsizetype value, const std::pair<qsizetype, qsizetype>& p) {
                                 return value < p.first;
                             });
        return after == m_points.begin() ? at : at + std::prev(after)->second;
    }

private:
    std::vector<std::pair<qsizetype, qsizetype>> m_points; ///< (position, removed up to it)
    qsizetype m_total = 0;
};

/// Space to the scan: what a compiler skips at a line's start counts as space, so that a
/// directive after it is still seen at the start (a byte order mark, control characters).
bool isBlank(QChar c) {
    return c.isSpace() || c.unicode() < 0x20 || c.unicode() == 0xFEFF;
}

bool isIdentifierChar(QChar c) {
    return c.isLetterOrNumber() || c == u'_' || c == u'$';
}

/// `text` with the nine trigraphs replaced (translation phase 1 under -std=c++11/14).
QString withTrigraphs(const QString& text, ShiftMap* map) {
    static const QHash<QChar, QChar> replacement{{u'=', u'#'}, {u'/', u'\\'}, {u'\'', u'^'},
                                                 {u'(', u'['}, {u')', u']'},  {u'!', u'|'},
                                                 {u'<', u'{'}, {u'>', u'}'},  {u'-', u'~'}};
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i) == u'?' && i + 2 < text.size() && text.at(i + 1) == u'?' &&
            replacement.contains(text.at(i + 2))) {
            out += replacement.value(text.at(i + 2));
            i += 2;
            map->removed(out.size(), 2);
        } else {
            out += text.at(i);
        }
    }
    return out;
}

bool isFatal(const IncludeDirective& directive) {
    return directive.mayBeReal() && (directive.kind == IncludeDirective::Kind::Computed ||
                                     directive.kind == IncludeDirective::Kind::Malformed);
}

/// One pass over one spelling of the text (with or without trigraphs).
class Scanner {
public:
    /// `toOriginal` maps `text` to the text as given (trigraphs), or is null.
    Scanner(const QString& text, const ShiftMap* toOriginal)
        : m_toOriginal(toOriginal) {
        splice(text);
    }

    /// Appends what it finds; true when it stopped at a directive no compile can go past (a
    /// real one without a readable name), after which nothing else matters.
    bool scan(QVector<IncludeDirective>* out) {
        bool clean = true; // only white space since the line's start or the last "*/"
        const qsizetype n = m_text.size();
        for (qsizetype i = 0; i < n; ++i) {
            const QChar c = m_text.at(i);
            if (c == u'\n') {
                clean = true;
                continue;
            }
            if (c == u'*' && i + 1 < n && m_text.at(i + 1) == u'/') {
                clean = true;
                ++i;
                continue;
            }
            const qsizetype before = out->size();
            if (c == u'#' || (c == u'%' && i + 1 < n && m_text.at(i + 1) == u':')) {
                directiveAt(i, c == u'#' ? i + 1 : i + 2, clean, out);
            } else if (c == u'_' && (i == 0 || !isIdentifierChar(m_text.at(i - 1)))) {
                operatorAt(i, out);
            }
            if (out->size() > before && isFatal(out->last()))
                return true;
            if (!isBlank(c))
                clean = false;
        }
        return false;
    }

private:
    const ShiftMap* m_toOriginal;               ///< null for the text as given
    ShiftMap m_splices;                         ///< m_text back to the text scanned
    QString m_text;                             ///< lines spliced
    std::vector<qsizetype> m_starts;            ///< where each physical line starts in m_text
    QHash<qsizetype, qsizetype> m_afterComment; ///< skipSeparators() from just past a "*/"
    qsizetype m_closeFrom = -1;                 ///< no "*/" starts in [m_closeFrom, m_closeAt)
    qsizetype m_closeAt = -1;

    /// Translation phase 2, keeping where each physical line starts for line numbers. A
    /// backslash followed by blanks before the newline splices too (GCC and EDG accept it).
    void splice(const QString& text) {
        m_text.reserve(text.size());
        m_starts.push_back(0);
        for (qsizetype i = 0; i < text.size(); ++i) {
            const QChar c = text.at(i);
            if (c == u'\\') {
                qsizetype j = i + 1;
                while (j < text.size() &&
                       (text.at(j) == u' ' || text.at(j) == u'\t' || text.at(j) == u'\r'))
                    ++j;
                if (j < text.size() && text.at(j) == u'\n') {
                    m_starts.push_back(m_text.size());
                    m_splices.removed(m_text.size(), j + 1 - i);
                    i = j;
                    continue;
                }
            }
            m_text += c;
            if (c == u'\n')
                m_starts.push_back(m_text.size());
        }
    }

    [[nodiscard]] int lineOf(qsizetype at) const {
        return int(std::upper_bound(m_starts.begin(), m_starts.end(), at) - m_starts.begin());
    }

    enum Next { NextNewline, NextQuote, NextAngle, NextCount };
    /// Per Next: no such character in [m_nextFrom, m_nextAt).
    qsizetype m_nextFrom[NextCount] = {-1, -1, -1};
    qsizetype m_nextAt[NextCount] = {-1, -1, -1};

    /// The first '\n', '"' or '>' at or after `from`, or -1: remembered like commentClose(), so
    /// that a line of many names is read once, not once per name.
    qsizetype nextOf(Next which, qsizetype from) {
        static constexpr char16_t kChars[NextCount] = {u'\n', u'"', u'>'};
        qsizetype& searched = m_nextFrom[which];
        qsizetype& found = m_nextAt[which];
        if (searched >= 0 && from >= searched && (found < 0 || from <= found))
            return found;
        searched = from;
        found = m_text.indexOf(QChar(kChars[which]), from);
        return found;
    }

    /// The first "*/" at or after `from`, or -1; amortised linear over increasing queries.
    qsizetype commentClose(qsizetype from) {
        if (m_closeFrom >= 0 && from >= m_closeFrom && (m_closeAt < 0 || from <= m_closeAt))
            return m_closeAt;
        m_closeFrom = from;
        m_closeAt = m_text.indexOf(QLatin1String("*/"), from);
        return m_closeAt;
    }

    /// Past white space (newlines included) and /* */ comments from `at`. Remembered per
    /// comment end, so that many '#' inside one long comment cost one walk past it.
    qsizetype skipSeparators(qsizetype at) {
        std::vector<qsizetype> visited;
        const qsizetype n = m_text.size();
        for (;;) {
            while (at < n && isBlank(m_text.at(at)))
                ++at;
            if (at + 1 >= n || m_text.at(at) != u'/' || m_text.at(at + 1) != u'*')
                break;
            const qsizetype close = commentClose(at + 2);
            if (close < 0) {
                at = n;
                break;
            }
            at = close + 2;
            if (const auto known = m_afterComment.constFind(at); known != m_afterComment.cend()) {
                at = *known;
                break;
            }
            visited.push_back(at);
        }
        for (qsizetype from : visited)
            m_afterComment.insert(from, at);
        return at;
    }

    /// The identifier at `at` if it is one of `words` (whole), else an empty string.
    [[nodiscard]] QString wordAt(qsizetype at, std::initializer_list<const char*> words) const {
        for (const char* word : words) {
            const QLatin1String w(word);
            if (QStringView(m_text).mid(at, w.size()) == w &&
                (at + w.size() >= m_text.size() || !isIdentifierChar(m_text.at(at + w.size()))))
                return w;
        }
        return {};
    }

    /// Reads a header name at `at` into `directive`.
    void readName(qsizetype at, IncludeDirective* directive) {
        const int lineNumber = lineOf(at);
        directive->column =
            lineNumber == directive->line ? int(at - m_starts[size_t(lineNumber - 1)] + 1) : 1;
        const qsizetype n = m_text.size();
        const qsizetype newline = nextOf(NextNewline, at);
        const qsizetype lineEnd = newline < 0 ? n : newline;
        const auto rest = [&] {
            return m_text.mid(at, std::min(lineEnd - at, kShownNameLength)).trimmed();
        };
        if (at >= lineEnd) {
            directive->kind = IncludeDirective::Kind::Malformed;
            return;
        }
        const QChar open = m_text.at(at);
        if (open != u'"' && open != u'<') {
            directive->kind = IncludeDirective::Kind::Computed;
            directive->name = rest();
            return;
        }
        const qsizetype close = nextOf(open == u'"' ? NextQuote : NextAngle, at + 1);
        const qsizetype end = close - (at + 1); // the name's length
        if (close < 0 || close > lineEnd || end == 0 || end > kMaxHeaderNameLength) {
            directive->kind = IncludeDirective::Kind::Malformed;
            directive->name = rest();
            return;
        }
        directive->kind =
            open == u'"' ? IncludeDirective::Kind::Quoted : IncludeDirective::Kind::Angled;
        directive->name = m_text.mid(at + 1, end);
        const qsizetype first = original(at + 1);
        if (original(at + end) - first == end - 1)
            directive->nameOffset = first;
    }

    /// Position `at` of m_text in the text as given.
    [[nodiscard]] qsizetype original(qsizetype at) const {
        const qsizetype spliced = m_splices.toSource(at);
        return m_toOriginal ? m_toOriginal->toSource(spliced) : spliced;
    }

    void directiveAt(qsizetype hash, qsizetype after, bool clean, QVector<IncludeDirective>* out) {
        const qsizetype at = skipSeparators(after);
        // Longest first: "include" is a prefix of "include_next".
        const QString word = wordAt(at, {"include_next", "include", "import", "embed"});
        if (word.isEmpty())
            return;
        IncludeDirective directive;
        directive.keyword = QLatin1Char('#') + word;
        directive.line = lineOf(hash);
        directive.atLineStart = clean;
        readName(skipSeparators(at + word.size()), &directive);
        out->append(directive);
    }

    void operatorAt(qsizetype at, QVector<IncludeDirective>* out) {
        const QString word = wordAt(at, {"__has_include_next", "__has_include", "__has_embed"});
        if (word.isEmpty())
            return;
        const qsizetype open = skipSeparators(at + word.size());
        if (open >= m_text.size() || m_text.at(open) != u'(')
            return; // "#ifdef __has_include" and the like
        IncludeDirective directive;
        directive.keyword = word;
        directive.line = lineOf(at);
        readName(skipSeparators(open + 1), &directive);
        out->append(directive);
    }
};

} // namespace

QString IncludeDirective::spelled() const {
    const QString shown = kind == Kind::Quoted   ? QLatin1Char('"') + name + QLatin1Char('"')
                          : kind == Kind::Angled ? QLatin1Char('<') + name + QLatin1Char('>')
                                                 : name;
    if (keyword.startsWith(QLatin1String("__has_")))
        return keyword + QLatin1Char('(') + shown + QLatin1Char(')');
    return keyword + QLatin1Char(' ') + shown;
}

QVector<IncludeDirective> scanIncludeDirectives(const QString& text) {
    QVector<IncludeDirective> directives;
    const bool stopped = Scanner(text, nullptr).scan(&directives);
    // NVRTC replaces trigraphs under -std=c++11/14 only; both readings are scanned.
    if (!stopped && text.contains(QLatin1String("??"))) {
        ShiftMap map;
        const QString replaced = withTrigraphs(text, &map);
        Scanner(replaced, &map).scan(&directives);
    }
    // A name whose last letter came from a trigraph maps back to a run of the right length
    // but other letters: only a name found letter for letter in `text` can be rewritten there.
    for (IncludeDirective& directive : directives) {
        if (directive.nameOffset >= 0 &&
            QStringView(text).mid(directive.nameOffset, directive.name.size()) != directive.name)
            directive.nameOffset = -1;
    }
    return directives;
}

} // namespace kernelpad
