#pragma once
// Turns NVRTC's program log into positioned messages the editor can mark.

#include "core/compile/CompileResult.h"

#include <QString>
#include <QVector>

namespace kernelpad {

/// Parses an NVRTC program log: `file(line): severity [#code]: message`, the echoed source line
/// and its caret (which gives the column), indented continuation lines, and position-less
/// messages (`nvrtc: error: ...`, and `Command-line error: invalid macro definition: X=a##`,
/// reworded to name the `defines` field). Summary lines ("1 error detected ...") are skipped.
/// Columns count characters of the source line, 1-based. Continuation lines (candidates of an
/// overload, "detected during instantiation ...") follow the first line after a '\n'.
/// Never fails; unknown lines are ignored.
[[nodiscard]] QVector<Diagnostic> parseNvrtcLog(const QString& log);

} // namespace kernelpad
