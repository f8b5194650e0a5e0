#include "core/runner/Protocol.h"

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
        {QStringLiteral("error"), false},
    };
    return types;
}

/// Largest id a JSON double holds exactly.
constexpr double kMaxExactId = 9007199254740992.0; // 2^53

} // namespace

bool isRunnerRequestType(const QString& type) {
    return type == QLatin1String("run") || type == QLatin1String("devices") ||
           type == QLatin1String("resources") || type == QLatin1String("cancel") ||
           type == QLatin1String("shutdown");
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

QByteArray encodeRunnerMessage(const RunnerMessage& message) {
    return QJsonDocument(message.body).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace kernelpad
