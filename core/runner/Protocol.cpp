#include "core/runner/Protocol.h"

#include "core/io/JsonFields.h"

#include <QJsonDocument>
#include <QSet>

#include <cmath>
#include <cstring>
#include <utility>

namespace kernelpad {
namespace {

/// Types and whether they need an id.
const QHash<QString, bool>& knownTypes() {
    static const QHash<QString, bool> types{
        {QStringLiteral("run"), true},       {QStringLiteral("devices"), true},
        {QStringLiteral("resources"), true}, {QStringLiteral("cancel"), true},
        {QStringLiteral("shutdown"), false}, {QStringLiteral("hello"), false},
        {QStringLiteral("progress"), true},  {QStringLiteral("result"), true},
        {QStringLiteral("error"), false},    {QStringLiteral("compile"), true},
    };
    return types;
}

/// Largest id a JSON double holds exactly.

} // namespace

bool isRunnerRequestType(const QString& type) {
    return type == QLatin1String("run") || type == QLatin1String("devices") ||
           type == QLatin1String("resources") || type == QLatin1String("cancel") ||
           type == QLatin1String("shutdown") || type == QLatin1String("compile");
}

QVector<LineSplitter::Line> LineSplitter::feed(const char* data, qsizetype size) {
    QVector<Line> lines;
    const char* end = data + size;
    while (data < end) {
        const char* newline = static_cast<const char*>(std::memchr(data, '\n', size_t(end - data)));
        const char* stop = newline ? newline : end;
        if (!m_skipping) {
            if (m_pending.size() + (stop - data) > m_maxBytes) {
                m_pending.clear();
                m_skipping = true;
            } else {
                m_pending.append(data, stop - data);
            }
        }
        if (!newline)
            break;
        if (m_skipping)
            lines.push_back(Line{{}, true});
        else
            lines.push_back(Line{std::exchange(m_pending, QByteArray()), false});
        m_skipping = false;
        data = newline + 1;
    }
    return lines;
}

RunnerMessage RunnerMessage::make(const QString& type, quint64 id, QJsonObject body) {
    body.insert(QStringLiteral("type"), type);
    if (knownTypes().value(type, false) || id != 0)
        body.insert(QStringLiteral("id"), double(id));
    return RunnerMessage{type, id, body};
}

std::optional<RunnerMessage> decodeRunnerMessage(const QByteArray& line, QString* error) {
    if (line.size() > kMaxRunnerMessageBytes) {
        *error = QStringLiteral("message of %1 bytes is longer than the limit of %2")
                     .arg(line.size())
                     .arg(kMaxRunnerMessageBytes);
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(line.trimmed(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = QStringLiteral("not JSON at offset %1: %2")
                     .arg(parseError.offset)
                     .arg(parseError.errorString());
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *error = QStringLiteral("a message must be a JSON object");
        return std::nullopt;
    }
    const QJsonObject o = doc.object();
    const json::FieldReader fields(o, error);
    QString type;
    if (!fields.readString(QStringLiteral("type"), &type, json::Presence::Required))
        return std::nullopt;
    const auto known = knownTypes().constFind(type);
    if (known == knownTypes().constEnd()) {
        *error = QStringLiteral("unknown message type '%1'").arg(type.left(64));
        return std::nullopt;
    }
    qint64 id = 0;
    if (!fields.readWholeNumber(QStringLiteral("id"), &id, json::Presence::Optional,
                                {0, kExactDoubleIntegerLimit - 1}))
        return std::nullopt;
    if (!fields.has(QStringLiteral("id")) && known.value()) {
        *error = QStringLiteral("a '%1' message needs an \"id\"").arg(type);
        return std::nullopt;
    }
    return RunnerMessage{type, quint64(id), o};
}

QByteArray encodeRunnerMessage(const RunnerMessage& message) {
    return QJsonDocument(message.body).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace kernelpad
