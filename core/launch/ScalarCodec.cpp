#include "core/launch/ScalarCodec.h"

#include "core/launch/MiniFloat.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace kernelpad::detail {

namespace {

// binary16: 1 sign bit, 5 exponent bits (bias 15), 10 fraction bits.
constexpr int kHalfFractionBits = 10;
constexpr int kHalfMinNormalExp = -14; // smallest normal is 2^-14
constexpr int kHalfMaxExp = 15;        // largest finite is 1.1111111111b * 2^15 = 65504
constexpr quint16 kHalfInf = 0x7C00;
constexpr quint16 kHalfQuietNan = 0x7E00;

/// Rounds a non-negative double to the nearest integer, ties to even. Exact: `x` is scaled
/// by a power of two before the call, so this is the only rounding of the conversion.
double roundHalfEven(double x) {
    const double whole = std::floor(x);
    const double frac = x - whole;
    if (frac > 0.5)
        return whole + 1;
    if (frac < 0.5)
        return whole;
    return std::fmod(whole, 2.0) == 0.0 ? whole : whole + 1;
}

template <typename T> T saturate(double value) {
    if (std::isnan(value))
        return T(0);
    const double rounded = std::nearbyint(value);
    // The upper bound as a double is 2^(bits), one past the largest value, so `>=` is exact.
    const double upper = std::ldexp(1.0, std::numeric_limits<T>::digits);
    if (rounded >= upper)
        return std::numeric_limits<T>::max();
    if (rounded <= double(std::numeric_limits<T>::lowest()))
        return std::numeric_limits<T>::lowest();
    return T(rounded);
}

template <typename T> void put(T value, char* dst) {
    std::memcpy(dst, &value, sizeof(T));
}
template <typename T> T get(const char* src) {
    T value;
    std::memcpy(&value, src, sizeof(T));
    return value;
}

template <typename T> QString shortest(T value) {
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value < 0 ? QStringLiteral("-inf") : QStringLiteral("inf");
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    return QString::fromLatin1(buffer, int(result.ptr - buffer));
}

QString shortestHalf(quint16 bits) {
    const double value = halfBitsToDouble(bits);
    if (!std::isfinite(value))
        return shortest(value);
    // Halves above 2048 are integers; "65504" reads better than the shorter "6.55e+04".
    if (value == std::floor(value))
        return (std::signbit(value) && value == 0) ? QStringLiteral("-0")
                                                   : QString::number(qint64(value));
    // The fewest significant digits that convert back to the same half (at most 5 needed).
    for (int precision = 1; precision < 17; ++precision) {
        const QString text = QString::number(value, 'g', precision);
        if (doubleToHalfBits(text.toDouble()) == bits)
            return text;
    }
    return QString::number(value, 'g', 17);
}

} // namespace

quint8 packFp4x2(double low, double high) {
    return quint8(doubleToMiniBits(MiniFormat::E2M1, low) |
                  (doubleToMiniBits(MiniFormat::E2M1, high) << 4));
}

double fp4x2Component(quint8 byte, int index) {
    return miniBitsToDouble(MiniFormat::E2M1, index == 0 ? (byte & 0xF) : (byte >> 4));
}

quint16 doubleToHalfBits(double value) {
    const quint16 sign = std::signbit(value) ? 0x8000 : 0;
    if (std::isnan(value))
        return sign | kHalfQuietNan;
    const double a = std::fabs(value);
    if (std::isinf(a))
        return sign | kHalfInf;
    if (a < std::ldexp(1.0, kHalfMinNormalExp)) {
        // Subnormal: units of 2^-24. Rounding up to 1024 units gives exactly the bits of the
        // smallest normal, 0x0400.
        return sign | quint16(roundHalfEven(std::ldexp(a, -kHalfMinNormalExp + kHalfFractionBits)));
    }
    int exponent = std::ilogb(a);
    double significand = roundHalfEven(std::ldexp(a, kHalfFractionBits - exponent)); // [1024, 2048]
    if (significand >= 2048) {
        significand = 1024;
        ++exponent;
    }
    if (exponent > kHalfMaxExp)
        return sign | kHalfInf;
    return sign | quint16((exponent + kHalfMaxExp) << kHalfFractionBits) |
           quint16(int(significand) - 1024);
}

double halfBitsToDouble(quint16 bits) {
    const bool negative = bits & 0x8000;
    const int exponent = (bits >> kHalfFractionBits) & 0x1F;
    const int fraction = bits & 0x3FF;
    double value;
    if (exponent == 0)
        value = std::ldexp(double(fraction), kHalfMinNormalExp - kHalfFractionBits);
    else if (exponent == 0x1F)
        value = fraction ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
    else
        value = std::ldexp(double(fraction + 1024), exponent - kHalfMaxExp - kHalfFractionBits);
    return negative ? -value : value;
}

