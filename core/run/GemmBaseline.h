#pragma once
// A cuBLAS GEMM (GemmPlan) run on the run's own context and stream: cuBLAS's runtime takes the
// context current on the thread, the runner's primary context, so the call sees the kernel's
// buffers, and cublasSetStream puts it on the run's stream, between the same events. It writes
// a copy of the kernel's output buffer, made with the same initial contents, never the
// kernel's own. Internal to core/run.

#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/Stream.h"
#include "core/run/BaselinePlan.h"
#include "core/run/CublasLibrary.h"
#include "core/run/GemmLt.h"
#include "core/run/RunBuffers.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <vector>

namespace kernelpad {

/// One GEMM baseline: the cuBLAS handle, the operands' addresses and the copy of C.
class GemmBaseline {
public:
    /// The call ready on `stream` (C's copy made and initialised as the kernel's C was), or
    /// nullptr with the reason in `error`: cuBLAS (cuBLASLt for fp8) not found (every place
    /// looked in), a handle that cannot be made.
    static std::unique_ptr<GemmBaseline> create(const GemmPlan& plan,
                                                const std::vector<RunBuffer>& buffers,
                                                const Stream& stream, QString* error);
    ~GemmBaseline();
    GemmBaseline(const GemmBaseline&) = delete;
    GemmBaseline& operator=(const GemmBaseline&) = delete;

    /// Queues one call on the stream; a failing status is kept (failure()) and later calls
    /// do nothing, so a timing loop stops costing time at once.
    void enqueue();
    /// Why a call failed ("cublasGemmEx: CUBLAS_STATUS_NOT_SUPPORTED ..."), empty while none.
    [[nodiscard]] const QString& failure() const { return m_failure; }
    /// The copy of C as the calls left it (waits for the stream).
    [[nodiscard]] QByteArray downloadResult() const;
    /// The kernel's C as it is on the device now (waits for the stream).
    [[nodiscard]] QByteArray downloadKernelOutput() const;
    [[nodiscard]] const GemmPlan& plan() const { return m_plan; }

private:
    GemmBaseline(const GemmPlan& plan, const Stream& stream);
    bool createHandle(QString* error);

    GemmPlan m_plan;
    const Stream& m_stream;
    const CublasLibrary* m_lib = nullptr; ///< null for fp8, which goes through m_lt
    cublasHandle_t m_handle = nullptr;
    std::unique_ptr<GemmLt> m_lt; ///< the cuBLASLt call of an fp8 GEMM
    CUdeviceptr m_a = 0, m_b = 0;
    const RunBuffer* m_kernelC = nullptr;
    DeviceBuffer m_c; ///< the library's output: a copy of the kernel's C
    QString m_failure;
};

} // namespace kernelpad
