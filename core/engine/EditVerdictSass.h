#pragma once
// The SASS side of an edit's verdict in the window (docs/ARCHITECTURE.md, "Verdict of an
// edit"): a disassembly the SASS or Diff tab asked for is of one compile, and its opcode
// counts join the runs and versions made from that compile, never those of another. A
// compile is named by what compileProject() reads, less what leaves the instructions as they
// are (-lineinfo, ptxas's -v report), so that the -lineinfo compile a disassembly makes and
// the run's own compile share one key, plus what the project does not hold: the headers it
// includes, as the compile read them.

#include "core/compile/SassReport.h"
#include "core/project/Project.h"

#include <QByteArray>
#include <QMap>
#include <QString>

namespace kernelpad {

/// Opcode counts ("LDG.E" -> 4) by kernel, keyed by the kernel's lowered name.
using SassOpcodesByKernel = QMap<QString, QMap<QString, int>>;

/// A digest of the inputs that decide the machine code of `compile`, a compile of `project`
/// (source, source name, language, options, name expressions, and from `compile` its arch
/// and the fingerprint of the project headers it read; -lineinfo and -Xptxas -v left out).
/// Empty when `compile` has no arch: a compile without a known arch names nothing.
[[nodiscard]] QByteArray sassCompileKey(const Project& project, const CompileResult& compile);

/// Every kernel of `report` that its SASS lists, with its opcodes counted by
/// sassOpcodeCounts() (EditVerdict.h); empty when the report has no SASS (failed, stopped).
[[nodiscard]] SassOpcodesByKernel sassOpcodesOf(const SassReport& report);

} // namespace kernelpad
