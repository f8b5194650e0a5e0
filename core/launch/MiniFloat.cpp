#include "core/launch/MiniFloat.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kernelpad::detail {

namespace {

/// The bit layout and the out-of-range rules of one format, as the toolkit headers define
/// them (cuda_bf16.hpp __float2bfloat16, cuda_fp8.hpp __nv_cvt_double_to_fp8 with
/// __NV_SATFINITE, cuda_fp4.hpp __nv_cvt_double_to_fp4).
struct MiniLayout {
    int widthBits;
    int fractionBits;
    int bias;
    quint16 maxFinite; ///< magnitude bits of the largest finite value
    quint16 nanBits;   ///< what NaN converts to (sign included)
    bool ieeeSpecials; ///< the all-ones exponent holds inf (fraction 0) and NaN
    bool saturates;    ///< overflow and inf give maxFinite rather than inf
};

const MiniLayout& layoutOf(MiniFormat format) {
    // e4m3 has no inf; its one NaN magnitude is 0x7F (S.1111.111). The float constructors
    // of __nv_fp8_e4m3 and __nv_fp8_e5m2 both use __NV_SATFINITE and turn any NaN into the
    // canonical 0x7F; fp4 has no NaN and cuda_fp4.hpp turns NaN into +6 (0x7).
    static const MiniLayout bf16{16, 7, 127, 0x7F7F, 0x7FFF, true, false};
    static const MiniLayout e4m3{8, 3, 7, 0x7E, 0x7F, false, true};
    static const MiniLayout e5m2{8, 2, 15, 0x7B, 0x7F, true, true};
    static const MiniLayout e2m1{4, 1, 1, 0x7, 0x7, false, true};
    switch (format) {
    case MiniFormat::BFloat16:
        return bf16;
    case MiniFormat::E4M3:
        return e4m3;
    case MiniFormat::E5M2:
        return e5m2;
    case MiniFormat::E2M1:
        return e2m1;
    }
    return bf16;
}

/// Rounds a non-negative double to the nearest integer, ties to even. Exact: the caller
/// scales by a power of two first, so this is the conversion's only rounding.
double roundTiesEven(double x) {
    const double whole = std::floor(x);
    const double frac = x - whole;
    if (frac > 0.5)
        return whole + 1;
    if (frac < 0.5)
        return whole;
    return std::fmod(whole, 2.0) == 0.0 ? whole : whole + 1;
}

int minNormalExponent(const MiniLayout& l) {
    return 1 - l.bias;
}

quint16 infinityBits(const MiniLayout& l) {
    const int exponentMask = (1 << (l.widthBits - 1 - l.fractionBits)) - 1;
    return quint16(exponentMask << l.fractionBits);
}

} // namespace

int miniBitWidth(MiniFormat format) {
    return layoutOf(format).widthBits;
}

quint16 doubleToMiniBits(MiniFormat format, double value) {
    const MiniLayout& l = layoutOf(format);
    if (std::isnan(value))
        return l.nanBits;
    const quint16 sign = std::signbit(value) ? quint16(1u << (l.widthBits - 1)) : 0;
    const double a = std::fabs(value);
    const quint16 overflow = l.saturates ? l.maxFinite : infinityBits(l);
    if (std::isinf(a))
        return sign | overflow;
    const int minExp = minNormalExponent(l);
    const double oneUnit = std::ldexp(1.0, l.fractionBits);
    if (a < std::ldexp(1.0, minExp)) {
        // Subnormal: units of 2^(minExp - fractionBits); rounding up to 2^fractionBits units
        // gives exactly the bits of the smallest normal.
        return sign | quint16(roundTiesEven(std::ldexp(a, l.fractionBits - minExp)));
    }
    int exponent = std::ilogb(a);
    double significand = roundTiesEven(std::ldexp(a, l.fractionBits - exponent));
    if (significand >= 2 * oneUnit) {
        significand = oneUnit;
        ++exponent;
    }
    const qint64 magnitude =
        (qint64(exponent + l.bias) << l.fractionBits) | qint64(significand - oneUnit);
    if (magnitude > l.maxFinite)
        return sign | overflow;
    return sign | quint16(magnitude);
}

double miniBitsToDouble(MiniFormat format, quint16 bits) {
    const MiniLayout& l = layoutOf(format);
    const int exponentBits = l.widthBits - 1 - l.fractionBits;
    const bool negative = (bits >> (l.widthBits - 1)) & 1u;
    const int exponent = (bits >> l.fractionBits) & ((1 << exponentBits) - 1);
    const int fraction = bits & ((1 << l.fractionBits) - 1);
    const int magnitude = bits & ((1 << (l.widthBits - 1)) - 1);
    double value;
    if (l.ieeeSpecials && exponent == (1 << exponentBits) - 1)
        value = fraction ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
    else if (!l.ieeeSpecials && l.nanBits != l.maxFinite && magnitude > l.maxFinite)
        value = std::numeric_limits<double>::quiet_NaN(); // e4m3's S.1111.111
    else if (exponent == 0)
        value = std::ldexp(double(fraction), minNormalExponent(l) - l.fractionBits);
    else
        value = std::ldexp(double(fraction + (1 << l.fractionBits)),
                           exponent - l.bias - l.fractionBits);
    return negative ? -value : value;
}

double miniUlp(MiniFormat format, double value) {
    const MiniLayout& l = layoutOf(format);
    const double a = std::fabs(value);
    if (!std::isfinite(a))
        return std::numeric_limits<double>::infinity();
    const int minExp = minNormalExponent(l);
    const int exponent = a == 0 ? minExp : std::max(std::ilogb(a), minExp);
    return std::ldexp(1.0, exponent - l.fractionBits);
}

bool miniOverflows(MiniFormat format, double value) {
    const double largest = miniBitsToDouble(format, layoutOf(format).maxFinite);
    return std::isfinite(value) && std::fabs(value) > largest + miniUlp(format, largest) / 2;
}

QString formatMiniBits(MiniFormat format, quint16 bits) {
    const double value = miniBitsToDouble(format, bits);
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value < 0 ? QStringLiteral("-inf") : QStringLiteral("inf");
    // Whole numbers print as integers ("448", "57344"), not as the shorter "4.5e+02".
    constexpr double kExactIntegerLimit = 9007199254740992.0; // 2^53
    if (value == std::floor(value) && std::fabs(value) < kExactIntegerLimit)
        return (std::signbit(value) && value == 0) ? QStringLiteral("-0")
                                                   : QString::number(qint64(value));
    // The fewest significant digits that convert back to the same bits.
    for (int precision = 1; precision < 17; ++precision) {
        const QString text = QString::number(value, 'g', precision);
        if (doubleToMiniBits(format, text.toDouble()) == bits)
            return text;
    }
    return QString::number(value, 'g', 17);
}

} // namespace kernelpad::detail
