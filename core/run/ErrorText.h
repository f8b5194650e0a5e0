#pragma once
// Driver errors turned into sentences a kernel author can act on.

#include "core/cuda/CudaError.h"

#include <QString>

namespace kernelpad {

/// "The kernel 'saxpy' wrote to or read from an address outside any buffer
/// (CUDA_ERROR_ILLEGAL_ADDRESS). ..." — the cause, the code and what to try.
[[nodiscard]] QString explainCudaError(const CudaError& error, const QString& kernelName);

} // namespace kernelpad
