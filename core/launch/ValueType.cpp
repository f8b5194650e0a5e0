#include "core/launch/ValueType.h"

#include "core/io/ControlChars.h"
#include "core/io/ErrorOut.h"
#include "core/io/JsonFields.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace kernelpad {

namespace {

// Sizes and alignments are those of the CUDA kernel types; float2 is declared
// __align__(8) and double2 __align__(16) in vector_types.h, so the complex types are aligned
// to their full size (unlike std::complex on the host).
QVector<ScalarTypeInfo> seedRows() {
    return {
        {ScalarType::Bool, "bool", "bool", {"bool"}, 1, 1, false, false, false},
        {ScalarType::Int8,
         "int8",
         "signed char",
         {"char", "signed char", "int8_t"},
         1,
         1,
         false,
         false,
         true},
        {ScalarType::Int16,
         "int16",
         "short",
         {"short", "signed short", "int16_t", "short int", "signed short int"},
         2,
         2,
         false,
         false,
         true},
        {ScalarType::Int32,
         "int32",
         "int",
         {"int", "signed int", "int32_t", "signed"},
         4,
         4,
         false,
         false,
         true},
        // "long" is 64-bit on Linux (LP64), the only host NVRTC-compiled code shares here.
        {ScalarType::Int64,
         "int64",
         "long long",
         {"long long", "signed long long", "int64_t", "long long int", "signed long long int",
          "long", "signed long", "long int", "signed long int", "ptrdiff_t", "intptr_t"},
         8,
         8,
         false,
         false,
         true},
        {ScalarType::UInt8,
         "uint8",
         "unsigned char",
         {"unsigned char", "uint8_t"},
         1,
         1,
         false,
         false,
         false},
        {ScalarType::UInt16,
         "uint16",
         "unsigned short",
         {"unsigned short", "uint16_t", "unsigned short int"},
         2,
         2,
         false,
         false,
         false},
        {ScalarType::UInt32,
         "uint32",
         "unsigned int",
         {"unsigned int", "uint32_t", "unsigned"},
         4,
         4,
         false,
         false,
         false},
        {ScalarType::UInt64,
         "uint64",
         "unsigned long long",
         {"unsigned long long", "uint64_t", "unsigned long long int", "unsigned long",
          "unsigned long int", "size_t", "uintptr_t"},
         8,
         8,
         false,
         false,
         false},
        {ScalarType::Float16, "float16", "half", {"half", "__half"}, 2, 2, true, false, true},
        {ScalarType::Float32, "float32", "float", {"float"}, 4, 4, true, false, true},
        {ScalarType::Float64, "float64", "double", {"double"}, 8, 8, true, false, true},
        {ScalarType::Complex64,
         "complex64",
         "float2",
         {"float2", "cuFloatComplex", "complex<float>", "std::complex<float>",
          "cuda::std::complex<float>"},
         8,
         8,
         true,
         true,
         true},
        {ScalarType::Complex128,
         "complex128",
         "double2",
         {"double2", "cuDoubleComplex", "complex<double>", "std::complex<double>",
          "cuda::std::complex<double>"},
         16,
         16,
         true,
         true,
         true},
    };
}

QVector<ScalarTypeInfo> lowPrecisionRows() {
    return {
        // cuda_bf16.h, cuda_fp8.h and cuda_fp4.h declare these as structs of one 16-bit or
        // 8-bit storage member (bf16 __align__(2), the fp8/fp4 types alignment 1).
        // "float8_e4m3fn" is the NumPy/ml_dtypes name of the same e4m3 encoding.
        {ScalarType::BFloat16,
         "bfloat16",
         "__nv_bfloat16",
         {"__nv_bfloat16", "nv_bfloat16"},
         2,
         2,
         true,
         false,
         true},
        {ScalarType::Float8E4M3,
         "float8_e4m3",
         "__nv_fp8_e4m3",
         {"__nv_fp8_e4m3", "float8_e4m3fn"},
         1,
         1,
         true,
         false,
         true},
        {ScalarType::Float8E5M2,
         "float8_e5m2",
         "__nv_fp8_e5m2",
         {"__nv_fp8_e5m2"},
         1,
         1,
         true,
         false,
         true},
        {ScalarType::Float4E2M1x2,
         "float4_e2m1x2",
         "__nv_fp4x2_e2m1",
         {"__nv_fp4x2_e2m1"},
         1,
         1,
         true,
         false,
         true},
    };
}

/// The whole table in enum order.
const QVector<ScalarTypeInfo>& table() {
    static const QVector<ScalarTypeInfo> rows = seedRows() + lowPrecisionRows();
    return rows;
}

/// "unsigned   int" -> "unsigned int", "complex< float >" -> "complex<float>".
QString normalizedSpelling(const QString& name) {
    QString s = name.simplified();
    static const QRegularExpression spaceAroundAngle(QStringLiteral("\\s*([<>])\\s*"));
    s.replace(spaceAroundAngle, QStringLiteral("\\1"));
    return s;
}

// Bounds that keep every struct size well inside int (sizes are ints in the header).
constexpr int kMaxArrayCount = 1 << 20;
constexpr int kMaxFields = 4096;

/// A one-line, non-empty name: field names reach generated code and messages, type names are
/// echoed in messages.
bool readName(const json::FieldReader& fields, const QString& key, QString* out) {
    QString text;
    if (!fields.readString(key, &text, json::Presence::Required))
        return false;
    if (text.trimmed().isEmpty())
        return fields.fail(QStringLiteral("%1: empty").arg(fields.path(key)));
    if (const QString bad = controlCharacterError(fields.path(key), text); !bad.isEmpty())
        return fields.fail(bad);
    *out = text.trimmed();
    return true;
}

std::optional<StructField> fieldFromJson(const QJsonValue& value, const QString& where,
                                         QString* error) {
    if (!value.isObject()) {
        fail(error, json::typeError(where, QStringLiteral("an object"), value));
        return std::nullopt;
    }
    const json::FieldReader fields(value.toObject(), error, where);
    StructField field;
    QString type;
    if (!readName(fields, QStringLiteral("name"), &field.name) ||
        !readName(fields, QStringLiteral("type"), &type) ||
        !fields.readInt(QStringLiteral("count"), &field.count, json::Presence::Optional,
                        {1, kMaxArrayCount}))
        return std::nullopt;
    const auto scalar = scalarTypeFromName(type);
    if (!scalar) {
        fail(error, QStringLiteral("%1.type: unknown type '%2'").arg(where, type));
        return std::nullopt;
    }
    field.type = *scalar;
    return field;
}

} // namespace

