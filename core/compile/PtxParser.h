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

/// The name a hand-written PTX entry gives parameter `param`, without the entry's prefix:
/// "x" for ("saxpy", "saxpy_x"). Empty when what is left is no identifier, as in the names
/// compilers make ("saxpy_param_0", "_Z5saxpyfPfi_param_1").
[[nodiscard]] QString ptxParameterName(const QString& entry, const QString& param);

/// Hand-written PTX passes pointers and sizes alike as `.u64`: true for a 64-bit integer
/// parameter whose name (ptxParameterName) reads as a count ("n", "count", "size", "len",
/// "num_items", "width"), which is then taken for a value rather than a pointer.
[[nodiscard]] bool ptxNameLooksLikeCount(const QString& name);

/// Size in bytes of a PTX fundamental type such as ".f32" or ".b8"; 0 if unknown.
[[nodiscard]] int ptxTypeSizeBytes(const QString& ptxType);

} // namespace kernelpad
