#include "core/runner/Protocol.h"

#include "core/io/JsonFields.h"

#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace kernelpad {
namespace {

/// Types and whether they need an id.
const QHash<QString, bool>& knownTypes() {
    static const QHash<QString, bool> types{
        {QStringLiteral("run"), true},
        {QStringLiteral("devices"), true},
        {QStringLiteral("resources"), true},
        {QStringLiteral("cancel"), true},
        {QStringLiteral("shutdown"), false},
        {QStringLiteral("hello"), false},
        {QStringLiteral("progress"), true},
        {QStringLiteral("result"), true},
        {QStringLiteral("error"), false},
        {QStringLiteral("compile"), true},
        // Streamed buffers (Protocol.h): every frame and fetch belongs to a request.
        {QStringLiteral("frame"), true},
        {QStringLiteral("fetch"), true},
    };
    return types;
}

/// Largest id a JSON double holds exactly.

} // namespace

bool isRunnerRequestType(const QString& type) {
    return type == QLatin1String("run") || type == QLatin1String("devices") ||
           type == QLatin1String("resources") || type == QLatin1String("cancel") ||
           type == QLatin1String("shutdown") || type == QLatin1String("compile") ||
           type == QLatin1String("frame") || type == QLatin1String("fetch");
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

// ---- Streamed buffers: frames (Protocol.h) ----

bool isSafeStreamName(const QString& name) {
    if (name.isEmpty() || name.toUtf8().size() > 255 || name.contains(QLatin1Char('\\')) ||
        name.contains(QChar(0)))
        return false;
    for (const QString& part : name.split(QLatin1Char('/')))
        if (part.isEmpty() || part == QLatin1String(".") || part == QLatin1String(".."))
            return false;
    return true;
}

std::optional<FrameHeader> readFrameHeader(const QJsonObject& body, QString* error) {
    const json::FieldReader fields(body, error, QStringLiteral("frame"));
    constexpr auto required = json::Presence::Required;
    FrameHeader h;
    qint64 id = 0;
    if (!fields.readWholeNumber(QStringLiteral("id"), &id, required,
                                {0, kExactDoubleIntegerLimit - 1}) ||
        !fields.readString(QStringLiteral("stream"), &h.stream, required) ||
        !fields.readWholeNumber(QStringLiteral("offset"), &h.offset, required,
                                {0, kExactDoubleIntegerLimit - 1}) ||
        !fields.readWholeNumber(QStringLiteral("bytes"), &h.bytes, required, {0, kMaxFrameBytes}) ||
        !fields.readBool(QStringLiteral("last"), &h.last, required))
        return std::nullopt;
    if (!isSafeStreamName(h.stream)) {
        *error = QStringLiteral("frame.stream: '%1' is not a plain relative name")
                     .arg(h.stream.left(64));
        return std::nullopt;
    }
    h.id = quint64(id);
    return h;
}

QByteArray encodeFrameHeader(const FrameHeader& h) {
    return encodeRunnerMessage(RunnerMessage::make(QStringLiteral("frame"), h.id,
                                                   {{"stream", h.stream},
                                                    {"offset", double(h.offset)},
                                                    {"bytes", double(h.bytes)},
                                                    {"last", h.last}}));
}

QByteArray encodeFrames(quint64 id, const QString& stream, qint64 offset, const char* data,
                        qint64 size) {
    QByteArray out;
    qint64 done = 0;
    do {
        const qint64 n = std::min(kMaxFrameBytes, size - done);
        out += encodeFrameHeader(FrameHeader{id, stream, offset + done, n, done + n == size});
        out.append(data + done, n);
        done += n;
    } while (done < size);
    return out;
}

QVector<ProtocolReader::Item> ProtocolReader::feed(const char* data, qsizetype size) {
    QVector<Item> items;
    const char* end = data + size;
    while (data < end && !m_broken) {
        if (m_frame) {
            const qsizetype n =
                std::min<qsizetype>(end - data, m_frame->bytes - m_frameData.size());
            m_frameData.append(data, n);
            data += n;
            if (m_frameData.size() == m_frame->bytes) {
                Item item;
                item.frame = std::exchange(m_frame, std::nullopt);
                item.data = std::exchange(m_frameData, QByteArray());
                items.push_back(std::move(item));
            }
            continue;
        }
        // Up to and including the next newline only: what follows may be a frame's bytes.
        const char* newline = static_cast<const char*>(std::memchr(data, '\n', size_t(end - data)));
        const char* stop = newline ? newline + 1 : end;
        for (LineSplitter::Line& line : m_lines.feed(data, stop - data)) {
            Item item;
            if (line.tooLong) {
                item.tooLong = true;
                item.error = QStringLiteral("a message longer than %1 bytes was refused")
                                 .arg(kMaxRunnerMessageBytes);
            } else {
                item.message = decodeRunnerMessage(line.bytes, &item.error);
                if (!item.message)
                    item.text = line.bytes.left(200);
            }
            // A frame header the decoder refused (no id) still has bytes after it that
            // cannot be told from lines: the stream is lost either way.
            if (!item.message && !item.tooLong &&
                QJsonDocument::fromJson(line.bytes).object().value(QStringLiteral("type")) ==
                    QLatin1String("frame")) {
                item.error = QStringLiteral("frame: %1").arg(item.error);
                item.fatal = true;
                m_broken = true;
                items.push_back(std::move(item));
                return items;
            }
            if (item.message && item.message->type == QLatin1String("frame")) {
                std::optional<FrameHeader> header =
                    readFrameHeader(item.message->body, &item.error);
                if (!header) {
                    item.message.reset();
                    item.fatal = true;
                    m_broken = true;
                    items.push_back(std::move(item));
                    return items;
                }
                if (header->bytes > 0) {
                    m_frameData.reserve(qsizetype(header->bytes));
                    m_frame = std::move(header);
                    continue; // the item goes out once its bytes are in
                }
                item.frame = std::move(header);
            }
            items.push_back(std::move(item));
        }
        data = stop;
    }
    return items;
}

} // namespace kernelpad
