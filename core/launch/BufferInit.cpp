#include "core/launch/BufferInit.h"

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
#include <random>
#include <thread>
#include <vector>

namespace kernelpad {

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;

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

/// Deterministic random numbers from a seed. The transforms are written here, not taken from
/// <random>'s distributions, whose output differs between standard libraries.
class Random {
public:
    explicit Random(quint64 seed)
        : m_engine(seed) {}
    /// Uniform in [0, 1) with 53 random bits.
    double unit() { return double(m_engine() >> 11) * 0x1.0p-53; }
    double uniform(double low, double high) {
        const double x = low + unit() * (high - low);
        // Rounding can land on `high`; keep the interval half-open.
        return (x >= high && high > low) ? std::nextafter(high, low) : x;
    }
    /// Box-Muller; both values of each pair are used.
    double normal(double mean, double stddev) {
        if (m_hasSpare) {
            m_hasSpare = false;
            return mean + stddev * m_spare;
        }
        const double u1 = 1.0 - unit(); // (0, 1]: log stays finite
        const double u2 = unit();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double angle = 2.0 * kPi * u2;
        m_spare = r * std::sin(angle);
        m_hasSpare = true;
        return mean + stddev * r * std::cos(angle);
    }

private:
    std::mt19937_64 m_engine;
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

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

bool fillScalar(const InitSpec& init, ScalarType type, qint64 count, char* out, QString* error) {
    const auto& info = scalarTypeInfo(type);
    const qint64 size = info.sizeBytes;
    const bool integer = detail::isIntegerType(type);
    switch (init.kind) {
    case InitSpec::Kind::Zeros:
        return true; // the array starts zeroed
    case InitSpec::Kind::Ones:
        for (qint64 i = 0; i < count; ++i)
            detail::storeScalar(type, 1.0, 0.0, out + i * size);
        return true;
    case InitSpec::Kind::Constant:
        if (!checkIntegerValue(type, init.value, QStringLiteral("constant"), error))
            return false;
        for (qint64 i = 0; i < count; ++i)
            detail::storeScalar(type, init.value, 0.0, out + i * size);
        return true;
    case InitSpec::Kind::Iota: {
        if (count > 0) {
            const double last = init.value + init.step * double(count - 1);
            if (!checkIntegerValue(type, init.value, QStringLiteral("iota start"), error) ||
                !checkIntegerValue(type, init.step, QStringLiteral("iota step"), error) ||
                !checkIntegerValue(type, last, QStringLiteral("iota's last element"), error))
                return false;
        }
        for (qint64 i = 0; i < count; ++i)
            detail::storeScalar(type, init.value + init.step * double(i), 0.0, out + i * size);
        return true;
    }
    case InitSpec::Kind::Uniform: {
        if (integer && type != ScalarType::Bool &&
            (!checkIntegerValue(type, std::ceil(init.low), QStringLiteral("uniform low"), error) ||
             !checkIntegerValue(type, std::ceil(init.high) - 1, QStringLiteral("uniform high - 1"),
                                error)))
            return false;
        if (integer && type != ScalarType::Bool && init.low < init.high &&
            std::ceil(init.low) >= init.high)
            return fail(error, QStringLiteral("uniform [%1, %2) holds no integer, which %3 "
                                              "elements need")
                                   .arg(init.low)
                                   .arg(init.high)
                                   .arg(QLatin1String(info.numpyName)));
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
                } else if (info.isComplex) {
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
        Random random(init.seed);
        for (qint64 i = 0; i < count; ++i) {
            const double re = random.normal(init.mean, init.stddev);
            const double im = info.isComplex ? random.normal(init.mean, init.stddev) : 0.0;
            // Integer elements get the rounded draw, saturated to the type's range.
            detail::storeScalar(type, re, im, out + i * size);
        }
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
