#pragma once
// Driver errors turned into sentences a kernel author can act on, and the plain explanation of
// every error a faulting kernel can end with.

#include "core/cuda/CudaError.h"
#include "core/run/RunResult.h"

#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// What one kernel-fault error usually means in a kernel, and what to check. The same bug can
/// surface as different codes (a wild write is ILLEGAL_ADDRESS in one run and
/// INVALID_ADDRESS_SPACE in the next, depending on where the address lands), so codes of one
/// cause share their `headline` and `causes`.
struct FaultExplanation {
    CUresult code = CUDA_SUCCESS;
    QString name;     ///< "CUDA_ERROR_ILLEGAL_ADDRESS"
    QString headline; ///< "made a bad memory access": follows "The kernel 'x' "
    QString causes;   ///< what usually causes it in a kernel
    QString check;    ///< what to look at first
    /// compute-sanitizer memcheck stops at the faulting instruction and names its source line,
    /// thread and block (false for timeouts and hardware errors, which it cannot place).
    bool memcheckLocates = false;
};

/// Every driver error a kernel can end a run with (the sticky errors of CudaError and the
/// launch failures), in the order of cuda.h.
[[nodiscard]] const QVector<CUresult>& kernelFaultCodes();
/// The explanation of `code`; nullopt for an error that is not a kernel fault.
[[nodiscard]] std::optional<FaultExplanation> explainFault(CUresult code);
/// "CUDA_ERROR_ILLEGAL_ADDRESS" for a kernel-fault code, "CUresult N" otherwise.
[[nodiscard]] QString faultCodeName(int code);

/// "The kernel 'saxpy' made a bad memory access (CUDA_ERROR_ILLEGAL_ADDRESS: ...). Usually:
/// ... Check: ..." — the cause, the code and what to try.
[[nodiscard]] QString explainCudaError(const CudaError& error, const QString& kernelName);

/// The run ended with a kernel fault that one run under memcheck can place at a source line,
/// thread and block (and was not itself a sanitized run).
[[nodiscard]] bool memcheckCanLocateFault(const RunResult& result);
/// What a memcheck re-run of a faulted kernel found, ending with the first report's source
/// line, thread and block: "memcheck found it: Invalid __global__ write of size 4 bytes
/// (address 0x... is out of bounds) in 'saxpy' at saxpy.cu:6, thread (63,0,0), block
/// (4095,0,0)." When memcheck reported nothing or could not run, says so and why.
[[nodiscard]] QString memcheckFinding(const RunResult& memcheckRun);

} // namespace kernelpad
