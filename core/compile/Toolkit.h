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

/// Where a program of the toolkit is (nvdisasm, ncu, compute-sanitizer), or every place it was
/// looked for, for a message a person can act on.
struct ToolkitProgram {
    QString path;       ///< absolute; empty when not found
    QStringList looked; ///< every candidate, in order, without repeats
    [[nodiscard]] bool found() const { return !path.isEmpty(); }
};

/// The executable `name`: `overridePath` when one is given (a $KERNELPAD_... variable), then
/// `<root>/<folder>/<name>` for each of `folders` under $CUDA_HOME, $CUDA_PATH, the toolkit
/// NVRTC uses (cudaToolkitRoot()) and /usr/local/cuda, then every PATH entry.
[[nodiscard]] ToolkitProgram
findToolkitProgram(const QString& name, const QString& overridePath = {},
                   const QStringList& folders = {QStringLiteral("bin")});

} // namespace kernelpad
