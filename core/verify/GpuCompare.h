#pragma once
// Verification on the GPU: the same report as compareBuffers() (Verify.h) without copying
// the buffers to the host (256 million floats in well under 100 ms).

#include "core/compile/CompileCache.h"
#include "core/compile/Program.h"
#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Module.h"
#include "core/cuda/Stream.h"
#include "core/launch/ArgumentSpec.h"
#include "core/launch/ValueType.h"
#include "core/verify/VerificationReport.h"

#include <QString>

#include <map>
#include <memory>

namespace kernelpad {

/// Threads per block of the comparison kernels.
inline constexpr int kGpuCompareThreads = 256;
/// Elements each thread loads per tile: enough loads in flight to reach full bandwidth.
inline constexpr int kGpuCompareItems = 4;
/// At most this many blocks, each comparing one contiguous range; bounds the scratch memory.
inline constexpr int kGpuCompareMaxBlocks = 4096;

/// The NVRTC program of the comparison kernel for `type` (and the gather kernel), with the
/// defines they need; unsupported types give the gather kernel alone.
[[nodiscard]] Program gpuCompareProgram(ScalarType type);
/// The entry that compares elements of `type` ("kpCompare_float32"); empty if unsupported.
[[nodiscard]] QString gpuCompareKernelName(ScalarType type);
/// The entry that merges the blocks' first mismatches.
inline constexpr const char* kGpuGatherKernelName = "kpGatherMismatches";

/// Compares two device buffers of `count` elements of a scalar type on the GPU.
/// Belongs to the CUDA context current when it is first used (its module and scratch memory
/// live there): destroy it before that context. Not thread-safe. Move-only.
class GpuComparer {
public:
    /// Compiles lazily (NVRTC, for the arch given to compare()) on the first use of each type,
    /// through `cache` when given (a warm disk cache saves a fresh process ~200 ms of NVRTC);
    /// keeps the Modules.
    explicit GpuComparer(CompileCache* cache = nullptr);
    ~GpuComparer();
    GpuComparer(GpuComparer&&) noexcept;
    GpuComparer& operator=(GpuComparer&&) noexcept;
    GpuComparer(const GpuComparer&) = delete;
    GpuComparer& operator=(const GpuComparer&) = delete;

    /// Scalar float16/32/64, bfloat16, float8 e4m3/e5m2, float4_e2m1x2, int8..64, uint8..64,
    /// bool; complex and structs: false (the host path handles them).
    [[nodiscard]] static bool supports(const ValueType& type);

    /// Fills a BufferVerification exactly like compareBuffers() would for the same inputs
    /// (mismatch, NaN, unwritten, error maxima, first kMaxReportedMismatches mismatches in
    /// index order, checked = count; `ulp` as Tolerance::ulp; `nan` as compareBuffers() takes
    /// it; `failure` from nonFiniteMismatch()), leaving buffer/method empty. Bad
    /// inputs (unsupported type, negative count or tolerance, buffers too small) and a failed
    /// compile give `error`; driver failures throw CudaError. Synchronises `stream`.
    [[nodiscard]] BufferVerification compare(const DeviceBuffer& got, const DeviceBuffer& expected,
                                             const ValueType& type, qint64 count, double atol,
                                             double rtol, double ulp, const Stream& stream,
                                             const QString& arch,
                                             NanComparison nan = NanComparison::Equal);

private:
    /// The loaded module for `type` on `arch`, compiled now if needed; null with the reason
    /// in `error` when it does not compile.
    const Module* module(ScalarType type, const QString& arch, QString* error);

    CompileCache* m_cache = nullptr;                         ///< borrowed; may be null
    std::map<ScalarType, std::unique_ptr<Module>> m_modules; ///< by element type
    std::map<ScalarType, QString> m_compileErrors;           ///< not retried for the same arch
    QString m_arch;                                          ///< what the modules were compiled for
    DeviceBuffer m_scratch; ///< result block + per-block records (allocated once)
};

} // namespace kernelpad
