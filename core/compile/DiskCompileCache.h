#pragma once
// Compiled programs kept on disk between sessions (XDG cache directory), so that a fresh
// process or a restarted runner skips NVRTC for a source it has compiled before.

#include "core/compile/CompileResult.h"

#include <QByteArray>
#include <QString>
#include <QtGlobal>

#include <atomic>
#include <optional>

namespace kernelpad {

/// A size-bounded directory of compile results, one file per key; safe across processes.
///
/// Each entry is one file named by the hex key: a fixed header (magic, format version,
/// payload and JSON lengths, SHA-256 of the payload) and the payload (the result as compact
/// JSON followed by the CUBIN bytes). Entries are written atomically (QSaveFile: a temporary
/// file renamed into place), so concurrent writers leave one whole entry; an entry that fails
/// any check is deleted and reported as a miss, never trusted. Every method is thread-safe.
class DiskCompileCache {
public:
    /// Bytes the cache may hold before it evicts (Issue 5: "bounded in size").
    static constexpr qint64 kDefaultMaxBytes = qint64(256) << 20;
    /// Bumped whenever the entry layout or the payload's meaning changes.
    static constexpr quint32 kFormatVersion = 1;

    /// `maxBytes` <= 0 turns caching off.
    explicit DiskCompileCache(QString directory = defaultDirectory(),
                              qint64 maxBytes = kDefaultMaxBytes);

    /// $KERNELPAD_CACHE_DIR, else "<XDG cache dir>/kernelpad/compile"; empty (no disk
    /// cache) when KERNELPAD_CACHE_DIR is "off".
    [[nodiscard]] static QString defaultDirectory();

    /// The result stored for `key`, marked cacheHit, or nothing (no entry, or a bad one,
    /// which is deleted). A hit refreshes the entry's modification time (its LRU age).
    [[nodiscard]] std::optional<CompileResult> find(const QByteArray& key) const;
    /// Stores successful results only; a failure to write (read-only directory, full disk)
    /// is logged once and leaves the cache off for this object, never an exception.
    void insert(const QByteArray& key, const CompileResult& result);

    /// The file an entry for `key` lives in (tests and diagnostics).
    [[nodiscard]] QString entryPath(const QByteArray& key) const;
    [[nodiscard]] const QString& directory() const { return m_directory; }
    [[nodiscard]] qint64 maxBytes() const { return m_maxBytes; }
    /// False after a write failed or when maxBytes <= 0.
    [[nodiscard]] bool isEnabled() const { return m_enabled.load(std::memory_order_relaxed); }

    /// The bytes one entry file holds for this key and result (header + payload).
    [[nodiscard]] static QByteArray encodeEntry(const CompileResult& result,
                                                quint32 formatVersion = kFormatVersion);

private:
    /// Deletes the least recently used entries until the total is under 80 % of maxBytes.
    void evictIfNeeded() const;
    void disable(const QString& why);

    QString m_directory;
    qint64 m_maxBytes;
    std::atomic_bool m_enabled{true};
};

} // namespace kernelpad