void storeScalar(ScalarType type, double re, double im, char* dst) {
    switch (type) {
    case ScalarType::Bool:
        put<quint8>(re != 0.0 ? 1 : 0, dst);
        break;
    case ScalarType::Int8:
        put(saturate<qint8>(re), dst);
        break;
    case ScalarType::Int16:
        put(saturate<qint16>(re), dst);
        break;
    case ScalarType::Int32:
        put(saturate<qint32>(re), dst);
        break;
    case ScalarType::Int64:
        put(saturate<qint64>(re), dst);
        break;
    case ScalarType::UInt8:
        put(saturate<quint8>(re), dst);
        break;
    case ScalarType::UInt16:
        put(saturate<quint16>(re), dst);
        break;
    case ScalarType::UInt32:
        put(saturate<quint32>(re), dst);
        break;
    case ScalarType::UInt64:
        put(saturate<quint64>(re), dst);
        break;
    case ScalarType::Float16:
        put(doubleToHalfBits(re), dst);
        break;
    case ScalarType::Float32:
        put(float(re), dst);
        break;
    case ScalarType::Float64:
        put(re, dst);
        break;
    case ScalarType::Complex64:
        put(float(re), dst);
        put(float(im), dst + sizeof(float));
        break;
    case ScalarType::Complex128:
        put(re, dst);
        put(im, dst + sizeof(double));
        break;
    case ScalarType::BFloat16:
        put(doubleToMiniBits(MiniFormat::BFloat16, re), dst);
        break;
    case ScalarType::Float8E4M3:
        put(quint8(doubleToMiniBits(MiniFormat::E4M3, re)), dst);
        break;
    case ScalarType::Float8E5M2:
        put(quint8(doubleToMiniBits(MiniFormat::E5M2, re)), dst);
        break;
    case ScalarType::Float4E2M1x2:
        put(packFp4x2(re, im), dst);
        break;
    }
}

double loadScalar(ScalarType type, const char* src, double* im) {
    if (im)
        *im = 0.0;
    switch (type) {
    case ScalarType::Bool:
        return get<quint8>(src) != 0 ? 1.0 : 0.0;
    case ScalarType::Int8:
        return get<qint8>(src);
    case ScalarType::Int16:
        return get<qint16>(src);
    case ScalarType::Int32:
        return get<qint32>(src);
    case ScalarType::Int64:
        return double(get<qint64>(src));
    case ScalarType::UInt8:
        return get<quint8>(src);
    case ScalarType::UInt16:
        return get<quint16>(src);
    case ScalarType::UInt32:
        return get<quint32>(src);
    case ScalarType::UInt64:
        return double(get<quint64>(src));
    case ScalarType::Float16:
        return halfBitsToDouble(get<quint16>(src));
    case ScalarType::Float32:
        return get<float>(src);
    case ScalarType::Float64:
        return get<double>(src);
    case ScalarType::Complex64:
        if (im)
            *im = get<float>(src + sizeof(float));
        return get<float>(src);
    case ScalarType::Complex128:
        if (im)
            *im = get<double>(src + sizeof(double));
        return get<double>(src);
    case ScalarType::BFloat16:
        return miniBitsToDouble(MiniFormat::BFloat16, get<quint16>(src));
    case ScalarType::Float8E4M3:
        return miniBitsToDouble(MiniFormat::E4M3, get<quint8>(src));
    case ScalarType::Float8E5M2:
        return miniBitsToDouble(MiniFormat::E5M2, get<quint8>(src));
    case ScalarType::Float4E2M1x2:
        if (im)
            *im = fp4x2Component(get<quint8>(src), 1);
        return fp4x2Component(get<quint8>(src), 0);
    }
    return 0.0;
}

QString formatScalar(ScalarType type, const char* src) {
    switch (type) {
    case ScalarType::Bool:
        return get<quint8>(src) != 0 ? QStringLiteral("true") : QStringLiteral("false");
    case ScalarType::Int8:
        return QString::number(get<qint8>(src));
    case ScalarType::Int16:
        return QString::number(get<qint16>(src));
    case ScalarType::Int32:
        return QString::number(get<qint32>(src));
    case ScalarType::Int64:
        return QString::number(get<qint64>(src));
    case ScalarType::UInt8:
        return QString::number(get<quint8>(src));
    case ScalarType::UInt16:
        return QString::number(get<quint16>(src));
    case ScalarType::UInt32:
        return QString::number(get<quint32>(src));
    case ScalarType::UInt64:
        return QString::number(get<quint64>(src));
    case ScalarType::Float16:
        return shortestHalf(get<quint16>(src));
    case ScalarType::Float32:
        return shortest(get<float>(src));
    case ScalarType::Float64:
        return shortest(get<double>(src));
    case ScalarType::Complex64:
        return QStringLiteral("(%1, %2)")
            .arg(shortest(get<float>(src)), shortest(get<float>(src + sizeof(float))));
    case ScalarType::Complex128:
        return QStringLiteral("(%1, %2)")
            .arg(shortest(get<double>(src)), shortest(get<double>(src + sizeof(double))));
    case ScalarType::BFloat16:
        return formatMiniBits(MiniFormat::BFloat16, get<quint16>(src));
    case ScalarType::Float8E4M3:
        return formatMiniBits(MiniFormat::E4M3, get<quint8>(src));
    case ScalarType::Float8E5M2:
        return formatMiniBits(MiniFormat::E5M2, get<quint8>(src));
    case ScalarType::Float4E2M1x2: {
        // Low nibble first, as __nv_fp4x2_e2m1 stores .x (cuda_fp4.hpp).
        const quint8 byte = get<quint8>(src);
        return QStringLiteral("(%1, %2)")
            .arg(formatMiniBits(MiniFormat::E2M1, byte & 0xF),
                 formatMiniBits(MiniFormat::E2M1, byte >> 4));
    }
    }
    return {};
}

