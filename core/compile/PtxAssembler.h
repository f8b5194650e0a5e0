#pragma once
// PTX to CUBIN with nvJitLink, and NVVM IR to PTX with libNVVM: the two program inputs besides
// CUDA C++ (cuda.core's Program takes "ptx" and "nvvm" code as well as "c++").

#include "core/compile/CompileResult.h"
#include "core/compile/ProgramOptions.h"
#include "core/compile/SourceLanguage.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>

namespace kernelpad {

/// "13.0", or an empty string if nvJitLink cannot be queried.
[[nodiscard]] QString nvJitLinkVersion();

/// The nvJitLink options for `options` and the real `arch` ("sm_90"): -arch, and -lineinfo,
/// -g and --maxrregcount (through -Xptxas) where set.
[[nodiscard]] QStringList nvJitLinkOptions(const ProgramOptions& options, const QString& arch);

/// Warnings for the options set that only NVRTC understands (cppStandard, defines,
/// includeDirs, extraFlags; fastMath and fmad for PTX), each naming the field: a PTX or NVVM
/// program compiles without them rather than failing.
[[nodiscard]] QVector<Diagnostic> ignoredOptions(const ProgramOptions& options,
                                                 SourceLanguage language);

/// Parses ptxas messages as nvJitLink logs them, `ptxas application ptx input, line 12; error
/// : Unknown symbol '%q3'`, into diagnostics of `file` (no column: ptxas gives none), and
/// position-less `ptxas fatal : ...` lines. nvJitLink's own summary ("ERROR
/// NVJITLINK_ERROR_PTX_COMPILE: ...") and "aborted due to errors" are kept only when nothing
/// else explains the failure. Never fails; unknown lines are ignored.
[[nodiscard]] QVector<Diagnostic> parsePtxasLog(const QString& log, const QString& file);

/// Assembles `ptx` for the real arch `result->arch` with nvJitLink: sets result->flags, log,
/// diagnostics and, on success, cubin. False when nvJitLink refused it (the diagnostics say
/// why).
bool assemblePtx(const QByteArray& ptx, const QString& file, const ProgramOptions& options,
                 CompileResult* result);

/// "2.0" when libNVVM can be loaded, else empty and `*where` (if given) says where it looked.
[[nodiscard]] QString libNvvmVersion(QString* where = nullptr);

/// The libNVVM options for `options` and `arch` (sm_90 becomes -arch=compute_90).
[[nodiscard]] QStringList libNvvmOptions(const ProgramOptions& options, const QString& arch);

/// Parses libNVVM's program log, `kernel.ll (8, 19): parse expected type`, into diagnostics;
/// lines without a position become position-less errors. Never fails.
[[nodiscard]] QVector<Diagnostic> parseNvvmLog(const QString& log);

/// Compiles NVVM IR (text or bitcode) to PTX with libNVVM: sets result->ptx, log and
/// diagnostics (appending to flags); false when libNVVM is missing (result->error says where
/// it looked) or refused the module.
bool compileNvvm(const QByteArray& ir, const QString& file, const ProgramOptions& options,
                 CompileResult* result);

} // namespace kernelpad
