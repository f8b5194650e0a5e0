#pragma once
// KernelPad, not NVRTC, opens the headers of a project: every directive scanIncludeDirectives()
// finds is resolved here, only inside the project folder (canonical paths, links followed) and
// the CUDA toolkit, and each project header is read once through readRegularFile (regular
// files only, bounded) and handed to nvrtcCreateProgram in memory. NVRTC then gets no -I of a
// user folder and -no-source-include, so it can open nothing but the toolkit's own headers.

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

/// Where the headers of one program may come from.
struct IncludeRoots {
    QString projectDir;      ///< every project header must lie inside it (after links)
    QString mainDirectory;   ///< the main source's quoted includes resolve here first
    QStringList userDirs;    ///< absolute include dirs of the project, in order
    QStringList toolkitDirs; ///< the toolkit's include dirs (Toolkit.h), searched first for <>
};

/// An include that must not reach NVRTC, positioned like an NVRTC diagnostic.
struct IncludeProblem {
    QString file; ///< the program name for the main source, else the header's path
    int line = 0; ///< 1-based; 0 for an include dir
    int column = 0;
    QString message; ///< names the include (or the include dir) and why
};

/// Where a directive is: the program name for the main source, else the header's path.
struct IncludeSite {
    QString file;
    int line = 0; ///< 1-based
    int column = 0;
};

/// A project header as NVRTC gets it. NVRTC finds an in-memory header by the name written in
/// the directive, so every directive naming a project header is rewritten to name it by its
/// canonical path: one name per file, whichever way it was reached.
struct ResolvedHeader {
    QString includeName; ///< its canonical path
    QString path;        ///< where it was found, for diagnostics (absolute, not canonical)
    QByteArray bytes;    ///< as read, its directives' names rewritten: exactly what NVRTC gets
    /// Set for KernelPad's own header of a standard name NVRTC lacks (StandardHeaders.h),
    /// named as written ("cstdint"): the first directive naming it, where an error NVRTC
    /// reports inside it (an #error for <iostream>) is shown.
    std::optional<IncludeSite> standardAt;
};

/// The project headers of a source, or why it cannot be compiled.
struct ResolvedIncludes {
    QString mainSource; ///< the source with its directives' names rewritten
    /// The name NVRTC gets for the source: in the main directory, where NVRTC then looks for
    /// a quoted name it is not given, as resolve did (not the working directory).
    QString mainName;
    QVector<ResolvedHeader> headers;
    std::optional<IncludeProblem> problem;
};

/// The roots of a project in `projectDir` (absolute) with `includeDirs` (relative to it or
/// absolute): its main source's quoted includes resolve in `projectDir`, and the toolkit's
/// include dirs are Toolkit.h's.
[[nodiscard]] IncludeRoots projectIncludeRoots(const QString& projectDir,
                                               const QStringList& includeDirs);

/// Resolves every include of `source` (named `sourceName` in diagnostics) and, recursively,
/// of the project headers it reaches. Refused, with the directive's file and line: an absolute
/// name, a name or include dir that leaves the project folder (`..`, a link), a header that is
/// not a regular file or is too large, a computed `#include MACRO`, a name split by a splice,
/// and trees past the limits below. A standard C or C++ header found in neither the toolkit
/// nor the project comes from StandardHeaders.h. <angle>
/// names are looked up in the toolkit before any project folder, so a project cannot shadow
/// `cuda/std/detail/__config`. Nothing of a refused file's contents is read or shown.
[[nodiscard]] ResolvedIncludes resolveIncludes(const QString& source, const QString& sourceName,
                                               const IncludeRoots& roots);

/// Limits of resolveIncludes(): far above real kernels (CUTLASS-style trees stay in the
/// toolkit or a few dozen project headers), low enough that a crafted tree ends quickly.
inline constexpr int kMaxIncludeDepth = 32;
inline constexpr int kMaxCheckedHeaders = 512;
inline constexpr qint64 kMaxHeaderBytes = qint64(16) << 20;      // 16 MiB
inline constexpr qint64 kMaxTotalHeaderBytes = qint64(64) << 20; // 64 MiB

} // namespace kernelpad
