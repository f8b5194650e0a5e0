#pragma once
// cuBLAS loaded at run time with dlopen, as libcuda is (core/cuda/DriverApi.h): KernelPad links
// no CUDA library, so a machine without cuBLAS still runs every project that does not name it
// as its baseline. The types come from the toolkit's cublas_api.h; the entry points are the
// library's exported (_v2) names.

#include <cublas_api.h>

#include <QString>
#include <QStringList>

#include <memory>

namespace kernelpad {

/// The entry points of libcublas.so.13 that a GEMM baseline uses; loaded once, never unloaded.
struct CublasLibrary {
    using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
    using DestroyFn = cublasStatus_t (*)(cublasHandle_t);
    using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
    using SetMathModeFn = cublasStatus_t (*)(cublasHandle_t, cublasMath_t);
    using StatusStringFn = const char* (*)(cublasStatus_t);
    using GetVersionFn = cublasStatus_t (*)(cublasHandle_t, int*);
    using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                        int, int, const void*, const void*, cudaDataType, int,
                                        const void*, cudaDataType, int, const void*, void*,
                                        cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
    using GemmStridedBatchedExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                                      cublasOperation_t, int, int, int, const void*,
                                                      const void*, cudaDataType, int, long long,
                                                      const void*, cudaDataType, int, long long,
                                                      const void*, void*, cudaDataType, int,
                                                      long long, int, cublasComputeType_t,
                                                      cublasGemmAlgo_t);

    CreateFn create = nullptr;
    DestroyFn destroy = nullptr;
    SetStreamFn setStream = nullptr;
    SetMathModeFn setMathMode = nullptr;
    StatusStringFn statusString = nullptr;
    GetVersionFn getVersion = nullptr;
    GemmExFn gemmEx = nullptr;
    GemmStridedBatchedExFn gemmStridedBatchedEx = nullptr;
    QString path; ///< the file it was loaded from

    /// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported)".
    [[nodiscard]] QString statusText(cublasStatus_t status) const;

    /// The library, loaded on the first call from cublasCandidates() (thread-safe), or
    /// nullptr with the reason in `why`: "cuBLAS not found: looked in <every candidate>".
    static const CublasLibrary* load(QString* why);
    /// Loads from `candidates` in order (a path with a '/' is opened as it is, a bare file
    /// name through the system's library search); not cached: for tests and for load().
    static std::unique_ptr<CublasLibrary> loadFrom(const QStringList& candidates, QString* why);
};

/// Where libcublas.so.13 is looked for: lib64/ (and targets/<arch>/lib/) of $CUDA_HOME,
/// $CUDA_PATH, the toolkit NVRTC uses and /usr/local/cuda, then the bare soname for the
/// system's search (LD_LIBRARY_PATH, the ld.so cache).
[[nodiscard]] QStringList cublasCandidates();
/// The same places for another library of the toolkit (`soname`, "libcublasLt.so.13").
[[nodiscard]] QStringList cudaLibraryCandidates(const QString& soname);
/// dlopens the first of `candidates` that loads (kept open for the process's life) and sets
/// `path`; nullptr with "<what> not found: looked in <every candidate>" in `why`.
[[nodiscard]] void* openCudaLibrary(const QStringList& candidates, const QString& what,
                                    QString* path, QString* why);

} // namespace kernelpad
