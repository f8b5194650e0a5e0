#include "core/verify/Verify.h"

#include "core/verify/ElementTraits.h"

#include "core/launch/BufferInit.h"
#include "core/launch/Expression.h"
#include "core/launch/ScalarCodec.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace kernelpad {

namespace {

using namespace verifydetail;

// Element decoding: ElementTraits.h.

/// The value of one component of `type` at `p`, for struct fields and expression inputs.
double componentValue(ScalarType type, const char* p) {
    switch (type) {
    case ScalarType::Bool:
        return Boolean::value(load<Boolean>(p));
    case ScalarType::Int8:
        return double(load<Plain<qint8>>(p));
    case ScalarType::Int16:
        return double(load<Plain<qint16>>(p));
    case ScalarType::Int32:
        return double(load<Plain<qint32>>(p));
    case ScalarType::Int64:
        return double(load<Plain<qint64>>(p));
    case ScalarType::UInt8:
        return double(load<Plain<quint8>>(p));
    case ScalarType::UInt16:
        return double(load<Plain<quint16>>(p));
    case ScalarType::UInt32:
        return double(load<Plain<quint32>>(p));
    case ScalarType::UInt64:
        return double(load<Plain<quint64>>(p));
    case ScalarType::Float16:
        return detail::halfBitsToDouble(load<Half>(p));
    case ScalarType::Float32:
    case ScalarType::Complex64:
        return double(load<Plain<float>>(p));
    case ScalarType::Float64:
    case ScalarType::Complex128:
        return load<Plain<double>>(p);
    case ScalarType::BFloat16:
        return BFloat16Bits::value(load<BFloat16Bits>(p));
    case ScalarType::Float8E4M3:
        return E4M3Bits::value(load<E4M3Bits>(p));
    case ScalarType::Float8E5M2:
        return E5M2Bits::value(load<E5M2Bits>(p));
    case ScalarType::Float4E2M1x2:
        return Fp4x2Low::value(load<Fp4x2Low>(p));
    }
    return 0;
}

// ---- comparison ----

/// Accumulates the report; every per-element function is inline and allocation-free.
class Comparison {
public:
    Comparison(BufferVerification& report, const Tolerance& tolerance, ScalarType ulpType,
               NanComparison nan)
        : m_report(report)
        , m_atol(tolerance.atol)
        , m_rtol(tolerance.rtol)
        , m_ulp(tolerance.ulp)
        , m_ulpType(ulpType)
        , m_nanEqual(nan == NanComparison::Equal) {}

    /// The type whose ulps measure the following components (a struct field's type).
    void setUlpType(ScalarType type) { m_ulpType = type; }

    void beginElement() {
        m_bad = false;
        m_sawNan = false;
    }

    /// One component compared exactly (integers with zero tolerance).
    template <typename Raw>
    void exactComponent(Raw got, Raw expected, double gotValue, double expectedValue) {
        if (got != expected)
            fail(gotValue, expectedValue);
        recordError(gotValue, expectedValue);
    }

    void component(double got, double expected) {
        const bool gotNan = std::isnan(got);
        const bool expectedNan = std::isnan(expected);
        if (gotNan || expectedNan) {
            if (gotNan && expectedNan && m_nanEqual)
                return;                 // both NaN: the kernel computed what the reference computed
            if (gotNan && !expectedNan) // nanCount: NaN where a number is expected
                m_sawNan = true;
            fail(got, expected);
            return;
        }
        if (got == expected)
            return; // also equal infinities
        if (std::isinf(got) || std::isinf(expected)) {
            fail(got, expected); // no tolerance makes an infinity close to anything else
            return;
        }
        const double diff = std::abs(got - expected);
        // Either bound is enough: atol/rtol, or within m_ulp ulps of the output type.
        const bool withinAbsRel = diff <= m_atol + m_rtol * std::abs(expected);
        if (!withinAbsRel && !(m_ulp > 0 && diff <= m_ulp * detail::ulpOf(m_ulpType, expected)))
            fail(got, expected);
        recordError(got, expected);
    }

    void endElement(qint64 index) {
        if (!m_bad)
            return;
        ++m_report.mismatches;
        if (m_sawNan)
            ++m_report.nanCount;
        addToList(index, m_got, m_expected);
    }

    /// An element never written: a mismatch, but no contribution to the error maxima.
    void unwritten(qint64 index, double got, double expected) {
        ++m_report.unwritten;
        ++m_report.mismatches;
        addToList(index, got, expected);
    }

private:
    void fail(double got, double expected) {
        if (m_bad)
            return; // the first failing component stands for the element
        m_bad = true;
        m_got = got;
        m_expected = expected;
    }

