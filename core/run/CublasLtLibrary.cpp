#include "core/run/CublasLtLibrary.h"

#include "core/run/CublasLibrary.h"

#include "core/run/LibrarySymbols.h"

#include <dlfcn.h>

#include <mutex>

namespace kernelpad {
namespace {

struct CublasLtLoadState {
    std::unique_ptr<CublasLtLibrary> library;
    QString error;
};

} // namespace

QString CublasLtLibrary::statusText(cublasStatus_t status) const {
    const char* text = statusString ? statusString(status) : nullptr;
    return text ? QStringLiteral("%1 (status %2)").arg(QString::fromUtf8(text)).arg(int(status))
                : QStringLiteral("cuBLASLt status %1").arg(int(status));
}

std::unique_ptr<CublasLtLibrary> CublasLtLibrary::loadFrom(const QStringList& candidates,
                                                           QString* why) {
    QString candidate;
    void* handle = openCudaLibrary(candidates, QStringLiteral("cuBLASLt"), &candidate, why);
    if (!handle)
        return nullptr;
    auto lib = std::make_unique<CublasLtLibrary>();
    LibrarySymbols symbols(handle);
    symbols.resolve(&lib->create, "cublasLtCreate");
    symbols.resolve(&lib->destroy, "cublasLtDestroy");
    symbols.resolve(&lib->statusString, "cublasLtGetStatusString");
    symbols.resolve(&lib->descCreate, "cublasLtMatmulDescCreate");
    symbols.resolve(&lib->descDestroy, "cublasLtMatmulDescDestroy");
    symbols.resolve(&lib->descSet, "cublasLtMatmulDescSetAttribute");
    symbols.resolve(&lib->layoutCreate, "cublasLtMatrixLayoutCreate");
    symbols.resolve(&lib->layoutDestroy, "cublasLtMatrixLayoutDestroy");
    symbols.resolve(&lib->layoutSet, "cublasLtMatrixLayoutSetAttribute");
    symbols.resolve(&lib->prefCreate, "cublasLtMatmulPreferenceCreate");
    symbols.resolve(&lib->prefDestroy, "cublasLtMatmulPreferenceDestroy");
    symbols.resolve(&lib->prefSet, "cublasLtMatmulPreferenceSetAttribute");
    symbols.resolve(&lib->heuristic, "cublasLtMatmulAlgoGetHeuristic");
    symbols.resolve(&lib->matmul, "cublasLtMatmul");
    if (!symbols.complete()) {
        if (why)
            *why = symbols.problem(candidate);
        return nullptr;
    }
    lib->path = candidate;
    return lib;
}

const CublasLtLibrary* CublasLtLibrary::load(QString* why) {
    static CublasLtLoadState state;
    static std::once_flag once;
    std::call_once(once, [] {
        // Kept for the process's life, as the library itself is (never dlclosed).
        state.library =
            loadFrom(cudaLibraryCandidates(QStringLiteral("libcublasLt.so.13")), &state.error);
    });
    if (!state.library && why)
        *why = state.error;
    return state.library.get();
}

} // namespace kernelpad
