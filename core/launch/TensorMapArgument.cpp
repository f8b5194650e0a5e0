// Tensor map arguments: the rules that need the project's other arguments (the buffer, the
// scalars of the dims and strides) and the argument's JSON. Declared in TensorMapSpec.h.

#include "core/io/JsonFields.h"
#include "core/launch/ArgumentSpec.h"
#include "core/launch/BufferInit.h"
#include "core/launch/TensorMapSpec.h"

#include <limits>

namespace kernelpad {
namespace {

const QString kTensorMapKey = QStringLiteral("tensorMap");

/// The driver's bounds on a global extent (elements) and a stride (bytes), cuda.h.
constexpr quint64 kMaxGlobalDim = quint64(1) << 32;
constexpr quint64 kMaxGlobalStride = quint64(1) << 40;

/// Why the map's buffer cannot be used, or empty; sets `index`.
QString findMapBuffer(const TensorMapSpec& spec, const QVector<ArgumentSpec>& args, int* index) {
    for (int i = 0; i < args.size(); ++i) {
        if (args[i].name != spec.buffer)
            continue;
        if (!args[i].isBuffer())
            return QStringLiteral("buffer: '%1' is not a buffer argument; a tensor map describes "
                                  "one of the project's buffers")
                .arg(spec.buffer);
        if (args[i].buffer.elementType.isStruct())
            return QStringLiteral("buffer: '%1' holds structs; a tensor map needs one of %2")
                .arg(spec.buffer, tensorMapElementTypeNames());
        *index = i;
        return {};
    }
    return QStringLiteral("buffer: no argument named '%1'").arg(spec.buffer);
}

/// The value of expression `text` of field `path`, or the problem.
std::optional<qint64> resolveField(const QString& path, const QString& text,
                                   const QVector<ArgumentSpec>& args, QString* why) {
    QString inner;
    const std::optional<qint64> value = resolveCount(text, args, &inner);
    if (!value)
        *why = QStringLiteral("%1: %2").arg(path, inner);
    return value;
}

/// The rules on the evaluated dims and strides, and the mapped extent inside the buffer.
QString resolvedProblem(const TensorMapSpec& spec, const ResolvedTensorMap& map,
                        qint64 bufferBytes) {
    const int elementBytes = scalarTypeInfo(map.element).sizeBytes;
    for (int i = 0; i < map.rank; ++i)
        if (map.globalDims[size_t(i)] < 1 || map.globalDims[size_t(i)] > kMaxGlobalDim)
            return QStringLiteral("globalDims[%1]: %2 is outside 1 to 2^32 (the driver's rule)")
                .arg(i)
                .arg(map.globalDims[size_t(i)]);
    const quint64 multiple = spec.interleave == TensorMapInterleave::B32 ? 32 : 16;
    // Where the last element of the map ends, in bytes from the buffer's start.
    quint64 endBytes = quint64(elementBytes) * map.globalDims[0];
    for (int i = 0; i + 1 < map.rank; ++i) {
        const quint64 stride = map.globalStrides[size_t(i)];
        if (stride % multiple != 0)
            return QStringLiteral("globalStrides[%1]: %2 bytes is not a multiple of %3 (the "
                                  "driver's rule%4)")
                .arg(i)
                .arg(stride)
                .arg(multiple)
                .arg(multiple == 32 ? QStringLiteral(" with interleave 32B") : QString());
        if (stride >= kMaxGlobalStride)
            return QStringLiteral("globalStrides[%1]: %2 bytes is not below 2^40 (the driver's "
                                  "rule)")
                .arg(i)
                .arg(stride);
        // Strides below 2^40 times extents up to 2^32 can pass 2^64: an overflow is past
        // any buffer.
        quint64 span = 0;
        if (__builtin_mul_overflow(stride, map.globalDims[size_t(i) + 1] - 1, &span) ||
            __builtin_add_overflow(endBytes, span, &endBytes))
            endBytes = std::numeric_limits<quint64>::max();
    }
    if (endBytes > quint64(bufferBytes))
        return QStringLiteral("globalDims: the map reaches byte %1 but buffer '%2' holds %3 bytes; "
                              "shrink the dims or strides, or grow the buffer")
            .arg(endBytes == std::numeric_limits<quint64>::max() ? QStringLiteral("2^64")
                                                                 : QString::number(endBytes),
                 spec.buffer)
            .arg(bufferBytes);
    if (spec.mode == TensorMapMode::Im2col)
        for (int d = 0; d + 2 < map.rank; ++d) {
            // Corner d offsets spatial dimension d + 1: the driver's arrays run innermost
            // first (dimension 0 is the channels).
            const qint64 extent = qint64(map.globalDims[size_t(d) + 1]);
            if (extent + spec.upperCorner.at(d) - spec.lowerCorner.at(d) <= 0)
                return QStringLiteral("upperCorner[%1]: the pixel box has no area (the driver's "
                                      "rule): extent %2, corners %3 and %4")
                    .arg(d)
                    .arg(extent)
                    .arg(spec.lowerCorner.at(d))
                    .arg(spec.upperCorner.at(d));
        }
    return {};
}

} // namespace

QString tensorMapLabel(const ArgumentSpec& arg) {
    return QStringLiteral("tensor map '%1'").arg(arg.name);
}

std::optional<ResolvedTensorMap>
resolveTensorMap(const ArgumentSpec& arg, const QVector<ArgumentSpec>& args, QString* error) {
    const TensorMapSpec& spec = arg.tensorMap;
    const auto refuse = [&](const QString& why) -> std::optional<ResolvedTensorMap> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(tensorMapLabel(arg), why);
        return std::nullopt;
    };
    if (const QString p = spec.problem(); !p.isEmpty())
        return refuse(p);
    ResolvedTensorMap map;
    if (const QString p = findMapBuffer(spec, args, &map.bufferIndex); !p.isEmpty())
        return refuse(p);
    const BufferSpec& buffer = args[map.bufferIndex].buffer;
    map.element = buffer.elementType.scalar;
    if (const QString p = spec.problemWithElement(map.element); !p.isEmpty())
        return refuse(p);
    map.dataType = *tensorMapDataType(map.element);
    map.rank = spec.rank();
    QString why;
    for (int i = 0; i < map.rank; ++i) {
        const auto dim = resolveField(QStringLiteral("globalDims[%1]").arg(i),
                                      spec.globalDims.at(i), args, &why);
        if (!dim)
            return refuse(why);
        map.globalDims[size_t(i)] = quint64(*dim);
    }
    for (int i = 0; i + 1 < map.rank; ++i) {
        const auto stride = resolveField(QStringLiteral("globalStrides[%1]").arg(i),
                                         spec.globalStrides.at(i), args, &why);
        if (!stride)
            return refuse(why);
        map.globalStrides[size_t(i)] = quint64(*stride);
    }
    const auto count = resolveCount(buffer.count, args, &why);
    if (!count)
        return refuse(QStringLiteral("buffer '%1': %2").arg(spec.buffer, why));
    const qint64 bufferBytes = *count * scalarTypeInfo(map.element).sizeBytes;
    if (const QString p = resolvedProblem(spec, map, bufferBytes); !p.isEmpty())
        return refuse(p);
    return map;
}

