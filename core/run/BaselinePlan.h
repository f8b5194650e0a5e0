#pragma once
// A project's "baseline" section (core/project/BaselineSpec.h) resolved against this run's
// arguments: every size a number, every buffer found, its element type and size checked
// against the call, before any device memory is taken. The messages name the field.

#include "core/launch/ArgumentSpec.h"
#include "core/project/BaselineSpec.h"
#include "core/verify/VerificationReport.h"

#include <QByteArray>

#include <QString>

#include <optional>

namespace kernelpad {

/// One matrix operand as the call reads it: where it is and how it is laid out.
struct GemmOperand {
    int argIndex = -1; ///< in the project's arguments
    QString buffer;
    qint64 rows = 0, cols = 0; ///< as stored (before the transpose)
    qint64 ld = 0;             ///< elements between rows (row order) or columns (column order)
    qint64 stride = 0;         ///< elements between the matrices of a batch
};

/// A cuBLAS GEMM with every value known: C = alpha * op(A) op(B) + beta * C, `batch` times.
struct GemmPlan {
    bool rowMajor = false;
    bool transA = false, transB = false;
    qint64 m = 0, n = 0, k = 0, batch = 1;
    double alpha = 1, beta = 0;
    QString compute; ///< "fp32", "tf32", "fp16", "bf16", "fp8", "fp64"
    ScalarType abType = ScalarType::Float32, cType = ScalarType::Float32;
    GemmOperand a, b, c;

    /// "gemm 512×512×512 fp32, row-major" (and "batch 8", "A transposed").
    [[nodiscard]] QString describe() const;
    /// 2·m·n·k per matrix, for GFLOP/s.
    [[nodiscard]] double flops() const {
        return 2.0 * double(m) * double(n) * double(k) * double(batch);
    }
    /// Bytes one call reads and writes: A and B, C written (and read when beta is not 0).
    [[nodiscard]] qint64 bytesMoved() const;
    /// Elements of C the call writes, as indices into the buffer, in order.
    [[nodiscard]] QVector<qint64> writtenIndices() const;
};

/// Resolves `spec` (a cuBLAS GEMM) against `arguments`; nullopt with the reason, naming the
/// field ("baseline.lda: 100 is less than the 128 rows of A"), when it cannot run.
[[nodiscard]] std::optional<GemmPlan>
planGemm(const BaselineSpec& spec, const QVector<ArgumentSpec>& arguments, QString* error);

/// Why `spec` (either library) cannot run on `arguments`, with the message a run gives
/// ("baseline.lda: ..."), or empty when it can: the window's baseline editor refuses with it.
[[nodiscard]] QString baselineProblem(const BaselineSpec& spec,
                                      const QVector<ArgumentSpec>& arguments);

/// The kernel's C (`kernel`, got) against the library's (`library`, expected): only the
/// elements the call writes (the gaps a leading dimension leaves are neither's), with the
/// output buffer's tolerance and NaN rule (its "nan"); mismatches are named by their index in
/// the buffer.
[[nodiscard]] BufferVerification compareGemmOutputs(const GemmPlan& plan, const QByteArray& kernel,
                                                    const QByteArray& library, double atol,
                                                    double rtol,
                                                    NanComparison nan = NanComparison::Equal);

} // namespace kernelpad
