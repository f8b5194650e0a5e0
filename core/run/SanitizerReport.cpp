#include "core/run/SanitizerReport.h"

#include "core/io/JsonFields.h"

#include <QJsonArray>

#include <array>
#include <limits>
#include <utility>

namespace kernelpad {
namespace {

constexpr std::array<std::pair<SanitizerTool, const char*>, 4> kToolNames{{
    {SanitizerTool::None, "none"},
    {SanitizerTool::Memcheck, "memcheck"},
    {SanitizerTool::Racecheck, "racecheck"},
    {SanitizerTool::Initcheck, "initcheck"},
}};

QString sanitizerDim3Text(const SanitizerReport::Dim3& d) {
    return QStringLiteral("(%1,%2,%3)").arg(d[0]).arg(d[1]).arg(d[2]);
}

QJsonValue dim3Json(const std::optional<SanitizerReport::Dim3>& d) {
    if (!d)
        return QJsonValue(QJsonValue::Null);
    return QJsonArray{(*d)[0], (*d)[1], (*d)[2]};
}

/// Reads [x,y,z] (or null/absent); false with a message naming the field otherwise.
bool readDim3(const json::FieldReader& fields, const QString& key,
              std::optional<SanitizerReport::Dim3>* out) {
    out->reset();
    QJsonArray a;
    if (!fields.readArray(key, &a, json::Presence::NullIsAbsent))
        return false;
    if (!fields.has(key) || fields.object().value(key).isNull())
        return true;
    if (a.size() != 3)
        return fields.fail(QStringLiteral("%1: expected [x, y, z] or null, got %2 elements")
                               .arg(fields.path(key))
                               .arg(a.size()));
    SanitizerReport::Dim3 d{};
    for (int k = 0; k < 3; ++k) {
        const QString problem = json::wholeNumberProblem(json::indexPath(fields.path(key), k), a[k],
                                                         {0, std::numeric_limits<int>::max()});
        if (!problem.isEmpty())
            return fields.fail(problem);
        d[size_t(k)] = int(a[k].toDouble());
    }
    *out = d;
    return true;
}

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
        m += QStringLiteral(" by thread %1 in block %2")
                 .arg(sanitizerDim3Text(*thread), sanitizerDim3Text(*block));
    else if (block)
        m += QStringLiteral(" in block %1").arg(sanitizerDim3Text(*block));
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

std::optional<SanitizerReport> SanitizerReport::fromJson(const QJsonObject& json, QString* error,
                                                         const QString& path) {
    const json::FieldReader fields(json, error, path);
    SanitizerReport r;
    if (!fields.readString(QStringLiteral("kind"), &r.kind, json::Presence::Required))
        return std::nullopt;
    if (r.kind.isEmpty()) {
        fields.fail(QStringLiteral("%1: empty; a report says what went wrong")
                        .arg(fields.path(QStringLiteral("kind"))));
        return std::nullopt;
    }
    QString severity = severityName(Diagnostic::Severity::Error);
    if (!fields.readString(QStringLiteral("severity"), &severity))
        return std::nullopt;
    if (severity == severityName(Diagnostic::Severity::Error)) {
        r.severity = Diagnostic::Severity::Error;
    } else if (severity == severityName(Diagnostic::Severity::Warning)) {
        r.severity = Diagnostic::Severity::Warning;
    } else {
        fields.fail(QStringLiteral("%1: expected \"error\" or \"warning\", got '%2'")
                        .arg(fields.path(QStringLiteral("severity")), severity));
        return std::nullopt;
    }
    // A writer that knows no file or kernel writes null; both read as empty.
    for (const auto& [key, target] : {std::pair{QStringLiteral("kernel"), &r.kernel},
                                      std::pair{QStringLiteral("file"), &r.file},
                                      std::pair{QStringLiteral("address"), &r.address},
                                      std::pair{QStringLiteral("detail"), &r.detail},
                                      std::pair{QStringLiteral("relatedFile"), &r.relatedFile}})
        if (!fields.readString(key, target, json::Presence::NullIsAbsent))
            return std::nullopt;
    const int most = std::numeric_limits<int>::max();
    if (!fields.readInt(QStringLiteral("line"), &r.line, json::Presence::Optional, {0, most}) ||
        !fields.readInt(QStringLiteral("relatedLine"), &r.relatedLine, json::Presence::Optional,
                        {0, most}) ||
        !fields.readInt(QStringLiteral("count"), &r.count, json::Presence::Optional, {1, most}) ||
        !readDim3(fields, QStringLiteral("thread"), &r.thread) ||
        !readDim3(fields, QStringLiteral("block"), &r.block))
        return std::nullopt;
    return r;
}

bool operator==(const SanitizerReport& a, const SanitizerReport& b) {
    return a.kind == b.kind && a.severity == b.severity && a.kernel == b.kernel &&
           a.file == b.file && a.line == b.line && a.thread == b.thread && a.block == b.block &&
           a.address == b.address && a.detail == b.detail && a.relatedFile == b.relatedFile &&
           a.relatedLine == b.relatedLine && a.count == b.count;
}

} // namespace kernelpad
