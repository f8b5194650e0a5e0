#include "core/run/CublasLibrary.h"

#include "core/compile/Toolkit.h"

#include <QDir>
#include <QFileInfo>

#include "core/run/LibrarySymbols.h"

#include <dlfcn.h>

#include <memory>
#include <mutex>

namespace kernelpad {
namespace {

/// The soname of the toolkit KernelPad is built for (CUDA 13).
const QString kCublasSoname = QStringLiteral("libcublas.so.13");

struct CublasLoadState {
    std::unique_ptr<CublasLibrary> library;
    QString error;
};

} // namespace

QStringList cudaLibraryCandidates(const QString& soname) {
    QStringList roots{qEnvironmentVariable("CUDA_HOME"), qEnvironmentVariable("CUDA_PATH"),
                      cudaToolkitRoot(), QStringLiteral("/usr/local/cuda")};
    QStringList candidates;
    for (const QString& root : std::as_const(roots)) {
        // A relative root would make dlopen look in the current directory.
        if (root.isEmpty() || !QDir::isAbsolutePath(root))
            continue;
        for (const char* dir : {"lib64", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"})
            candidates << QDir::cleanPath(root + QLatin1Char('/') + QLatin1String(dir) +
                                          QLatin1Char('/') + soname);
    }
    candidates.removeDuplicates();
    candidates << soname;
    return candidates;
}

QStringList cublasCandidates() {
    return cudaLibraryCandidates(kCublasSoname);
}

void* openCudaLibrary(const QStringList& candidates, const QString& what, QString* path,
                      QString* why) {
    QStringList looked;
    QString brokenError; // a file that exists but does not load says more than "not found"
    for (const QString& candidate : candidates) {
        const bool isPath = candidate.contains(QLatin1Char('/'));
        looked << (isPath ? candidate
                          : QStringLiteral("%1 on the system's library path (LD_LIBRARY_PATH, "
                                           "the ld.so cache)")
                                .arg(candidate));
        if (isPath && !QFileInfo::exists(candidate))
            continue;
        void* handle = dlopen(candidate.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            if (isPath && brokenError.isEmpty())
                brokenError = QString::fromLocal8Bit(dlerror());
            continue;
        }
        *path = candidate;
        return handle;
    }
    if (why)
        *why =
            QStringLiteral("%1 not found: looked in %2%3")
                .arg(what, looked.join(QStringLiteral(", ")),
                     brokenError.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(brokenError));
    return nullptr;
}

QString CublasLibrary::statusText(cublasStatus_t status) const {
    const char* text = statusString ? statusString(status) : nullptr;
    return text ? QStringLiteral("%1 (status %2)").arg(QString::fromUtf8(text)).arg(int(status))
                : QStringLiteral("cuBLAS status %1").arg(int(status));
}

std::unique_ptr<CublasLibrary> CublasLibrary::loadFrom(const QStringList& candidates,
                                                       QString* why) {
    QString candidate;
    void* handle = openCudaLibrary(candidates, QStringLiteral("cuBLAS"), &candidate, why);
    if (!handle)
        return nullptr;
    auto lib = std::make_unique<CublasLibrary>();
    LibrarySymbols symbols(handle);
    symbols.resolve(&lib->create, "cublasCreate_v2");
    symbols.resolve(&lib->destroy, "cublasDestroy_v2");
    symbols.resolve(&lib->setStream, "cublasSetStream_v2");
    symbols.resolve(&lib->setMathMode, "cublasSetMathMode");
    symbols.resolve(&lib->statusString, "cublasGetStatusString");
    symbols.resolve(&lib->getVersion, "cublasGetVersion_v2");
    symbols.resolve(&lib->gemmEx, "cublasGemmEx");
    symbols.resolve(&lib->gemmStridedBatchedEx, "cublasGemmStridedBatchedEx");
    if (!symbols.complete()) {
        if (why)
            *why = symbols.problem(candidate);
        return nullptr;
    }
    lib->path = candidate;
    return lib;
}

const CublasLibrary* CublasLibrary::load(QString* why) {
    static CublasLoadState state;
    static std::once_flag once;
    std::call_once(once, [] {
        // Kept for the process's life, as the library itself is (never dlclosed).
        state.library = loadFrom(cublasCandidates(), &state.error);
    });
    if (!state.library && why)
        *why = state.error;
    return state.library.get();
}

} // namespace kernelpad
