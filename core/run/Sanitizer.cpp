#include "core/run/Sanitizer.h"

#include "core/compile/Toolkit.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QStandardPaths>

#include <array>
#include <utility>

namespace kernelpad {
namespace {

/// Every line compute-sanitizer writes starts with this; a report's own lines are indented
/// behind it by four or more spaces, its first line by one.
const QLatin1String kLinePrefix("=========");

constexpr std::array<std::pair<SanitizerTool, const char*>, 4> kToolNames{{
    {SanitizerTool::None, "none"},
    {SanitizerTool::Memcheck, "memcheck"},
    {SanitizerTool::Racecheck, "racecheck"},
    {SanitizerTool::Initcheck, "initcheck"},
}};

QString dim3Text(const SanitizerReport::Dim3& d) {
    return QStringLiteral("(%1,%2,%3)").arg(d[0]).arg(d[1]).arg(d[2]);
}

QJsonValue dim3Json(const std::optional<SanitizerReport::Dim3>& d) {
    if (!d)
        return QJsonValue(QJsonValue::Null);
    return QJsonArray{(*d)[0], (*d)[1], (*d)[2]};
}

/// Reads [x,y,z] (or null/absent); false with a message when it is anything else.
bool readDim3(const QJsonObject& json, const QString& key,
              std::optional<SanitizerReport::Dim3>* out, QString* error) {
    const QJsonValue v = json.value(key);
    if (v.isUndefined() || v.isNull()) {
        out->reset();
        return true;
    }
    const QJsonArray a = v.toArray();
    if (!v.isArray() || a.size() != 3) {
        *error = QStringLiteral("%1: must be [x, y, z] or null").arg(key);
        return false;
    }
    SanitizerReport::Dim3 d{};
    for (int k = 0; k < 3; ++k) {
        if (!a[k].isDouble() || a[k].toDouble() != a[k].toInt() || a[k].toInt() < 0) {
            *error = QStringLiteral("%1[%2]: must be an integer >= 0").arg(key).arg(k);
            return false;
        }
        d[size_t(k)] = a[k].toInt();
    }
    *out = d;
    return true;
}

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

/// Builds the reports of one log while it is read line by line.
class LogParser {
public:
    explicit LogParser(QString sourceName)
        : m_sourceName(std::move(sourceName)) {}

