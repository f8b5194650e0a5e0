#pragma once
// Reads the kernel entries and their parameters out of PTX text.

#include "core/compile/CompileResult.h"

#include <QHash>
#include <QString>
#include <QVector>

namespace kernelpad {

/// Every `.entry` of the PTX, in order, with `lowered` = the entry name and its `.param`s
/// (size and alignment from the PTX type, `.align` and `[N]`; isPointer only where `.ptr` says
/// so). `name` is left empty for the caller. `.func`s, comments and string literals are
/// ignored. Linear in the input and never fails: malformed entries are skipped or cut short.
[[nodiscard]] QVector<KernelInfo> parsePtxEntries(const QString& ptx);

/// The PTX with comments and string literals blanked out (same length, offsets kept), so that
/// ".entry" in a comment or a `.file` path is not mistaken for a kernel.
[[nodiscard]] QString ptxWithoutCommentsAndStrings(const QString& ptx);
/// Every module-scope `.const` and `.global` variable of the PTX (`__constant__` and
/// `__device__`), in order: `lowered` = the symbol, `name` = its demangled form (the symbol
/// itself for an unmangled name), size from the type and `[N]`. `.extern` declarations and
/// texture/surface references are skipped; `sourceType` is left empty. Never fails.
[[nodiscard]] QVector<ModuleGlobal> parsePtxGlobals(const QString& ptx);

/// The type each `__constant__`/`__device__` variable of `source` is declared with, by
/// variable name ("filter" -> "float"), for the plain declarations a regular expression can
/// read (`__constant__ float filter[9];`); best effort, for display only.
[[nodiscard]] QHash<QString, QString> declaredGlobalTypes(const QString& source);

/// Size in bytes of a PTX fundamental type such as ".f32" or ".b8"; 0 if unknown.
[[nodiscard]] int ptxTypeSizeBytes(const QString& ptxType);

} // namespace kernelpad
