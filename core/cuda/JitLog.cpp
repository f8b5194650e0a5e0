#include "core/cuda/JitLog.h"

namespace kernelpad {

QJsonObject JitLog::toJson() const {
    return QJsonObject{
        {QStringLiteral("used"), used},         {QStringLiteral("reused"), reused},
        {QStringLiteral("target"), target},     {QStringLiteral("infoLog"), infoLog},
        {QStringLiteral("errorLog"), errorLog}, {QStringLiteral("jitMs"), jitMs},
        {QStringLiteral("loadMs"), loadMs},     {QStringLiteral("failure"), failure}};
}

JitLog JitLog::fromJson(const QJsonObject& json) {
    JitLog log;
    log.used = json.value(QStringLiteral("used")).toBool();
    log.reused = json.value(QStringLiteral("reused")).toBool();
    log.target = json.value(QStringLiteral("target")).toString();
    log.infoLog = json.value(QStringLiteral("infoLog")).toString();
    log.errorLog = json.value(QStringLiteral("errorLog")).toString();
    log.jitMs = json.value(QStringLiteral("jitMs")).toDouble();
    log.loadMs = json.value(QStringLiteral("loadMs")).toDouble();
    log.failure = json.value(QStringLiteral("failure")).toString();
    return log;
}

} // namespace kernelpad