    void recordError(double got, double expected) {
        if (!std::isfinite(got) || !std::isfinite(expected))
            return;
        const double diff = std::abs(got - expected);
        m_report.maxAbsError = std::max(m_report.maxAbsError, diff);
        if (diff > 0)
            m_report.maxUlpError =
                std::max(m_report.maxUlpError, diff / detail::ulpOf(m_ulpType, expected));
        if (expected != 0) // relative error is undefined where the expected value is zero
            m_report.maxRelError = std::max(m_report.maxRelError, diff / std::abs(expected));
    }

    void addToList(qint64 index, double got, double expected) {
        if (m_report.firstMismatches.size() < kMaxReportedMismatches)
            m_report.firstMismatches.append(Mismatch{index, got, expected});
    }

    BufferVerification& m_report;
    double m_atol;
    double m_rtol;
    double m_ulp;
    ScalarType m_ulpType;
    bool m_nanEqual = true;
    bool m_bad = false;
    bool m_sawNan = false;
    double m_got = 0;
    double m_expected = 0;
};

template <int Size> bool isPoison(const char* p) {
    if constexpr (Size == 1 || Size == 2 || Size == 4 || Size == 8) {
        using Word =
            std::conditional_t<Size == 1, quint8,
                               std::conditional_t<Size == 2, quint16,
                                                  std::conditional_t<Size == 4, quint32, quint64>>>;
        Word w;
        std::memcpy(&w, p, Size);
        return w == Word(0xA5A5A5A5A5A5A5A5ull);
    } else {
        for (int i = 0; i < Size; ++i)
            if (static_cast<unsigned char>(p[i]) != kPoisonByte)
                return false;
        return true;
    }
}

bool isPoison(const char* p, int size) {
    for (int i = 0; i < size; ++i)
        if (static_cast<unsigned char>(p[i]) != kPoisonByte)
            return false;
    return true;
}

/// A scalar buffer of `Components` components per element (2 for complex) in one tight loop.
template <typename Traits, int Components>
void compareScalars(const char* got, const char* expected, qint64 count, bool exact,
                    Comparison& cmp) {
    using Raw = typename Traits::Raw;
    constexpr int kElementBytes = int(sizeof(Raw)) * Components;
    for (qint64 i = 0; i < count; ++i) {
        const char* g = got + i * kElementBytes;
        const char* e = expected + i * kElementBytes;
        // An element that happens to equal the poison pattern and is expected to (a uint8
        // 165) is a match, not an unwritten element.
        if (isPoison<kElementBytes>(g) && std::memcmp(g, e, kElementBytes) != 0) {
            cmp.unwritten(i, Traits::value(load<Traits>(g)), Traits::value(load<Traits>(e)));
            continue;
        }
        cmp.beginElement();
        for (int c = 0; c < Components; ++c) {
            const Raw gr = load<Traits>(g + c * int(sizeof(Raw)));
            const Raw er = load<Traits>(e + c * int(sizeof(Raw)));
            if constexpr (Traits::kInteger) {
                if (exact) {
                    cmp.exactComponent(Traits::exact(gr), Traits::exact(er), Traits::value(gr),
                                       Traits::value(er));
                    continue;
                }
            }
            cmp.component(Traits::value(gr), Traits::value(er));
        }
        cmp.endElement(i);
    }
}

/// The two values of each of `bytes` float4_e2m1x2 bytes, low nibble first.
void compareFp4x2(const char* got, const char* expected, int bytes, Comparison& cmp) {
    for (int b = 0; b < bytes; ++b)
        for (int half = 0; half < 2; ++half)
            cmp.component(detail::fp4x2Component(quint8(got[b]), half),
                          detail::fp4x2Component(quint8(expected[b]), half));
}

/// A float4_e2m1x2 buffer: one byte per element, two values each.
void compareFp4x2Buffer(const char* got, const char* expected, qint64 count, Comparison& cmp) {
    for (qint64 i = 0; i < count; ++i) {
        if (isPoison<1>(got + i) && got[i] != expected[i]) {
            cmp.unwritten(i, detail::fp4x2Component(quint8(got[i]), 0),
                          detail::fp4x2Component(quint8(expected[i]), 0));
            continue;
        }
        cmp.beginElement();
        compareFp4x2(got + i, expected + i, 1, cmp);
        cmp.endElement(i);
    }
}

void compareStructs(const StructType& type, const char* got, const char* expected, qint64 count,
                    bool exact, Comparison& cmp) {
    const int elementBytes = type.sizeBytes();
    const QVector<int> offsets = type.fieldOffsets();
    for (qint64 i = 0; i < count; ++i) {
        const char* g = got + i * elementBytes;
        const char* e = expected + i * elementBytes;
        const StructField& first = type.fields.front();
        if (isPoison(g, elementBytes) && std::memcmp(g, e, size_t(elementBytes)) != 0) {
            cmp.unwritten(i, componentValue(first.type, g + offsets[0]),
                          componentValue(first.type, e + offsets[0]));
            continue;
        }
        cmp.beginElement();
        for (int f = 0; f < type.fields.size(); ++f) {
            const StructField& field = type.fields[f];
            const ScalarTypeInfo& info = scalarTypeInfo(field.type);
            cmp.setUlpType(field.type);
            if (field.type == ScalarType::Float4E2M1x2) {
                compareFp4x2(g + offsets[f], e + offsets[f], field.count, cmp);
                continue;
            }
            const int componentBytes = info.isComplex ? info.sizeBytes / 2 : info.sizeBytes;
            const int components = field.count * (info.isComplex ? 2 : 1);
            for (int c = 0; c < components; ++c) {
                const char* gp = g + offsets[f] + c * componentBytes;
                const char* ep = e + offsets[f] + c * componentBytes;
                if (exact && !info.isFloat) {
                    // Raw bytes are exact for every integer width; bool is normalised below.
                    const bool same = field.type == ScalarType::Bool
                                          ? (*gp != 0) == (*ep != 0)
                                          : std::memcmp(gp, ep, size_t(componentBytes)) == 0;
                    const double gv = componentValue(field.type, gp);
                    const double ev = componentValue(field.type, ep);
                    cmp.exactComponent(same, true, gv, ev);
                } else {
                    cmp.component(componentValue(field.type, gp), componentValue(field.type, ep));
                }
            }
        }
        cmp.endElement(i);
    }
}

int componentsPerElement(const ValueType& type) {
    if (!type.isStruct())
        return componentCount(type.scalar);
    int components = 0;
    for (const StructField& field : type.structType.fields)
        components += field.count * componentCount(field.type);
    return components;
}

} // namespace

