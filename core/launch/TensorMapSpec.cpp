#include "core/launch/TensorMapSpec.h"

#include "core/io/ControlChars.h"
#include "core/io/JsonFields.h"
#include "core/launch/ArgumentSpec.h"
#include "core/launch/BufferInit.h"

#include <cuda.h>

#include <QJsonArray>

#include <algorithm>
#include <iterator>

namespace kernelpad {
namespace {

template <typename Enum> struct TensorMapName {
    Enum value;
    const char* name;
};

const TensorMapName<TensorMapMode> kModes[] = {{TensorMapMode::Tiled, "tiled"},
                                               {TensorMapMode::Im2col, "im2col"}};
const TensorMapName<TensorMapInterleave> kInterleaves[] = {{TensorMapInterleave::None, "none"},
                                                           {TensorMapInterleave::B16, "16B"},
                                                           {TensorMapInterleave::B32, "32B"}};
const TensorMapName<TensorMapSwizzle> kSwizzles[] = {
    {TensorMapSwizzle::None, "none"},
    {TensorMapSwizzle::B32, "32B"},
    {TensorMapSwizzle::B64, "64B"},
    {TensorMapSwizzle::B128, "128B"},
    {TensorMapSwizzle::B128Atom32, "128B_atom_32B"},
    {TensorMapSwizzle::B128Atom32Flip8, "128B_atom_32B_flip_8B"},
    {TensorMapSwizzle::B128Atom64, "128B_atom_64B"}};
const TensorMapName<TensorMapL2Promotion> kPromotions[] = {{TensorMapL2Promotion::None, "none"},
                                                           {TensorMapL2Promotion::B64, "64B"},
                                                           {TensorMapL2Promotion::B128, "128B"},
                                                           {TensorMapL2Promotion::B256, "256B"}};
const TensorMapName<TensorMapOobFill> kOobFills[] = {
    {TensorMapOobFill::None, "none"}, {TensorMapOobFill::NanRequestZeroFma, "nanRequestZeroFma"}};

/// The element types TMA moves, one row each (a new ScalarType that the driver maps is one
/// more row: BFloat16 → CU_TENSOR_MAP_DATA_TYPE_BFLOAT16).
struct TensorMapType {
    ScalarType type;
    CUtensorMapDataType dataType;
};
const TensorMapType kTensorMapTypes[] = {
    {ScalarType::UInt8, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {ScalarType::UInt16, CU_TENSOR_MAP_DATA_TYPE_UINT16},
    {ScalarType::UInt32, CU_TENSOR_MAP_DATA_TYPE_UINT32},
    {ScalarType::Int32, CU_TENSOR_MAP_DATA_TYPE_INT32},
    {ScalarType::UInt64, CU_TENSOR_MAP_DATA_TYPE_UINT64},
    {ScalarType::Int64, CU_TENSOR_MAP_DATA_TYPE_INT64},
    {ScalarType::Float16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16},
    {ScalarType::Float32, CU_TENSOR_MAP_DATA_TYPE_FLOAT32},
    {ScalarType::Float64, CU_TENSOR_MAP_DATA_TYPE_FLOAT64},
    {ScalarType::BFloat16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
    // The driver has no fp8 or fp4 element type: TMA moves their bytes, as CUTLASS maps them.
    {ScalarType::Float8E4M3, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {ScalarType::Float8E5M2, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {ScalarType::Float4E2M1x2, CU_TENSOR_MAP_DATA_TYPE_UINT8},
};

template <typename Enum, size_t N>
QString tensorMapNameOf(const TensorMapName<Enum> (&names)[N], Enum value) {
    for (const auto& entry : names)
        if (entry.value == value)
            return QLatin1String(entry.name);
    return QLatin1String(names[0].name);
}

template <typename Enum, size_t N>
QStringList tensorMapNamesOf(const TensorMapName<Enum> (&names)[N]) {
    QStringList all;
    for (const auto& entry : names)
        all << QLatin1String(entry.name);
    return all;
}

template <typename Enum, size_t N>
bool readTensorMapChoice(const json::FieldReader& fields, const QString& key,
                         const TensorMapName<Enum> (&names)[N], Enum* out) {
    QString text = tensorMapNameOf(names, *out);
    if (!fields.readChoice(key, tensorMapNamesOf(names), &text))
        return false;
    for (const auto& entry : names)
        if (text == QLatin1String(entry.name))
            *out = entry.value;
    return true;
}

/// An array of whole numbers in [low, high] under `key`.
bool readTensorMapInts(const json::FieldReader& fields, const QString& key, QVector<int>* out,
                       int low, int high) {
    QJsonArray values;
    if (!fields.readArray(key, &values))
        return false;
    if (!fields.has(key))
        return true;
    QVector<int> result;
    for (qsizetype i = 0; i < values.size(); ++i) {
        const QString problem = json::wholeNumberProblem(json::indexPath(fields.path(key), i),
                                                         values.at(i), {low, high});
        if (!problem.isEmpty())
            return fields.fail(problem);
        result << values.at(i).toInt();
    }
    *out = result;
    return true;
}

/// Expressions under `key`: each a whole number or a string ("cols*4").
bool readTensorMapExpressions(const json::FieldReader& fields, const QString& key, QStringList* out,
                              json::Presence presence) {
    QJsonArray values;
    if (!fields.readArray(key, &values, presence))
        return false;
    if (!fields.has(key))
        return true;
    QStringList result;
    for (qsizetype i = 0; i < values.size(); ++i) {
        const QString path = json::indexPath(fields.path(key), i);
        const QJsonValue v = values.at(i);
        if (v.isDouble()) {
            if (const QString p =
                    json::wholeNumberProblem(path, v, {0, kExactDoubleIntegerLimit - 1});
                !p.isEmpty())
                return fields.fail(p);
            result << QString::number(qint64(v.toDouble()));
        } else if (v.isString() && !v.toString().trimmed().isEmpty()) {
            if (const QString bad = controlCharacterError(path, v.toString()); !bad.isEmpty())
                return fields.fail(bad);
            result << v.toString().trimmed();
        } else {
            return fields.fail(
                json::typeError(path, QStringLiteral("a whole number or an expression string"), v));
        }
    }
    *out = result;
    return true;
}

QJsonArray intsToJson(const QVector<int>& values) {
    QJsonArray array;
    for (int v : values)
        array.append(v);
    return array;
}

/// A number when the text is one, so a plain map reads as numbers in the file.
QJsonArray expressionsToJson(const QStringList& texts) {
    QJsonArray array;
    for (const QString& t : texts) {
        bool ok = false;
        const qint64 n = t.toLongLong(&ok);
        if (ok && n >= 0 && n < kExactDoubleIntegerLimit)
            array.append(double(n));
        else
            array.append(t);
    }
    return array;
}

QString countProblem(const char* field, qsizetype got, qsizetype wanted, const char* why) {
    return QStringLiteral("%1: give %2 values (%3), got %4")
        .arg(QLatin1String(field))
        .arg(wanted)
        .arg(QLatin1String(why))
        .arg(got);
}

/// The im2col corner range per rank (cuda.h, cuTensorMapEncodeIm2col).
int cornerLimit(int rank) {
    return rank == 3 ? 32768 : rank == 4 ? 128 : 16;
}

QString im2colProblem(const TensorMapSpec& s) {
    const int n = s.rank();
    if (n < 3)
        return QStringLiteral("mode: im2col needs a rank of 3 to 5 (the driver's rule), got %1")
            .arg(n);
    for (const auto* corner : {&s.lowerCorner, &s.upperCorner}) {
        const char* field = corner == &s.lowerCorner ? "lowerCorner" : "upperCorner";
        if (corner->size() != n - 2)
            return countProblem(field, corner->size(), n - 2,
                                "one per spatial dimension, rank - 2");
        const int limit = cornerLimit(n);
        for (int i = 0; i < corner->size(); ++i)
            if (corner->at(i) < -limit || corner->at(i) >= limit)
                return QStringLiteral("%1[%2]: %3 is outside [%4, %5], the driver's range for "
                                      "rank %6")
                    .arg(QLatin1String(field))
                    .arg(i)
                    .arg(corner->at(i))
                    .arg(-limit)
                    .arg(limit - 1)
                    .arg(n);
    }
    if (s.channelsPerPixel < 1 || s.channelsPerPixel > kTensorMapMaxBox)
        return QStringLiteral("channelsPerPixel: %1 is outside 1 to 256 (the driver's rule)")
            .arg(s.channelsPerPixel);
    constexpr int kMaxPixelsPerColumn = 1024;
    if (s.pixelsPerColumn < 1 || s.pixelsPerColumn > kMaxPixelsPerColumn)
        return QStringLiteral("pixelsPerColumn: %1 is outside 1 to %2 (the driver's rule)")
            .arg(s.pixelsPerColumn)
            .arg(kMaxPixelsPerColumn);
    return {};
}

} // namespace

int swizzleSpanBytes(TensorMapSwizzle swizzle) {
    switch (swizzle) {
    case TensorMapSwizzle::None:
        return 0;
    case TensorMapSwizzle::B32:
        return 32;
    case TensorMapSwizzle::B64:
        return 64;
    default:
        return 128;
    }
}

QString tensorMapModeName(TensorMapMode m) {
    return tensorMapNameOf(kModes, m);
}
QString tensorMapInterleaveName(TensorMapInterleave i) {
    return tensorMapNameOf(kInterleaves, i);
}
QString tensorMapSwizzleName(TensorMapSwizzle s) {
    return tensorMapNameOf(kSwizzles, s);
}
QString tensorMapL2PromotionName(TensorMapL2Promotion p) {
    return tensorMapNameOf(kPromotions, p);
}
QString tensorMapOobFillName(TensorMapOobFill f) {
    return tensorMapNameOf(kOobFills, f);
}
QStringList tensorMapModeNames() {
    return tensorMapNamesOf(kModes);
}
QStringList tensorMapInterleaveNames() {
    return tensorMapNamesOf(kInterleaves);
}
QStringList tensorMapSwizzleNames() {
    return tensorMapNamesOf(kSwizzles);
}
QStringList tensorMapL2PromotionNames() {
    return tensorMapNamesOf(kPromotions);
}
QStringList tensorMapOobFillNames() {
    return tensorMapNamesOf(kOobFills);
}

std::optional<int> tensorMapDataType(ScalarType type) {
    for (const TensorMapType& row : kTensorMapTypes)
        if (row.type == type)
            return int(row.dataType);
    return std::nullopt;
}

QString tensorMapElementTypeNames() {
    QStringList names;
    for (const TensorMapType& row : kTensorMapTypes)
        names << QLatin1String(scalarTypeInfo(row.type).numpyName);
    return names.join(QStringLiteral(", "));
}

QString TensorMapSpec::problem() const {
    const int n = rank();
    if (buffer.trimmed().isEmpty())
        return QStringLiteral("buffer: empty; name the buffer argument the map describes");
    if (n < 1 || n > kTensorMapMaxRank)
        return QStringLiteral("globalDims: give 1 to 5 extents (the driver's rank limit), got %1")
            .arg(n);
    for (int i = 0; i < n; ++i)
        if (globalDims.at(i).trimmed().isEmpty())
            return QStringLiteral("globalDims[%1]: empty").arg(i);
    if (globalStrides.size() != n - 1)
        return countProblem("globalStrides", globalStrides.size(), n - 1,
                            "the byte strides of dimensions 1 to rank - 1");
    for (int i = 0; i < globalStrides.size(); ++i)
        if (globalStrides.at(i).trimmed().isEmpty())
            return QStringLiteral("globalStrides[%1]: empty").arg(i);
    if (interleave != TensorMapInterleave::None && n < 3)
        return QStringLiteral("interleave: %1 needs a rank of at least 3 (the driver's rule), "
                              "got %2")
            .arg(tensorMapInterleaveName(interleave))
            .arg(n);
    if (interleave == TensorMapInterleave::B32 && swizzle != TensorMapSwizzle::B32)
        return QStringLiteral("swizzle: interleave 32B needs swizzle 32B (the driver's rule), "
                              "got %1")
            .arg(tensorMapSwizzleName(swizzle));
    if (mode == TensorMapMode::Tiled) {
        if (boxDims.size() != n)
            return countProblem("boxDims", boxDims.size(), n, "one per dimension");
        for (int i = 0; i < n; ++i)
            if (boxDims.at(i) < 1 || boxDims.at(i) > kTensorMapMaxBox)
                return QStringLiteral("boxDims[%1]: %2 is outside 1 to 256 (the driver's limit "
                                      "on a box)")
                    .arg(i)
                    .arg(boxDims.at(i));
    }
    if (elementStrides.size() != n)
        return countProblem("elementStrides", elementStrides.size(), n, "one per dimension");
    for (int i = 0; i < n; ++i)
        if (elementStrides.at(i) < 1 || elementStrides.at(i) > kTensorMapMaxElementStride)
            return QStringLiteral("elementStrides[%1]: %2 is outside 1 to 8 (the driver's rule)")
                .arg(i)
                .arg(elementStrides.at(i));
    return mode == TensorMapMode::Im2col ? im2colProblem(*this) : QString();
}

QString TensorMapSpec::problemWithElement(ScalarType element) const {
    const ScalarTypeInfo& info = scalarTypeInfo(element);
    if (!tensorMapDataType(element))
        return QStringLiteral("buffer: a tensor map cannot hold %1 elements (TMA moves %2)")
            .arg(QLatin1String(info.numpyName), tensorMapElementTypeNames());
    const bool tiled = mode == TensorMapMode::Tiled;
    const qint64 innerBytes =
        qint64(tiled ? boxDims.value(0, 1) : channelsPerPixel) * info.sizeBytes;
    const QString inner = tiled ? QStringLiteral("boxDims[0]") : QStringLiteral("channelsPerPixel");
    const QString innerText = QStringLiteral("%1 × %2 bytes = %3 bytes")
                                  .arg(tiled ? boxDims.value(0, 1) : channelsPerPixel)
                                  .arg(info.sizeBytes)
                                  .arg(innerBytes);
    constexpr int kBoxByteMultiple = 16;
    if (tiled && interleave == TensorMapInterleave::None && innerBytes % kBoxByteMultiple != 0)
        return QStringLiteral("boxDims[0]: the inner box, %1, is not a multiple of 16 bytes "
                              "(the driver's rule without interleave)")
            .arg(innerText);
    const int span = swizzleSpanBytes(swizzle);
    if (interleave == TensorMapInterleave::None && span > 0 && innerBytes > span)
        return QStringLiteral("%1: the inner box, %2, exceeds the %3-byte span of swizzle %4 "
                              "(the driver's rule)")
            .arg(inner, innerText)
            .arg(span)
            .arg(tensorMapSwizzleName(swizzle));
    // fp8 and fp4 travel as bytes, which the driver fills with zeros, not NaN.
    if (oobFill == TensorMapOobFill::NanRequestZeroFma && (!info.isFloat || info.sizeBytes == 1))
        return QStringLiteral("oobFill: nanRequestZeroFma needs floating-point elements (the "
                              "driver's rule), the buffer holds %1")
            .arg(QLatin1String(info.numpyName));
    return {};
}

QJsonObject TensorMapSpec::toJson() const {
    QJsonObject json{
        {QStringLiteral("buffer"), buffer},
        {QStringLiteral("mode"), tensorMapModeName(mode)},
        {QStringLiteral("globalDims"), expressionsToJson(globalDims)},
        {QStringLiteral("globalStrides"), expressionsToJson(globalStrides)},
        {QStringLiteral("elementStrides"), intsToJson(elementStrides)},
        {QStringLiteral("interleave"), tensorMapInterleaveName(interleave)},
        {QStringLiteral("swizzle"), tensorMapSwizzleName(swizzle)},
        {QStringLiteral("l2Promotion"), tensorMapL2PromotionName(l2Promotion)},
        {QStringLiteral("oobFill"), tensorMapOobFillName(oobFill)},
    };
    if (mode == TensorMapMode::Tiled) {
        json.insert(QStringLiteral("boxDims"), intsToJson(boxDims));
    } else {
        json.insert(QStringLiteral("lowerCorner"), intsToJson(lowerCorner));
        json.insert(QStringLiteral("upperCorner"), intsToJson(upperCorner));
        json.insert(QStringLiteral("channelsPerPixel"), channelsPerPixel);
        json.insert(QStringLiteral("pixelsPerColumn"), pixelsPerColumn);
    }
    return json;
}

std::optional<TensorMapSpec> TensorMapSpec::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    TensorMapSpec spec;
    constexpr int kAnyInt = 1 << 30;
    const bool ok =
        fields.readString(QStringLiteral("buffer"), &spec.buffer, json::Presence::Required) &&
        readTensorMapChoice(fields, QStringLiteral("mode"), kModes, &spec.mode) &&
        readTensorMapExpressions(fields, QStringLiteral("globalDims"), &spec.globalDims,
                                 json::Presence::Required) &&
        readTensorMapExpressions(fields, QStringLiteral("globalStrides"), &spec.globalStrides,
                                 json::Presence::Optional) &&
        readTensorMapInts(fields, QStringLiteral("boxDims"), &spec.boxDims, -kAnyInt, kAnyInt) &&
        readTensorMapInts(fields, QStringLiteral("elementStrides"), &spec.elementStrides, -kAnyInt,
                          kAnyInt) &&
        readTensorMapChoice(fields, QStringLiteral("interleave"), kInterleaves, &spec.interleave) &&
        readTensorMapChoice(fields, QStringLiteral("swizzle"), kSwizzles, &spec.swizzle) &&
        readTensorMapChoice(fields, QStringLiteral("l2Promotion"), kPromotions,
                            &spec.l2Promotion) &&
        readTensorMapChoice(fields, QStringLiteral("oobFill"), kOobFills, &spec.oobFill) &&
        readTensorMapInts(fields, QStringLiteral("lowerCorner"), &spec.lowerCorner, -kAnyInt,
                          kAnyInt) &&
        readTensorMapInts(fields, QStringLiteral("upperCorner"), &spec.upperCorner, -kAnyInt,
                          kAnyInt) &&
        fields.readInt(QStringLiteral("channelsPerPixel"), &spec.channelsPerPixel) &&
        fields.readInt(QStringLiteral("pixelsPerColumn"), &spec.pixelsPerColumn);
    if (!ok)
        return std::nullopt;
    spec.buffer = spec.buffer.trimmed();
    // A map without elementStrides (or boxDims) steps by 1 (spans the dims) in every dimension.
    if (!fields.has(QStringLiteral("elementStrides")))
        spec.elementStrides = QVector<int>(spec.rank(), 1);
    if (const QString problem = spec.problem(); !problem.isEmpty()) {
        fields.fail(problem);
        return std::nullopt;
    }
    return spec;
}

bool operator==(const TensorMapSpec& a, const TensorMapSpec& b) {
    return a.toJson() == b.toJson();
}

} // namespace kernelpad
