#pragma once
// Compiled programs kept in memory for the session and, behind it, on disk between
// sessions: the same source, options, arch, name expressions, included files and NVRTC
// version never go through NVRTC twice.

#include "core/compile/CompileResult.h"
#include "core/compile/DiskCompileCache.h"

#include <QByteArray>
#include <QHash>
#include <QStringList>

#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>

namespace kernelpad {

/// A small LRU map from a compile's inputs to its result, in front of a DiskCompileCache;
/// thread-safe.
class CompileCache {
public:
    static constexpr int kDefaultCapacity = 32;

    /// `diskDirectory` empty: memory only. The default is DiskCompileCache::defaultDirectory()
    /// ($KERNELPAD_CACHE_DIR or the XDG cache directory; "off" turns the disk tier off).
    explicit CompileCache(int capacity = kDefaultCapacity,
                          const QString& diskDirectory = DiskCompileCache::defaultDirectory());

    /// The key of one compile: every input that changes NVRTC's output. `includeFingerprint`
    /// is includeFingerprint()'s digest of the user's included files (empty: none).
    [[nodiscard]] static QByteArray key(const QString& source, const QString& sourceName,
                                        const QStringList& flags,
                                        const QStringList& nameExpressions,
                                        const QString& nvrtcVersion,
                                        const QByteArray& includeFingerprint = {});

    /// A digest of the project headers `source` includes, as resolveIncludes() finds and
    /// reads them for a project in `sourceDir` (IncludeResolver.h): the same files, the same
    /// bounded reads, the same bytes NVRTC is handed. Toolkit headers are left to the NVRTC
    /// version in the key. Empty when there are none.
    [[nodiscard]] static QByteArray includeFingerprint(const QString& source,
                                                       const QString& sourceDir,
                                                       const QStringList& includeDirs);

    /// A successful result for `key` (cacheHit, fromCache = Memory or Disk), or nothing.
    /// A disk hit is kept in memory too.
    [[nodiscard]] std::optional<CompileResult> find(const QByteArray& key);
    /// Stores successful results only (failures are cheap to redo and must show a fresh
    /// log), in memory and on disk.
    void insert(const QByteArray& key, const CompileResult& result);
    /// Stores a successful result in memory alone: one this computer's compiler did not make
    /// (another runner's program, core/runner/RunnerServerPrograms.h) is kept for this session
    /// and never written to the disk cache that later sessions trust.
    void insertInMemory(const QByteArray& key, const CompileResult& result);

    /// find(key), else `compile()`'s result, inserted. On a hit compileMs is the lookup's
    /// time (nvrtcMs keeps NVRTC's). The first result to meet a disk folder that is refused
    /// (DiskCompileCache::takeNotice()) carries the reason as a note in its log and
    /// diagnostics, so the user hears of it once, in the CLI and in the window alike.
    [[nodiscard]] CompileResult findOrCompile(const QByteArray& key,
                                              const std::function<CompileResult()>& compile);

    /// The disk tier, or null when it is off.
    [[nodiscard]] DiskCompileCache* disk() const { return m_disk.get(); }

private:
    int m_capacity;
    std::unique_ptr<DiskCompileCache> m_disk; ///< thread-safe itself
    std::mutex m_mutex;                       // guards m_order and m_entries
    std::list<QByteArray> m_order;            // most recently used first
    QHash<QByteArray, CompileResult> m_entries;
};

} // namespace kernelpad
