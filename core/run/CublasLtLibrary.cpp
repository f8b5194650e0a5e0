#include "core/run/CublasLtLibrary.h"

#include "core/run/CublasLibrary.h"

#include <dlfcn.h>

#include <mutex>
#include <type_traits>

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
    QStringList missing;
    const auto resolve = [&](auto* slot, const char* symbol) {
        *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(dlsym(handle, symbol));
        if (!*slot)
            missing << QString::fromLatin1(symbol);
    };
    resolve(&lib->create, "cublasLtCreate");
    resolve(&lib->destroy, "cublasLtDestroy");
    resolve(&lib->statusString, "cublasLtGetStatusString");
    resolve(&lib->descCreate, "cublasLtMatmulDescCreate");
    resolve(&lib->descDestroy, "cublasLtMatmulDescDestroy");
    resolve(&lib->descSet, "cublasLtMatmulDescSetAttribute");
    resolve(&lib->layoutCreate, "cublasLtMatrixLayoutCreate");
    resolve(&lib->layoutDestroy, "cublasLtMatrixLayoutDestroy");
    resolve(&lib->layoutSet, "cublasLtMatrixLayoutSetAttribute");
    resolve(&lib->prefCreate, "cublasLtMatmulPreferenceCreate");
    resolve(&lib->prefDestroy, "cublasLtMatmulPreferenceDestroy");
    resolve(&lib->prefSet, "cublasLtMatmulPreferenceSetAttribute");
    resolve(&lib->heuristic, "cublasLtMatmulAlgoGetHeuristic");
    resolve(&lib->matmul, "cublasLtMatmul");
    if (!missing.isEmpty()) {
        if (why)
            *why = QStringLiteral("%1 lacks entry points KernelPad needs: %2")
                       .arg(candidate, missing.join(QStringLiteral(", ")));
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
