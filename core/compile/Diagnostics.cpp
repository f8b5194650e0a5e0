#include "core/compile/Diagnostics.h"

#include <QRegularExpression>
#include <QStringList>

#include <climits>
#include <optional>

namespace kernelpad {

namespace {

// NVRTC echoes the offending source line with this many leading spaces, and its caret line
// carries the same prefix.
constexpr int kEchoIndent = 2;
// A log with more messages than this is pathological; the editor could not show them anyway.
constexpr int kMaxDiagnostics = 10000;
// A file name with "): " in it is odd enough that a few candidates per line suffice.
constexpr int kMaxHeaderCandidates = 16;

/// "error: text", "warning #177-D: text", ... with severity, code and text captured.
const QRegularExpression& severityPattern() {
    static const QRegularExpression re(
        QStringLiteral("^(catastrophic error|fatal error|error|warning|remark|note)"
                       "(?: (#\\d+(?:-[A-Za-z]+)?))?: ?(.*)$"),
        QRegularExpression::DotMatchesEverythingOption);
    return re;
}

/// The "nvrtc" of "nvrtc: error: ...": one word naming the tool.
const QRegularExpression& toolPrefixPattern() {
    static const QRegularExpression re(QStringLiteral("^[A-Za-z][\\w.+-]*$"));
    return re;
}

Diagnostic::Severity severityFromText(const QString& text) {
    if (text == QLatin1String("warning"))
        return Diagnostic::Severity::Warning;
    if (text == QLatin1String("remark"))
        return Diagnostic::Severity::Remark;
    if (text == QLatin1String("note"))
        return Diagnostic::Severity::Note;
    return Diagnostic::Severity::Error; // error, fatal error, catastrophic error
}

/// Fills severity and message from "severity [#code]: text"; false if `rest` is not that.
bool parseSeverityAndMessage(const QString& rest, Diagnostic* diagnostic) {
    const QRegularExpressionMatch match = severityPattern().match(rest);
    if (!match.hasMatch())
        return false;
    diagnostic->severity = severityFromText(match.captured(1));
    diagnostic->message = match.captured(3).trimmed();
    // Keep the code: it is what -diag-suppress needs, but after the readable text.
    if (match.hasCaptured(2) && !match.captured(2).isEmpty())
        diagnostic->message += QStringLiteral(" [%1]").arg(match.captured(2));
    return true;
}

/// "file(line): severity: text" (also "file(line,col)"); the file is everything before "(".
std::optional<Diagnostic> parsePositionedHeader(const QString& line) {
    qsizetype from = 0;
    for (int candidate = 0; candidate < kMaxHeaderCandidates; ++candidate) {
        const qsizetype close = line.indexOf(QLatin1String("): "), from);
        if (close < 0)
            return std::nullopt;
        from = close + 1;
        const qsizetype open = line.lastIndexOf(u'(', close);
        if (open <= 0)
            continue;
        const QString position = line.mid(open + 1, close - open - 1);
        const QStringList parts = position.split(u',');
        if (parts.size() > 2)
            continue;
        bool lineOk = false;
        bool columnOk = true;
        const int lineNumber = parts.at(0).trimmed().toInt(&lineOk);
        const int column = parts.size() == 2 ? parts.at(1).trimmed().toInt(&columnOk) : 0;
        if (!lineOk || !columnOk || lineNumber < 0 || column < 0)
            continue;
        Diagnostic diagnostic;
        if (!parseSeverityAndMessage(line.mid(close + 3), &diagnostic))
            continue;
        diagnostic.file = line.left(open);
        diagnostic.line = lineNumber;
        diagnostic.column = column;
        return diagnostic;
    }
    return std::nullopt;
}

/// "error: text" or "nvrtc: error: text": about the options, not a place in a file.
std::optional<Diagnostic> parsePositionlessHeader(const QString& line) {
    Diagnostic diagnostic;
    if (parseSeverityAndMessage(line, &diagnostic))
        return diagnostic;
    const qsizetype colon = line.indexOf(QLatin1String(": "));
    if (colon > 0 && toolPrefixPattern().match(line.left(colon)).hasMatch() &&
        parseSeverityAndMessage(line.mid(colon + 2), &diagnostic))
        return diagnostic;
    return std::nullopt;
}

/// "Command-line error: invalid macro definition: X=a##": NVRTC's front end on a -D or -U it
/// cannot take (a value ending in "##" or opening a comment passes ProgramOptions' own check).
/// The message is reworded to name the option field the user has to fix.
std::optional<Diagnostic> parseCommandLineHeader(const QString& line) {
    static const QRegularExpression commandLine(
        QStringLiteral("^Command-line (error|warning|remark): ?(.*)$"),
        QRegularExpression::DotMatchesEverythingOption);
    static const QRegularExpression macro(
        QStringLiteral("^invalid macro (definition|undefinition): ?(.*)$"),
        QRegularExpression::DotMatchesEverythingOption);
    const QRegularExpressionMatch match = commandLine.match(line);
    if (!match.hasMatch())
        return std::nullopt;
    Diagnostic diagnostic;
    diagnostic.severity = severityFromText(match.captured(1));
    const QString text = match.captured(2).trimmed();
    const QRegularExpressionMatch macroMatch = macro.match(text);
    if (!macroMatch.hasMatch()) {
        diagnostic.message = QStringLiteral("command line: ") + text;
    } else if (macroMatch.captured(1) == QLatin1String("definition")) {
        diagnostic.message =
            QStringLiteral("defines: NVRTC refuses the macro definition \"%1\" (its value must "
                           "be a valid replacement list: no \"##\" at either end, no unclosed "
                           "comment)")
                .arg(macroMatch.captured(2));
    } else {
        diagnostic.message = QStringLiteral("extraFlags: NVRTC refuses the macro undefinition "
                                            "-U \"%1\" (it takes a macro name)")
                                 .arg(macroMatch.captured(2));
    }
    return diagnostic;
}

/// Lines NVRTC adds that are about the log, not the source.
bool isSummaryLine(const QString& line) {
    static const QRegularExpression summary(
        QStringLiteral("^\\d+ (?:catastrophic )?errors? detected in the compilation of"));
    return summary.match(line).hasMatch() ||
           line.startsWith(QLatin1String("Compilation terminated")) ||
           line.startsWith(QLatin1String("Remark: The warnings can be suppressed"));
}

/// A line with one '^' (maybe underlined with '~') and otherwise blanks.
bool isCaretLine(const QString& line) {
    int carets = 0;
    for (const QChar c : line) {
        if (c == u'^')
            ++carets;
        else if (!c.isSpace() && c != u'~')
            return false;
    }
    return carets == 1;
}

/// NVRTC's caret counts bytes of the echoed line; the editor wants characters.
int columnFromCaret(const QString& echo, const QString& caret) {
    const qsizetype caretIndex = caret.indexOf(u'^');
    const bool prefixed = echo.startsWith(QLatin1String("  ")) &&
                          caret.startsWith(QLatin1String("  ")) && caretIndex >= kEchoIndent;
    const qsizetype indent = prefixed ? kEchoIndent : 0;
    const qsizetype caretByte = caretIndex - indent;
    const QByteArray echoBytes = echo.mid(indent).toUtf8();
    if (caretByte > echoBytes.size())
        return static_cast<int>(qMin<qsizetype>(caretByte + 1, INT_MAX));
    const qsizetype chars = QString::fromUtf8(echoBytes.left(caretByte)).size();
    return static_cast<int>(qMin<qsizetype>(chars + 1, INT_MAX));
}

/// Applies the lines that followed a header: the source echo with its caret gives the column,
/// anything else continues the message.
void applyBody(Diagnostic* diagnostic, const QStringList& body) {
    for (qsizetype i = 0; i < body.size(); ++i) {
        if (i + 1 < body.size() && isCaretLine(body.at(i + 1)) && !isCaretLine(body.at(i))) {
            if (diagnostic->column == 0)
                diagnostic->column = columnFromCaret(body.at(i), body.at(i + 1));
            ++i; // the caret line is consumed with its echo
            continue;
        }
        if (isCaretLine(body.at(i)))
            continue;
        diagnostic->message += u'\n' + body.at(i).trimmed();
    }
}

} // namespace

QVector<Diagnostic> parseNvrtcLog(const QString& log) {
    QVector<Diagnostic> diagnostics;
    std::optional<Diagnostic> current;
    QStringList body;
    const auto flush = [&]() {
        if (current && diagnostics.size() < kMaxDiagnostics) {
            applyBody(&*current, body);
            diagnostics.append(*current);
        }
        current.reset();
        body.clear();
    };

    const QStringList lines = log.split(u'\n');
    for (QString line : lines) {
        if (line.endsWith(u'\r'))
            line.chop(1);
        if (line.trimmed().isEmpty()) {
            flush(); // NVRTC ends each message with a blank line
            continue;
        }
        const bool indented = line.at(0).isSpace();
        if (indented) {
            if (current)
                body.append(line);
            continue;
        }
        flush();
        if (isSummaryLine(line))
            continue;
        if (auto header = parsePositionedHeader(line))
            current = std::move(header);
        else if (auto option = parseCommandLineHeader(line))
            current = std::move(option);
        else if (auto plain = parsePositionlessHeader(line))
            current = std::move(plain);
    }
    flush();
    return diagnostics;
}

} // namespace kernelpad
