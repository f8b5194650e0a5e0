#include "core/verify/CheckAdvice.h"

#include <algorithm>
#include <cmath>

namespace kernelpad {
namespace {

/// Elements compared against zeros at a time: a chunk of zeros this long is all that is made.
constexpr qint64 kZeroChunkElements = qint64(1) << 16;

} // namespace

bool zerosWouldPass(const ValueType& type, const QByteArray& expected, qint64 count,
                    const Tolerance& tolerance) {
    const qint64 elementBytes = type.sizeBytes();
    if (count <= 0 || elementBytes <= 0 || expected.size() < count * elementBytes)
        return false;
    const QByteArray zeros(qsizetype(std::min(count, kZeroChunkElements) * elementBytes), '\0');
    for (qint64 first = 0; first < count; first += kZeroChunkElements) {
        const qint64 n = std::min(kZeroChunkElements, count - first);
        const QByteArray chunk = QByteArray::fromRawData(
            expected.constData() + first * elementBytes, qsizetype(n * elementBytes));
        if (!compareBuffers(type, zeros, chunk, n, tolerance.atol, tolerance.rtol, tolerance.ulp)
                 .passed)
            return false;
    }
    return true;
}

QStringList passWarnings(const QString& buffer, const ValueType& type, const QByteArray& expected,
                         qint64 count, const Tolerance& tolerance, const QByteArray* initial) {
    QStringList warnings;
    if (zerosWouldPass(type, expected, count, tolerance))
        warnings << QStringLiteral("%1: this check would also pass if the kernel wrote nothing "
                                   "(all zeros)")
                        .arg(buffer);
    else if (initial && !initial->isEmpty() &&
             compareBuffers(type, *initial, expected, count, tolerance.atol, tolerance.rtol,
                            tolerance.ulp)
                 .passed)
        warnings << QStringLiteral("%1: this check would also pass if the kernel left the buffer "
                                   "as it was (its initial contents)")
                        .arg(buffer);
    return warnings;
}

double typeEpsilon(ScalarType type) {
    switch (type) {
    case ScalarType::Float16:
        return std::ldexp(1.0, -10);
    case ScalarType::Float32:
    case ScalarType::Complex64:
        return std::ldexp(1.0, -23);
    case ScalarType::Float64:
    case ScalarType::Complex128:
        return std::ldexp(1.0, -52);
    case ScalarType::BFloat16:
        return std::ldexp(1.0, -7);
    case ScalarType::Float8E4M3:
        return std::ldexp(1.0, -3);
    case ScalarType::Float8E5M2:
        return std::ldexp(1.0, -2);
    case ScalarType::Float4E2M1x2:
        return std::ldexp(1.0, -1);
    default:
        return 0;
    }
}

namespace {

/// The smallest of 1, 2 and 5 times a power of ten that is >= x (x > 0).
double roundUpNicely(double x) {
    const double decade = std::pow(10.0, std::floor(std::log10(x)));
    for (const double step : {1.0, 2.0, 5.0, 10.0})
        if (step * decade >= x * (1 - 1e-12))
            return step * decade;
    return 10 * decade;
}

QString shortNumber(double x) {
    return QString::number(x, 'g', 2);
}

} // namespace

ToleranceAdvice adviseTolerance(const BufferVerification& report, ScalarType type, qint64 terms) {
    ToleranceAdvice advice;
    const double epsilon = typeEpsilon(type);
    if (epsilon <= 0 || !report.error.isEmpty() || report.checked == 0 ||
        !std::isfinite(report.maxRelError))
        return advice;
    // A small multiple of what was seen: what this kernel does now passes with room, while an
    // error a few times larger fails.
    constexpr double kHeadroom = 3;
    advice.suggestedRtol = roundUpNicely(std::max(kHeadroom * report.maxRelError, epsilon));
    const QString typeName = QLatin1String(scalarTypeInfo(type).numpyName);
    advice.text =
        report.maxAbsError == 0
            ? QStringLiteral("no error seen (%1 epsilon %2)").arg(typeName, shortNumber(epsilon))
            : QStringLiteral("worst error %1 ulp (%2 relative, %3 absolute; %4 epsilon "
                             "%5)")
                  .arg(shortNumber(report.maxUlpError), shortNumber(report.maxRelError),
                       shortNumber(report.maxAbsError), typeName, shortNumber(epsilon));
    advice.text += QStringLiteral("; rtol=%1 (%2)")
                       .arg(shortNumber(advice.suggestedRtol),
                            kHeadroom * report.maxRelError >= epsilon
                                ? QStringLiteral("about 3x the worst seen")
                                : QStringLiteral("one epsilon: a tighter rtol is finer than the "
                                                 "type"));
    if (terms > 1) {
        // Each term off by one ulp adds up to terms x epsilon relative, at worst.
        const double drift = double(terms) * epsilon;
        advice.text += QStringLiteral(" would %1 a 1-ulp-per-term error over %2 terms (%3)")
                           .arg(advice.suggestedRtol < drift ? QStringLiteral("still catch")
                                                             : QStringLiteral("not catch"))
                           .arg(terms)
                           .arg(shortNumber(drift));
    }
    return advice;
}

} // namespace kernelpad
