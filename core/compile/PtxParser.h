#pragma once
// Reads the kernel entries and their parameters out of PTX text.

#include "core/compile/CompileResult.h"

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

/// Size in bytes of a PTX fundamental type such as ".f32" or ".b8"; 0 if unknown.
[[nodiscard]] int ptxTypeSizeBytes(const QString& ptxType);

} // namespace kernelpad