QString tensorMapAddressProblem(const TensorMapSpec& spec, quint64 address) {
    const quint64 alignment = spec.interleave == TensorMapInterleave::B32 ? 32 : 16;
    if (address % alignment == 0)
        return {};
    return QStringLiteral("buffer: the address of '%1' (0x%2) is not %3-byte aligned (the "
                          "driver's rule%4)")
        .arg(spec.buffer)
        .arg(address, 0, 16)
        .arg(alignment)
        .arg(alignment == 32 ? QStringLiteral(" with interleave 32B") : QString());
}

ArgumentSpec makeTensorMapArgument(const QString& name, const QString& buffer) {
    ArgumentSpec arg;
    arg.name = name;
    arg.kind = ArgumentSpec::Kind::TensorMap;
    arg.tensorMap.buffer = buffer;
    return arg;
}

QJsonObject tensorMapArgumentToJson(const ArgumentSpec& arg) {
    return {{QStringLiteral("name"), arg.name},
            {QStringLiteral("kind"), kTensorMapKey},
            {kTensorMapKey, arg.tensorMap.toJson()}};
}

std::optional<ArgumentSpec> tensorMapArgumentFromJson(const QString& name, const QJsonObject& json,
                                                      QString* error) {
    QJsonObject object;
    if (!json::FieldReader(json, error)
             .readObject(kTensorMapKey, &object, json::Presence::Required))
        return std::nullopt;
    QString inner;
    const std::optional<TensorMapSpec> spec = TensorMapSpec::fromJson(object, &inner);
    if (!spec) {
        if (error)
            *error = kTensorMapKey + QLatin1Char('.') + inner;
        return std::nullopt;
    }
    ArgumentSpec arg = makeTensorMapArgument(name, spec->buffer);
    arg.tensorMap = *spec;
    return arg;
}

} // namespace kernelpad