std::optional<ParsedInteger> parseIntegerLiteral(const QString& text, bool* overflow) {
    if (overflow)
        *overflow = false;
    QString s = text.trimmed();
    ParsedInteger out;
    if (s.startsWith(QLatin1Char('-')) || s.startsWith(QLatin1Char('+'))) {
        out.negative = s.front() == QLatin1Char('-');
        s.remove(0, 1);
    }
    int base = 10;
    if (s.startsWith(QLatin1String("0x"), Qt::CaseInsensitive)) {
        base = 16;
        s.remove(0, 2);
    }
    if (s.isEmpty())
        return std::nullopt;
    quint64 value = 0;
    bool tooLarge = false;
    for (const QChar c : s) {
        const int digit =
            c.isDigit() ? c.digitValue()
            : (base == 16 && c.toLower() >= QLatin1Char('a') && c.toLower() <= QLatin1Char('f'))
                ? c.toLower().unicode() - 'a' + 10
                : -1;
        if (digit < 0 || digit >= base)
            return std::nullopt;
        if (value > (std::numeric_limits<quint64>::max() - quint64(digit)) / quint64(base))
            tooLarge = true;
        value = value * quint64(base) + quint64(digit);
    }
    if (tooLarge) {
        if (overflow)
            *overflow = true;
        return std::nullopt;
    }
    out.magnitude = value;
    return out;
}

std::optional<double> parseDouble(const QString& text) {
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    if (!ok)
        return std::nullopt;
    return value;
}

namespace {

/// One ulp of an IEEE binary format with `fractionBits` stored fraction bits whose smallest
/// normal is 2^minNormalExp.
double ieeeUlp(double value, int fractionBits, int minNormalExp) {
    const double a = std::fabs(value);
    if (!std::isfinite(a))
        return std::numeric_limits<double>::infinity();
    const int exponent = a == 0 ? minNormalExp : std::max(std::ilogb(a), minNormalExp);
    return std::ldexp(1.0, exponent - fractionBits);
}

} // namespace

double ulpOf(ScalarType type, double value) {
    switch (type) {
    case ScalarType::Float16:
        return ieeeUlp(value, kHalfFractionBits, kHalfMinNormalExp);
    case ScalarType::Float32:
    case ScalarType::Complex64:
        return ieeeUlp(value, std::numeric_limits<float>::digits - 1,
                       std::numeric_limits<float>::min_exponent - 1);
    case ScalarType::Float64:
    case ScalarType::Complex128:
        return ieeeUlp(value, std::numeric_limits<double>::digits - 1,
                       std::numeric_limits<double>::min_exponent - 1);
    case ScalarType::BFloat16:
        return miniUlp(MiniFormat::BFloat16, value);
    case ScalarType::Float8E4M3:
        return miniUlp(MiniFormat::E4M3, value);
    case ScalarType::Float8E5M2:
        return miniUlp(MiniFormat::E5M2, value);
    case ScalarType::Float4E2M1x2:
        return miniUlp(MiniFormat::E2M1, value);
    default:
        return 1.0;
    }
}

bool lowPrecisionOverflows(ScalarType type, double value) {
    switch (type) {
    case ScalarType::BFloat16:
        return miniOverflows(MiniFormat::BFloat16, value);
    case ScalarType::Float8E4M3:
        return miniOverflows(MiniFormat::E4M3, value);
    case ScalarType::Float8E5M2:
        return miniOverflows(MiniFormat::E5M2, value);
    case ScalarType::Float4E2M1x2:
        return miniOverflows(MiniFormat::E2M1, value);
    default:
        return false;
    }
}

bool isIntegerType(ScalarType type) {
    const auto& info = scalarTypeInfo(type);
    return !info.isFloat;
}

void integerRange(ScalarType type, double* lowest, double* highest) {
    const auto& info = scalarTypeInfo(type);
    const int bits = info.sizeBytes * 8;
    if (type == ScalarType::Bool) {
        *lowest = 0;
        *highest = 1;
    } else if (info.isSigned) {
        *lowest = -std::ldexp(1.0, bits - 1);
        *highest = std::ldexp(1.0, bits - 1) - 1;
    } else {
        *lowest = 0;
        *highest = std::ldexp(1.0, bits) - 1;
    }
}

} // namespace kernelpad::detail
