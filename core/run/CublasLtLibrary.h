#pragma once
// cuBLASLt loaded at run time with dlopen, as cuBLAS is (core/run/CublasLibrary.h): the fp8
// GEMM baseline needs cublasLtMatmul, which plain cuBLAS does not offer for e4m3 inputs. The
// types come from the toolkit's cublasLt.h; the entry points are looked up by name.

#include <cublasLt.h>

#include <QString>
#include <QStringList>

#include <memory>

namespace kernelpad {

/// The entry points of libcublasLt.so.13 that an fp8 GEMM uses; loaded once, never unloaded.
struct CublasLtLibrary {
    using CreateFn = cublasStatus_t (*)(cublasLtHandle_t*);
    using DestroyFn = cublasStatus_t (*)(cublasLtHandle_t);
    using StatusStringFn = const char* (*)(cublasStatus_t);
    using DescCreateFn = cublasStatus_t (*)(cublasLtMatmulDesc_t*, cublasComputeType_t,
                                            cudaDataType_t);
    using DescDestroyFn = cublasStatus_t (*)(cublasLtMatmulDesc_t);
    using DescSetFn = cublasStatus_t (*)(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t,
                                         const void*, size_t);
    using LayoutCreateFn = cublasStatus_t (*)(cublasLtMatrixLayout_t*, cudaDataType, uint64_t,
                                              uint64_t, int64_t);
    using LayoutDestroyFn = cublasStatus_t (*)(cublasLtMatrixLayout_t);
    using LayoutSetFn = cublasStatus_t (*)(cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t,
                                           const void*, size_t);
    using PrefCreateFn = cublasStatus_t (*)(cublasLtMatmulPreference_t*);
    using PrefDestroyFn = cublasStatus_t (*)(cublasLtMatmulPreference_t);
    using PrefSetFn = cublasStatus_t (*)(cublasLtMatmulPreference_t,
                                         cublasLtMatmulPreferenceAttributes_t, const void*, size_t);
    using HeuristicFn = cublasStatus_t (*)(cublasLtHandle_t, cublasLtMatmulDesc_t,
                                           cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                           cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                           cublasLtMatmulPreference_t, int,
                                           cublasLtMatmulHeuristicResult_t*, int*);
    using MatmulFn = cublasStatus_t (*)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void*,
                                        const void*, cublasLtMatrixLayout_t, const void*,
                                        cublasLtMatrixLayout_t, const void*, const void*,
                                        cublasLtMatrixLayout_t, void*, cublasLtMatrixLayout_t,
                                        const cublasLtMatmulAlgo_t*, void*, size_t, cudaStream_t);

    CreateFn create = nullptr;
    DestroyFn destroy = nullptr;
    StatusStringFn statusString = nullptr;
    DescCreateFn descCreate = nullptr;
    DescDestroyFn descDestroy = nullptr;
    DescSetFn descSet = nullptr;
    LayoutCreateFn layoutCreate = nullptr;
    LayoutDestroyFn layoutDestroy = nullptr;
    LayoutSetFn layoutSet = nullptr;
    PrefCreateFn prefCreate = nullptr;
    PrefDestroyFn prefDestroy = nullptr;
    PrefSetFn prefSet = nullptr;
    HeuristicFn heuristic = nullptr;
    MatmulFn matmul = nullptr;
    QString path; ///< the file it was loaded from

    /// "CUBLAS_STATUS_NOT_SUPPORTED (status 15)".
    [[nodiscard]] QString statusText(cublasStatus_t status) const;

    /// The library, loaded on the first call from cudaLibraryCandidates("libcublasLt.so.13")
    /// (thread-safe), or nullptr with "cuBLASLt not found: looked in <every candidate>".
    static const CublasLtLibrary* load(QString* why);
    /// Loads from `candidates` in order; not cached: for tests and for load().
    static std::unique_ptr<CublasLtLibrary> loadFrom(const QStringList& candidates, QString* why);
};

} // namespace kernelpad
