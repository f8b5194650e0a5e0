#include "core/run/SanitizerReport.h"

#include <QJsonArray>

#include <array>
#include <tuple>
#include <utility>

namespace kernelpad {
namespace {

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

} // namespace kernelpad