    void feed(const QString& rawLine) {
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

    SanitizerLog finish() {
        flush();
        m_log.reports = mergeSanitizerReports(m_log.reports);
        return std::move(m_log);
    }

private:
    enum class Block { None, Plain, Race, Hazard };

    void flush() {
        if (m_block == Block::Plain || (m_block == Block::Race && !m_racePairSeen) ||
            (m_block == Block::Hazard))
            m_log.reports.push_back(m_current);
        m_block = Block::None;
        m_inBacktrace = false;
        m_racePairSeen = false;
        m_hazardAccesses = 0;
    }

    void setLocation(SanitizerReport& r, const CodeLocation& at) const {
        r.kernel = at.function;
        r.file = mapSanitizerFile(at.file, m_sourceName);
        r.line = at.line;
    }

    void header(const QString& text) {
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
            m_current.kind =
                QStringLiteral("Race reported between %1 access").arg(m_raceFirstAccess);
            if (std::optional<CodeLocation> at = parseLocation(m.captured(2)))
                setLocation(m_current, *at);
            return;
        }
        if (const QRegularExpressionMatch m = hazard.match(body); m.hasMatch()) {
            m_block = Block::Hazard;
            m_current.kind = QStringLiteral("Potential %1 hazard on %2 memory")
                                 .arg(m.captured(1), m.captured(2));
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

    void continuation(const QString& text) {
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
            pair.detail =
                QStringLiteral("the %1 access is at %2").arg(m.captured(1).toLower(), where);
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
                    setLocation(m_current, *at);
            } else {
                if (at) {
                    m_current.relatedFile = mapSanitizerFile(at->file, m_sourceName);
                    m_current.relatedLine = at->line;
                }
                m_current.detail =
                    QStringLiteral("the other access is a %1 by thread (%2,%3,%4)%5")
                        .arg(m.captured(1).toLower(), m.captured(2), m.captured(3), m.captured(4),
                             at && at->line > 0 ? QStringLiteral(" at %1:%2")
                                                      .arg(m_current.relatedFile)
                                                      .arg(at->line)
                                                : QString());
            }
            return;
        }
        if (text.startsWith(QLatin1String("at "))) {
            if (m_current.kernel.isEmpty())
                if (std::optional<CodeLocation> at = parseLocation(text.mid(3)))
                    setLocation(m_current, *at);
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

    QString m_sourceName;
    SanitizerLog m_log;
    SanitizerReport m_current;
    Block m_block = Block::None;
    bool m_inBacktrace = false;
    bool m_racePairSeen = false;
    int m_hazardAccesses = 0;
    QString m_raceFirstAccess;
};

} // namespace

QString sanitizerToolName(SanitizerTool tool) {
    for (const auto& [t, name] : kToolNames)
        if (t == tool)
            return QString::fromLatin1(name);
    return QStringLiteral("none");
}

std::optional<SanitizerTool> sanitizerToolFromName(const QString& name) {
    for (const auto& [t, text] : kToolNames)
        if (name == QLatin1String(text))
            return t;
    return std::nullopt;
}

QString SanitizerReport::message() const {
    QString m = kind;
    if (thread && block)
        m += QStringLiteral(" by thread %1 in block %2").arg(dim3Text(*thread), dim3Text(*block));
    else if (block)
        m += QStringLiteral(" in block %1").arg(dim3Text(*block));
    if (!address.isEmpty())
        m += QStringLiteral(": address %1").arg(address) +
             (detail.isEmpty() ? QString() : QStringLiteral(" is %1").arg(detail));
    else if (!detail.isEmpty())
        m += QStringLiteral(": %1").arg(detail);
    if (count > 1)
        m += QStringLiteral(" (reported %1 times; the first is shown)").arg(count);
    return m;
}

Diagnostic SanitizerReport::diagnostic() const {
    Diagnostic d;
    d.file = file;
    d.line = line;
    d.severity = severity;
    d.message = message();
    return d;
}

QJsonObject SanitizerReport::toJson() const {
    return QJsonObject{{QStringLiteral("kind"), kind},
                       {QStringLiteral("severity"), severityName(severity)},
                       {QStringLiteral("kernel"), kernel},
                       {QStringLiteral("file"), file},
                       {QStringLiteral("line"), line},
                       {QStringLiteral("thread"), dim3Json(thread)},
                       {QStringLiteral("block"), dim3Json(block)},
                       {QStringLiteral("address"), address},
                       {QStringLiteral("detail"), detail},
                       {QStringLiteral("relatedFile"), relatedFile},
                       {QStringLiteral("relatedLine"), relatedLine},
                       {QStringLiteral("count"), count},
                       // Ready to print: scripts need not rebuild it from the fields.
                       {QStringLiteral("message"), message()}};
}

std::optional<SanitizerReport> SanitizerReport::fromJson(const QJsonObject& json, QString* error) {
    QString why;
    const auto fail = [&](const QString& message) -> std::optional<SanitizerReport> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    SanitizerReport r;
    const QJsonValue kind = json.value(QStringLiteral("kind"));
    if (!kind.isString() || kind.toString().isEmpty())
        return fail(QStringLiteral("kind: must be a non-empty string"));
    r.kind = kind.toString();
    const QString severity =
        json.value(QStringLiteral("severity")).toString(QStringLiteral("error"));
    if (severity == severityName(Diagnostic::Severity::Error))
        r.severity = Diagnostic::Severity::Error;
    else if (severity == severityName(Diagnostic::Severity::Warning))
        r.severity = Diagnostic::Severity::Warning;
    else
        return fail(
            QStringLiteral("severity: must be \"error\" or \"warning\" (got '%1')").arg(severity));
    for (const auto& [key, target] : {std::pair{QStringLiteral("kernel"), &r.kernel},
                                      std::pair{QStringLiteral("file"), &r.file},
                                      std::pair{QStringLiteral("address"), &r.address},
                                      std::pair{QStringLiteral("detail"), &r.detail},
                                      std::pair{QStringLiteral("relatedFile"), &r.relatedFile}}) {
        const QJsonValue v = json.value(key);
        if (!v.isUndefined() && !v.isNull() && !v.isString())
            return fail(QStringLiteral("%1: must be a string").arg(key));
        *target = v.toString();
    }
    for (const auto& [key, target, minimum] :
         {std::tuple{QStringLiteral("line"), &r.line, 0},
          std::tuple{QStringLiteral("relatedLine"), &r.relatedLine, 0},
          std::tuple{QStringLiteral("count"), &r.count, 1}}) {
        const QJsonValue v = json.value(key);
        if (v.isUndefined())
            continue;
        if (!v.isDouble() || v.toDouble() != v.toInt() || v.toInt() < minimum)
            return fail(QStringLiteral("%1: must be an integer >= %2").arg(key).arg(minimum));
        *target = v.toInt();
    }
    if (!readDim3(json, QStringLiteral("thread"), &r.thread, &why) ||
        !readDim3(json, QStringLiteral("block"), &r.block, &why))
        return fail(why);
    return r;
}

bool operator==(const SanitizerReport& a, const SanitizerReport& b) {
    return a.kind == b.kind && a.severity == b.severity && a.kernel == b.kernel &&
           a.file == b.file && a.line == b.line && a.thread == b.thread && a.block == b.block &&
           a.address == b.address && a.detail == b.detail && a.relatedFile == b.relatedFile &&
           a.relatedLine == b.relatedLine && a.count == b.count;
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

QString findComputeSanitizer(QStringList* searched) {
    QStringList candidates;
    const QString fromEnv = qEnvironmentVariable("KERNELPAD_COMPUTE_SANITIZER");
    if (!fromEnv.isEmpty())
        candidates << fromEnv;
    QStringList roots{cudaToolkitRoot(), QStringLiteral("/usr/local/cuda")};
    roots.removeAll(QString());
    roots.removeDuplicates();
    for (const QString& root : roots)
        candidates << root + QStringLiteral("/compute-sanitizer/compute-sanitizer")
                   << root + QStringLiteral("/bin/compute-sanitizer");
    candidates.removeDuplicates();
    for (const QString& c : candidates) {
        const QFileInfo info(c);
        if (info.isFile() && info.isExecutable()) {
            if (searched)
                searched->clear();
            return info.absoluteFilePath();
        }
    }
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("compute-sanitizer"));
    if (!onPath.isEmpty())
        return onPath;
    if (searched)
        *searched = candidates << QStringLiteral("PATH (%1)").arg(qEnvironmentVariable("PATH"));
    return {};
}

QString sanitizerNotFoundMessage(const QStringList& searched) {
    return QStringLiteral(
               "compute-sanitizer was not found, so the memory check cannot run; looked in: %1. "
               "It ships with the CUDA toolkit (install it there or put it on PATH, or set "
               "KERNELPAD_COMPUTE_SANITIZER to its path).")
        .arg(searched.join(QStringLiteral(", ")));
}

QStringList sanitizerArguments(SanitizerTool tool, const QString& logFile) {
    QStringList args{QStringLiteral("--tool"), sanitizerToolName(tool),
                     // The log keeps the report out of the runner's stdout, which is the protocol.
                     QStringLiteral("--log-file"), logFile, QStringLiteral("--print-limit"),
                     QString::number(kSanitizerPrintLimit),
                     // Errors are read from the log; the exit code stays the runner's own.
                     QStringLiteral("--error-exitcode"), QStringLiteral("0"),
                     // A run that fails before touching CUDA (bad input) is not a tool error.
                     QStringLiteral("--require-cuda-init"), QStringLiteral("no"),
                     // The runner probes cuFuncGetParamInfo past the last parameter on purpose
                     // (GPU.md); a kernel fault is reported on its own, and the run's status
                     // carries the failed call after it.
                     QStringLiteral("--report-api-errors"), QStringLiteral("no"),
                     // Host frames are the runner's cuLaunchKernel, never the user's code.
                     QStringLiteral("--show-backtrace"), QStringLiteral("device")};
    if (tool == SanitizerTool::Memcheck)
        args << QStringLiteral("--padding") << QString::number(kSanitizerPaddingBytes);
    return args;
}

SanitizerLog parseSanitizerLog(const QString& text, const QString& sourceName) {
    LogParser parser(sourceName);
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (const QString& line : lines)
        parser.feed(line.endsWith(QLatin1Char('\r')) ? line.chopped(1) : line);
    return parser.finish();
}

} // namespace kernelpad
