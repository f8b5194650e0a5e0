#pragma once
// NVRTC opens every #include'd file itself, blocking: an #include of a FIFO hung the compile
// worker for ever, and /dev/zero would run it out of memory. So before NVRTC sees a source,
// each include is resolved as NVRTC would and refused unless its first match is a regular file.

#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// Where NVRTC looks for the headers of one program.
struct IncludeSearch {
    /// The directory NVRTC resolves the main source's quoted includes against: the directory
    /// part of the program name, relative to the process's working directory (NVRTC 13 finds
    /// `#include "h.cuh"` in the working directory, and nowhere else without -I).
    QString mainDirectory;
    QStringList userDirs;    ///< the -I directories of the project, in order; scanned into
    QStringList toolkitDirs; ///< searched after the user's; trusted, never scanned into
};

/// An include that must not reach NVRTC, positioned like an NVRTC diagnostic.
struct IncludeProblem {
    QString file; ///< the program name for the main source, else the header's path
    int line = 0; ///< 1-based
    int column = 0;
    QString message; ///< names the path and why
};

/// Scans the #include (and __has_include) directives of `source` and, recursively, of every
/// header found outside the toolkit (at most kMaxIncludeDepth deep and kMaxCheckedHeaders
/// headers, each read bounded to kMaxHeaderBytes). Directives are found on every line,
/// commented out or not: a check that runs too often costs nothing, one that misses a line lets
/// a FIFO through. Refused: an include whose first match exists but is not a regular file, a
/// computed `#include MACRO` (what it names is unknown before preprocessing), a malformed one,
/// and a header that cannot be read. nullopt when NVRTC may go ahead.
[[nodiscard]] std::optional<IncludeProblem>
findUnsafeInclude(const QString& source, const QString& sourceName, const IncludeSearch& search);

/// Limits of findUnsafeInclude(): far above real kernels (CUTLASS-style trees stay in the
/// toolkit or a few dozen user headers), low enough that a crafted tree ends quickly.
inline constexpr int kMaxIncludeDepth = 32;
inline constexpr int kMaxCheckedHeaders = 512;
inline constexpr qint64 kMaxHeaderBytes = qint64(16) << 20; // 16 MiB

} // namespace kernelpad
