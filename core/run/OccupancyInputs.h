#pragma once
// Where the occupancy curves' inputs come from: the device's limits when there is one, else
// the compiled architecture's tables; the kernel's figures from the driver when it loaded the
// kernel, else from the CUBIN and the PTX. One place for the window and the CLI.

#include "core/compile/CompileResult.h"
#include "core/cuda/OccupancyCurves.h"
#include "core/run/KernelResources.h"

#include <optional>

namespace kernelpad {

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
