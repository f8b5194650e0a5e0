#include "core/launch/Packing.h"

#include "core/io/ErrorOut.h"
#include "core/launch/ScalarCodec.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kernelpad {

namespace {

QString typeName(ScalarType type) {
    return QLatin1String(scalarTypeInfo(type).numpyName);
}

QString rangeText(ScalarType type) {
    const auto& info = scalarTypeInfo(type);
    const int bits = info.sizeBytes * 8;
    if (info.isSigned) {
        const qint64 high =
            bits == 64 ? std::numeric_limits<qint64>::max() : (qint64(1) << (bits - 1)) - 1;
        return QStringLiteral("%1 to %2").arg(-high - 1).arg(high);
    }
    const quint64 high =
        bits == 64 ? std::numeric_limits<quint64>::max() : (quint64(1) << bits) - 1;
    return QStringLiteral("0 to %1").arg(high);
}

bool packInteger(ScalarType type, const QString& text, char* dst, QString* error) {
    const QString trimmed = text.trimmed();
    const QString outOfRange = QStringLiteral("value %1 does not fit in %2 (%3)")
                                   .arg(trimmed, typeName(type), rangeText(type));
    bool overflow = false;
    const auto parsed = detail::parseIntegerLiteral(trimmed, &overflow);
    if (!parsed) {
        if (overflow)
            return fail(error, outOfRange);
        if (detail::parseDouble(trimmed))
            return fail(error, QStringLiteral("'%1' is not an integer, which %2 needs")
                                   .arg(trimmed, typeName(type)));
        return fail(error,
                    QStringLiteral("'%1' is not a number (%2)").arg(trimmed, typeName(type)));
    }
    const auto& info = scalarTypeInfo(type);
    const int bits = info.sizeBytes * 8;
    // Two's complement bits of the value; only the low `bits` are written (little-endian).
    quint64 raw = 0;
    if (info.isSigned) {
        const quint64 limitPositive = (quint64(1) << (bits - 1)) - 1;
        const quint64 limitNegative = quint64(1) << (bits - 1);
        if (parsed->magnitude > (parsed->negative ? limitNegative : limitPositive))
            return fail(error, outOfRange);
        raw = parsed->negative ? ~parsed->magnitude + 1 : parsed->magnitude;
    } else {
        const quint64 limit =
            bits == 64 ? std::numeric_limits<quint64>::max() : (quint64(1) << bits) - 1;
        if ((parsed->negative && parsed->magnitude != 0) || parsed->magnitude > limit)
            return fail(error, outOfRange);
        raw = parsed->magnitude;
    }
    static_assert(Q_BYTE_ORDER == Q_LITTLE_ENDIAN, "kernel arguments are little-endian");
    std::memcpy(dst, &raw, size_t(info.sizeBytes));
    return true;
}

bool packBool(const QString& text, char* dst, QString* error) {
    const QString t = text.trimmed().toLower();
    if (t == QLatin1String("true") || t == QLatin1String("1"))
        *dst = 1;
    else if (t == QLatin1String("false") || t == QLatin1String("0"))
        *dst = 0;
    else
        return fail(error,
                    QStringLiteral("'%1' is not a bool (true, false, 1 or 0)").arg(text.trimmed()));
    return true;
}

/// Parses one real number for a float type and checks that it does not overflow to inf.
bool parseReal(ScalarType type, const QString& text, double* out, QString* error) {
    const auto value = detail::parseDouble(text);
    if (!value) {
        return fail(
            error, QStringLiteral("'%1' is not a number (%2)").arg(text.trimmed(), typeName(type)));
    }
    const bool overflows =
        std::isfinite(*value) &&
        ((type == ScalarType::Float16 &&
          std::isinf(detail::halfBitsToDouble(detail::doubleToHalfBits(*value)))) ||
         ((type == ScalarType::Float32 || type == ScalarType::Complex64) &&
          std::isinf(float(*value))) ||
         detail::lowPrecisionOverflows(type, *value));
    if (overflows) {
        return fail(
            error,
            QStringLiteral("value %1 does not fit in %2").arg(text.trimmed(), typeName(type)));
    }
    *out = *value;
    return true;
}

bool packComplex(ScalarType type, const QString& text, char* dst, QString* error) {
    QString t = text.trimmed();
    if (t.startsWith(QLatin1Char('(')) && t.endsWith(QLatin1Char(')')))
        t = t.mid(1, t.size() - 2);
    const QStringList parts = t.split(QLatin1Char(','));
    if (parts.size() > 2) {
        if (type == ScalarType::Float4E2M1x2)
            return fail(error, QStringLiteral("'%1' is not a pair: give \"low, high\" (the low "
                                              "and high nibble's values) or one value (%2)")
                                   .arg(text.trimmed(), typeName(type)));
        return fail(error, QStringLiteral("'%1' is not a complex number: give \"re, im\" or one "
                                          "real value (%2)")
                               .arg(text.trimmed(), typeName(type)));
    }
    double re = 0.0, im = 0.0;
    if (!parseReal(type, parts.at(0), &re, error))
        return false;
    if (parts.size() == 2 && !parseReal(type, parts.at(1), &im, error))
        return false;
    detail::storeScalar(type, re, im, dst);
    return true;
}

/// Packs one scalar value typed as text into `dst` (which has room for the type's size).
bool packScalar(ScalarType type, const QString& text, char* dst, QString* error) {
    if (text.trimmed().isEmpty())
        return fail(error, QStringLiteral("no value given for %1").arg(typeName(type)));
    const auto& info = scalarTypeInfo(type);
    if (type == ScalarType::Bool)
        return packBool(text, dst, error);
    if (!info.isFloat)
        return packInteger(type, text, dst, error);
    if (info.isComplex || type == ScalarType::Float4E2M1x2)
        return packComplex(type, text, dst, error);
    double value = 0.0;
    if (!parseReal(type, text, &value, error))
        return false;
    detail::storeScalar(type, value, 0.0, dst);
    return true;
}

QString fieldList(const StructType& st) {
    QStringList names;
    for (const auto& f : st.fields) {
        QString name = f.count > 1 ? QStringLiteral("%1[%2]").arg(f.name).arg(f.count) : f.name;
        if (scalarTypeInfo(f.type).isComplex)
            name += QStringLiteral(" as re, im");
        else if (f.type == ScalarType::Float4E2M1x2)
            name += QStringLiteral(" as low, high");
        names.append(name);
    }
    return names.join(QStringLiteral(", "));
}

bool packStruct(const StructType& st, const QString& text, char* dst, QString* error) {
    // Braces, brackets and parentheses only group values for the reader ("{[1, 2], (3, 4)}",
    // the form elementToString writes); the values themselves are read in field order.
    QString flat = text;
    for (const QChar c : {u'{', u'}', u'[', u']', u'(', u')'})
        flat.replace(c, QLatin1Char(' '));
    QStringList values = flat.split(QLatin1Char(','));
    if (values.size() == 1 && values.front().trimmed().isEmpty())
        values.clear();
    int needed = 0;
    for (const auto& f : st.fields)
        needed += f.count * componentCount(f.type);
    const QString name = st.name.isEmpty() ? QStringLiteral("struct") : st.name;
    if (values.size() != needed) {
        return fail(error, QStringLiteral("struct '%1' takes %2 value(s) in field order (%3) but "
                                          "%4 were given")
                               .arg(name)
                               .arg(needed)
                               .arg(fieldList(st))
                               .arg(values.size()));
    }
    const QVector<int> offsets = st.fieldOffsets();
    int next = 0;
    for (int i = 0; i < st.fields.size(); ++i) {
        const StructField& f = st.fields.at(i);
        const auto& info = scalarTypeInfo(f.type);
        for (int e = 0; e < f.count; ++e) {
            QString elementText = values.at(next++);
            if (componentCount(f.type) == 2)
                elementText += QLatin1Char(',') + values.at(next++);
            QString elementError;
            char* at = dst + offsets.at(i) + qint64(e) * info.sizeBytes;
            if (!packScalar(f.type, elementText, at, &elementError)) {
                const QString where =
                    f.count > 1 ? QStringLiteral("%1[%2]").arg(f.name).arg(e) : f.name;
                return fail(
                    error,
                    QStringLiteral("field '%1' of struct '%2': %3").arg(where, name, elementError));
            }
        }
    }
    return true;
}

QString pluralOf(qint64 n, const char* word) {
    return QStringLiteral("%1 %2%3").arg(n).arg(QLatin1String(word)).arg(n == 1 ? "" : "s");
}

} // namespace

