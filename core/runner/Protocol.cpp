#include "core/runner/Protocol.h"

#include <QJsonDocument>
#include <QSet>

#include <cmath>

namespace kernelpad {
namespace {

/// Types and whether they need an id.
const QHash<QString, bool>& knownTypes()
{
    static const QHash<QString, bool> types{
        {QStringLiteral("run"), true},      {QStringLiteral("devices"), true},   {QStringLiteral("resources"), true},
        {QStringLiteral("cancel"), true},   {QStringLiteral("shutdown"), false},
        {QStringLiteral("hello"), false},   {QStringLiteral("progress"), true},
        {QStringLiteral("result"), true},   {QStringLiteral("error"), false},
    };
    return types;
}

/// Largest id a JSON double holds exactly.
constexpr double kMaxExactId = 9007199254740992.0; // 2^53

} // namespace

RunnerMessage RunnerMessage::make(const QString& type, quint64 id, QJsonObject body)
{
    body.insert(QStringLiteral("type"), type);
    if (knownTypes().value(type, false) || id != 0)
        body.insert(QStringLiteral("id"), double(id));
    return RunnerMessage{type, id, body};
}

std::optional<RunnerMessage> decodeRunnerMessage(const QByteArray& line, QString* error)
{
    if (line.size() > kMaxRunnerMessageBytes) {
        *error = QStringLiteral("message of %1 bytes is longer than the limit of %2").arg(line.size()).arg(kMaxRunnerMessageBytes);
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(line.trimmed(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = QStringLiteral("not JSON at offset %1: %2").arg(parseError.offset).arg(parseError.errorString());
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *error = QStringLiteral("a message must be a JSON object");
        return std::nullopt;
    }
    const QJsonObject o = doc.object();
    const QJsonValue type = o.value(QStringLiteral("type"));
    if (!type.isString()) {
        *error = QStringLiteral("\"type\" is missing or not a string");
        return std::nullopt;
    }
    const auto known = knownTypes().constFind(type.toString());
    if (known == knownTypes().constEnd()) {
        *error = QStringLiteral("unknown message type '%1'").arg(type.toString().left(64));
        return std::nullopt;
    }
    quint64 id = 0;
    const QJsonValue idValue = o.value(QStringLiteral("id"));
    if (!idValue.isUndefined()) {
        const double d = idValue.toDouble(-1);
        if (!idValue.isDouble() || d < 0 || d > kMaxExactId || std::floor(d) != d) {
            *error = QStringLiteral("\"id\" must be a non-negative integer");
            return std::nullopt;
        }
        id = quint64(d);
    } else if (known.value()) {
        *error = QStringLiteral("a '%1' message needs an \"id\"").arg(type.toString());
        return std::nullopt;
    }
    return RunnerMessage{type.toString(), id, o};
}

QByteArray encodeRunnerMessage(const RunnerMessage& message)
{
    return QJsonDocument(message.body).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace kernelpad
