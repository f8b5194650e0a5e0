#include "core/compile/DiskCompileCache.h"

#include "core/io/SafeFile.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QtEndian>
#include <QtGlobal>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kernelpad {
namespace {

/// "KernelPad compile cache": a file that does not start with it is not ours.
constexpr char kMagic[8] = {'K', 'P', 'A', 'D', 'C', 'C', '\r', '\n'};
constexpr int kShaBytes = 32;
/// magic, version (u32), key length (u32), JSON length (u32), payload length (u64), SHA-256
/// of the key and the payload.
constexpr qsizetype kHeaderBytes = sizeof(kMagic) + 4 + 4 + 4 + 8 + kShaBytes;
constexpr qsizetype kVersionAt = sizeof(kMagic);
constexpr qsizetype kKeyLengthAt = kVersionAt + 4;
constexpr qsizetype kJsonLengthAt = kKeyLengthAt + 4;
constexpr qsizetype kPayloadLengthAt = kJsonLengthAt + 4;
constexpr qsizetype kShaAt = kPayloadLengthAt + 8;
/// After an eviction the cache holds at most this share of maxBytes, so that the next
/// few inserts do not each pay for a directory scan and a deletion.
constexpr double kEvictTargetShare = 0.8;
/// Keys longer than this are hashed for the file name (names must stay under NAME_MAX).
constexpr qsizetype kMaxRawKeyBytes = 64;
/// Only the owner may write the folders the cache creates.
constexpr mode_t kFolderMode = 0700;

QByteArray sha256(const QByteArray& bytes) {
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

QByteArray sha256(const QByteArray& first, const QByteArray& second) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(first);
    hash.addData(second);
    return hash.result();
}

bool isEntryName(const QString& name) {
    if (name.isEmpty() || name.size() > 2 * kMaxRawKeyBytes || name.size() % 2 != 0)
        return false;
    return std::all_of(name.cbegin(), name.cend(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
    });
}

} // namespace