std::optional<QByteArray> packValue(const ValueType& type, const QString& text, QString* error) {
    // Zero-filled so that struct padding is deterministic (the bytes are compared and hashed).
    QByteArray bytes(type.sizeBytes(), '\0');
    const bool ok = type.isStruct() ? packStruct(type.structType, text, bytes.data(), error)
                                    : packScalar(type.scalar, text, bytes.data(), error);
    if (!ok)
        return std::nullopt;
    return bytes;
}

std::optional<PackedArgs> PackedArgs::pack(const QVector<ArgumentSpec>& args,
                                           const QVector<quint64>& bufferAddresses, QString* error,
                                           const QVector<QByteArray>& tensorMaps) {
    PackedArgs packed;
    packed.m_storage.reserve(size_t(args.size()));
    for (int i = 0; i < args.size(); ++i) {
        const ArgumentSpec& arg = args.at(i);
        std::vector<unsigned char> block;
        if (arg.isTensorMap()) {
            const QByteArray map = tensorMaps.value(i);
            if (map.size() != kTensorMapBytes) {
                fail(error,
                     QStringLiteral("argument '%1': the tensor map was not encoded").arg(arg.name));
                return std::nullopt;
            }
            block.assign(map.cbegin(), map.cend());
        } else if (arg.isBuffer() || arg.isImage()) {
            if (i >= bufferAddresses.size()) {
                fail(error, QStringLiteral("argument '%1': no device address for the buffer")
                                .arg(arg.name));
                return std::nullopt;
            }
            // A buffer argument is the device pointer itself (CUdeviceptr, 8 bytes); a texture
            // or surface its object handle (CUtexObject/CUsurfObject, 8 bytes), at the same place.
            const quint64 address = bufferAddresses.at(i);
            block.resize(sizeof(address));
            std::memcpy(block.data(), &address, sizeof(address));
        } else {
            QString valueError;
            const auto bytes = packValue(arg.type, arg.value, &valueError);
            if (!bytes) {
                fail(error, QStringLiteral("argument '%1': %2").arg(arg.name, valueError));
                return std::nullopt;
            }
            block.assign(bytes->cbegin(), bytes->cend());
        }
        packed.m_sizes.push_back(qint64(block.size()));
        packed.m_storage.push_back(std::move(block));
    }
    // Pointers are taken only after all blocks exist: each block's heap storage stays put
    // when the outer vector (or the PackedArgs) moves.
    for (auto& block : packed.m_storage)
        packed.m_pointers.push_back(block.data());
    return packed;
}

