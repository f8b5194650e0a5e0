#pragma once
// An fp8 (e4m3) GEMM through cuBLASLt, the only cuBLAS entry that multiplies fp8 matrices:
// one matmul descriptor, the three layouts, the algorithm cuBLASLt's heuristic picks and its
// workspace, made once and reused by every timed call. The plan has already been checked
// against cuBLASLt's fp8 rules (TN form, leading dimensions multiples of 16; see
// core/run/BaselinePlan.cpp). Internal to core/run.

#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Stream.h"
#include "core/run/BaselinePlan.h"
#include "core/run/CublasLtLibrary.h"

#include <QString>

#include <memory>

namespace kernelpad {

class GemmLt {
public:
    /// The call ready for `stream`, or nullptr with the reason in `error` (cuBLASLt not found
    /// with every place looked in, a descriptor refused, no algorithm for these sizes).
    static std::unique_ptr<GemmLt> create(const GemmPlan& plan, const Stream& stream,
                                          QString* error);
    ~GemmLt();
    GemmLt(const GemmLt&) = delete;
    GemmLt& operator=(const GemmLt&) = delete;

    /// Queues C = alpha * A^T B + beta * C (column-major terms) on the stream; the reason
    /// when cuBLASLt refuses, empty on success.
    [[nodiscard]] QString enqueue(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) const;

private:
    GemmLt(const GemmPlan& plan, const CublasLtLibrary& lib, const Stream& stream);
    QString build();

    GemmPlan m_plan;
    const CublasLtLibrary& m_lib;
    const Stream& m_stream;
    cublasLtHandle_t m_handle = nullptr;
    cublasLtMatmulDesc_t m_desc = nullptr;
    cublasLtMatrixLayout_t m_first = nullptr, m_second = nullptr, m_out = nullptr;
    cublasLtMatmulAlgo_t m_algo{};
    DeviceBuffer m_workspace; ///< cuBLASLt's scratch memory for the chosen algorithm
};

} // namespace kernelpad
