#include "core/cuda/JitLog.h"

#include "core/io/JsonFields.h"

namespace kernelpad {

QJsonObject JitLog::toJson() const {
    return QJsonObject{
        {QStringLiteral("used"), used},         {QStringLiteral("reused"), reused},
        {QStringLiteral("target"), target},     {QStringLiteral("infoLog"), infoLog},
        {QStringLiteral("errorLog"), errorLog}, {QStringLiteral("jitMs"), jitMs},
        {QStringLiteral("loadMs"), loadMs},     {QStringLiteral("failure"), failure}};
}

std::optional<JitLog> JitLog::fromJson(const QJsonObject& json, QString* error,
                                       const QString& path) {
    const json::FieldReader fields(json, error, path);
    constexpr auto required = json::Presence::Required;
    // The driver's wall time is a float it fills in; a NaN would travel as null.
    constexpr auto nullIsNaN = json::NullNumber::IsNaN;
    JitLog log;
    if (!fields.readBool(QStringLiteral("used"), &log.used, required) ||
        !fields.readBool(QStringLiteral("reused"), &log.reused, required) ||
        !fields.readString(QStringLiteral("target"), &log.target, required) ||
        !fields.readString(QStringLiteral("infoLog"), &log.infoLog, required) ||
        !fields.readString(QStringLiteral("errorLog"), &log.errorLog, required) ||
        !fields.readNumber(QStringLiteral("jitMs"), &log.jitMs, required, nullIsNaN) ||
        !fields.readNumber(QStringLiteral("loadMs"), &log.loadMs, required, nullIsNaN) ||
        !fields.readString(QStringLiteral("failure"), &log.failure, required))
        return std::nullopt;
    return log;
}

} // namespace kernelpad