const ScalarTypeInfo& scalarTypeInfo(ScalarType type) {
    const auto& rows = table();
    const int index = int(type);
    // The table is in enum order; an out-of-range enum value (from a bad cast) gets float32
    // rather than undefined behaviour.
    if (index < 0 || index >= rows.size())
        return rows.at(int(ScalarType::Float32));
    return rows.at(index);
}

int componentCount(ScalarType type) {
    return scalarTypeInfo(type).isComplex || type == ScalarType::Float4E2M1x2 ? 2 : 1;
}

bool isLowPrecision(ScalarType type) {
    return type == ScalarType::BFloat16 || type == ScalarType::Float8E4M3 ||
           type == ScalarType::Float8E5M2 || type == ScalarType::Float4E2M1x2;
}

const QVector<ScalarType>& allScalarTypes() {
    static const QVector<ScalarType> types = [] {
        QVector<ScalarType> out;
        for (const auto& row : table())
            out.append(row.type);
        return out;
    }();
    return types;
}

std::optional<ScalarType> scalarTypeFromName(const QString& name) {
    QString spelling = normalizedSpelling(name);
    if (spelling.isEmpty())
        return std::nullopt;
    // <cstdint>'s and <cstddef>'s names as a kernel file spells them (std::uint32_t,
    // ::size_t, cuda::std::int64_t): the table holds them unqualified.
    for (const char* prefix : {"cuda::std::", "::std::", "std::", "::"}) {
        const QLatin1String qualifier(prefix);
        if (spelling.startsWith(qualifier) && spelling.endsWith(QLatin1String("_t"))) {
            spelling = spelling.mid(qualifier.size());
            break;
        }
    }
    for (const auto& row : table()) {
        if (spelling == QLatin1String(row.numpyName) || row.kernelNames.contains(spelling))
            return row.type;
    }
    return std::nullopt;
}

QVector<int> StructType::fieldOffsets() const {
    QVector<int> offsets;
    offsets.reserve(fields.size());
    int offset = 0;
    for (const auto& field : fields) {
        const auto& info = scalarTypeInfo(field.type);
        offset = (offset + info.alignBytes - 1) / info.alignBytes * info.alignBytes;
        offsets.append(offset);
        offset += info.sizeBytes * std::max(field.count, 0);
    }
    return offsets;
}

