#pragma once
// The kernel-argument type table of the seed (NumPy type <-> kernel type), user structs with
// natural C alignment, and the value type of a scalar argument or a buffer element.

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One row of the seed's NumPy/kernel type table.
enum class ScalarType {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float32,
    Float64,
    Complex64,
    Complex128,
    // Low-precision floats (core/launch/MiniFloat.h); float4_e2m1x2 packs two values in a byte.
    BFloat16,
    Float8E4M3,
    Float8E5M2,
    Float4E2M1x2,
};

/// Static description of a scalar type: NumPy name, kernel spellings, size and alignment.
struct ScalarTypeInfo {
    ScalarType type;
    const char* numpyName;   ///< "float32"
    const char* cName;       ///< canonical kernel spelling, "float"
    QStringList kernelNames; ///< every spelling the seed lists: "float", "float32_t"...
    int sizeBytes;
    int alignBytes;
    bool isFloat;   ///< float16/32/64 and the complex types
    bool isComplex; ///< complex64/complex128 (two components)
    bool isSigned;
};

[[nodiscard]] const ScalarTypeInfo& scalarTypeInfo(ScalarType type);
/// Values one element holds: 2 for the complex types and the packed float4_e2m1x2, else 1.
[[nodiscard]] int componentCount(ScalarType type);
/// True for bfloat16, the float8 types and float4_e2m1x2 (decoded by core/launch/MiniFloat).
[[nodiscard]] bool isLowPrecision(ScalarType type);
[[nodiscard]] const QVector<ScalarType>& allScalarTypes();
/// Accepts NumPy names ("float32"), kernel spellings ("float", "unsigned int", "int32_t",
/// "half", "float2", "cuDoubleComplex", "complex<float>") case-sensitively.
[[nodiscard]] std::optional<ScalarType> scalarTypeFromName(const QString& name);

/// One field of a user struct; `count` > 1 makes it a fixed-size array field.
struct StructField {
    QString name;
    ScalarType type = ScalarType::Int32;
    int count = 1;
};

/// A user struct laid out with natural C alignment (NumPy `align=True`).
struct StructType {
    QString name;
    QVector<StructField> fields;

    [[nodiscard]] QVector<int> fieldOffsets() const;
    [[nodiscard]] int sizeBytes() const;  ///< padded to alignBytes()
    [[nodiscard]] int alignBytes() const; ///< largest field alignment, 1 when empty
};

/// A scalar or a struct: the type of a by-value argument or of a buffer's elements.
struct ValueType {
    enum class Kind { Scalar, Struct };
    Kind kind = Kind::Scalar;
    ScalarType scalar = ScalarType::Float32;
    StructType structType;

    static ValueType of(ScalarType t) { return ValueType{Kind::Scalar, t, {}}; }
    static ValueType ofStruct(StructType s) {
        return ValueType{Kind::Struct, ScalarType::Int32, std::move(s)};
    }

    [[nodiscard]] bool isStruct() const { return kind == Kind::Struct; }
    [[nodiscard]] int sizeBytes() const;
    [[nodiscard]] int alignBytes() const;
    /// "float32" or the struct's name.
    [[nodiscard]] QString displayName() const;

    /// {"scalar":"float32"} or {"struct":{"name":..., "fields":[{"name","type","count"}]}}
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<ValueType> fromJson(const QJsonObject& json, QString* error);

    friend bool operator==(const ValueType& a, const ValueType& b);
    friend bool operator!=(const ValueType& a, const ValueType& b) { return !(a == b); }
};

bool operator==(const StructField& a, const StructField& b);
bool operator==(const StructType& a, const StructType& b);

} // namespace kernelpad

// Values the window queues between threads and tests keep in data rows.
Q_DECLARE_METATYPE(kernelpad::ScalarType)
Q_DECLARE_METATYPE(kernelpad::ValueType)
