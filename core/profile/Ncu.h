#pragma once
// Nsight Compute's command line (ncu) as a profile uses it: where it is, the arguments of a
// profile and of reading its report back, what its log says went wrong, and reading the
// three CSV pages of a report (blocking; call it on a worker thread).

#include "core/profile/NcuPages.h"
#include "core/profile/ProfileReport.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// Where ncu is, or everywhere it was looked for.
struct NcuLocation {
    QString path;       ///< empty when not found
    QStringList looked; ///< every candidate path tried, in order
    /// "ncu (Nsight Compute) was not found; looked in: ..., with how to fix it.
    [[nodiscard]] QString notFoundMessage() const;
};

/// $KERNELPAD_NCU when set, then <dir>/ncu for $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit's
/// bin (cudaToolkitRoot()), and every PATH entry: the places nvdisasm is looked for
/// (findToolkitProgram, Toolkit.h).
[[nodiscard]] NcuLocation findNcu();

/// `name` with the characters a regular expression gives meaning to escaped.
[[nodiscard]] QString escapeNcuRegex(const QString& name);

/// The sections the basic set lacks that a profile needs: per-line counters (the margin), warp
/// states (stall reasons) and the roofline's metrics, so either set fills the same report.
[[nodiscard]] QStringList ncuExtraSections();
/// Metrics collected on top of the sections: DRAM, L2 and L1 bytes and hit rates.
[[nodiscard]] QStringList ncuExtraMetrics();

/// ncu's arguments before the runner's command line: one launch of the kernel whose lowered
/// name is `mangledName`, `set` plus ncuExtraSections(), the source imported, the report written
/// to `reportBase`.ncu-rep and ncu's own output to `logFile` (the runner's stdout is its
/// protocol channel, so ncu must not print there).
[[nodiscard]] QStringList ncuProfileArguments(ProfileSet set, const QString& mangledName,
                                              const QString& reportBase, const QString& logFile);

enum class NcuPage { Details, Raw, Source };
/// `-i report --csv --page P` (and `--print-source cuda,sass` for the source page).
[[nodiscard]] QStringList ncuImportArguments(const QString& report, NcuPage page);

/// What ncu's log says.
struct NcuLogDiagnosis {
    bool counterPermission = false; ///< ERR_NVGPUCTRPERM
    bool noKernelProfiled = false;  ///< "No kernels were profiled"
    QStringList availableKernels;   ///< the list ncu prints after it
    QStringList errors;             ///< ==ERROR== lines
    QStringList warnings;           ///< ==WARNING== lines other than the no-kernel one
};
[[nodiscard]] NcuLogDiagnosis diagnoseNcuLog(const QString& log);

/// How to allow the profiling counters (root, or the driver option plus a reboot), with
/// NVIDIA's page on ERR_NVGPUCTRPERM.
[[nodiscard]] QString counterPermissionMessage();
/// Which name was filtered for and which kernels ran.
[[nodiscard]] QString noKernelProfiledMessage(const QString& filteredName,
                                              const NcuLogDiagnosis& log);

/// "2025.3.1.0" from `ncu --version`'s output; empty when it has no "Version" line.
[[nodiscard]] QString parseNcuVersion(const QString& versionOutput);

/// Runs `ncu --version` (blocking, bounded by `timeoutMs`); empty when it fails.
[[nodiscard]] QString ncuVersion(const QString& ncu, int timeoutMs = 10000);

/// Reads the details, raw and source pages of `report` through `ncu -i` (blocking, each
/// bounded by `timeoutMs`). Fails naming the page and ncu's message.
[[nodiscard]] std::optional<NcuPages> importNcuReport(const QString& ncu, const QString& report,
                                                      int timeoutMs, QString* error);

} // namespace kernelpad