QString comparisonProblem(const ValueType& type, qint64 count, double atol, double rtol,
                          qint64 gotBytes, qint64 expectedBytes, double ulp) {
    const qint64 elementBytes = type.sizeBytes();
    if (type.isStruct() && type.structType.fields.isEmpty())
        return QStringLiteral("struct %1 has no fields to compare").arg(type.displayName());
    if (elementBytes <= 0)
        return QStringLiteral("type %1 has no size").arg(type.displayName());
    if (count < 0)
        return QStringLiteral("element count must be >= 0 (got %1)").arg(count);
    if (!(atol >= 0) || !(rtol >= 0))
        return QStringLiteral("tolerances must be >= 0 (atol %1, rtol %2)").arg(atol).arg(rtol);
    if (!(ulp >= 0))
        return QStringLiteral("ulp: must be >= 0 (got %1)").arg(ulp);
    if (count > std::numeric_limits<qint64>::max() / elementBytes)
        return QStringLiteral("%1 elements are too many").arg(count);
    const qint64 needBytes = count * elementBytes;
    const auto sizeMessage = [&](const char* what, qint64 haveBytes) {
        return QStringLiteral("%1 has %2 bytes; %3 elements of %4 need %5")
            .arg(QLatin1String(what))
            .arg(haveBytes)
            .arg(count)
            .arg(type.displayName())
            .arg(needBytes);
    };
    if (gotBytes < needBytes)
        return sizeMessage("the output", gotBytes);
    if (expectedBytes < needBytes)
        return sizeMessage("the expected data", expectedBytes);
    return {};
}

QString describeValue(double value) {
    if (std::isnan(value))
        return QStringLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    if (value == std::floor(value) && std::abs(value) < 1e15)
        return QString::number(value, 'f', 1); // "1.0": a float, not an integer
    return QString::number(value, 'g', 9);
}

QString nonFiniteMismatch(const BufferVerification& report) {
    for (const Mismatch& m : report.firstMismatches)
        if (!std::isfinite(m.got) || !std::isfinite(m.expected))
            return QStringLiteral("element %1: %2, expected %3")
                .arg(m.index)
                .arg(describeValue(m.got), describeValue(m.expected));
    return {};
}

