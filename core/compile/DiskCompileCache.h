#pragma once
// Compiled programs kept on disk between sessions (XDG cache directory), so that a fresh
// process or a restarted runner skips NVRTC for a source it has compiled before.

#include "core/compile/CompileResult.h"

#include <QByteArray>
#include <QString>
#include <QtGlobal>

#include <atomic>
#include <mutex>
#include <optional>

namespace kernelpad {

/// A size-bounded directory of compile results, one file per key; safe across processes.
///
/// Each entry is one file named by the hex key: a fixed header (magic, format version, key,
/// JSON and payload lengths, SHA-256 of key and payload), the key itself, and the payload (the
/// result as compact JSON followed by the CUBIN bytes). Nothing in the folder is trusted until
/// checked: only regular files of bounded size are opened, never through a symbolic link; an
/// entry whose stored key is not the one asked for (a file copied under another entry's
/// name) or whose hash does not match is a miss, and is deleted only when it is a regular file
/// of ours. A folder that is not the user's, or that others can write, is not used at all
/// (anyone who can write there could plant compiled code with a valid key and hash); the
/// first compile to meet it is told why, through takeNotice(). Entries are written
/// atomically (a temporary file renamed into place), so concurrent writers leave one whole
/// entry. Every method is thread-safe.
class DiskCompileCache {
public:
    /// Bytes the cache may hold before it evicts (the cache is bounded in size).
    static constexpr qint64 kDefaultMaxBytes = qint64(256) << 20;
    /// Bumped whenever the entry layout or the payload's meaning changes (2: the key is
    /// stored and hashed with the payload).
    static constexpr quint32 kFormatVersion = 2;

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
    /// False after a write failed, when maxBytes <= 0, or once the folder was found not to be
    /// trusted (see folderProblem()).
    [[nodiscard]] bool isEnabled() const { return m_enabled.load(std::memory_order_relaxed); }

    /// Why the user is not getting the disk cache, once: a "note: the compile cache in ... is
    /// not used: ..." line the first time it is called after the folder was refused, empty
    /// every other time. CompileCache puts it in the program log of the compile that met it,
    /// which the CLI and the window both show.
    [[nodiscard]] QString takeNotice();

    /// Why `directory` must not hold a compile cache, or empty when it may: it must be a
    /// folder owned by this user that neither its group nor others can write. Empty too when
    /// it does not exist (it is created with mode 0700 when first needed).
    [[nodiscard]] static QString folderProblem(const QString& directory);

    /// The bytes one entry file holds for this key and result (header + key + payload).
    [[nodiscard]] static QByteArray encodeEntry(const QByteArray& key, const CompileResult& result,
                                                quint32 formatVersion = kFormatVersion);
    /// The result encodeEntry() stored in `bytes` for `key`, marked as no cache hit, or nothing
    /// when any check fails (format, lengths, hash, or an entry stored under another key): a
    /// file copied under another entry's name, or an entry another runner made for another
    /// arch or compiler, is a miss.
    [[nodiscard]] static std::optional<CompileResult> decodeEntry(const QByteArray& bytes,
                                                                  const QByteArray& key);

private:
    enum class FolderState { Unchecked, Trusted, Refused };
    /// True when the folder exists and passed folderProblem() (checked once); `create` makes
    /// it first (mode 0700). A refused folder turns the cache off and leaves a notice.
    [[nodiscard]] bool folderUsable(bool create) const;
    /// Deletes the least recently used entries until the total is under 80 % of maxBytes.
    void evictIfNeeded() const;
    void disable(const QString& why) const;

    QString m_directory;
    qint64 m_maxBytes;
    mutable std::atomic_bool m_enabled{true};
    mutable std::atomic<FolderState> m_folder{FolderState::Unchecked};
    mutable std::mutex m_noticeMutex; // guards m_notice and m_noticeTaken
    mutable QString m_notice;
    bool m_noticeTaken = false;
};

} // namespace kernelpad
