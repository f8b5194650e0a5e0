#include "core/runner/RunnerTransfers.h"

#include "core/io/JsonFields.h"
#include "core/launch/BufferInit.h"
#include "core/runner/StreamFiles.h"

#include <QFile>
#include <QJsonArray>

#include <algorithm>
#include <cstring>
#include <utility>

namespace kernelpad {

bool RunnerTransfers::writeRequest(MessageType type, quint64 id, const RunRequest& request,
                                   const std::function<void(const QByteArray&)>& write,
                                   QString* error) const {
    RunRequest copy = request;
    const std::optional<QVector<StreamedFile>> files = collectStreamedFiles(&copy, error);
    if (!files)
        return false;
    // The runner resolves every path in its own folder; this computer's is none of its business.
    copy.projectDir.clear();
    QJsonArray list;
    for (const StreamedFile& f : *files)
        list.append(QJsonObject{{"name", f.name}, {"bytes", double(f.bytes)}});
    write(encodeRunnerMessage(RunnerMessage::make(
        type, id,
        {{"request", copy.toJson()},
         {"stream",
          QJsonObject{{"files", list}, {"keepBeyondBytes", double(m_keepBeyondBytes)}}}})));
    for (const StreamedFile& f : *files) {
        QFile file;
        if (!openStreamedFile(f, &file, error))
            return false;
        qint64 sent = 0;
        do {
            const QByteArray chunk = file.read(std::min(kMaxFrameBytes, f.bytes - sent));
            if (chunk.size() != std::min(kMaxFrameBytes, f.bytes - sent)) {
                *error = QStringLiteral("'%1' changed while it was sent to the runner").arg(f.path);
                return false;
            }
            write(encodeFrameHeader(
                FrameHeader{id, f.name, sent, chunk.size(), sent + chunk.size() == f.bytes}));
            write(chunk);
            sent += chunk.size();
        } while (sent < f.bytes);
        write(QByteArray(1, kFramesEnd));
    }
    return true;
}

bool RunnerTransfers::announceOutputs(const json::FieldReader& fields, quint64 id,
                                      const QHash<QString, qint64>& bounds, RunResult result,
                                      bool poisoned, std::optional<Delivery>* ready,
                                      QString* error) {
    PendingOutputs pending;
    pending.id = id;
    pending.poisoned = poisoned;
    const qint64 keepBeyond = m_keepBeyondBytes;
    // The result's JSON names its outputs without their contents: only the listed ones count.
    result.outputs.clear();
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
                std::any_of(result.outputs.cbegin(), result.outputs.cend(),
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
                pending.streams.insert(b.name, result.outputs.size());
                pending.expected.insert(b.name, bytes);
            }
            result.outputs.push_back(std::move(b));
            return true;
        },
        json::Presence::Required);
    if (!read)
        return false; // `fields` wrote the error
    (void)error;
    pending.result = std::move(result);
    if (pending.streams.isEmpty()) {
        *ready = Delivery{id, std::move(pending.result), poisoned};
        return true;
    }
    // Empty outputs need no bytes but still arrive as one empty frame each.
    m_pending = std::move(pending);
    return true;
}

QString RunnerTransfers::take(const FrameHeader& h, const QByteArray& data, QByteArray* into,
                              qint64 base, qint64 expected) {
    // Rules shared by result streams and fetched ranges: in order, within what was asked.
    const qint64 received = into->size();
    if (h.offset - base != received)
        return QStringLiteral("frame.offset: %1 for '%2', expected %3")
            .arg(h.offset)
            .arg(h.stream)
            .arg(base + received);
    if (h.bytes != data.size() || received + h.bytes > expected)
        return QStringLiteral("frame.bytes: %1 at offset %2 runs past the %3 bytes of '%4'")
            .arg(h.bytes)
            .arg(h.offset)
            .arg(expected)
            .arg(h.stream);
    if (h.last != (received + h.bytes == expected))
        return QStringLiteral("frame.last: %1 at offset %2 of '%3'")
            .arg(h.last ? QStringLiteral("true") : QStringLiteral("false"))
            .arg(h.offset)
            .arg(h.stream);
    into->append(data);
    return {};
}

RunnerTransfers::FrameOutcome RunnerTransfers::onFrame(const FrameHeader& h,
                                                       const QByteArray& data) {
    FrameOutcome outcome;
    if (auto f = m_fetches.find(h.id); f != m_fetches.end()) {
        if (h.stream != f->buffer) {
            outcome.violation = QStringLiteral("frame.stream: '%1' answers a fetch of '%2'")
                                    .arg(h.stream, f->buffer);
            return outcome;
        }
        outcome.violation = take(h, data, &f->data, f->offset, f->bytes);
        if (outcome.violation.isEmpty() && h.last) {
            outcome.fetchedId = h.id;
            outcome.fetched = std::move(f->data);
            m_fetches.erase(f);
        }
        return outcome;
    }
    if (!m_pending || h.id != m_pending->id || !m_pending->streams.contains(h.stream)) {
        outcome.violation = QStringLiteral("frame.stream: '%1' of request %2 was not announced")
                                .arg(h.stream.left(64))
                                .arg(h.id);
        return outcome;
    }
    PendingOutputs& p = *m_pending;
    const int index = p.streams.value(h.stream);
    outcome.violation = take(h, data, &p.result.outputs[index].data, 0, p.expected.value(h.stream));
    if (!outcome.violation.isEmpty())
        return outcome;
    if (h.last)
        p.streams.remove(h.stream);
    if (p.streams.isEmpty()) {
        PendingOutputs done = std::move(*std::exchange(m_pending, std::nullopt));
        outcome.delivered = Delivery{done.id, std::move(done.result), done.poisoned};
    }
    return outcome;
}

QString RunnerTransfers::rangeProblem(qint64 offset, qint64 bytes) {
    if (offset < 0 || bytes < 0 || bytes > kMaxBufferBytes)
        return QStringLiteral("bytes: %1 at offset %2 is not a range of a buffer")
            .arg(bytes)
            .arg(offset);
    return {};
}

QString RunnerTransfers::beginFetch(quint64 id, const QString& buffer, qint64 offset,
                                    qint64 bytes) {
    if (QString problem = rangeProblem(offset, bytes); !problem.isEmpty())
        return problem;
    if (m_fetches.contains(id))
        return QStringLiteral("fetch %1 is already waiting").arg(id);
    m_fetches.insert(id, PendingFetch{buffer, offset, bytes, {}});
    return {};
}

bool RunnerTransfers::endFetch(quint64 id) {
    return m_fetches.remove(id) > 0;
}

QList<quint64> RunnerTransfers::dropAll() {
    m_pending.reset();
    const QList<quint64> ids = m_fetches.keys();
    m_fetches.clear();
    return ids;
}

} // namespace kernelpad
