#include "core/launch/BufferInit.h"
#include "core/launch/BufferInitSpecial.h"

#include "core/io/ErrorOut.h"
#include "core/launch/Expression.h"
#include "core/launch/Npy.h"
#include "core/launch/Packing.h"
#include "core/launch/ScalarCodec.h"

#include <QDir>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

namespace kernelpad {

namespace {

/// Why `name` cannot be used in a count, or empty when it can; sets `value`.
QString variableValue(const QString& name, const QVector<ArgumentSpec>& args, double* value) {
    for (const ArgumentSpec& arg : args) {
        if (arg.name != name)
            continue;
        if (!arg.isScalar())
            return QStringLiteral("'%1' is a %2, not an integer scalar")
                .arg(name, arg.isBuffer() ? QStringLiteral("buffer") : QStringLiteral("texture"));
        if (arg.type.isStruct() || !detail::isIntegerType(arg.type.scalar) ||
            arg.type.scalar == ScalarType::Bool)
            return QStringLiteral("'%1' is %2, not an integer scalar")
                .arg(name, arg.type.displayName());
        QString packError;
        const auto bytes = packValue(arg.type, arg.value, &packError);
        if (!bytes)
            return QStringLiteral("'%1' has no valid value: %2").arg(name, packError);
        *value = detail::loadScalar(arg.type.scalar, bytes->constData());
        // muParser computes in doubles: an int64 of 2^53 + 1 would count as 2^53.
        if (!isExactDoubleInteger(*value))
            return QStringLiteral("'%1' is %2, more than 2^53 - 1, which a count expression "
                                  "(computed in doubles) cannot hold exactly")
                .arg(name, arg.value.trimmed());
        return {};
    }
    return QStringLiteral("unknown variable '%1' (counts may use integer scalar arguments)")
        .arg(name);
}

/// Uniform draws of element `index` in [low, high), as uniformDraw() defines them.
struct UniformDraws {
    quint64 key;
    double low;
    double high;
    double at(quint64 draw) const {
        const double x = low + unitFromBits(randomBits(key, draw)) * (high - low);
        // Rounding can land on `high`; keep the interval half-open.
        return (x >= high && high > low) ? std::nextafter(high, low) : x;
    }
};

/// Runs fill(begin, end) over [0, count) on several threads once the buffer is large enough to
/// pay for them: each element depends on its index alone, so the split changes nothing.
template <class Fill> void forEachChunk(qint64 count, const Fill& fill) {
    constexpr qint64 kPerThread = qint64(1) << 20;
    const qint64 threads = std::min<qint64>(
        {qint64(std::max(1u, std::thread::hardware_concurrency())), 16, count / kPerThread});
    if (threads <= 1) {
        fill(qint64(0), count);
        return;
    }
    std::vector<std::thread> pool;
    const qint64 chunk = (count + threads - 1) / threads;
    for (qint64 t = 1; t < threads; ++t)
        pool.emplace_back(
            [&fill, t, chunk, count] { fill(t * chunk, std::min(count, (t + 1) * chunk)); });
    fill(qint64(0), std::min(count, chunk));
    for (std::thread& thread : pool)
        thread.join();
}

QString initKindName(InitSpec::Kind kind) {
    InitSpec spec;
    spec.kind = kind;
    return spec.toJson().value(QStringLiteral("kind")).toString();
}

/// Integer buffers take only exact values that fit, so "constant 2.5" on int32 is a message
/// rather than a silent 2.
bool checkIntegerValue(ScalarType type, double value, const QString& what, QString* error) {
    if (!detail::isIntegerType(type) || type == ScalarType::Bool)
        return true;
    double lowest = 0, highest = 0;
    detail::integerRange(type, &lowest, &highest);
    const QString typeName = QLatin1String(scalarTypeInfo(type).numpyName);
    if (value != std::floor(value))
        return fail(error, QStringLiteral("%1 %2 is not an integer, which %3 elements need")
                               .arg(what)
                               .arg(value)
                               .arg(typeName));
    if (value < lowest || value > highest)
        return fail(error, QStringLiteral("%1 %2 does not fit in %3 (%4 to %5)")
                               .arg(what)
                               .arg(value, 0, 'g', 17)
                               .arg(typeName)
                               .arg(lowest, 0, 'f', 0)
                               .arg(highest, 0, 'f', 0));
    return true;
}

/// A constant, an iota or uniform bounds that a low-precision type would saturate (fp8, fp4)
/// or turn into inf (bfloat16): refused, so that "constant 1000" on float8_e4m3 is a message
/// rather than a buffer of 448s. Normal draws are unbounded and are left to round.
QString lowPrecisionInitProblem(const InitSpec& init, ScalarType type, qint64 count) {
    const auto tooLarge = [type](const QString& what, double value) {
        if (!detail::lowPrecisionOverflows(type, value))
            return QString();
        char largest[2] = {};
        detail::storeScalar(type, std::numeric_limits<double>::max(), 0.0, largest);
        if (type == ScalarType::BFloat16) // inf there: one pattern below it is the largest
            largest[0] = char(0x7F);
        return QStringLiteral("%1 %2 does not fit in %3 (largest finite %4)")
            .arg(what)
            .arg(value)
            .arg(QLatin1String(scalarTypeInfo(type).numpyName))
            .arg(detail::loadScalar(type, largest));
    };
    // A packed float4_e2m1x2 element holds two values of the sequence.
    const qint64 values = type == ScalarType::Float4E2M1x2 ? 2 * count : count;
    QString error;
    switch (init.kind) {
    case InitSpec::Kind::Constant:
        error = tooLarge(QStringLiteral("constant"), init.value);
        break;
    case InitSpec::Kind::Iota:
        error = tooLarge(QStringLiteral("iota start"), init.value);
        if (error.isEmpty() && values > 0)
            error = tooLarge(QStringLiteral("iota's last element"),
                             init.value + init.step * double(values - 1));
        break;
    case InitSpec::Kind::Uniform:
    case InitSpec::Kind::Special:
        error = tooLarge(QStringLiteral("uniform low"), init.low);
        if (error.isEmpty())
            error = tooLarge(QStringLiteral("uniform high"), init.high);
        break;
    default:
        break;
    }
    return error;
}

bool fillScalar(const InitSpec& init, ScalarType type, qint64 count, char* out, QString* error) {
    if (const QString problem = initProblemForType(init, type, count); !problem.isEmpty())
        return fail(error, problem);
    const auto& info = scalarTypeInfo(type);
    const qint64 size = info.sizeBytes;
    const bool integer = detail::isIntegerType(type);
    // float4_e2m1x2: two values per element, each generated and rounded on its own.
    const bool packed = type == ScalarType::Float4E2M1x2;
    const bool twoDraws = info.isComplex || packed;
    switch (init.kind) {
    case InitSpec::Kind::Zeros:
        return true; // the array starts zeroed
    case InitSpec::Kind::Ones:
        for (qint64 i = 0; i < count; ++i)
            detail::storeScalar(type, 1.0, packed ? 1.0 : 0.0, out + i * size);
        return true;
    case InitSpec::Kind::Constant:
        for (qint64 i = 0; i < count; ++i)
            detail::storeScalar(type, init.value, packed ? init.value : 0.0, out + i * size);
        return true;
    case InitSpec::Kind::Iota: {
        // A packed element holds values 2i and 2i+1 of the sequence.
        for (qint64 i = 0; i < count; ++i) {
            const double first = double(packed ? 2 * i : i);
            detail::storeScalar(type, init.value + init.step * first,
                                packed ? init.value + init.step * (first + 1) : 0.0,
                                out + i * size);
        }
        return true;
    }
    case InitSpec::Kind::Uniform: {
        // Counter-based: element i's value depends on (seed, i) alone (uniformDraw()), so the
        // GPU can generate the same values and the host can split the work.
        const UniformDraws draws{randomKey(init.seed), init.low, init.high};
        const double lowestInteger = std::ceil(init.low);
        forEachChunk(count, [&](qint64 begin, qint64 end) {
            for (qint64 i = begin; i < end; ++i) {
                char* at = out + i * size;
                if (type == ScalarType::Bool) {
                    detail::storeScalar(type, double(randomBits(draws.key, quint64(i)) >> 63), 0.0,
                                        at);
                } else if (integer) {
                    // floor keeps integer draws inside [low, high): [0, 10) gives 0..9.
                    const double x = std::floor(draws.at(quint64(i)));
                    detail::storeScalar(type, std::max(x, lowestInteger), 0.0, at);
                } else if (twoDraws) {
                    detail::storeScalar(type, draws.at(2 * quint64(i)),
                                        draws.at(2 * quint64(i) + 1), at);
                } else {
                    detail::storeScalar(type, draws.at(quint64(i)), 0.0, at);
                }
            }
        });
        return true;
    }
    case InitSpec::Kind::Normal: {
        // Counter-based like uniform (normalFromBits()): the GPU makes the same values.
        const quint64 key = randomKey(init.seed);
        const auto draw = [&](quint64 index) {
            return init.mean + init.stddev * normalFromBits(randomBits(key, index));
        };
        forEachChunk(count, [&](qint64 begin, qint64 end) {
            for (qint64 i = begin; i < end; ++i) {
                // Integer elements get the rounded draw, saturated to the type's range.
                if (twoDraws)
                    detail::storeScalar(type, draw(2 * quint64(i)), draw(2 * quint64(i) + 1),
                                        out + i * size);
                else
                    detail::storeScalar(type, draw(quint64(i)), 0.0, out + i * size);
            }
        });
        return true;
    }
    case InitSpec::Kind::Special: {
        InitSpec uniform = init;
        uniform.kind = InitSpec::Kind::Uniform;
        if (!fillScalar(uniform, type, count, out, error))
            return false;
        replaceWithSpecials(init, type, count, out);
        return true;
    }
    case InitSpec::Kind::File:
        break; // handled by the caller
    }
    return true;
}

/// Struct elements: zeros, or every field element set to one (complex: 1 + 0i).
void fillStructOnes(const StructType& st, qint64 count, char* out) {
    const QVector<int> offsets = st.fieldOffsets();
    const qint64 size = st.sizeBytes();
    for (qint64 i = 0; i < count; ++i) {
        for (int f = 0; f < st.fields.size(); ++f) {
            const auto& field = st.fields.at(f);
            const int fieldSize = scalarTypeInfo(field.type).sizeBytes;
            for (int e = 0; e < field.count; ++e)
                detail::storeScalar(field.type, 1.0, 0.0,
                                    out + i * size + offsets.at(f) + e * fieldSize);
        }
    }
}

std::optional<QByteArray> contentsFromFile(const BufferSpec& spec, qint64 count,
                                           const QString& baseDir, QString* error) {
    const QString path = QDir(baseDir).filePath(spec.init.path);
    // Type and count are checked against the header, before the data is read: a 2 GiB file
    // for a 16-element buffer is refused without reading (or allocating) its 2 GiB.
    NpyExpectation expected;
    expected.elementCount = count;
    expected.type = spec.elementType;
    QString inner;
    std::optional<NpyArray> array = readNpy(path, expected, &inner);
    if (!array) {
        fail(error, QStringLiteral("init file: %1").arg(inner));
        return std::nullopt;
    }
    return std::move(array->data);
}

} // namespace

namespace {

// AS241's coefficients (Wichura 1988, as Python's statistics.NormalDist.inv_cdf prints them),
// written in hexadecimal so that no compiler's decimal conversion is involved; DeviceInit.cu
// holds the same table. Highest power first, for horner().
constexpr double kCentralNum[] = {
    0x1.39a296f7d925ep+11, 0x1.052d26b2e45e4p+15, 0x1.06c1c55b78f20p+16, 0x1.66c3e869b752ap+15,
    0x1.ad1d8cd4ee71dp+13, 0x1.ece5d2213c0ccp+10, 0x1.0a4888b1a436ep+7,  0x1.b18d91e9eef75p+1};
constexpr double kCentralDen[] = {
    0x1.46a7eca984b69p+12, 0x1.c0e457cb1ae76p+14, 0x1.3317caa64f4bep+15, 0x1.4b772d5d65266p+14,
    0x1.512322e75c89fp+12, 0x1.5797efdc8b3f7p+9,  0x1.5281b386e1ab5p+5,  1.0};
constexpr double kNearNum[] = {0x1.9615ac0b7ace9p-11, 0x1.744eb6c45ec67p-6, 0x1.ef2abb9b85c37p-3,
                               0x1.453cc085375b2p+0,  0x1.d2ecb1a3d02c4p+1, 0x1.713f71462256ap+2,
                               0x1.2857748cab19bp+2,  0x1.6c665fde9526ap+0};
constexpr double kNearDen[] = {
    0x1.20d3f686439e4p-30, 0x1.1f18cbfdf2728p-11, 0x1.f207a7eab17bfp-7, 0x1.2f5123394f040p-3,
    0x1.61292f23385c9p-1,  0x1.ad278e6526633p+0,  0x1.06cefbb46a449p+1, 1.0};
constexpr double kFarNum[] = {0x1.afb74d693bf93p-23, 0x1.c6ec6cc59e02ap-16, 0x1.45c1908425345p-10,
                              0x1.b2b41193b4ee7p-6,  0x1.2fad9315255cfp-2,  0x1.c8ea6461fa445p+0,
                              0x1.5daea6e875003p+2,  0x1.aa1b1c13ee526p+2};
constexpr double kFarDen[] = {
    0x1.269bff1f8c190p-49, 0x1.31446f740b9e0p-23, 0x1.35c2c496374bfp-16, 0x1.9c8bc979dc5d7p-11,
    0x1.e76f93215462ap-7,  0x1.186eb183443fbp-3,  0x1.331d34fc7d77fp-1,  1.0};
/// 1/21, 1/19, ..., 1/3, 1: atanh(s)/s = sum of s^2k/(2k+1); 11 terms reach 2^-53 for
/// |s| <= 3 - 2 sqrt(2), the largest s of a significand in [sqrt(1/2), sqrt(2)].
constexpr double kAtanhSeries[] = {0x1.8618618618618p-5,
                                   0x1.af286bca1af28p-5,
                                   0x1.e1e1e1e1e1e1ep-5,
                                   0x1.1111111111111p-4,
                                   0x1.3b13b13b13b14p-4,
                                   0x1.745d1745d1746p-4,
                                   0x1.c71c71c71c71cp-4,
                                   0x1.2492492492492p-3,
                                   0x1.999999999999ap-3,
                                   0x1.5555555555555p-2,
                                   1.0};
constexpr double kLn2 = 0x1.62e42fefa39efp-1;
constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;

/// c[0] x^(n-1) + ... + c[n-1], one multiplication and one addition (each rounded) per step.
template <size_t N> double horner(const double (&c)[N], double x) {
    double acc = c[0];
    for (size_t k = 1; k < N; ++k)
        acc = acc * x + c[k];
    return acc;
}

} // namespace

double portableLog(double x) {
    // x = m * 2^e with m in [1, 2), read from the bits (exact), then m in (sqrt(1/2), sqrt(2)].
    quint64 bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    int exponent = int((bits >> 52) & 0x7FF) - 1023;
    bits = (bits & 0x000FFFFFFFFFFFFFULL) | (quint64(1023) << 52);
    double m = 0;
    std::memcpy(&m, &bits, sizeof m);
    if (m > kSqrt2) {
        m = m * 0.5;
        ++exponent;
    }
    // log(m) = 2 atanh(s) with s = (m - 1) / (m + 1); m - 1 is exact.
    const double s = (m - 1.0) / (m + 1.0);
    const double series = horner(kAtanhSeries, s * s);
    const double twoS = 2.0 * s;
    return double(exponent) * kLn2 + twoS * series;
}

double normalFromBits(quint64 bits) {
    const double p = double(2 * (bits >> 12) + 1) * 0x1.0p-53;
    const double q = p - 0.5; // exact
    if (std::fabs(q) <= 0.425) {
        const double r = 0.180625 - q * q;
        return (horner(kCentralNum, r) * q) / horner(kCentralDen, r);
    }
    double r = std::sqrt(-portableLog(q < 0 ? p : 1.0 - p));
    double x = 0;
    if (r <= 5.0) {
        r = r - 1.6;
        x = horner(kNearNum, r) / horner(kNearDen, r);
    } else {
        r = r - 5.0;
        x = horner(kFarNum, r) / horner(kFarDen, r);
    }
    return q < 0 ? -x : x;
}

QString initProblemForType(const InitSpec& init, ScalarType type, qint64 count) {
    if (init.kind == InitSpec::Kind::Special && type == ScalarType::Bool)
        return QStringLiteral("special: bool has no special values (NaN, infinities, extremes); "
                              "use uniform");
    if (isLowPrecision(type))
        return lowPrecisionInitProblem(init, type, count);
    if (!detail::isIntegerType(type) || type == ScalarType::Bool)
        return {};
    QString error;
    switch (init.kind) {
    case InitSpec::Kind::Constant:
        checkIntegerValue(type, init.value, QStringLiteral("constant"), &error);
        break;
    case InitSpec::Kind::Iota:
        if (count > 0) {
            const double last = init.value + init.step * double(count - 1);
            if (checkIntegerValue(type, init.value, QStringLiteral("iota start"), &error) &&
                checkIntegerValue(type, init.step, QStringLiteral("iota step"), &error))
                checkIntegerValue(type, last, QStringLiteral("iota's last element"), &error);
        }
        break;
    case InitSpec::Kind::Uniform:
    case InitSpec::Kind::Special:
        if (!checkIntegerValue(type, std::ceil(init.low), QStringLiteral("uniform low"), &error) ||
            !checkIntegerValue(type, std::ceil(init.high) - 1, QStringLiteral("uniform high - 1"),
                               &error))
            break;
        if (init.low < init.high && std::ceil(init.low) >= init.high)
            error = QStringLiteral("uniform [%1, %2) holds no integer, which %3 elements need")
                        .arg(init.low)
                        .arg(init.high)
                        .arg(QLatin1String(scalarTypeInfo(type).numpyName));
        break;
    default:
        break;
    }
    return error;
}

std::optional<qint64> resolveCount(const QString& countText, const QVector<ArgumentSpec>& args,
                                   QString* error) {
    const QString text = countText.trimmed();
    const QString what = QStringLiteral("count '%1'").arg(text);
    if (text.isEmpty()) {
        fail(error, QStringLiteral("count is empty"));
        return std::nullopt;
    }
    // Integer literals are read exactly (muParser would round them to a double).
    bool overflow = false;
    if (const auto literal = detail::parseIntegerLiteral(text, &overflow)) {
        if (literal->negative && literal->magnitude != 0) {
            fail(error, QStringLiteral("%1 is negative").arg(what));
            return std::nullopt;
        }
        // Compared as integers: double(2^53 + 1) is 2^53, which would pass.
        if (literal->magnitude > quint64(kExactDoubleIntegerLimit)) {
            fail(error, QStringLiteral("%1 is more than 2^53").arg(what));
            return std::nullopt;
        }
        return qint64(literal->magnitude);
    }
    if (overflow) {
        fail(error, QStringLiteral("%1 is more than 2^53").arg(what));
        return std::nullopt;
    }

    double result = 0.0;
    try {
        Expression expression;
        // Every name is created, so each one can be checked against the arguments with a
        // precise message.
        expression.createUndefinedVariables();
        if (const QString why = expression.compile(text); !why.isEmpty()) {
            fail(error, QStringLiteral("%1: %2").arg(what, why));
            return std::nullopt;
        }
        for (const Expression::Variable& variable : expression.usedVariables()) {
            const QString why = variableValue(variable.name, args, variable.storage);
            if (!why.isEmpty()) {
                fail(error, QStringLiteral("%1: %2").arg(what, why));
                return std::nullopt;
            }
        }
        result = expression.evaluate();
    } catch (const ExpressionError& e) {
        fail(error, QStringLiteral("%1: %2").arg(what, QString::fromStdString(e.what())));
        return std::nullopt;
    } catch (const std::exception& e) {
        fail(error, QStringLiteral("%1: %2").arg(what, QString::fromLocal8Bit(e.what())));
        return std::nullopt;
    }
    if (!std::isfinite(result)) {
        fail(error, QStringLiteral("%1 is not a finite number (%2)").arg(what).arg(result));
        return std::nullopt;
    }
    if (result != std::floor(result)) {
        fail(error, QStringLiteral("%1 is %2, not an integer").arg(what).arg(result, 0, 'g', 17));
        return std::nullopt;
    }
    if (result < 0) {
        fail(error, QStringLiteral("%1 is %2, which is negative").arg(what).arg(result, 0, 'f', 0));
        return std::nullopt;
    }
    // A result of 2^53 may be 2^53 + 1 rounded, so only results below it are exact.
    if (!isExactDoubleInteger(result)) {
        fail(error, QStringLiteral("%1 is %2, more than 2^53 - 1 (expressions are computed in "
                                   "doubles, which are not exact beyond)")
                        .arg(what)
                        .arg(result, 0, 'g', 6));
        return std::nullopt;
    }
    return qint64(result);
}

std::optional<QByteArray> makeBufferContents(const BufferSpec& spec, qint64 count,
                                             const QString& baseDir, QString* error) {
    if (count < 0) {
        fail(error, QStringLiteral("negative element count %1").arg(count));
        return std::nullopt;
    }
    const qint64 elementBytes = spec.elementType.sizeBytes();
    if (count > kMaxBufferBytes / elementBytes) {
        fail(error, QStringLiteral("%1 elements of %2 (%3 bytes each) exceed KernelPad's buffer "
                                   "limit of %4 GiB")
                        .arg(count)
                        .arg(spec.elementType.displayName())
                        .arg(elementBytes)
                        .arg(kMaxBufferBytes >> 30));
        return std::nullopt;
    }
    const bool isStruct = spec.elementType.isStruct();
    if (isStruct && spec.init.kind != InitSpec::Kind::Zeros &&
        spec.init.kind != InitSpec::Kind::Ones) {
        fail(error, QStringLiteral("init '%1' needs scalar elements; a buffer of struct '%2' can "
                                   "only start as zeros or ones")
                        .arg(initKindName(spec.init.kind), spec.elementType.displayName()));
        return std::nullopt;
    }
    if (spec.init.kind == InitSpec::Kind::File)
        return contentsFromFile(spec, count, baseDir, error);

    try {
        QByteArray bytes(qsizetype(count * elementBytes), '\0');
        if (spec.init.kind == InitSpec::Kind::Ones && isStruct)
            fillStructOnes(spec.elementType.structType, count, bytes.data());
        else if (!isStruct &&
                 !fillScalar(spec.init, spec.elementType.scalar, count, bytes.data(), error))
            return std::nullopt;
        return bytes;
    } catch (const std::bad_alloc&) {
        fail(error, QStringLiteral("out of host memory for %1 bytes").arg(count * elementBytes));
        return std::nullopt;
    }
}

double elementAsDouble(const ValueType& type, const char* data, qint64 index) {
    const char* element = data + index * type.sizeBytes();
    if (!type.isStruct())
        return detail::loadScalar(type.scalar, element);
    const StructType& st = type.structType;
    if (st.fields.isEmpty())
        return 0.0;
    return detail::loadScalar(st.fields.front().type, element + st.fieldOffsets().front());
}

QString elementToString(const ValueType& type, const char* data, qint64 index) {
    const char* element = data + index * type.sizeBytes();
    if (!type.isStruct())
        return detail::formatScalar(type.scalar, element);
    const StructType& st = type.structType;
    const QVector<int> offsets = st.fieldOffsets();
    QStringList fields;
    for (int f = 0; f < st.fields.size(); ++f) {
        const auto& field = st.fields.at(f);
        const int size = scalarTypeInfo(field.type).sizeBytes;
        QStringList elements;
        for (int e = 0; e < field.count; ++e)
            elements.append(detail::formatScalar(field.type, element + offsets.at(f) + e * size));
        fields.append(field.count > 1
                          ? QStringLiteral("[%1]").arg(elements.join(QStringLiteral(", ")))
                          : elements.join(QString()));
    }
    return QStringLiteral("{%1}").arg(fields.join(QStringLiteral(", ")));
}

qint64 elementsToCover(const QVector<ArgumentSpec>& args) {
    qint64 largest = 0;
    bool anyBuffer = false;
    for (const ArgumentSpec& a : args) {
        if (!a.isBuffer())
            continue;
        anyBuffer = true;
        QString ignored; // a count that does not resolve yet is shown red in the table
        if (const std::optional<qint64> count = resolveCount(a.buffer.count, args, &ignored))
            largest = std::max(largest, *count);
    }
    if (anyBuffer)
        return largest;
    for (const ArgumentSpec& a : args) {
        if (!a.isScalar() || a.type.isStruct())
            continue;
        const ScalarTypeInfo& info = scalarTypeInfo(a.type.scalar);
        if (!info.isFloat && a.type.scalar != ScalarType::Bool)
            return std::max<qint64>(0, a.value.trimmed().toLongLong());
    }
    return 0;
}

} // namespace kernelpad