int StructType::alignBytes() const {
    int align = 1;
    for (const auto& field : fields)
        align = std::max(align, scalarTypeInfo(field.type).alignBytes);
    return align;
}

int StructType::sizeBytes() const {
    // An empty struct has size 1 in C++ (which CUDA kernels are).
    if (fields.isEmpty())
        return 1;
    const QVector<int> offsets = fieldOffsets();
    const auto& last = fields.last();
    const int end = offsets.last() + scalarTypeInfo(last.type).sizeBytes * std::max(last.count, 0);
    const int align = alignBytes();
    return (end + align - 1) / align * align;
}

int ValueType::sizeBytes() const {
    return isStruct() ? structType.sizeBytes() : scalarTypeInfo(scalar).sizeBytes;
}

int ValueType::alignBytes() const {
    return isStruct() ? structType.alignBytes() : scalarTypeInfo(scalar).alignBytes;
}

QString ValueType::displayName() const {
    if (!isStruct())
        return QLatin1String(scalarTypeInfo(scalar).numpyName);
    return structType.name.isEmpty() ? QStringLiteral("struct") : structType.name;
}

QJsonObject ValueType::toJson() const {
    if (!isStruct())
        return {{QStringLiteral("scalar"), displayName()}};
    QJsonArray fields;
    for (const auto& field : structType.fields) {
        fields.append(QJsonObject{
            {QStringLiteral("name"), field.name},
            {QStringLiteral("type"), QLatin1String(scalarTypeInfo(field.type).numpyName)},
            {QStringLiteral("count"), field.count},
        });
    }
    return {{QStringLiteral("struct"), QJsonObject{{QStringLiteral("name"), structType.name},
                                                   {QStringLiteral("fields"), fields}}}};
}

std::optional<ValueType> ValueType::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    if (json.contains(QStringLiteral("scalar"))) {
        QString name;
        if (!readName(fields, QStringLiteral("scalar"), &name))
            return std::nullopt;
        const auto t = scalarTypeFromName(name);
        if (!t) {
            fail(error, QStringLiteral("scalar: unknown type '%1'").arg(name));
            return std::nullopt;
        }
        return ValueType::of(*t);
    }
    if (!json.contains(QStringLiteral("struct"))) {
        fail(error, QStringLiteral("type: expected a 'scalar' or a 'struct' key"));
        return std::nullopt;
    }
    QJsonObject so;
    if (!fields.readObject(QStringLiteral("struct"), &so))
        return std::nullopt;
    const json::FieldReader structFields(so, error, QStringLiteral("struct"));
    StructType st;
    QJsonArray array;
    if (!readName(structFields, QStringLiteral("name"), &st.name) ||
        !structFields.readArray(QStringLiteral("fields"), &array, json::Presence::Required))
        return std::nullopt;
    if (array.isEmpty()) {
        fail(error, QStringLiteral("struct.fields: empty; a struct needs at least one field"));
        return std::nullopt;
    }
    if (array.size() > kMaxFields) {
        fail(error, QStringLiteral("struct.fields: more than %1 fields").arg(kMaxFields));
        return std::nullopt;
    }
    QSet<QString> names;
    qint64 totalBytes = 0;
    for (int i = 0; i < array.size(); ++i) {
        const QString where = json::indexPath(QStringLiteral("struct.fields"), i);
        const auto field = fieldFromJson(array.at(i), where, error);
        if (!field)
            return std::nullopt;
        if (names.contains(field->name)) {
            fail(error,
                 QStringLiteral("%1.name: duplicate field name '%2'").arg(where, field->name));
            return std::nullopt;
        }
        names.insert(field->name);
        totalBytes += qint64(scalarTypeInfo(field->type).sizeBytes) * field->count;
        st.fields.append(*field);
    }
    // Keeps sizeBytes() (an int) far from overflow; no kernel parameter is this large anyway.
    if (totalBytes > kMaxArrayCount * qint64(16)) {
        fail(error, QStringLiteral("struct: %1 bytes is too large").arg(totalBytes));
        return std::nullopt;
    }
    return ValueType::ofStruct(std::move(st));
}

bool operator==(const StructField& a, const StructField& b) {
    return a.name == b.name && a.type == b.type && a.count == b.count;
}

bool operator==(const StructType& a, const StructType& b) {
    return a.name == b.name && a.fields == b.fields;
}

bool operator==(const ValueType& a, const ValueType& b) {
    if (a.kind != b.kind)
        return false;
    return a.isStruct() ? a.structType == b.structType : a.scalar == b.scalar;
}

} // namespace kernelpad
