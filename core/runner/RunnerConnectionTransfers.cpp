// RunnerConnection's streamed transfers (Protocol.h, "Streamed buffers"), for a runner that
// shares no folder with this computer: the request's files sent as frames, a result's outputs
// received as frames, and ranges of outputs kept on the runner fetched.
#include "core/runner/RunnerConnection.h"

#include "core/io/JsonFields.h"
#include "core/launch/BufferInit.h"
#include "core/runner/StreamFiles.h"

#include <QFile>
#include <QJsonArray>

#include <algorithm>
#include <cstring>
#include <utility>

namespace kernelpad {

bool RunnerConnection::sendStreamed(MessageType type, quint64 id, const RunRequest& request,
                                    QString* error) {
    RunRequest copy = request;
    const std::optional<QVector<StreamedFile>> files = collectStreamedFiles(&copy, error);
    if (!files)
        return false;
    // The runner resolves every path in its own folder; this computer's is none of its business.
    copy.projectDir.clear();
    QJsonArray list;
    for (const StreamedFile& f : *files)
        list.append(QJsonObject{{"name", f.name}, {"bytes", double(f.bytes)}});
    send(RunnerMessage::make(
        type, id,
        {{"request", copy.toJson()},
         {"stream",
          QJsonObject{{"files", list}, {"keepBeyondBytes", double(m_keepBeyondBytes)}}}}));
    for (const StreamedFile& f : *files) {
        QFile file;
        if (!openStreamedFile(f, &file, error)) {
            stopProcess(); // its request waits for bytes that will never come
            return false;
        }
        qint64 sent = 0;
        do {
            const QByteArray chunk = file.read(std::min(kMaxFrameBytes, f.bytes - sent));
            if (chunk.size() != std::min(kMaxFrameBytes, f.bytes - sent)) {
                *error = QStringLiteral("'%1' changed while it was sent to the runner").arg(f.path);
                stopProcess();
                return false;
            }
            if (m_process) {
                m_process->write(encodeFrameHeader(
                    FrameHeader{id, f.name, sent, chunk.size(), sent + chunk.size() == f.bytes}));
                m_process->write(chunk);
            }
            sent += chunk.size();
        } while (sent < f.bytes);
    }
    return true;
}

bool RunnerConnection::readStreamedOutputs(const json::FieldReader& fields, quint64 id,
                                           RunResult* result, QString* error) {
    PendingOutputs pending;
    pending.id = id;
    const qint64 keepBeyond = m_keepBeyondBytes;
    const QHash<QString, qint64> bounds =
        m_active ? m_active->outputBounds : QHash<QString, qint64>();
    const bool read = fields.readObjects(
        QStringLiteral("outputs"),
        [&](const json::FieldReader& item) {
            OutputBuffer b;
            QJsonObject type;
            QString typeError;
            qint64 bytes = 0;
            bool streamed = false, kept = false;
            if (!item.readString(QStringLiteral("name"), &b.name, json::Presence::Required) ||
                !item.readObject(QStringLiteral("type"), &type, json::Presence::Required) ||
                !item.readWholeNumber(QStringLiteral("count"), &b.count, json::Presence::Required,
                                      {0, kMaxBufferBytes}) ||
                !item.readWholeNumber(QStringLiteral("bytes"), &bytes, json::Presence::Required,
                                      {0, kMaxBufferBytes}) ||
                !item.readBool(QStringLiteral("stream"), &streamed) ||
                !item.readBool(QStringLiteral("kept"), &kept))
                return false;
            std::optional<ValueType> t = ValueType::fromJson(type, &typeError);
            if (!t)
                return item.fail(item.path(QStringLiteral("type")) + QLatin1Char('.') + typeError);
            b.type = *t;
            if (bytes != b.sizeBytes())
                return item.fail(item.path(QStringLiteral("bytes")) +
                                 QStringLiteral(": %1 is not count × element size (%2)")
                                     .arg(bytes)
                                     .arg(b.sizeBytes()));
            if (streamed == kept)
                return item.fail(item.path(QStringLiteral("stream")) +
                                 QStringLiteral(": an output either streams or is kept"));
            if (!isSafeStreamName(b.name) || pending.streams.contains(b.name) ||
                std::any_of(result->outputs.cbegin(), result->outputs.cend(),
                            [&b](const OutputBuffer& o) { return o.name == b.name; }))
                return item.fail(
                    item.path(QStringLiteral("name")) +
                    QStringLiteral(": '%1' is not a unique plain name").arg(b.name.left(64)));
            // Only what the request asked for: its buffers, globals and textures, each at
            // most its own size.
            if (!bounds.contains(b.name))
                return item.fail(
                    item.path(QStringLiteral("name")) +
                    QStringLiteral(": '%1' is no buffer of the request").arg(b.name.left(64)));
            if (bytes > bounds.value(b.name))
                return item.fail(item.path(QStringLiteral("bytes")) +
                                 QStringLiteral(": %1 is more than the %2 bytes of '%3'")
                                     .arg(bytes)
                                     .arg(bounds.value(b.name))
                                     .arg(b.name));
            if (kept) {
                b.keptRun = id;
            } else {
                // This side holds at most what it allowed to stream, and allocates it only as
                // its frames arrive (onFrame).
                if (bytes > keepBeyond)
                    return item.fail(item.path(QStringLiteral("bytes")) +
                                     QStringLiteral(": %1 is beyond the %2 allowed to stream")
                                         .arg(bytes)
                                         .arg(keepBeyond));
                pending.streams.insert(b.name, result->outputs.size());
                pending.expected.insert(b.name, bytes);
            }
            result->outputs.push_back(std::move(b));
            return true;
        },
        json::Presence::Required);
    if (!read)
        return false;
    // Empty outputs need no bytes but still arrive as one empty frame each.
    pending.result = std::move(*result);
    m_pendingOutputs = std::move(pending);
    (void)error;
    return true;
}

void RunnerConnection::onFrame(const FrameHeader& h, const QByteArray& data) {
    // Rules shared by result streams and fetched ranges: in order, within what was asked.
    // `into` grows as frames arrive, up to `expected` bytes.
    const auto take = [&](QByteArray& into, qint64 base, qint64 expected) -> bool {
        const qint64 received = into.size();
        if (h.offset - base != received) {
            protocolViolation(QStringLiteral("frame.offset: %1 for '%2', expected %3")
                                  .arg(h.offset)
                                  .arg(h.stream)
                                  .arg(base + received));
            return false;
        }
        if (h.bytes != data.size() || received + h.bytes > expected) {
            protocolViolation(QStringLiteral("frame.bytes: %1 at offset %2 runs past the %3 bytes "
                                             "of '%4'")
                                  .arg(h.bytes)
                                  .arg(h.offset)
                                  .arg(expected)
                                  .arg(h.stream));
            return false;
        }
        if (h.last != (received + h.bytes == expected)) {
            protocolViolation(QStringLiteral("frame.last: %1 at offset %2 of '%3'")
                                  .arg(h.last ? QStringLiteral("true") : QStringLiteral("false"))
                                  .arg(h.offset)
                                  .arg(h.stream));
            return false;
        }
        into.append(data);
        return true;
    };
    if (auto f = m_fetches.find(h.id); f != m_fetches.end()) {
        if (h.stream != f->buffer) {
            protocolViolation(QStringLiteral("frame.stream: '%1' answers a fetch of '%2'")
                                  .arg(h.stream, f->buffer));
            return;
        }
        if (!take(f->data, f->offset, f->bytes))
            return;
        if (h.last) {
            const QByteArray bytes = std::move(f->data);
            m_fetches.erase(f);
            emit fetched(h.id, bytes, {});
        }
        return;
    }
    if (!m_pendingOutputs || h.id != m_pendingOutputs->id ||
        !m_pendingOutputs->streams.contains(h.stream)) {
        protocolViolation(QStringLiteral("frame.stream: '%1' of request %2 was not announced")
                              .arg(h.stream.left(64))
                              .arg(h.id));
        return;
    }
    PendingOutputs& p = *m_pendingOutputs;
    const int index = p.streams.value(h.stream);
    if (!take(p.result.outputs[index].data, 0, p.expected.value(h.stream)))
        return;
    if (h.last)
        p.streams.remove(h.stream);
    if (p.streams.isEmpty()) {
        PendingOutputs done = std::move(*std::exchange(m_pendingOutputs, std::nullopt));
        deliverResult(done.id, done.result, done.poisoned);
    }
}

void RunnerConnection::fetch(quint64 id, quint64 run, const QString& buffer, qint64 offset,
                             qint64 bytes) {
    QString error;
    if (!m_streamBuffers)
        error = QStringLiteral("this runner does not keep outputs (streamed buffers are off)");
    else if (offset < 0 || bytes < 0 || bytes > kMaxBufferBytes)
        error = QStringLiteral("bytes: %1 at offset %2 is not a range of a buffer")
                    .arg(bytes)
                    .arg(offset);
    else if (!m_process || !m_helloSeen)
        error = QStringLiteral("the runner that kept run %1's outputs has ended").arg(run);
    else if (m_fetches.contains(id))
        error = QStringLiteral("fetch %1 is already waiting").arg(id);
    if (!error.isEmpty()) {
        QTimer::singleShot(0, this, [this, id, error] { emit fetched(id, {}, error); });
        return;
    }
    m_fetches.insert(id, PendingFetch{buffer, offset, bytes, {}});
    send(RunnerMessage::make(MessageType::Fetch, id,
                             {{"run", double(run)},
                              {"buffer", buffer},
                              {"offset", double(offset)},
                              {"bytes", double(bytes)}}));
}

void RunnerConnection::dropTransfers(const QString& why) {
    m_pendingOutputs.reset();
    const QList<quint64> ids = m_fetches.keys();
    m_fetches.clear();
    for (quint64 id : ids)
        emit fetched(id, {}, why);
}

} // namespace kernelpad
