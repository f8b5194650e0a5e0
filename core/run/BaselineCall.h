#pragma once
// A run's library baseline whichever library it names: the plan resolved before the run
// (a cuBLAS GEMM, core/run/BaselinePlan.h, or a CUB call, core/run/CubPlan.h) and the call
// made ready on the run's stream (GemmBaseline or CubBaseline). DeviceRun checks and times it
// through this one type. Internal to core/run.

#include "core/run/BaselinePlan.h"
#include "core/run/CubBaseline.h"
#include "core/run/CubPlan.h"
#include "core/run/GemmBaseline.h"

#include <memory>
#include <optional>

namespace kernelpad {

/// The baseline's plan: exactly one of the two is set.
struct BaselineCallPlan {
    std::optional<GemmPlan> gemm;
    std::optional<CubPlan> cub;

    [[nodiscard]] QString describe() const;
    [[nodiscard]] qint64 bytesMoved() const;
    /// Floating-point operations of one call, for GFLOP/s (0 for CUB's calls).
    [[nodiscard]] double flops() const;
};

/// Resolves the project's baseline against the arguments; nullopt with the message naming
/// the field when it cannot run.
[[nodiscard]] std::optional<BaselineCallPlan>
planBaselineCall(const BaselineSpec& spec, const QVector<ArgumentSpec>& arguments, QString* error);

/// The library call ready on the run's stream.
class BaselineCall {
public:
    /// nullptr with the reason in `error` when the library is missing or refuses.
    static std::unique_ptr<BaselineCall> create(const BaselineCallPlan& plan,
                                                const std::vector<RunBuffer>& buffers,
                                                const Stream& stream, QString* error);
    void enqueue();
    [[nodiscard]] const QString& failure() const;
    /// The kernel's output against the library's, with the output buffers' tolerance.
    [[nodiscard]] BufferVerification check(const QVector<ArgumentSpec>& arguments) const;

private:
    BaselineCall() = default;
    std::unique_ptr<GemmBaseline> m_gemm;
    std::unique_ptr<CubBaseline> m_cub;
};

} // namespace kernelpad
