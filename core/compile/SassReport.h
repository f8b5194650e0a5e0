#pragma once
// What the SASS view shows for one compile: the SASS, the line map and the -lineinfo compile
// they come from.

#include "core/compile/CompileResult.h"
#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"
#include "core/compile/SassCache.h"

#include <QMetaType>

#include <functional>

namespace kernelpad {

/// The SASS of a compile made with -lineinfo and how its lines map to the source.
struct SassReport {
    CompileResult compile; ///< the -lineinfo compile (its PTX has the .loc lines)
    SassResult sass;       ///< sass.error says why there is no SASS
    LineMap lines;         ///< from the PTX's .loc lines and the SASS's; PTX only without SASS
    QString sourceName;    ///< the source file the line numbers are in
    double mapMs = 0;      ///< building `lines` (0 when the cache had them)

    [[nodiscard]] bool ok() const { return compile.ok && sass.ok; }
};

/// Called with the report as soon as its SASS exists, before the line map is built (its
/// `lines` still empty), so that a view can show the text first.
using SassListedCallback = std::function<void(const SassReport&)>;

/// Disassembles `compile`'s CUBIN (blocking: call it on a worker thread) and maps its lines to
/// `sourceName`. Two nvdisasm processes per CUBIN, side by side (the listing with its lines,
/// and the live registers per instruction: SassLiveRanges.h), none when `cache`
/// (SassCache::instance() by default; nullptr for none) already holds the disassembly of the
/// same CUBIN, life ranges included. A failed compile gives a report whose sass.error says
/// the source does not compile. `cancel` (SassOptions::cancel), set from another thread,
/// stops nvdisasm: the report's sass.cancelled is then set and nothing is cached.
[[nodiscard]] SassReport makeSassReport(const CompileResult& compile, const QString& sourceName,
                                        const SassListedCallback& listed = {},
                                        SassCache* cache = &SassCache::instance(),
                                        const std::atomic_bool* cancel = nullptr);

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::SassReport)
