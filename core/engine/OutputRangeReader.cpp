#include "core/engine/OutputRangeReader.h"

#include <algorithm>

namespace kernelpad {

OutputRangeReader::OutputRangeReader(QObject* parent)
    : QObject(parent)
    , m_wants(kSlots, {0, -1}) {}

void OutputRangeReader::setFetcher(RangeFetcher* fetcher) {
    if (fetcher == m_fetcher)
        return;
    if (m_fetcher)
        m_fetcher->disconnect(this);
    m_fetcher = fetcher;
    if (fetcher)
        connect(fetcher, &RangeFetcher::fetched, this, &OutputRangeReader::onFetched);
    // Answers of the old fetcher would never come (or would carry its ids): ask again.
    m_inFlight.clear();
    m_inFlightChunks.clear();
    m_queue.clear();
    m_wants.fill({0, -1});
}

void OutputRangeReader::setBuffer(const OutputBuffer& buffer) {
    m_buffer = buffer; // shares the bytes
    m_elementBytes = buffer.type.sizeBytes();
    if (m_elementBytes <= 0)
        m_count = 0;
    else if (buffer.isKept())
        m_count = std::max<qint64>(0, buffer.count);
    else // never trust count beyond the bytes that are really here
        m_count = std::min(buffer.count, qint64(buffer.data.size()) / m_elementBytes);
    m_chunkElements = m_elementBytes > 0 ? std::max<qint64>(1, kChunkBytes / m_elementBytes) : 1;
    m_chunks.clear();
    m_inFlight.clear(); // their answers are of the previous buffer and are dropped
    m_inFlightChunks.clear();
    m_queue.clear();
    m_wants.fill({0, -1});
    m_error.clear();
    m_fetchedBytes = 0;
}

qint64 OutputRangeReader::chunkElementCount(qint64 chunk) const {
    return std::min(m_chunkElements, m_count - chunkFirstElement(chunk));
}

bool OutputRangeReader::contains(qint64 index) const {
    if (index < 0 || index >= m_count)
        return false;
    return !m_buffer.isKept() || m_chunks.contains(index / m_chunkElements);
}

const char* OutputRangeReader::element(qint64 index) {
    if (index < 0 || index >= m_count)
        return nullptr;
    if (!m_buffer.isKept())
        return m_buffer.data.constData() + index * m_elementBytes;
    const qint64 chunk = index / m_chunkElements;
    const auto it = m_chunks.find(chunk);
    if (it == m_chunks.end())
        return nullptr;
    it->lastUse = ++m_clock;
    return it->bytes.constData() + (index - chunkFirstElement(chunk)) * m_elementBytes;
}

void OutputRangeReader::want(qint64 first, qint64 last, int slot) {
    if (!m_buffer.isKept() || !m_error.isEmpty() || m_count == 0 || slot < 0 || slot >= kSlots)
        return;
    first = std::clamp<qint64>(first, 0, m_count - 1);
    last = std::clamp<qint64>(last, first, m_count - 1);
    const qint64 firstChunk = first / m_chunkElements;
    // Half the cache a slot, so that the two slots' chunks never evict each other's.
    const qint64 lastChunk =
        std::min(last / m_chunkElements, firstChunk + kMaxCachedChunks / kSlots - 1);
    // The queue is rebuilt even for the same range: a chunk evicted since is asked for again.
    m_wants[slot] = {firstChunk, lastChunk};
    m_queue.clear();
    for (const auto& [a, b] : std::as_const(m_wants))
        for (qint64 c = a; c <= b; ++c)
            if (!m_chunks.contains(c) && !m_inFlightChunks.contains(c) && !m_queue.contains(c))
                m_queue.append(c);
    pump();
}

void OutputRangeReader::pump() {
    if (!m_fetcher)
        return;
    while (!m_queue.isEmpty() && m_inFlight.size() < kMaxInFlight) {
        const qint64 chunk = m_queue.takeFirst();
        const quint64 id = m_fetcher->fetchRange(m_buffer.keptRun, m_buffer.name,
                                                 chunkFirstElement(chunk) * m_elementBytes,
                                                 chunkElementCount(chunk) * m_elementBytes);
        m_inFlight.insert(id, chunk);
        m_inFlightChunks.insert(chunk);
    }
}

void OutputRangeReader::evict() {
    while (m_chunks.size() > kMaxCachedChunks) {
        auto oldest = m_chunks.begin();
        for (auto it = m_chunks.begin(); it != m_chunks.end(); ++it)
            if (it->lastUse < oldest->lastUse)
                oldest = it;
        m_chunks.erase(oldest);
    }
}

void OutputRangeReader::onFetched(quint64 id, const QByteArray& data, const QString& error) {
    const auto it = m_inFlight.find(id);
    if (it == m_inFlight.end())
        return; // another reader's, or of a buffer shown before
    const qint64 chunk = *it;
    m_inFlight.erase(it);
    m_inFlightChunks.remove(chunk);
    if (!m_error.isEmpty())
        return; // after a failure nothing more is shown, so that the view says one thing
    const qint64 expected = chunkElementCount(chunk) * m_elementBytes;
    QString why = error;
    if (why.isEmpty() && data.size() != expected)
        why = tr("the runner sent %1 bytes of '%2' for a range of %3")
                  .arg(data.size())
                  .arg(m_buffer.name)
                  .arg(expected);
    if (!why.isEmpty()) {
        m_error = why;
        m_queue.clear();
        emit failed(m_error);
        return;
    }
    m_fetchedBytes += data.size();
    m_chunks.insert(chunk, Chunk{data, ++m_clock});
    evict();
    const qint64 first = chunkFirstElement(chunk);
    emit arrived(first, first + chunkElementCount(chunk) - 1);
    pump();
}

} // namespace kernelpad
