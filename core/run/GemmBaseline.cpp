#include "core/run/GemmBaseline.h"

#include "core/verify/VerificationReport.h"

namespace kernelpad {
namespace {

cudaDataType cudaTypeOf(ScalarType t) {
    switch (t) {
    case ScalarType::Float16:
        return CUDA_R_16F;
    case ScalarType::BFloat16:
        return CUDA_R_16BF;
    case ScalarType::Float64:
        return CUDA_R_64F;
    default:
        return CUDA_R_32F;
    }
}

cublasComputeType_t computeTypeOf(const QString& compute) {
    if (compute == QLatin1String("tf32"))
        return CUBLAS_COMPUTE_32F_FAST_TF32;
    if (compute == QLatin1String("fp64"))
        return CUBLAS_COMPUTE_64F;
    return CUBLAS_COMPUTE_32F; // fp32, and fp16/bf16 inputs accumulated in fp32
}

const RunBuffer* bufferNamed(const std::vector<RunBuffer>& buffers, const QString& name) {
    for (const RunBuffer& b : buffers)
        if (b.name == name)
            return &b;
    return nullptr;
}

} // namespace

GemmBaseline::GemmBaseline(const GemmPlan& plan, const Stream& stream)
    : m_plan(plan)
    , m_stream(stream) {}

GemmBaseline::~GemmBaseline() {
    if (m_handle)
        m_lib->destroy(m_handle);
}

bool GemmBaseline::createHandle(QString* error) {
    m_lib = CublasLibrary::load(error);
    if (!m_lib)
        return false;
    if (const cublasStatus_t s = m_lib->create(&m_handle); s != CUBLAS_STATUS_SUCCESS) {
        m_handle = nullptr;
        *error = QStringLiteral("cublasCreate (%1): %2").arg(m_lib->path, m_lib->statusText(s));
        return false;
    }
    cublasStatus_t s =
        m_lib->setStream(m_handle, reinterpret_cast<cudaStream_t>(m_stream.handle()));
    if (s == CUBLAS_STATUS_SUCCESS)
        s = m_lib->setMathMode(m_handle, CUBLAS_DEFAULT_MATH);
    if (s != CUBLAS_STATUS_SUCCESS) {
        *error = QStringLiteral("cublasSetStream: %1").arg(m_lib->statusText(s));
        return false;
    }
    return true;
}

std::unique_ptr<GemmBaseline> GemmBaseline::create(const GemmPlan& plan,
                                                   const std::vector<RunBuffer>& buffers,
                                                   const Stream& stream, QString* error) {
    const RunBuffer* a = bufferNamed(buffers, plan.a.buffer);
    const RunBuffer* b = bufferNamed(buffers, plan.b.buffer);
    const RunBuffer* c = bufferNamed(buffers, plan.c.buffer);
    if (!a || !b || !c) {
        *error = QStringLiteral("the baseline's buffers %1, %2 and %3 are not all among the "
                                "run's buffers")
                     .arg(plan.a.buffer, plan.b.buffer, plan.c.buffer);
        return nullptr;
    }
    std::unique_ptr<GemmBaseline> gemm(new GemmBaseline(plan, stream));
    if (plan.compute == QLatin1String("fp8")) {
        // cublasGemmEx takes no fp8 inputs: cuBLASLt's matmul does.
        gemm->m_lt = GemmLt::create(plan, stream, error);
        if (!gemm->m_lt)
            return nullptr;
    } else if (!gemm->createHandle(error)) {
        return nullptr;
    }
    gemm->m_a = a->device.address();
    gemm->m_b = b->device.address();
    gemm->m_kernelC = c;
    // C's copy starts as the kernel's C did: its initial contents, or the poison of an "out"
    // buffer (beta 0 never reads it).
    gemm->m_c = DeviceBuffer(c->bytes, QStringLiteral("the baseline's copy of '%1'").arg(c->name));
    if (c->hasInitialContents())
        gemm->m_c.uploadAsync(c->hostContents().constData(), c->bytes, stream);
    else
        gemm->m_c.fillBytesAsync(kPoisonByte, stream);
    return gemm;
}

void GemmBaseline::enqueue() {
    if (!m_failure.isEmpty())
        return;
    if (m_lt) {
        m_failure = m_lt->enqueue(m_a, m_b, m_c.address());
        return;
    }
    const GemmPlan& p = m_plan;
    const bool doubles = p.compute == QLatin1String("fp64");
    const float alphaF = float(p.alpha), betaF = float(p.beta);
    const void* alpha = doubles ? static_cast<const void*>(&p.alpha) : &alphaF;
    const void* beta = doubles ? static_cast<const void*>(&p.beta) : &betaF;
    const cudaDataType ab = cudaTypeOf(p.abType), c = cudaTypeOf(p.cType);
    const cublasOperation_t opA = p.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opB = p.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the same memory.
    const bool row = p.rowMajor;
    const cublasOperation_t op1 = row ? opB : opA, op2 = row ? opA : opB;
    const int m = int(row ? p.n : p.m), n = int(row ? p.m : p.n), k = int(p.k);
    const GemmOperand& first = row ? p.b : p.a;
    const GemmOperand& second = row ? p.a : p.b;
    const auto* x = reinterpret_cast<const void*>(row ? m_b : m_a);
    const auto* y = reinterpret_cast<const void*>(row ? m_a : m_b);
    auto* out = reinterpret_cast<void*>(m_c.address());
    const cublasComputeType_t compute = computeTypeOf(p.compute);
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    if (p.batch == 1)
        s = m_lib->gemmEx(m_handle, op1, op2, m, n, k, alpha, x, ab, int(first.ld), y, ab,
                          int(second.ld), beta, out, c, int(p.c.ld), compute, CUBLAS_GEMM_DEFAULT);
    else
        s = m_lib->gemmStridedBatchedEx(m_handle, op1, op2, m, n, k, alpha, x, ab, int(first.ld),
                                        first.stride, y, ab, int(second.ld), second.stride, beta,
                                        out, c, int(p.c.ld), p.c.stride, int(p.batch), compute,
                                        CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS)
        m_failure = QStringLiteral("%1 (%2): %3")
                        .arg(p.batch == 1 ? QStringLiteral("cublasGemmEx")
                                          : QStringLiteral("cublasGemmStridedBatchedEx"),
                             p.describe(), m_lib->statusText(s));
}

QByteArray GemmBaseline::downloadResult() const {
    QByteArray host(qsizetype(m_c.sizeBytes()), Qt::Uninitialized);
    m_c.downloadAsync(host.data(), m_c.sizeBytes(), m_stream);
    m_stream.synchronize(QStringLiteral("copying the baseline's output"));
    return host;
}

QByteArray GemmBaseline::downloadKernelOutput() const {
    QByteArray host(qsizetype(m_kernelC->bytes), Qt::Uninitialized);
    m_kernelC->device.downloadAsync(host.data(), m_kernelC->bytes, m_stream);
    m_stream.synchronize(QStringLiteral("copying the kernel's output for the baseline"));
    return host;
}

} // namespace kernelpad