BufferVerification compareBuffers(const ValueType& type, const QByteArray& got,
                                  const QByteArray& expected, qint64 count, double atol,
                                  double rtol, double ulp, NanComparison nan) {
    BufferVerification report;
    const auto fail = [&report](const QString& message) {
        report.error = message;
        report.passed = false;
        return report;
    };
    if (const QString problem =
            comparisonProblem(type, count, atol, rtol, got.size(), expected.size(), ulp);
        !problem.isEmpty())
        return fail(problem);

    report.checked = count * componentsPerElement(type);
    Comparison cmp(report, Tolerance{atol, rtol, ulp},
                   type.isStruct() ? type.structType.fields.front().type : type.scalar, nan);
    // Integers are compared bit for bit when no tolerance is asked for: int64 values above
    // 2^53 are not exact as doubles.
    const bool exact = atol == 0 && rtol == 0 && ulp == 0;
    const char* g = got.constData();
    const char* e = expected.constData();
    if (type.isStruct()) {
        compareStructs(type.structType, g, e, count, exact, cmp);
    } else {
        switch (type.scalar) {
        case ScalarType::Bool:
            compareScalars<Boolean, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Int8:
            compareScalars<Plain<qint8>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Int16:
            compareScalars<Plain<qint16>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Int32:
            compareScalars<Plain<qint32>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Int64:
            compareScalars<Plain<qint64>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::UInt8:
            compareScalars<Plain<quint8>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::UInt16:
            compareScalars<Plain<quint16>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::UInt32:
            compareScalars<Plain<quint32>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::UInt64:
            compareScalars<Plain<quint64>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Float16:
            compareScalars<Half, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Float32:
            compareScalars<Plain<float>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Float64:
            compareScalars<Plain<double>, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Complex64:
            compareScalars<Plain<float>, 2>(g, e, count, exact, cmp);
            break;
        case ScalarType::Complex128:
            compareScalars<Plain<double>, 2>(g, e, count, exact, cmp);
            break;
        case ScalarType::BFloat16:
            compareScalars<BFloat16Bits, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Float8E4M3:
            compareScalars<E4M3Bits, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Float8E5M2:
            compareScalars<E5M2Bits, 1>(g, e, count, exact, cmp);
            break;
        case ScalarType::Float4E2M1x2:
            compareFp4x2Buffer(g, e, count, cmp);
            break;
        }
    }
    report.passed = report.mismatches == 0;
    report.failure = nonFiniteMismatch(report);
    return report;
}

namespace {

template <typename T> T toInteger(double value) {
    if (std::isnan(value))
        return T(0);
    const double rounded = std::round(value);
    // Clamp first: converting an out-of-range double to an integer is undefined.
    if (rounded <= double(std::numeric_limits<T>::min()))
        return std::numeric_limits<T>::min();
    if (rounded >= double(std::numeric_limits<T>::max()))
        return std::numeric_limits<T>::max();
    return T(rounded);
}

template <typename T> void store(char* p, T value) {
    std::memcpy(p, &value, sizeof value);
}

void storeScalar(ScalarType type, char* p, double v) {
    switch (type) {
    case ScalarType::Bool:
        return store<quint8>(p, !std::isnan(v) && v != 0 ? 1 : 0);
    case ScalarType::Int8:
        return store(p, toInteger<qint8>(v));
    case ScalarType::Int16:
        return store(p, toInteger<qint16>(v));
    case ScalarType::Int32:
        return store(p, toInteger<qint32>(v));
    case ScalarType::Int64:
        return store(p, toInteger<qint64>(v));
    case ScalarType::UInt8:
        return store(p, toInteger<quint8>(v));
    case ScalarType::UInt16:
        return store(p, toInteger<quint16>(v));
    case ScalarType::UInt32:
        return store(p, toInteger<quint32>(v));
    case ScalarType::UInt64:
        return store(p, toInteger<quint64>(v));
    case ScalarType::Float16:
        return store(p, detail::doubleToHalfBits(v));
    case ScalarType::Float32:
    case ScalarType::Complex64:
        return store(p, float(v)); // imaginary part stays zero
    case ScalarType::Float64:
    case ScalarType::Complex128:
        return store(p, v);
    case ScalarType::BFloat16:
    case ScalarType::Float8E4M3:
    case ScalarType::Float8E5M2:
    case ScalarType::Float4E2M1x2: // the value goes to the low nibble, the high one is 0
        return detail::storeScalar(type, v, 0.0, p);
    }
}

} // namespace

QByteArray doublesToBytes(const ValueType& type, const QVector<double>& values) {
    const qint64 elementBytes = type.sizeBytes();
    QByteArray bytes(values.size() * elementBytes, '\0');
    char* out = bytes.data();
    if (type.isStruct()) {
        // Mirrors elementAsDouble: the value is the first field.
        if (type.structType.fields.isEmpty())
            return bytes;
        const ScalarType first = type.structType.fields.front().type;
        const int offset = type.structType.fieldOffsets().value(0);
        for (qsizetype k = 0; k < values.size(); ++k)
            storeScalar(first, out + k * elementBytes + offset, values[k]);
        return bytes;
    }
    for (qsizetype k = 0; k < values.size(); ++k)
        storeScalar(type.scalar, out + k * elementBytes, values[k]);
    return bytes;
}

} // namespace kernelpad
