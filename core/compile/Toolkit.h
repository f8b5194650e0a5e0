#pragma once
// Where the CUDA toolkit lives at run time, so NVRTC can find cuda_fp16.h and CCCL (cub, thrust).

#include <QString>
#include <QStringList>

namespace kernelpad {

/// The toolkit root: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, then the one found at build time.
/// Empty when none of them holds an include/ directory with the CUDA headers.
[[nodiscard]] QString cudaToolkitRoot();

/// `<root>/include` and `<root>/include/cccl`; empty when no toolkit is found.
[[nodiscard]] QStringList cudaToolkitIncludeDirs();

} // namespace kernelpad