std::optional<CompileResult> DiskCompileCache::decodeEntry(const QByteArray& bytes,
                                                           const QByteArray& key) {
    if (bytes.size() < kHeaderBytes || std::memcmp(bytes.constData(), kMagic, sizeof(kMagic)) != 0)
        return std::nullopt;
    const auto* p = reinterpret_cast<const uchar*>(bytes.constData());
    const quint32 version = qFromLittleEndian<quint32>(p + kVersionAt);
    const quint64 keyBytes = qFromLittleEndian<quint32>(p + kKeyLengthAt);
    const quint64 jsonBytes = qFromLittleEndian<quint32>(p + kJsonLengthAt);
    const quint64 payloadBytes = qFromLittleEndian<quint64>(p + kPayloadLengthAt);
    const quint64 bodyBytes = quint64(bytes.size() - kHeaderBytes);
    if (version != DiskCompileCache::kFormatVersion || keyBytes > bodyBytes ||
        payloadBytes != bodyBytes - keyBytes || jsonBytes > payloadBytes)
        return std::nullopt;
    const QByteArray storedKey = bytes.mid(kHeaderBytes, qsizetype(keyBytes));
    if (storedKey != key)
        return std::nullopt;
    const QByteArray payload = bytes.mid(kHeaderBytes + qsizetype(keyBytes));
    if (sha256(storedKey, payload) != bytes.mid(kShaAt, kShaBytes))
        return std::nullopt;
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(payload.left(qsizetype(jsonBytes)), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return std::nullopt;
    // An entry this build cannot read (a field missing or malformed) is a miss like a corrupt
    // one: the source is compiled again and the entry replaced.
    std::optional<CompileResult> result = CompileResult::fromJson(doc.object(), nullptr);
    if (!result || !result->ok)
        return std::nullopt;
    result->cubin = payload.mid(qsizetype(jsonBytes));
    return result;
}

namespace {

/// Deletes `path` only when it is a regular file of this user (one we could have written):
/// a planted link, FIFO or another user's file is left where it is, never followed.
void removeIfOurs(const QString& path) {
    const QByteArray name = QFile::encodeName(path);
    struct stat st {};
    if (::lstat(name.constData(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid())
        (void)::unlink(name.constData());
}

/// Creates `directory` (and its parents) with the last component private to this user.
bool createFolder(const QString& directory) {
    const QFileInfo info(directory);
    if (!QDir().mkpath(info.absolutePath()))
        return false;
    // Not QDir::mkpath for the last one: with a umask of 002 it would be group-writable and
    // then refused by folderProblem().
    return ::mkdir(QFile::encodeName(directory).constData(), kFolderMode) == 0 || errno == EEXIST;
}

} // namespace

DiskCompileCache::DiskCompileCache(QString directory, qint64 maxBytes)
    : m_directory(std::move(directory))
    , m_maxBytes(maxBytes) {
    if (m_maxBytes <= 0 || m_directory.isEmpty())
        m_enabled = false;
}

QString DiskCompileCache::defaultDirectory() {
    const QString fromEnv = qEnvironmentVariable("KERNELPAD_CACHE_DIR");
    if (fromEnv == QLatin1String("off"))
        return {}; // caching on disk turned off
    if (!fromEnv.isEmpty())
        return fromEnv;
    // GenericCacheLocation is $XDG_CACHE_HOME or ~/.cache on Linux.
    const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
    return base.isEmpty() ? QString() : base + QStringLiteral("/kernelpad/compile");
}

QString DiskCompileCache::folderProblem(const QString& directory) {
    struct stat st {};
    // stat, not lstat: a cache folder reached through a link (~/.cache on another disk) is
    // judged by the folder it leads to.
    if (::stat(QFile::encodeName(directory).constData(), &st) != 0)
        return {};
    if (!S_ISDIR(st.st_mode))
        return QStringLiteral("it is not a folder");
    if (st.st_uid != ::geteuid())
        return QStringLiteral("it belongs to user id %1, not to you (user id %2)")
            .arg(st.st_uid)
            .arg(::geteuid());
    const QString mode = QStringLiteral("%1").arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'));
    if (st.st_mode & S_IWOTH)
        return QStringLiteral("it is writable by others (mode %1)").arg(mode);
    if (st.st_mode & S_IWGRP)
        return QStringLiteral("it is writable by its group (mode %1)").arg(mode);
    return {};
}

bool DiskCompileCache::folderUsable(bool create) const {
    if (m_folder.load() == FolderState::Refused)
        return false;
    // Created again if it went away since it was checked (a user clearing ~/.cache).
    if (create && !createFolder(m_directory)) {
        disable(QStringLiteral("cannot create %1").arg(m_directory));
        return false;
    }
    if (m_folder.load() == FolderState::Trusted)
        return true;
    if (!QFileInfo(m_directory).isDir())
        return false; // nothing to read yet; checked again when it exists
    const QString problem = folderProblem(m_directory);
    if (problem.isEmpty()) {
        m_folder = FolderState::Trusted;
        return true;
    }
    {
        std::lock_guard lock(m_noticeMutex);
        if (m_notice.isEmpty())
            m_notice = QStringLiteral("note: the compile cache in %1 is not used: %2; anyone who "
                                      "can write there could plant compiled code. Compiling "
                                      "without it (make the folder yours with mode 0700, or "
                                      "point KERNELPAD_CACHE_DIR at one)")
                           .arg(QDir::toNativeSeparators(m_directory), problem);
    }
    m_enabled = false;
    m_folder = FolderState::Refused;
    return false;
}

QString DiskCompileCache::takeNotice() {
    std::lock_guard lock(m_noticeMutex);
    if (m_noticeTaken || m_notice.isEmpty())
        return {};
    m_noticeTaken = true;
    return m_notice;
}

QString DiskCompileCache::entryPath(const QByteArray& key) const {
    const QByteArray name = key.size() <= kMaxRawKeyBytes ? key.toHex() : sha256(key).toHex();
    return m_directory + QLatin1Char('/') + QString::fromLatin1(name);
}

QByteArray DiskCompileCache::encodeEntry(const QByteArray& key, const CompileResult& result,
                                         quint32 formatVersion) {
    CompileResult stored = result;
    stored.cacheHit = false;
    stored.fromCache = CompileResult::CacheTier::None;
    const QByteArray json = QJsonDocument(stored.toJson(true)).toJson(QJsonDocument::Compact);
    const QByteArray payload = json + result.cubin;
    QByteArray bytes(kHeaderBytes, '\0');
    auto* p = reinterpret_cast<uchar*>(bytes.data());
    std::memcpy(p, kMagic, sizeof(kMagic));
    qToLittleEndian<quint32>(formatVersion, p + kVersionAt);
    qToLittleEndian<quint32>(quint32(key.size()), p + kKeyLengthAt);
    qToLittleEndian<quint32>(quint32(json.size()), p + kJsonLengthAt);
    qToLittleEndian<quint64>(quint64(payload.size()), p + kPayloadLengthAt);
    const QByteArray digest = sha256(key, payload);
    std::memcpy(p + kShaAt, digest.constData(), kShaBytes);
    return bytes + key + payload;
}

std::optional<CompileResult> DiskCompileCache::find(const QByteArray& key) const {
    if (m_directory.isEmpty() || m_maxBytes <= 0 || key.isEmpty() || !folderUsable(false))
        return std::nullopt;
    const QString path = entryPath(key);
    // Regular files only, not through a link, and no larger than the whole cache: a FIFO
    // would hang the read, /dev/zero would never end, a link could lead anywhere.
    QString why;
    ReadFailure failure = ReadFailure::None;
    const std::optional<QByteArray> bytes =
        readRegularFile(path, ReadLimits{m_maxBytes, /*followSymlinks*/ false}, &why, &failure);
    if (!bytes) {
        if (failure == ReadFailure::TooLarge)
            removeIfOurs(path);
        return std::nullopt; // no entry, or not one we could have written: a miss either way
    }
    std::optional<CompileResult> result = decodeEntry(*bytes, key);
    if (!result) {
        // Corrupt, truncated, from another format version or stored for another key:
        // recompile, never trust it. (A writer that renamed a fresh entry in since our read
        // loses it too: only a miss.)
        removeIfOurs(path);
        return std::nullopt;
    }
    // The modification time is the LRU age; AT_SYMLINK_NOFOLLOW: the entry itself, which the
    // read above proved a regular file (futimens needs ownership, not write access).
    (void)::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), nullptr, AT_SYMLINK_NOFOLLOW);
    result->cacheHit = true;
    result->fromCache = CompileResult::CacheTier::Disk;
    return result;
}

void DiskCompileCache::insert(const QByteArray& key, const CompileResult& result) {
    if (!result.ok || key.isEmpty() || !isEnabled())
        return;
    const QByteArray bytes = encodeEntry(key, result);
    if (bytes.size() > qint64(double(m_maxBytes) * kEvictTargetShare))
        return; // it would evict everything, itself included
    if (!folderUsable(true))
        return;
    const QString path = entryPath(key);
    // A name taken by something other than a regular file (a link, a FIFO, a folder) was not
    // made by us: it is left alone, and this result simply not kept. Should a link appear
    // between this check and the write, rename(2) replaces the link itself, never the file
    // it points to, so nothing is created outside the folder.
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) == 0 && !S_ISREG(st.st_mode))
        return;
    // Written beside the entry and renamed over it, so a reader sees the old entry or the new
    // one, never half of one; a full disk leaves no truncated entry behind.
    QString why;
    if (!writeFileAtomically(path, bytes, &why)) {
        disable(why);
        return;
    }
    evictIfNeeded();
}

void DiskCompileCache::evictIfNeeded() const {
    // NoSymLinks: only regular files can be entries; a link's size is its target's.
    const QFileInfoList infos =
        QDir(m_directory)
            .entryInfoList(QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden | QDir::NoSymLinks);
    std::vector<std::pair<QDateTime, QFileInfo>> entries;
    qint64 total = 0;
    for (const QFileInfo& info : infos) {
        if (!isEntryName(info.fileName()))
            continue; // not ours (or another writer's temporary file)
        total += info.size();
        entries.emplace_back(info.lastModified(), info);
    }
    if (total <= m_maxBytes)
        return;
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    const auto target = qint64(double(m_maxBytes) * kEvictTargetShare);
    for (const auto& [modified, info] : entries) {
        if (total <= target)
            break;
        // Another process may have evicted it already: count it gone either way.
        removeIfOurs(info.absoluteFilePath());
        total -= info.size();
    }
}

void DiskCompileCache::disable(const QString& why) const {
    if (m_enabled.exchange(false))
        qWarning("kernelpad: compile cache in %s disabled: %s", qPrintable(m_directory),
                 qPrintable(why));
}

} // namespace kernelpad
