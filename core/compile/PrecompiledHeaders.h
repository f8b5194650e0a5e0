#pragma once
// NVRTC's automatic precompiled headers (-pch, CUDA 12.8+) in KernelPad's own cache folder, so
// that an edited kernel that includes cooperative_groups, CUB or cuda_bf16.h skips parsing its
// headers on the next compile in the same process. NVRTC decides itself: it precompiles the
// directives before the first line of code of the main source (the header stop) and uses the
// file again when a later program's directives, flags and headers match.
//
// What NVRTC allows, measured with NVRTC 13.0 (bench/RESULTS.md):
//  - a PCH file holds a copy of NVRTC's PCH heap and is usable only by the process that wrote
//    it (warning 20282: "incompatible ... heap allocation address"), and NVRTC deletes the
//    files it created when the process exits. So each process gets a folder of its own,
//    "<cache>/pch/nvrtc-<version>/<pid>-<random>/<option set>/", which no other process
//    writes, and folders left by a process that died are deleted by the next one;
//  - a truncated PCH file fails the compile ("invalid precompiled header file"), so such a
//    compile is run again without PCH, its folder emptied, and the user told once;
//  - one PCH heap per process (256 MiB by default): PCH compiles are serialized, a compile
//    that finds another in flight goes without, and the heap grows when NVRTC reports it too
//    small for a header set.
// The project never names any of this: NvrtcFlags.h refuses every PCH flag from a project.

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>

namespace kernelpad {

struct NvrtcApi;

/// Counters of this process's automatic PCH use (tests, bench/compile).
struct PchCounters {
    int created = 0;   ///< compiles that wrote a PCH file
    int used = 0;      ///< compiles that read one
    int fallbacks = 0; ///< compiles run again without PCH after a PCH failure
};

/// One compile's share of the automatic PCH: the flags to add, and the lock that keeps other
/// PCH compiles of this process out while it runs. Without flags the compile runs as before.
class PchTicket {
public:
    PchTicket() = default;
    PchTicket(const PchTicket&) = delete;
    PchTicket& operator=(const PchTicket&) = delete;
    PchTicket(PchTicket&&) noexcept = default;
    PchTicket& operator=(PchTicket&&) noexcept = default;
    ~PchTicket();

    [[nodiscard]] bool active() const { return !m_flags.isEmpty(); }
    /// "-pch", "--pch-dir=...", ...: appended to the compile's flags, never to
    /// CompileResult::flags (they change no output).
    [[nodiscard]] const QStringList& flags() const { return m_flags; }
    [[nodiscard]] const QString& directory() const { return m_directory; }
    /// Releases the lock: the compile is over (or is run again without PCH).
    void release();

private:
    friend PchTicket takePchTicket(const NvrtcApi& api, const QStringList& flags,
                                   const QString& source, const QByteArray& headersDigest);
    QStringList m_flags;
    QString m_directory;
    std::shared_ptr<void> m_lock;
};

/// The ticket for a compile of `source` with `flags` (the compile's own, as NVRTC gets them)
/// and the project headers it is handed in memory, `headersDigest` (pchHeadersDigest()):
/// NVRTC checks neither their text nor any date of theirs before it uses a PCH again, so a PCH
/// is kept per option set and header text, and an edited project header gets a PCH of its own:
/// inactive when `source` includes nothing before its first line of code (NVRTC would
/// precompile only its built-in headers, which costs more than it saves: bench/RESULTS.md),
/// when PCH is off (setAutomaticPch(false), $KERNELPAD_PCH=off, $KERNELPAD_CACHE_DIR=off, an
/// NVRTC before 12.8, a cache folder that is not the user's), or when another PCH compile of
/// this process is in flight.
[[nodiscard]] PchTicket takePchTicket(const NvrtcApi& api, const QStringList& flags,
                                      const QString& source, const QByteArray& headersDigest);

/// A digest of the headers a compile hands NVRTC in memory, each its name and its bytes in
/// order (`names` and `texts` of the same length); empty when there are none.
[[nodiscard]] QByteArray pchHeadersDigest(const QStringList& names, const QList<QByteArray>& texts);

/// True when `source` has an #include among the directives before its first line of code
/// (comments and blank lines aside): the part NVRTC's automatic PCH precompiles.
[[nodiscard]] bool includesBeforeCode(const QString& source);

/// What a PCH compile's program log says of the PCH: the lines NVRTC writes for it
/// ("creating/using precompiled header file") are removed from `log`; returns "created",
/// "used" or an empty string.
[[nodiscard]] QString takePchMessages(QString* log);

/// True when a failed compile's `log` blames the PCH (an invalid or unreadable PCH file or
/// folder), so that the compile must be run again without it.
[[nodiscard]] bool isPchFailure(const QString& log);

/// After a compile that used `ticket`: counts it, grows the heap NVRTC asked for, and keeps
/// the folder within its size bound. `createStatus` is nvrtcGetPCHCreateStatus's result and
/// `requiredHeapBytes` nvrtcGetPCHHeapSizeRequired's.
void notePchCompile(const PchTicket& ticket, const QString& use, int createStatus,
                    size_t requiredHeapBytes);

/// After a compile the PCH failed: empties the ticket's folder and returns the note to add to
/// that compile's log, once per process (empty every later time).
[[nodiscard]] QString notePchFailure(const PchTicket& ticket, const QString& log);

/// Turns automatic PCH on or off for this process (on unless $KERNELPAD_PCH is "off").
void setAutomaticPch(bool enabled);
[[nodiscard]] bool automaticPchEnabled();

/// The counters so far.
[[nodiscard]] PchCounters pchCounters();

/// The folder PCH files of this process go to for the cache folder `cacheDirectory` (created
/// on first use), or empty when it cannot be used.
[[nodiscard]] QString pchProcessDirectory(const QString& cacheDirectory);

/// Bytes of PCH files a process keeps before deleting its oldest (a header set of CUB or
/// cooperative_groups makes a file of about 100 MB).
inline constexpr qint64 kMaxPchBytesPerProcess = qint64(1) << 30;

} // namespace kernelpad
