#pragma once
// Compiled programs kept in memory for the session: the same source, options, arch and
// name expressions never go through NVRTC twice.

#include "core/compile/CompileResult.h"

#include <QByteArray>
#include <QHash>
#include <QStringList>

#include <list>
#include <mutex>
#include <optional>

namespace kernelpad {

/// A small LRU map from a compile's inputs to its result; thread-safe.
class CompileCache {
public:
    explicit CompileCache(int capacity = 32)
        : m_capacity(capacity)
    {
    }

    /// The key of one compile: every input that changes NVRTC's output.
    [[nodiscard]] static QByteArray key(const QString& source, const QString& sourceName,
                                        const QStringList& flags, const QStringList& nameExpressions,
                                        const QString& nvrtcVersion);

    /// A successful result for `key`, marked cacheHit, or nothing.
    [[nodiscard]] std::optional<CompileResult> find(const QByteArray& key);
    /// Stores successful results only (failures are cheap to redo and must show a fresh log).
    void insert(const QByteArray& key, const CompileResult& result);

private:
    int m_capacity;
    std::mutex m_mutex;                 // guards m_order and m_entries
    std::list<QByteArray> m_order;      // most recently used first
    QHash<QByteArray, CompileResult> m_entries;
};

} // namespace kernelpad
