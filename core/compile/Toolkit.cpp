#include "core/compile/Toolkit.h"

#include <QDir>
#include <QFileInfo>

namespace kernelpad {

namespace {

/// A root counts only if it has the headers NVRTC programs include, so a stale $CUDA_HOME
/// does not hide a good /usr/local/cuda.
bool hasCudaHeaders(const QString& root) {
    return !root.isEmpty() && QFileInfo::exists(root + QStringLiteral("/include/cuda_fp16.h"));
}

} // namespace

QString cudaToolkitRoot() {
    QStringList candidates{qEnvironmentVariable("CUDA_HOME"), qEnvironmentVariable("CUDA_PATH"),
                           QStringLiteral("/usr/local/cuda")};
#ifdef KERNELPAD_CUDA_ROOT
    candidates << QStringLiteral(KERNELPAD_CUDA_ROOT);
#endif
#ifdef KERNELPAD_CUDA_INCLUDE_DIR
    // CMake may give a list ("a;b"); the first entry is the toolkit's own include dir.
    const QString includeDir = QStringLiteral(KERNELPAD_CUDA_INCLUDE_DIR).section(u';', 0, 0);
    if (!includeDir.isEmpty())
        candidates << QFileInfo(includeDir).absolutePath();
#endif
    for (const QString& candidate : candidates) {
        if (hasCudaHeaders(candidate))
            return QDir::cleanPath(candidate);
    }
    return {};
}

QStringList cudaToolkitIncludeDirs() {
    const QString root = cudaToolkitRoot();
    if (root.isEmpty())
        return {};
    // CUDA 13 moved cub/thrust/libcu++ under include/cccl; older toolkits lack the folder,
    // which NVRTC then ignores.
    return {root + QStringLiteral("/include"), root + QStringLiteral("/include/cccl")};
}

ToolkitProgram findToolkitProgram(const QString& name, const QString& overridePath,
                                  const QStringList& folders) {
    QStringList candidates;
    if (!overridePath.isEmpty())
        candidates << overridePath;
    const QStringList roots{qEnvironmentVariable("CUDA_HOME"), qEnvironmentVariable("CUDA_PATH"),
                            cudaToolkitRoot(), QStringLiteral("/usr/local/cuda")};
    for (const QString& root : roots)
        if (!root.isEmpty())
            for (const QString& folder : folders)
                candidates << root + QLatin1Char('/') + folder + QLatin1Char('/') + name;
    for (const QString& dir :
         qEnvironmentVariable("PATH").split(QDir::listSeparator(), Qt::SkipEmptyParts))
        candidates << dir + QLatin1Char('/') + name;

    ToolkitProgram program;
    for (const QString& c : candidates) {
        const QString candidate = QDir::cleanPath(c);
        if (program.looked.contains(candidate))
            continue;
        program.looked << candidate;
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable()) {
            program.path = info.absoluteFilePath();
            break;
        }
    }
    return program;
}

} // namespace kernelpad
