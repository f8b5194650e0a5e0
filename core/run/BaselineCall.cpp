#include "core/run/BaselineCall.h"

namespace kernelpad {

QString BaselineCallPlan::describe() const {
    return gemm ? gemm->describe() : cub->describe();
}

qint64 BaselineCallPlan::bytesMoved() const {
    return gemm ? gemm->bytesMoved() : cub->bytesMoved();
}

double BaselineCallPlan::flops() const {
    return gemm ? gemm->flops() : 0.0;
}

std::optional<BaselineCallPlan>
planBaselineCall(const BaselineSpec& spec, const QVector<ArgumentSpec>& arguments, QString* error) {
    BaselineCallPlan plan;
    if (spec.isCub())
        plan.cub = planCub(spec, arguments, error);
    else
        plan.gemm = planGemm(spec, arguments, error);
    if (!plan.cub && !plan.gemm)
        return std::nullopt;
    return plan;
}

std::unique_ptr<BaselineCall> BaselineCall::create(const BaselineCallPlan& plan,
                                                   const std::vector<RunBuffer>& buffers,
                                                   const Stream& stream, QString* error) {
    std::unique_ptr<BaselineCall> call(new BaselineCall);
    if (plan.gemm)
        call->m_gemm = GemmBaseline::create(*plan.gemm, buffers, stream, error);
    else
        call->m_cub = CubBaseline::create(*plan.cub, buffers, stream, error);
    if (!call->m_gemm && !call->m_cub)
        return nullptr;
    return call;
}

void BaselineCall::enqueue() {
    if (m_gemm)
        m_gemm->enqueue();
    else
        m_cub->enqueue();
}

const QString& BaselineCall::failure() const {
    return m_gemm ? m_gemm->failure() : m_cub->failure();
}

BufferVerification BaselineCall::check(const QVector<ArgumentSpec>& arguments) const {
    if (m_cub)
        return m_cub->check(arguments);
    const QByteArray library = m_gemm->downloadResult();
    const QByteArray kernel = m_gemm->downloadKernelOutput();
    const GemmPlan& plan = m_gemm->plan();
    const VerifySpec& tolerance = arguments[plan.c.argIndex].buffer.verify;
    return compareGemmOutputs(plan, kernel, library, tolerance.atol, tolerance.rtol, tolerance.nan);
}

} // namespace kernelpad
