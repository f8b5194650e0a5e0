#pragma once
// `kernelpad-cli compile A --diff B`: two projects compiled and compared, as the window's Diff
// tab compares two compiles (core/compile/CompileComparison.h).

#include <QString>

namespace kernelpad::cli {

/// The largest source file `compile FILE` and `--diff FILE` read, as a project's source
/// (core/project/ProjectFromSource.cpp).
inline constexpr qint64 kMaxCliSourceBytes = qint64(16) << 20;

/// What `compile --diff` was asked for.
struct CompileDiffOptions {
    QString afterPath;  ///< the compile shown as "after" (compile's FILE)
    QString beforePath; ///< the baseline (--diff's value)
    QString arch;       ///< --arch; empty: each project's own or the default
    QString kernel;     ///< --kernel: only this kernel's figures; empty for all
    bool ptx = false;   ///< --ptx: the PTX line diff too
    bool sass = false;  ///< --sass: disassemble both and compare the SASS (needs nvdisasm)
    bool json = false;
};

/// Compiles both with ptxas's -v report and prints, per kernel, the instructions by class,
/// registers, spills and memory as "before -> after (delta)", then the listings' change counts.
/// Returns the process's exit code (1 when either does not compile, 4 for bad input or a
/// missing nvdisasm with --sass).
int runCompileDiff(const CompileDiffOptions& options);

} // namespace kernelpad::cli
