#include "core/runner/Protocol.h"

#include "core/io/JsonFields.h"

#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>

namespace kernelpad {
namespace {

/// Every message type, for messageTypeFromString().
constexpr std::array kAllMessageTypes{
    MessageType::Run,     MessageType::Devices,  MessageType::Resources, MessageType::Compile,
    MessageType::Cancel,  MessageType::Shutdown, MessageType::Fetch,     MessageType::Frame,
    MessageType::Hello,   MessageType::Progress, MessageType::Result,    MessageType::Error,
    MessageType::Program,
};

} // namespace

QString toString(MessageType type) {
    switch (type) {
    case MessageType::Run:
        return QStringLiteral("run");
    case MessageType::Devices:
        return QStringLiteral("devices");
    case MessageType::Resources:
        return QStringLiteral("resources");
    case MessageType::Compile:
        return QStringLiteral("compile");
    case MessageType::Cancel:
        return QStringLiteral("cancel");
    case MessageType::Shutdown:
        return QStringLiteral("shutdown");
    case MessageType::Fetch:
        return QStringLiteral("fetch");
    case MessageType::Frame:
        return QStringLiteral("frame");
    case MessageType::Program:
        return QStringLiteral("program");
    case MessageType::Hello:
        return QStringLiteral("hello");
    case MessageType::Progress:
        return QStringLiteral("progress");
    case MessageType::Result:
        return QStringLiteral("result");
    case MessageType::Error:
        return QStringLiteral("error");
    }
    return {};
}

std::optional<MessageType> messageTypeFromString(const QString& text) {
    for (const MessageType type : kAllMessageTypes)
        if (toString(type) == text)
            return type;
    return std::nullopt;
}

bool isRunnerRequestType(MessageType type) {
    switch (type) {
    case MessageType::Run:
    case MessageType::Devices:
    case MessageType::Resources:
    case MessageType::Compile:
    case MessageType::Cancel:
    case MessageType::Shutdown:
    case MessageType::Fetch:
    case MessageType::Frame:
    case MessageType::Program:
        return true;
    case MessageType::Hello:
    case MessageType::Progress:
    case MessageType::Result:
    case MessageType::Error:
        return false;
    }
    return false;
}

bool messageNeedsId(MessageType type) {
    // Shutdown and hello belong to no request; an error may answer a line that had no id.
    return type != MessageType::Shutdown && type != MessageType::Hello &&
           type != MessageType::Error;
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

RunnerMessage RunnerMessage::make(MessageType type, quint64 id, QJsonObject body) {
    body.insert(QStringLiteral("type"), toString(type));
    if (messageNeedsId(type) || id != 0)
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
    QString typeText;
    if (!fields.readString(QStringLiteral("type"), &typeText, json::Presence::Required))
        return std::nullopt;
    const std::optional<MessageType> type = messageTypeFromString(typeText);
    if (!type) {
        *error = QStringLiteral("unknown message type '%1'").arg(typeText.left(64));
        return std::nullopt;
    }
    qint64 id = 0;
    if (!fields.readWholeNumber(QStringLiteral("id"), &id, json::Presence::Optional,
                                {0, kExactDoubleIntegerLimit - 1}))
        return std::nullopt;
    if (!fields.has(QStringLiteral("id")) && messageNeedsId(*type)) {
        *error = QStringLiteral("a '%1' message needs an \"id\"").arg(typeText);
        return std::nullopt;
    }
    return RunnerMessage{*type, quint64(id), o};
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
    return encodeRunnerMessage(RunnerMessage::make(MessageType::Frame, h.id,
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
    out += kFramesEnd;
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
            if (!line.tooLong && line.bytes.isEmpty())
                continue; // the end of a run of frames (Protocol.h), or a stray blank line
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
                    toString(MessageType::Frame)) {
                item.error = QStringLiteral("frame: %1").arg(item.error);
                item.fatal = true;
                m_broken = true;
                items.push_back(std::move(item));
                return items;
            }
            if (item.message && item.message->type == MessageType::Frame) {
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