QString checkAgainstParams(const QVector<ArgumentSpec>& args, const QVector<ParamLayout>& params,
                           const QString& kernelName) {
    if (args.size() != params.size()) {
        return QStringLiteral("kernel '%1' takes %2 but the argument table has %3")
            .arg(kernelName, pluralOf(params.size(), "parameter"))
            .arg(args.size());
    }
    for (int i = 0; i < args.size(); ++i) {
        const ArgumentSpec& arg = args.at(i);
        const qint64 argBytes = arg.isTensorMap()                 ? qint64(kTensorMapBytes)
                                : arg.isBuffer() || arg.isImage() ? qint64(sizeof(quint64))
                                                                  : arg.type.sizeBytes();
        if (argBytes == params.at(i).sizeBytes)
            continue;
        const QString what =
            arg.isBuffer() ? QStringLiteral("a buffer, passed as an 8-byte pointer")
            : arg.isTensorMap()
                ? QStringLiteral("a tensor map, passed as a 128-byte `const __grid_constant__ "
                                 "CUtensorMap`")
            : arg.isImage()
                ? QStringLiteral("a %1 object, passed as an 8-byte handle")
                      .arg(arg.kind == ArgumentSpec::Kind::Surface ? QStringLiteral("surface")
                                                                   : QStringLiteral("texture"))
                : QStringLiteral("%1, %2").arg(arg.type.displayName(), pluralOf(argBytes, "byte"));
        return QStringLiteral("argument '%1' (%2) does not match parameter %3 of kernel '%4', "
                              "which takes %5")
            .arg(arg.name, what)
            .arg(i + 1)
            .arg(kernelName, pluralOf(params.at(i).sizeBytes, "byte"));
    }
    return {};
}

} // namespace kernelpad
