#pragma once
// What the SASS view shows for one compile: the SASS, the line map and the -lineinfo compile
// they come from.

#include "core/compile/CompileResult.h"
#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"

#include <QMetaType>

namespace kernelpad {

/// The SASS of a compile made with -lineinfo and how its lines map to the source.
struct SassReport {
    CompileResult compile; ///< the -lineinfo compile (its PTX has the .loc lines)
    SassResult sass;       ///< sass.error says why there is no SASS
    LineMap lines;         ///< empty when either side lacks line information
    QString sourceName;    ///< the source file the line numbers are in

    [[nodiscard]] bool ok() const { return compile.ok && sass.ok; }
};

/// Disassembles `compile`'s CUBIN (blocking: call it on a worker thread) and maps its lines to
/// `sourceName`. A failed compile gives a report whose sass.error says the source does not
/// compile.
[[nodiscard]] SassReport makeSassReport(const CompileResult& compile, const QString& sourceName);

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::SassReport)
