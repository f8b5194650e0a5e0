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
#include <cstring>
#include <utility>
#include <vector>

namespace kernelpad {
namespace {

/// "KernelPad compile cache": a file that does not start with it is not ours.
constexpr char kMagic[8] = {'K', 'P', 'A', 'D', 'C', 'C', '\r', '\n'};
constexpr int kShaBytes = 32;
/// magic, version (u32), JSON length (u32), payload length (u64), SHA-256 of the payload.
constexpr qsizetype kHeaderBytes = sizeof(kMagic) + 4 + 4 + 8 + kShaBytes;
/// After an eviction the cache holds at most this share of maxBytes, so that the next
/// few inserts do not each pay for a directory scan and a deletion.
constexpr double kEvictTargetShare = 0.8;
/// Keys longer than this are hashed for the file name (names must stay under NAME_MAX).
constexpr qsizetype kMaxRawKeyBytes = 64;

QByteArray sha256(const QByteArray& bytes) {
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

bool isEntryName(const QString& name) {
    if (name.isEmpty() || name.size() > 2 * kMaxRawKeyBytes || name.size() % 2 != 0)
        return false;
    return std::all_of(name.cbegin(), name.cend(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
    });
}

/// The result stored in `bytes`, or nothing when any check fails.
std::optional<CompileResult> decodeEntry(const QByteArray& bytes) {
    if (bytes.size() < kHeaderBytes || std::memcmp(bytes.constData(), kMagic, sizeof(kMagic)) != 0)
        return std::nullopt;
    const auto* p = reinterpret_cast<const uchar*>(bytes.constData()) + sizeof(kMagic);
    const quint32 version = qFromLittleEndian<quint32>(p);
    const quint32 jsonBytes = qFromLittleEndian<quint32>(p + 4);
    const quint64 payloadBytes = qFromLittleEndian<quint64>(p + 8);
    const QByteArray storedSha = bytes.mid(kHeaderBytes - kShaBytes, kShaBytes);
    if (version != DiskCompileCache::kFormatVersion ||
        payloadBytes != quint64(bytes.size() - kHeaderBytes) || jsonBytes > payloadBytes)
        return std::nullopt;
    const QByteArray payload = bytes.mid(kHeaderBytes);
    if (sha256(payload) != storedSha)
        return std::nullopt;
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(payload.left(qsizetype(jsonBytes)), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return std::nullopt;
    CompileResult result = CompileResult::fromJson(doc.object());
    if (!result.ok)
        return std::nullopt;
    result.cubin = payload.mid(qsizetype(jsonBytes));
    return result;
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

QString DiskCompileCache::entryPath(const QByteArray& key) const {
    const QByteArray name = key.size() <= kMaxRawKeyBytes ? key.toHex() : sha256(key).toHex();
    return m_directory + QLatin1Char('/') + QString::fromLatin1(name);
}

QByteArray DiskCompileCache::encodeEntry(const CompileResult& result, quint32 formatVersion) {
    CompileResult stored = result;
    stored.cacheHit = false;
    stored.fromCache = CompileResult::CacheTier::None;
    const QByteArray json = QJsonDocument(stored.toJson(true)).toJson(QJsonDocument::Compact);
    const QByteArray payload = json + result.cubin;
    QByteArray bytes(kHeaderBytes, '\0');
    auto* p = reinterpret_cast<uchar*>(bytes.data());
    std::memcpy(p, kMagic, sizeof(kMagic));
    qToLittleEndian<quint32>(formatVersion, p + sizeof(kMagic));
    qToLittleEndian<quint32>(quint32(json.size()), p + sizeof(kMagic) + 4);
    qToLittleEndian<quint64>(quint64(payload.size()), p + sizeof(kMagic) + 8);
    const QByteArray digest = sha256(payload);
    std::memcpy(p + kHeaderBytes - kShaBytes, digest.constData(), kShaBytes);
    return bytes + payload;
}

std::optional<CompileResult> DiskCompileCache::find(const QByteArray& key) const {
    if (m_directory.isEmpty() || m_maxBytes <= 0 || key.isEmpty())
        return std::nullopt;
    const QString path = entryPath(key);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt; // no entry (or unreadable: the same to us)
    // An entry larger than the whole cache cannot be one we wrote.
    if (file.size() > m_maxBytes) {
        file.close();
        QFile::remove(path);
        return std::nullopt;
    }
    const QByteArray bytes = file.readAll();
    std::optional<CompileResult> result = decodeEntry(bytes);
    if (!result) {
        // Corrupt, truncated or from another format version: recompile, never trust it.
        // (A writer that renamed a fresh entry in since our read loses it too: only a miss.)
        file.close();
        QFile::remove(path);
        return std::nullopt;
    }
    // The modification time is the LRU age; futimens needs ownership, not write access.
    (void)file.setFileTime(QDateTime::currentDateTimeUtc(), QFileDevice::FileModificationTime);
    result->cacheHit = true;
    result->fromCache = CompileResult::CacheTier::Disk;
    return result;
}

void DiskCompileCache::insert(const QByteArray& key, const CompileResult& result) {
    if (!result.ok || key.isEmpty() || !isEnabled())
        return;
    const QByteArray bytes = encodeEntry(result);
    if (bytes.size() > qint64(double(m_maxBytes) * kEvictTargetShare))
        return; // it would evict everything, itself included
    if (!QDir().mkpath(m_directory)) {
        disable(QStringLiteral("cannot create %1").arg(m_directory));
        return;
    }
    // Written beside the entry and renamed over it, so a reader sees the old entry or the new
    // one, never half of one; a full disk leaves no truncated entry behind.
    QString why;
    if (!writeFileAtomically(entryPath(key), bytes, &why)) {
        disable(why);
        return;
    }
    evictIfNeeded();
}

void DiskCompileCache::evictIfNeeded() const {
    const QFileInfoList infos =
        QDir(m_directory).entryInfoList(QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden);
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
        QFile::remove(info.absoluteFilePath());
        total -= info.size();
    }
}

void DiskCompileCache::disable(const QString& why) {
    if (m_enabled.exchange(false))
        qWarning("kernelpad: compile cache in %s disabled: %s", qPrintable(m_directory),
                 qPrintable(why));
}

} // namespace kernelpad
