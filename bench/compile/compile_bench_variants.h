#pragma once
// bench/compile's --variants: where a heavy header's edited compile spends its time, and what
// NVRTC's own options change. Raw NVRTC (NvrtcApi, no KernelPad compile path around it) with
// the flags KernelPad gives it for an automatic PCH, one process per source and variant:
//   baseline        -arch=sm_90, the toolkit's include dirs, -pch in a folder of its own
//   minimal         + --minimal (no texture, cudadevrt or driver-type declarations)
//   split           + --split-compile=0 (NVVM's optimiser on every core)
//   ewp             + --extensible-whole-program
//   templates-pch   + --instantiate-templates-in-pch=true
//   ptx             -arch=compute_90: PTX only, no ptxas (what the driver would then JIT)
//   kernelpad-call  the baseline called as Program calls it: + --pch-messages=true, the source
//                   named by an absolute path, each compile on a new thread (CompileWatchdog.h)
// For each: the first compile, then the median of REPS edits in the same process (wall, user
// and system CPU ms, page faults) and NVRTC's phases (--time: front end, NVVM optimiser, PTX
// translation), and whether the kernel's machine code (the CUBIN's .text sections) is the
// baseline's.

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QVector>

namespace kernelpad::bench {

/// One heavy-header source; EDIT marks the constant an edit changes.
struct VariantSource {
    QString name;
    QString source;
};

/// The constant an edit numbered `edit` writes for EDIT: `edit` plus a salt chosen once per run
/// (by the parent, handed to its children in $KERNELPAD_BENCH_SALT), so that no compile of this
/// run repeats one of an earlier run. NVRTC (12.9+) keeps NVVM's and ptxas's output in the
/// driver's compute cache, keyed by their input: a repeated edit would skip both phases. Below
/// 2^23, so that a float constant (EDIT.0f) is exact and every edit a different kernel.
[[nodiscard]] int editValue(int edit);
/// This process's environment with the run's salt, for a child.
[[nodiscard]] QProcessEnvironment saltedEnvironment();

/// Times every variant of every source (each in a child process: this program run again with
/// `childArguments` + the source's and variant's names); prints the table. False when a
/// compile failed.
bool runVariants(const QVector<VariantSource>& sources, int reps, const QString& jsonPath,
                 const QStringList& childArguments);

/// The child's half: prints one JSON object for `source` compiled with `variant`.
int runVariantChild(const VariantSource& source, const QString& variant, int reps);

} // namespace kernelpad::bench
