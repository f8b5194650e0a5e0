#pragma once
// Where the occupancy curves' inputs come from: the device's limits when there is one, else
// the compiled architecture's tables; the kernel's figures from the driver when it loaded the
// kernel, else from the CUBIN and the PTX. One place for the window and the CLI.

#include "core/compile/CompileResult.h"
#include "core/cuda/OccupancyCurves.h"
#include "core/run/KernelResources.h"

#include <optional>

namespace kernelpad {

/// Where a kernel's resource figures come from, the most exact first.
enum class ResourceSource {
    Driver, ///< the driver's attributes of the loaded kernel (after a run)
    Cubin,  ///< the CUBIN NVRTC or nvJitLink made (CubinKernelInfo.h)
    Ptxas,  ///< ptxas's report in the program log (-Xptxas -v)
    None    ///< not known: no CUBIN (a compute_ arch gives PTX only)
};

/// A kernel's resources from one source, the same for the Resources and Occupancy tabs.
struct ResourceFigures {
    ResourceSource source = ResourceSource::None;
    int registers = 0;            ///< per thread
    qint64 staticSharedBytes = 0; ///< the driver's, else the PTX's declarations (KernelFacts.h)
    /// The stack frame per thread in local memory: local arrays and register spills.
    qint64 localBytes = 0;
    int maxThreadsPerBlock = 0; ///< the kernel's own limit (__launch_bounds__); 0 when none
    int barriers = 0;           ///< the CUBIN's or ptxas's (the driver reports none)
    /// Constant bank bytes: the driver's __constant__ bytes, or ptxas's cmem[0]; not in
    /// the CUBIN figures.
    std::optional<qint64> constBytes;
};

/// "the driver", "the CUBIN", "ptxas -v"; empty for None.
[[nodiscard]] QString resourceSourceName(ResourceSource source);

/// The figures of the entry `lowered` of `compile`: `driver`'s when given (the runner's for
/// this kernel), else the CUBIN's, else ptxas's report in the log. Static shared memory comes
/// from the PTX unless the driver gives it (the CUBIN's section counts the driver's reserve).
[[nodiscard]] ResourceFigures kernelResourceFigures(const CompileResult& compile,
                                                    const QString& lowered,
                                                    const KernelResources* driver);

/// The occupancy curves of one kernel at one launch, and where their inputs came from.
struct OccupancyReport {
    OccupancyCurves curves;
    bool fromDevice = false; ///< limits from the device (else from the arch's tables)
    bool fromDriver = false; ///< kernel figures from the driver (else from the CUBIN)
    /// Why there are no curves ("the last compile has no kernel named 'x'"); empty when
    /// there are.
    QString error;

    /// "from the H100's attributes" or "from sm_86's limits, no device".
    [[nodiscard]] QString sourceText(const QString& deviceName) const;
};

/// The curves of `kernel` (a name or name expression of `compile`) launched with
/// `blockThreads` and `dynamicSharedBytes`: limits from `device` when given, else from the
/// compile's architecture; registers, static shared memory and the block limit from `driver`
/// when given (the runner's figures for this kernel), else from the CUBIN (registers, launch
/// bounds) and the PTX (static shared memory); barriers from the CUBIN (the driver reports
/// none).
[[nodiscard]] OccupancyReport occupancyReport(const CompileResult& compile, const QString& kernel,
                                              const DeviceInfo* device,
                                              const KernelResources* driver, int blockThreads,
                                              int dynamicSharedBytes);

} // namespace kernelpad
