#include "core/run/GemmLt.h"

#include <cstdint>

namespace kernelpad {
namespace {

/// Scratch memory offered to cuBLASLt; its fp8 kernels on sm_90 ask for a few MiB at most.
constexpr qint64 kLtWorkspaceBytes = 32LL << 20;

cudaDataType ltTypeOf(ScalarType t) {
    return t == ScalarType::BFloat16 ? CUDA_R_16BF : CUDA_R_32F;
}

} // namespace

GemmLt::GemmLt(const GemmPlan& plan, const CublasLtLibrary& lib, const Stream& stream)
    : m_plan(plan)
    , m_lib(lib)
    , m_stream(stream) {}

GemmLt::~GemmLt() {
    for (cublasLtMatrixLayout_t layout : {m_first, m_second, m_out})
        if (layout)
            m_lib.layoutDestroy(layout);
    if (m_desc)
        m_lib.descDestroy(m_desc);
    if (m_handle)
        m_lib.destroy(m_handle);
}

std::unique_ptr<GemmLt> GemmLt::create(const GemmPlan& plan, const Stream& stream, QString* error) {
    const CublasLtLibrary* lib = CublasLtLibrary::load(error);
    if (!lib)
        return nullptr;
    std::unique_ptr<GemmLt> gemm(new GemmLt(plan, *lib, stream));
    gemm->m_workspace = DeviceBuffer(kLtWorkspaceBytes, QStringLiteral("cuBLASLt's workspace"));
    if (const QString why = gemm->build(); !why.isEmpty()) {
        *error = QStringLiteral("%1 (%2, %3): %4")
                     .arg(QStringLiteral("cuBLASLt"), lib->path, plan.describe(), why);
        return nullptr;
    }
    return gemm;
}

QString GemmLt::build() {
    const GemmPlan& p = m_plan;
    // Row-major C = A B is column-major C^T = B^T A^T: the operands swap, as for cuBLAS.
    const bool row = p.rowMajor;
    const GemmOperand& first = row ? p.b : p.a;
    const GemmOperand& second = row ? p.a : p.b;
    const auto m = uint64_t(row ? p.n : p.m), n = uint64_t(row ? p.m : p.n), k = uint64_t(p.k);
    cublasStatus_t s = m_lib.create(&m_handle);
    if (s != CUBLAS_STATUS_SUCCESS)
        return QStringLiteral("cublasLtCreate: %1").arg(m_lib.statusText(s));
    s = m_lib.descCreate(&m_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (s != CUBLAS_STATUS_SUCCESS)
        return QStringLiteral("cublasLtMatmulDescCreate: %1").arg(m_lib.statusText(s));
    // The TN form: the first operand transposed, the second not (the plan checked it).
    const cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
    // No scale pointers: the kernel reads the same e4m3 values unscaled, and cuBLASLt 13.1 on
    // sm_90 answers "not supported" at cublasLtMatmul (after its heuristic accepted the plan)
    // when A's and B's scale pointers are set, even to 1.0; without them the plan runs.
    const struct {
        cublasLtMatmulDescAttributes_t attribute;
        const void* value;
        size_t size;
    } attributes[] = {{CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT},
                      {CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN}};
    for (const auto& a : attributes)
        if (s = m_lib.descSet(m_desc, a.attribute, a.value, a.size); s != CUBLAS_STATUS_SUCCESS)
            return QStringLiteral("cublasLtMatmulDescSetAttribute(%1): %2")
                .arg(int(a.attribute))
                .arg(m_lib.statusText(s));
    const auto layout = [&](cublasLtMatrixLayout_t* out, cudaDataType type, uint64_t rows,
                            uint64_t cols, const GemmOperand& operand) {
        cublasStatus_t st = m_lib.layoutCreate(out, type, rows, cols, int64_t(operand.ld));
        const auto count = int32_t(p.batch);
        const auto stride = int64_t(operand.stride);
        if (st == CUBLAS_STATUS_SUCCESS && p.batch > 1)
            st = m_lib.layoutSet(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
        if (st == CUBLAS_STATUS_SUCCESS && p.batch > 1)
            st = m_lib.layoutSet(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                 sizeof stride);
        return st;
    };
    // Column-major as stored: the transposed first operand is k x m, the second k x n.
    if (s = layout(&m_first, CUDA_R_8F_E4M3, k, m, first); s == CUBLAS_STATUS_SUCCESS)
        if (s = layout(&m_second, CUDA_R_8F_E4M3, k, n, second); s == CUBLAS_STATUS_SUCCESS)
            s = layout(&m_out, ltTypeOf(p.cType), m, n, p.c);
    if (s != CUBLAS_STATUS_SUCCESS)
        return QStringLiteral("cublasLtMatrixLayoutCreate: %1").arg(m_lib.statusText(s));
    cublasLtMatmulPreference_t preference = nullptr;
    if (s = m_lib.prefCreate(&preference); s != CUBLAS_STATUS_SUCCESS)
        return QStringLiteral("cublasLtMatmulPreferenceCreate: %1").arg(m_lib.statusText(s));
    const auto workspace = uint64_t(kLtWorkspaceBytes);
    s = m_lib.prefSet(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                      sizeof workspace);
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    if (s == CUBLAS_STATUS_SUCCESS)
        s = m_lib.heuristic(m_handle, m_desc, m_first, m_second, m_out, m_out, preference, 1,
                            &result, &found);
    m_lib.prefDestroy(preference);
    if (s != CUBLAS_STATUS_SUCCESS)
        return QStringLiteral("cublasLtMatmulAlgoGetHeuristic: %1").arg(m_lib.statusText(s));
    if (found == 0)
        return QStringLiteral("cublasLtMatmulAlgoGetHeuristic found no algorithm for these "
                              "sizes and types");
    m_algo = result.algo;
    return {};
}

QString GemmLt::enqueue(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) const {
    const GemmPlan& p = m_plan;
    const float alpha = float(p.alpha), beta = float(p.beta);
    const auto* x = reinterpret_cast<const void*>(p.rowMajor ? b : a);
    const auto* y = reinterpret_cast<const void*>(p.rowMajor ? a : b);
    auto* out = reinterpret_cast<void*>(c);
    const cublasStatus_t s = m_lib.matmul(
        m_handle, m_desc, &alpha, x, m_first, y, m_second, &beta, out, m_out, out, m_out, &m_algo,
        reinterpret_cast<void*>(m_workspace.address()), size_t(m_workspace.sizeBytes()),
        reinterpret_cast<cudaStream_t>(m_stream.handle()));
    if (s == CUBLAS_STATUS_SUCCESS)
        return {};
    return QStringLiteral("cublasLtMatmul (%1): %2").arg(p.describe(), m_lib.statusText(s));
}

} // namespace kernelpad
