#include "core/compile/SassCache.h"

#include <QCryptographicHash>
#include <QMutexLocker>

#include <algorithm>

namespace kernelpad {

SassCache::SassCache(int capacity)
    : m_capacity(std::max(1, capacity)) {}

SassCache& SassCache::instance() {
    static SassCache cache;
    return cache;
}

namespace {

template <typename T> bool readLittle(const QByteArray& bytes, qint64 at, T* value) {
    if (at < 0 || at + qint64(sizeof(T)) > bytes.size())
        return false;
    quint64 v = 0;
    for (int i = int(sizeof(T)) - 1; i >= 0; --i)
        v = (v << 8) | quint8(bytes[at + i]);
    *value = T(v);
    return true;
}

/// Adds the CUBIN's code to `hash`, leaving out its note sections: ptxas writes its own command
/// line there (.note.nv.tkinfo), so the Diff tab's compile with -Xptxas -v gives other bytes
/// for the same code, which nvdisasm prints the same. False when `cubin` is not a 64-bit
/// little-endian ELF file with sane section headers (the whole file is hashed then).
bool addCode(const QByteArray& cubin, QCryptographicHash* hash) {
    constexpr qint64 kIdentAndMachine = 0x18;
    constexpr qint64 kSectionHeadersAt = 0x28;
    constexpr qint64 kFlagsAt = 0x30;
    constexpr qint64 kEntrySizeAt = 0x3A;
    constexpr qint64 kCountAt = 0x3C;
    constexpr quint32 kNote = 7;   // SHT_NOTE
    constexpr quint32 kNoBits = 8; // SHT_NOBITS: no contents in the file
    if (!cubin.startsWith("\x7f"
                          "ELF") ||
        cubin.size() < 0x40 || cubin[4] != 2 || cubin[5] != 1)
        return false;
    quint64 headers = 0;
    quint16 entrySize = 0;
    quint16 count = 0;
    if (!readLittle(cubin, kSectionHeadersAt, &headers) ||
        !readLittle(cubin, kEntrySizeAt, &entrySize) || !readLittle(cubin, kCountAt, &count) ||
        entrySize < 0x40 || headers + quint64(count) * entrySize > quint64(cubin.size()))
        return false;
    QByteArray digest = cubin.left(kIdentAndMachine) + cubin.mid(kFlagsAt, 4);
    for (quint16 i = 0; i < count; ++i) {
        const qint64 at = qint64(headers) + qint64(i) * entrySize;
        quint32 name = 0;
        quint32 type = 0;
        quint64 flags = 0;
        quint64 offset = 0;
        quint64 size = 0;
        if (!readLittle(cubin, at, &name) || !readLittle(cubin, at + 4, &type) ||
            !readLittle(cubin, at + 8, &flags) || !readLittle(cubin, at + 0x18, &offset) ||
            !readLittle(cubin, at + 0x20, &size))
            return false;
        if (type == kNote)
            continue;
        digest += cubin.mid(at, 16);       // name, type, flags
        digest += cubin.mid(at + 0x20, 8); // size
        if (type != kNoBits) {
            if (offset + size > quint64(cubin.size()))
                return false;
            digest += cubin.mid(qint64(offset), qint64(size));
        }
    }
    hash->addData(digest);
    return true;
}

} // namespace

QByteArray SassCache::key(const QByteArray& cubin, const QString& nvdisasm) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!addCode(cubin, &hash)) {
        hash.reset();
        hash.addData(cubin);
    }
    hash.addData(QByteArrayView("\0", 1));
    hash.addData(nvdisasm.toUtf8());
    return hash.result();
}

QByteArray SassCache::mapKey(const QString& ptx, const QString& sourceName) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(ptx.toUtf8());
    hash.addData(QByteArrayView("\0", 1));
    hash.addData(sourceName.toUtf8());
    return hash.result();
}

std::optional<SassCache::Entry> SassCache::find(const QByteArray& key) {
    const QMutexLocker lock(&m_mutex);
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        if (m_entries[i].key == key) {
            Entry entry = m_entries.takeAt(i);
            m_entries.append(entry);
            return entry;
        }
    }
    return std::nullopt;
}

void SassCache::insert(const Entry& entry) {
    const QMutexLocker lock(&m_mutex);
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        if (m_entries[i].key == entry.key) {
            m_entries.removeAt(i);
            break;
        }
    }
    m_entries.append(entry);
    while (m_entries.size() > m_capacity)
        m_entries.removeFirst();
}

void SassCache::clear() {
    const QMutexLocker lock(&m_mutex);
    m_entries.clear();
}

int SassCache::size() const {
    const QMutexLocker lock(&m_mutex);
    return int(m_entries.size());
}

} // namespace kernelpad
