#pragma once
// The SassReports already made in this process, keyed by the CUBIN's hash: the SASS and Diff
// tabs ask for the disassembly of the same compile, and a recompile that leaves the code as it
// was (a comment edited) gives the same CUBIN; neither starts nvdisasm again.

#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"

#include <QByteArray>
#include <QMutex>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

class SassCache {
public:
    /// What one disassembly gave: the SASS and the map it was built into.
    struct Entry {
        QByteArray key;    ///< key() of the CUBIN and the nvdisasm that read it
        SassResult sass;   ///< always ok: failures are not kept (the tool may appear)
        QByteArray mapKey; ///< mapKey() of the PTX and source name `lines` was built from
        LineMap lines;
    };

    /// Reports of a few dozen compiles: a session flips between a handful of versions.
    static constexpr int kDefaultCapacity = 32;

    explicit SassCache(int capacity = kDefaultCapacity);

    /// The one cache makeSassReport() uses (the compile worker, the CLI, the benchmark).
    static SassCache& instance();

    /// SHA-256 of the CUBIN's code (every section but the notes, where ptxas records its own
    /// options) and the nvdisasm path: another toolkit may print other SASS.
    [[nodiscard]] static QByteArray key(const QByteArray& cubin, const QString& nvdisasm);
    /// SHA-256 of the PTX and the source name, which the line map also reads.
    [[nodiscard]] static QByteArray mapKey(const QString& ptx, const QString& sourceName);

    /// The entry for `key`, now the most recently used; nullopt when absent.
    [[nodiscard]] std::optional<Entry> find(const QByteArray& key);
    /// Keeps `entry` (replacing one with the same key), dropping the least recently used
    /// beyond the capacity.
    void insert(const Entry& entry);
    void clear();
    [[nodiscard]] int size() const;

private:
    mutable QMutex m_mutex;
    int m_capacity;
    QVector<Entry> m_entries; ///< most recently used last
};

} // namespace kernelpad
