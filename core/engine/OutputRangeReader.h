#pragma once
// Reads an output buffer that stayed on a runner (OutputBuffer::isKept: streamed buffers beyond
// their size limit) a range at a time: the elements a view shows are fetched in aligned chunks,
// the chunks kept in a bounded LRU, so a 1 GiB output is never copied unless someone looks at
// all of it. A buffer whose bytes are here is read directly.

#include "core/run/OutputBuffer.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QVector>

namespace kernelpad {

/// Where an OutputRangeReader's bytes come from: the window's Session (Engine::fetchRange) or a
/// test's fake. Answers arrive later, in any order, through fetched().
class RangeFetcher : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    /// Starts fetching bytes [offset, offset + bytes) of output `buffer` of run `run` and
    /// returns the id that fetched() will carry; never answers inside this call.
    virtual quint64 fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes) = 0;
    /// Where kept outputs are, for the viewer's words ("gpu-box").
    [[nodiscard]] virtual QString sourceName() const = 0;

signals:
    /// The answer to fetchRange(): the bytes, or an empty array and why not.
    void fetched(quint64 id, const QByteArray& data, const QString& error);
};

/// The elements of one output buffer, fetched on demand in chunks of kChunkBytes (whole
/// elements) from a RangeFetcher, at most kMaxInFlight at a time, at most kMaxCachedChunks kept.
class OutputRangeReader : public QObject {
    Q_OBJECT
public:
    /// A fetch's size: one round trip brings a screenful of rows many times over.
    static constexpr qint64 kChunkBytes = qint64(64) << 10;
    /// 16 MiB of fetched chunks at most; the least recently read go first.
    static constexpr int kMaxCachedChunks = 256;
    /// Fetches outstanding at once; the rest wait, and a newer want() drops those not needed.
    static constexpr int kMaxInFlight = 4;
    /// want() callers: each keeps its own range (the table and the heat map of one viewer).
    static constexpr int kSlots = 2;

    explicit OutputRangeReader(QObject* parent = nullptr);

    /// Where kept buffers' bytes come from (null: none, a kept buffer shows nothing).
    void setFetcher(RangeFetcher* fetcher);
    [[nodiscard]] RangeFetcher* fetcher() const { return m_fetcher; }
    /// The buffer to read; forgets the chunks, the wants and the answers still to come.
    void setBuffer(const OutputBuffer& buffer);
    [[nodiscard]] const OutputBuffer& buffer() const { return m_buffer; }
    [[nodiscard]] bool isKept() const { return m_buffer.isKept(); }
    /// Elements readable: the kept buffer's count, or those whose bytes are here.
    [[nodiscard]] qint64 elementCount() const { return m_count; }
    /// Elements per chunk.
    [[nodiscard]] qint64 chunkElements() const { return m_chunkElements; }

    /// The bytes of element `index` (buffer().type.sizeBytes() of them), or null while they
    /// are not here (out of range, not fetched yet, or the fetch failed).
    [[nodiscard]] const char* element(qint64 index);
    [[nodiscard]] bool contains(qint64 index) const;

    /// Elements [first, last] (clamped) are wanted by caller `slot`: the chunks missing are
    /// fetched, the slot's older want is replaced (its chunks not yet asked for are dropped).
    /// At most kMaxCachedChunks / 2 chunks a slot, from `first` on. Nothing for a buffer
    /// whose bytes are here or after a failure.
    void want(qint64 first, qint64 last, int slot = 0);

    /// Why the last fetch failed (sticky until setBuffer()), empty when none did.
    [[nodiscard]] const QString& error() const { return m_error; }
    [[nodiscard]] int cachedChunks() const { return int(m_chunks.size()); }
    [[nodiscard]] int inFlight() const { return int(m_inFlight.size()); }
    /// Bytes fetched since setBuffer().
    [[nodiscard]] qint64 fetchedBytes() const { return m_fetchedBytes; }

signals:
    /// Elements [first, last] arrived and element() now gives them.
    void arrived(qint64 first, qint64 last);
    /// A fetch failed: `error` says why (error()); nothing more is fetched for this buffer.
    void failed(const QString& error);

private:
    struct Chunk {
        QByteArray bytes;
        quint64 lastUse = 0;
    };
    void onFetched(quint64 id, const QByteArray& data, const QString& error);
    /// Issues queued chunks while fewer than kMaxInFlight are outstanding.
    void pump();
    [[nodiscard]] qint64 chunkFirstElement(qint64 chunk) const { return chunk * m_chunkElements; }
    [[nodiscard]] qint64 chunkElementCount(qint64 chunk) const;
    void evict();

    QPointer<RangeFetcher> m_fetcher;
    OutputBuffer m_buffer;
    qint64 m_count = 0;
    qint64 m_elementBytes = 0;
    qint64 m_chunkElements = 1;
    QHash<qint64, Chunk> m_chunks;     ///< chunk index -> its bytes
    quint64 m_clock = 0;               ///< LRU time: bumped by every read of a chunk
    QHash<quint64, qint64> m_inFlight; ///< fetch id -> chunk index
    QSet<qint64> m_inFlightChunks;
    QVector<qint64> m_queue; ///< chunks wanted and not yet asked for, in order
    /// Each slot's wanted chunks [first, last]; last < first when it wants none.
    QVector<QPair<qint64, qint64>> m_wants;
    QString m_error;
    qint64 m_fetchedBytes = 0;
};

} // namespace kernelpad
