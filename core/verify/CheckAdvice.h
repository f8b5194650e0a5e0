#pragma once
// What a passing check does not say by itself: that it would also pass for an output the
// kernel never computed (all zeros, or the buffer's contents before the launch).

#include "core/launch/ValueType.h"
#include "core/verify/Verify.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace kernelpad {

/// True when an all-zero output of `count` elements of `type` passes the comparison with
/// `expected` under `tolerance` (compareBuffers()'s rule), compared a chunk at a time so no
/// zero buffer of the output's size is made.
[[nodiscard]] bool zerosWouldPass(const ValueType& type, const QByteArray& expected, qint64 count,
                                  const Tolerance& tolerance);

/// The warnings of a passing check on output `buffer`: "out: this check would also pass if the
/// kernel wrote nothing (all zeros)", and, for an inout buffer whose `initial` contents (null
/// or empty: none) pass too, "... if the kernel left it as it was (its initial contents)".
[[nodiscard]] QStringList passWarnings(const QString& buffer, const ValueType& type,
                                       const QByteArray& expected, qint64 count,
                                       const Tolerance& tolerance,
                                       const QByteArray* initial = nullptr);

/// What a float check saw, and an rtol that would still mean something.
struct ToleranceAdvice {
    QString text; ///< empty when there is no advice (not a float type, no check)
    double suggestedRtol = 0;
};

/// The unit roundoff of a float `type` (2^-23 for float32, 2^-7 for bfloat16, 2^-3 for
/// float8_e4m3; a complex type's part's); 0 for integers and bool.
[[nodiscard]] double typeEpsilon(ScalarType type);

/// Advice for the check `report` of a float output of `type` whose elements each sum `terms`
/// values (1: elementwise): the worst error seen in ulps, relative and absolute, the type's
/// epsilon, and an rtol a small multiple (3x, rounded up to 1, 2 or 5 of its decade) of the
/// worst relative error seen, at least one epsilon; with terms > 1, whether that rtol would
/// still catch a 1-ulp-per-term error over the terms (terms x epsilon relative):
/// "worst error 26 ulp (3.1e-06 relative, 4.2e-07 absolute; float32 epsilon 1.2e-07);
/// rtol=1e-05 would still catch a 1-ulp-per-term error over 4096 terms (4.9e-04)".
[[nodiscard]] ToleranceAdvice adviseTolerance(const BufferVerification& report, ScalarType type,
                                              qint64 terms);

} // namespace kernelpad
