#include "core/runner/SanitizerLogParser.h"

#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <optional>
#include <utility>

namespace kernelpad {
namespace {

/// Every line compute-sanitizer writes starts with this; a report's own lines are indented
/// behind it by four or more spaces, its first line by one.
const QLatin1String kLinePrefix("=========");

/// "at saxpy+0x70 in /tmp/kernel.cu:12" (file and line only with -lineinfo).
struct CodeLocation {
    QString function;
    QString file;
    int line = 0;
};

std::optional<CodeLocation> parseLocation(const QString& text) {
    // Greedy: a demangled name may contain '+' (operator+), the offset is the last "+0x".
    static const QRegularExpression re(
        QStringLiteral(R"(^(.*)\+0x[0-9a-fA-F]+(?: in (.*):(\d+))?$)"));
    const QRegularExpressionMatch m = re.match(text.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    return CodeLocation{m.captured(1).trimmed(), m.captured(2), m.captured(3).toInt()};
}

std::optional<SanitizerReport::Dim3> parseDim3(const QString& x, const QString& y,
                                               const QString& z) {
    return SanitizerReport::Dim3{x.toInt(), y.toInt(), z.toInt()};
}

void setLocation(SanitizerReport& r, const CodeLocation& at, const QString& sourceName) {
    r.kernel = at.function;
    r.file = mapSanitizerFile(at.file, sourceName);
    r.line = at.line;
}

} // namespace

void SanitizerLogParser::feed(const QString& rawLine) {
    if (!rawLine.startsWith(kLinePrefix))
        return; // the runner's own output never goes to the log, but be lenient
    const QString rest = rawLine.mid(kLinePrefix.size());
    const QString text = rest.trimmed();
    if (text.isEmpty()) {
        flush();
        return;
    }
    int indent = 0;
    while (indent < rest.size() && rest[indent] == QLatin1Char(' '))
        ++indent;
    if (indent <= 1)
        header(text);
    else
        continuation(text);
}

SanitizerLog SanitizerLogParser::finish() {
    flush();
    m_log.reports = mergeSanitizerReports(m_log.reports);
    return std::move(m_log);
}

void SanitizerLogParser::flush() {
    if (m_block == Block::Plain || (m_block == Block::Race && !m_racePairSeen) ||
        (m_block == Block::Hazard))
        m_log.reports.push_back(m_current);
    m_block = Block::None;
    m_inBacktrace = false;
    m_racePairSeen = false;
    m_hazardAccesses = 0;
}

void SanitizerLogParser::header(const QString& text) {
    flush();
    static const QRegularExpression errorSummary(
        QStringLiteral(R"(^ERROR SUMMARY: (\d+) errors?$)"));
    static const QRegularExpression notPrinted(
        QStringLiteral(R"(^ERROR SUMMARY: (\d+) errors? (?:was|were) not printed)"));
    static const QRegularExpression raceSummary(
        QStringLiteral(R"(^RACECHECK SUMMARY:.*\((\d+) errors?, (\d+) warnings?\))"));
    static const QRegularExpression race(
        QStringLiteral(R"(^Race reported between (\w+) access at (.*)$)"));
    static const QRegularExpression hazard(QStringLiteral(
        R"(^(?:\(.*\) )?Potential (\w+) hazard detected at (__\w+__) (0x[0-9a-fA-F]+) in block \((\d+),(\d+),(\d+)\)\s*:?$)"));

    if (text == QLatin1String("COMPUTE-SANITIZER") ||
        text.startsWith(QLatin1String("LEAK SUMMARY")))
        return;
    if (const QRegularExpressionMatch m = notPrinted.match(text); m.hasMatch()) {
        m_log.notPrinted = m.captured(1).toInt();
        return;
    }
    if (const QRegularExpressionMatch m = errorSummary.match(text); m.hasMatch()) {
        // The last summary wins: a run's totals follow per-process ones.
        m_log.errorCount = m.captured(1).toInt();
        return;
    }
    if (const QRegularExpressionMatch m = raceSummary.match(text); m.hasMatch()) {
        m_log.errorCount = m.captured(1).toInt();
        m_log.warningCount = m.captured(2).toInt();
        return;
    }
    QString body = text;
    Diagnostic::Severity severity = Diagnostic::Severity::Error;
    bool prefixed = false;
    if (body.startsWith(QLatin1String("Error: "))) {
        body = body.mid(7);
        prefixed = true;
    } else if (body.startsWith(QLatin1String("Warning: "))) {
        body = body.mid(9);
        severity = Diagnostic::Severity::Warning;
        prefixed = true;
    }
    m_current = SanitizerReport{};
    m_current.severity = severity;
    if (const QRegularExpressionMatch m = race.match(body); m.hasMatch()) {
        m_block = Block::Race;
        m_raceFirstAccess = m.captured(1);
        m_current.kind = QStringLiteral("Race reported between %1 access").arg(m_raceFirstAccess);
        if (std::optional<CodeLocation> at = parseLocation(m.captured(2)))
            setLocation(m_current, *at, m_sourceName);
        return;
    }
    if (const QRegularExpressionMatch m = hazard.match(body); m.hasMatch()) {
        m_block = Block::Hazard;
        m_current.kind =
            QStringLiteral("Potential %1 hazard on %2 memory").arg(m.captured(1), m.captured(2));
        m_current.address = m.captured(3);
        m_current.block = parseDim3(m.captured(4), m.captured(5), m.captured(6));
        return;
    }
    if (prefixed) {
        // "Error: Target application terminated before first instrumented API call" and
        // the like: about the tool, not the kernel.
        m_log.toolMessages << text;
        return;
    }
    m_block = Block::Plain;
    // "Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to "..." on CUDA API call to X."
    m_current.kind = body.endsWith(QLatin1Char('.')) ? body.chopped(1) : body;
}

void SanitizerLogParser::continuation(const QString& text) {
    if (m_block == Block::None)
        return;
    if (text.startsWith(QLatin1String("Saved host backtrace")) ||
        text.startsWith(QLatin1String("Device Frame:")) ||
        text.startsWith(QLatin1String("Host Frame:"))) {
        // Frames of the runner (cuLaunchKernel) or inlined device frames: not the user's line.
        m_inBacktrace = true;
        return;
    }
    if (m_inBacktrace)
        return;
    static const QRegularExpression byThread(
        QStringLiteral(R"(^by thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\))"));
    static const QRegularExpression access(
        QStringLiteral(R"(^(?:Access to|Address) (0x[0-9a-fA-F]+)(?: is (.*))?$)"));
    static const QRegularExpression raceOther(
        QStringLiteral(R"(^and (\w+) access at (.*?)(?: \[(\d+) hazards?\])?$)"));
    static const QRegularExpression hazardAccess(
        QStringLiteral(R"(^(\w+) Thread \((\d+),(\d+),(\d+)\) at (.*)$)"));

    if (m_block == Block::Race) {
        const QRegularExpressionMatch m = raceOther.match(text);
        if (!m.hasMatch())
            return;
        SanitizerReport pair = m_current;
        pair.kind = QStringLiteral("Race reported between %1 access and %2 access")
                        .arg(m_raceFirstAccess, m.captured(1));
        QString where;
        if (std::optional<CodeLocation> at = parseLocation(m.captured(2))) {
            pair.relatedFile = mapSanitizerFile(at->file, m_sourceName);
            pair.relatedLine = at->line;
            where = at->line > 0 ? QStringLiteral("%1:%2").arg(pair.relatedFile).arg(at->line)
                                 : at->function;
        }
        pair.detail = QStringLiteral("the %1 access is at %2").arg(m.captured(1).toLower(), where);
        if (!m.captured(3).isEmpty())
            pair.detail += QStringLiteral(" (%1 hazards)").arg(m.captured(3));
        m_log.reports.push_back(pair);
        m_racePairSeen = true;
        return;
    }
    if (m_block == Block::Hazard) {
        const QRegularExpressionMatch m = hazardAccess.match(text);
        if (!m.hasMatch())
            return; // "Current Value : 0, Incoming Value : 192"
        const std::optional<CodeLocation> at = parseLocation(m.captured(5));
        if (m_hazardAccesses++ == 0) {
            m_current.thread = parseDim3(m.captured(2), m.captured(3), m.captured(4));
            if (at)
                setLocation(m_current, *at, m_sourceName);
        } else {
            if (at) {
                m_current.relatedFile = mapSanitizerFile(at->file, m_sourceName);
                m_current.relatedLine = at->line;
            }
            m_current.detail =
                QStringLiteral("the other access is a %1 by thread (%2,%3,%4)%5")
                    .arg(m.captured(1).toLower(), m.captured(2), m.captured(3), m.captured(4),
                         at && at->line > 0
                             ? QStringLiteral(" at %1:%2").arg(m_current.relatedFile).arg(at->line)
                             : QString());
        }
        return;
    }
    if (text.startsWith(QLatin1String("at "))) {
        if (m_current.kernel.isEmpty())
            if (std::optional<CodeLocation> at = parseLocation(text.mid(3)))
                setLocation(m_current, *at, m_sourceName);
        return;
    }
    if (const QRegularExpressionMatch m = byThread.match(text); m.hasMatch()) {
        m_current.thread = parseDim3(m.captured(1), m.captured(2), m.captured(3));
        m_current.block = parseDim3(m.captured(4), m.captured(5), m.captured(6));
        return;
    }
    if (const QRegularExpressionMatch m = access.match(text); m.hasMatch()) {
        m_current.address = m.captured(1);
        m_current.detail = m.captured(2);
        return;
    }
    if (text.startsWith(QLatin1String("and is "))) {
        // "and is 4 bytes after the nearest allocation at 0x... of size 4,096 bytes"
        m_current.detail +=
            (m_current.detail.isEmpty() ? QString() : QStringLiteral(", ")) + text.mid(7);
        return;
    }
}

SanitizerLog SanitizerLogParser::parse(const QString& text, const QString& sourceName) {
    SanitizerLogParser parser(sourceName);
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (const QString& line : lines)
        parser.feed(line.endsWith(QLatin1Char('\r')) ? line.chopped(1) : line);
    return parser.finish();
}

QVector<SanitizerReport> mergeSanitizerReports(const QVector<SanitizerReport>& reports) {
    QVector<SanitizerReport> merged;
    QHash<QString, int> index; // merge key -> position in `merged`
    for (const SanitizerReport& r : reports) {
        const QString key = QStringList{r.kind,        r.kernel,
                                        r.file,        QString::number(r.line),
                                        r.relatedFile, QString::number(r.relatedLine)}
                                .join(QChar(0x1f));
        const auto it = index.constFind(key);
        if (it == index.constEnd()) {
            index.insert(key, int(merged.size()));
            merged.push_back(r);
        } else {
            merged[*it].count += r.count;
        }
    }
    return merged;
}

QString mapSanitizerFile(const QString& reported, const QString& sourceName) {
    if (reported.isEmpty() || sourceName.isEmpty())
        return reported;
    if (reported == sourceName ||
        QFileInfo(reported).fileName() == QFileInfo(sourceName).fileName())
        return sourceName;
    return reported; // a header from an include directory: keep its own name
}

} // namespace kernelpad
