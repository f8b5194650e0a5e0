#pragma once
// Verification maths on the host: compare an output with expected values, evaluate expected
// values from an expression (core/launch's Expression, muParser).

#include "core/launch/ArgumentSpec.h"
#include "core/verify/VerificationReport.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// How many mismatches a report lists.
inline constexpr int kMaxReportedMismatches = 16;

/// When an element passes: |got - expected| <= atol + rtol * |expected|, or (when ulp > 0)
/// |got - expected| <= ulp * (the spacing of the output type at `expected`).
struct Tolerance {
    double atol = 0;
    double rtol = 0;
    double ulp = 0;
};

/// Why `count` elements of `type` cannot be compared with these tolerances between an output
/// of `gotBytes` and expected data of `expectedBytes`, or empty: the one check of
/// compareBuffers() and of the GPU comparison, so both refuse in the same words.
[[nodiscard]] QString comparisonProblem(const ValueType& type, qint64 count, double atol,
                                        double rtol, qint64 gotBytes, qint64 expectedBytes,
                                        double ulp = 0);

/// Compares `count` elements of `got` with `expected` (both raw bytes of `type`):
/// |got - expected| <= atol + rtol * |expected| per component, or within `ulp` ulps of the
/// output type (Tolerance); maxUlpError measures every error in those ulps; NaN in got where
/// expected is not NaN is a mismatch counted in nanCount; NaN against NaN matches unless `nan`
/// is Differ; an infinity matches only the same infinity; elements of `got` whose bytes are all
/// kPoisonByte are counted as unwritten (and as mismatches). Fills everything but buffer/method;
/// `failure` is nonFiniteMismatch()'s sentence when a listed mismatch is about NaN or infinity.
[[nodiscard]] BufferVerification compareBuffers(const ValueType& type, const QByteArray& got,
                                                const QByteArray& expected, qint64 count,
                                                double atol, double rtol, double ulp = 0,
                                                NanComparison nan = NanComparison::Equal);

/// "NaN", "+Inf", "-Inf", "1.0", "0.333333333": a value as mismatch messages give it.
[[nodiscard]] QString describeValue(double value);
/// "element 5: NaN, expected 1.0" for the first listed mismatch of `report` whose output or
/// expected value is NaN or infinite; empty when none is.
[[nodiscard]] QString nonFiniteMismatch(const BufferVerification& report);

/// One named array the expression may use: element i of an input buffer (as double).
struct ExpressionInput {
    ValueType type;
    const QByteArray* data = nullptr;
    qint64 count = 0;
};

/// Evaluates `expression` for i in [0, count): variables are the scalar arguments (by
/// value), the buffers in `inputs` (element i; a buffer shorter than count is an error) and
/// `i` itself. Returns doubles; the error names the unknown variable or the parse error.
[[nodiscard]] std::optional<QVector<double>>
evaluateExpression(const QString& expression, qint64 count, const QHash<QString, double>& scalars,
                   const QHash<QString, ExpressionInput>& inputs, QString* error);

/// Converts doubles to raw bytes of a scalar `type` (for comparing with compareBuffers).
[[nodiscard]] QByteArray doublesToBytes(const ValueType& type, const QVector<double>& values);

} // namespace kernelpad
