#include "core/launch/TextureSpec.h"

#include "core/io/JsonFields.h"
#include "core/launch/BufferInit.h"

#include <QJsonArray>
#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace kernelpad {
namespace {

template <typename Enum> struct EnumName {
    Enum value;
    const char* name;
};

const EnumName<TextureFilter> kFilters[] = {{TextureFilter::Point, "point"},
                                            {TextureFilter::Linear, "linear"}};
const EnumName<TextureAddress> kAddresses[] = {{TextureAddress::Wrap, "wrap"},
                                               {TextureAddress::Clamp, "clamp"},
                                               {TextureAddress::Mirror, "mirror"},
                                               {TextureAddress::Border, "border"}};
const EnumName<TextureReadMode> kReadModes[] = {
    {TextureReadMode::Element, "element"}, {TextureReadMode::NormalizedFloat, "normalizedFloat"}};

template <typename Enum, size_t N> QString nameOf(const EnumName<Enum> (&names)[N], Enum value) {
    for (const auto& entry : names)
        if (entry.value == value)
            return QLatin1String(entry.name);
    return QLatin1String(names[0].name);
}

template <typename Enum, size_t N>
std::optional<Enum> valueOf(const EnumName<Enum> (&names)[N], const QString& name) {
    for (const auto& entry : names)
        if (name == QLatin1String(entry.name))
            return entry.value;
    return std::nullopt;
}

template <typename Enum, size_t N> QString namesOf(const EnumName<Enum> (&names)[N]) {
    QStringList all;
    for (const auto& entry : names)
        all << QLatin1String(entry.name);
    return all.join(QStringLiteral(", "));
}

/// Reads the enum named by `value` into `out`; `path` names the field in the message, which
/// goes where `fields` puts its own.
template <typename Enum, size_t N>
bool readEnum(const json::FieldReader& fields, const QJsonValue& value, const QString& path,
              const EnumName<Enum> (&names)[N], Enum* out) {
    const QString wanted = QStringLiteral("one of ") + namesOf(names);
    if (!value.isString())
        return fields.fail(json::typeError(path, wanted, value));
    const std::optional<Enum> known = valueOf(names, value.toString());
    if (!known)
        return fields.fail(
            QStringLiteral("%1: expected %2, got '%3'").arg(path, wanted, value.toString()));
    *out = *known;
    return true;
}

/// The enum under `key`, when the field is there.
template <typename Enum, size_t N>
bool readEnumField(const json::FieldReader& fields, const QString& key,
                   const EnumName<Enum> (&names)[N], Enum* out) {
    return !fields.has(key) ||
           readEnum(fields, fields.object().value(key), fields.path(key), names, out);
}

/// Extents and counts: at most what a CUDA array's int-sized fields hold.
constexpr json::WholeRange positiveInts(qint64 low) {
    return {low, std::numeric_limits<int>::max()};
}

const ScalarType kChannelTypes[] = {ScalarType::Float32, ScalarType::Float16, ScalarType::Int8,
                                    ScalarType::UInt8,   ScalarType::Int16,   ScalarType::UInt16,
                                    ScalarType::Int32,   ScalarType::UInt32};

QString channelTypeList() {
    QStringList names;
    for (ScalarType t : kChannelTypes)
        names << QLatin1String(scalarTypeInfo(t).numpyName);
    return names.join(QStringLiteral(", "));
}

bool isSmallInteger(ScalarType t) {
    const ScalarTypeInfo& info = scalarTypeInfo(t);
    return !info.isFloat && info.sizeBytes <= 2;
}

QString plural(qint64 n, const char* word) {
    return QStringLiteral("%1 %2%3").arg(n).arg(QLatin1String(word)).arg(n == 1 ? "" : "s");
}

} // namespace

QString arrayShapeName(ArrayShape shape) {
    switch (shape) {
    case ArrayShape::D1:
        return QStringLiteral("1D");
    case ArrayShape::D2:
        return QStringLiteral("2D");
    case ArrayShape::D3:
        return QStringLiteral("3D");
    case ArrayShape::D1Layered:
        return QStringLiteral("1D layered");
    case ArrayShape::D2Layered:
        return QStringLiteral("2D layered");
    case ArrayShape::Cubemap:
        return QStringLiteral("cubemap");
    case ArrayShape::CubemapLayered:
        return QStringLiteral("cubemap layered");
    }
    return QStringLiteral("1D");
}

bool isTextureChannelType(ScalarType type) {
    return std::find(std::begin(kChannelTypes), std::end(kChannelTypes), type) !=
           std::end(kChannelTypes);
}

QString textureFilterName(TextureFilter f) {
    return nameOf(kFilters, f);
}
QString textureAddressName(TextureAddress a) {
    return nameOf(kAddresses, a);
}
QString textureReadModeName(TextureReadMode m) {
    return nameOf(kReadModes, m);
}
std::optional<TextureFilter> textureFilterFromName(const QString& name) {
    return valueOf(kFilters, name);
}
std::optional<TextureAddress> textureAddressFromName(const QString& name) {
    return valueOf(kAddresses, name);
}
std::optional<TextureReadMode> textureReadModeFromName(const QString& name) {
    return valueOf(kReadModes, name);
}

int TextureSpec::dimensionCount() const {
    int n = 0;
    while (n < 3 && dims[size_t(n)] > 0)
        ++n;
    return std::max(n, 1);
}

ArrayShape TextureSpec::shape() const {
    if (cubemap)
        return layers > 0 ? ArrayShape::CubemapLayered : ArrayShape::Cubemap;
    switch (dimensionCount()) {
    case 1:
        return layers > 0 ? ArrayShape::D1Layered : ArrayShape::D1;
    case 2:
        return layers > 0 ? ArrayShape::D2Layered : ArrayShape::D2;
    default:
        return ArrayShape::D3;
    }
}

std::optional<qint64> TextureSpec::checkedTexelCount(QString* overflowField) const {
    // Extents come from a project file: [2097152, 2097152, 4194304] is 2^64 texels, which
    // wrapped to 0 in plain qint64 arithmetic and passed every size bound.
    const auto overflow = [&](const char* field) -> std::optional<qint64> {
        if (overflowField)
            *overflowField = QLatin1String(field);
        return std::nullopt;
    };
    qint64 texels = 1;
    for (int i = 0; i < dimensionCount(); ++i)
        if (__builtin_mul_overflow(texels, std::max<qint64>(dims[size_t(i)], 0), &texels))
            return overflow("dims");
    if (cubemap && __builtin_mul_overflow(texels, qint64(6), &texels))
        return overflow("dims");
    if (layers > 0 && __builtin_mul_overflow(texels, qint64(layers), &texels))
        return overflow("layers");
    return texels;
}

qint64 TextureSpec::texelCount() const {
    return checkedTexelCount().value_or(std::numeric_limits<qint64>::max());
}

qint64 TextureSpec::elementCount() const {
    qint64 elements = 0;
    if (__builtin_mul_overflow(texelCount(), qint64(std::max(channels, 0)), &elements))
        return std::numeric_limits<qint64>::max();
    return elements;
}

int TextureSpec::texelBytes() const {
    return scalarTypeInfo(channelType).sizeBytes * channels;
}

QString TextureSpec::formatName() const {
    return QStringLiteral("%1 × %2").arg(channels).arg(
        QLatin1String(scalarTypeInfo(channelType).numpyName));
}

QString TextureSpec::extentText() const {
    QStringList extents;
    for (int i = 0; i < dimensionCount(); ++i)
        extents << QString::number(dims[size_t(i)]);
    QString text = extents.join(QStringLiteral(" x "));
    if (cubemap)
        text += QStringLiteral(" x 6 faces");
    if (layers > 0)
        text += QStringLiteral(" x %1").arg(plural(layers, "layer"));
    return text;
}

QString TextureSpec::problem(bool surface) const {
    const int n = dimensionCount();
    if (dims[0] < 1)
        return QStringLiteral("dims: the width must be >= 1 (got %1)").arg(dims[0]);
    for (int i = n; i < 3; ++i)
        if (dims[size_t(i)] != 0)
            return QStringLiteral("dims: give 1 to 3 extents, each >= 1");
    if (layers < 0)
        return QStringLiteral("layers: must be >= 0 (got %1)").arg(layers);
    if (layers > 0 && n == 3)
        return QStringLiteral("layers: a 3D array cannot be layered; give 1 or 2 dims");
    if (cubemap && (n != 2 || dims[0] != dims[1]))
        return QStringLiteral("cubemap: the 6 faces must be square; give two equal dims "
                              "(got %1)")
            .arg(extentText());
    if (!isTextureChannelType(channelType))
        return QStringLiteral("channelType: %1 cannot be a texel's channel (expected one of %2)")
            .arg(QLatin1String(scalarTypeInfo(channelType).numpyName), channelTypeList());
    if (channels != 1 && channels != 2 && channels != 4)
        return QStringLiteral("channels: %1 (a CUDA array holds 1, 2 or 4 channels)").arg(channels);
    // Bounded like a buffer: a typo in dims must become a message, not an allocation.
    QString overflowField;
    if (!checkedTexelCount(&overflowField))
        return QStringLiteral("%1: %2 texels overflow a 64-bit count, far beyond the %3 GiB "
                              "KernelPad allows for one buffer")
            .arg(overflowField, extentText())
            .arg(kMaxBufferBytes >> 30);
    if (texelCount() > kMaxBufferBytes / texelBytes())
        return QStringLiteral("dims: %1 texels of %2 bytes exceed the %3 GiB KernelPad allows "
                              "for one buffer")
            .arg(extentText())
            .arg(texelBytes())
            .arg(kMaxBufferBytes >> 30);
    if (surface)
        return {};
    const QString channel = QLatin1String(scalarTypeInfo(channelType).numpyName);
    if (readMode == TextureReadMode::NormalizedFloat && !isSmallInteger(channelType))
        return QStringLiteral("readMode: normalizedFloat converts 8- and 16-bit integer texels "
                              "to floats; %1 texels are read as elements")
            .arg(channel);
    const bool readsFloats =
        scalarTypeInfo(channelType).isFloat || readMode == TextureReadMode::NormalizedFloat;
    if (filter == TextureFilter::Linear && !readsFloats)
        return QStringLiteral("filter: linear filtering needs floating-point texels, but %1 "
                              "texels read as elements are integers; use point filtering, "
                              "float texels, or readMode normalizedFloat with 8/16-bit integers")
            .arg(channel);
    if (!cubemap && !normalizedCoords) {
        for (int i = 0; i < n; ++i) {
            const TextureAddress a = address[size_t(i)];
            if (a == TextureAddress::Wrap || a == TextureAddress::Mirror)
                return QStringLiteral("address: %1 needs normalizedCoords (CUDA wraps and mirrors "
                                      "normalized coordinates only)")
                    .arg(textureAddressName(a));
        }
    }
    for (double c : borderColor)
        if (!std::isfinite(c))
            return QStringLiteral("borderColor: must be finite numbers");
    return {};
}

QJsonObject TextureSpec::toJson(bool surface) const {
    QJsonArray extents;
    for (int i = 0; i < dimensionCount(); ++i)
        extents.append(double(dims[size_t(i)]));
    QJsonObject json{
        {QStringLiteral("dims"), extents},
        {QStringLiteral("channelType"), QLatin1String(scalarTypeInfo(channelType).numpyName)},
        {QStringLiteral("channels"), channels},
    };
    if (layers > 0)
        json.insert(QStringLiteral("layers"), layers);
    if (cubemap)
        json.insert(QStringLiteral("cubemap"), true);
    if (surface)
        return json;
    json.insert(QStringLiteral("filter"), textureFilterName(filter));
    const int n = dimensionCount();
    bool same = true;
    for (int i = 1; i < n; ++i)
        same = same && address[size_t(i)] == address[0];
    if (same) {
        json.insert(QStringLiteral("address"), textureAddressName(address[0]));
    } else {
        QJsonArray modes;
        for (int i = 0; i < n; ++i)
            modes.append(textureAddressName(address[size_t(i)]));
        json.insert(QStringLiteral("address"), modes);
    }
    json.insert(QStringLiteral("normalizedCoords"), normalizedCoords);
    json.insert(QStringLiteral("readMode"), textureReadModeName(readMode));
    if (std::find(address.begin(), address.end(), TextureAddress::Border) != address.end())
        json.insert(QStringLiteral("borderColor"),
                    QJsonArray{borderColor[0], borderColor[1], borderColor[2], borderColor[3]});
    return json;
}

std::optional<TextureSpec> TextureSpec::fromJson(const QJsonObject& json, bool surface,
                                                 QString* error) {
    const json::FieldReader fields(json, error);
    TextureSpec spec;
    const QString dimsKey = QStringLiteral("dims");
    if (!fields.has(dimsKey)) {
        fields.fail(json::missingError(dimsKey));
        return std::nullopt;
    }
    const QJsonValue dimsValue = json.value(dimsKey);
    const QString dimsWanted = QStringLiteral("an array of 1 to 3 whole numbers");
    if (!dimsValue.isDouble() && !dimsValue.isArray()) {
        fields.fail(json::typeError(dimsKey, dimsWanted, dimsValue));
        return std::nullopt;
    }
    // A bare number is a 1D width, as LaunchConfig's dims take one.
    const QJsonArray extents = dimsValue.isDouble() ? QJsonArray{dimsValue} : dimsValue.toArray();
    if (extents.isEmpty() || extents.size() > 3) {
        fields.fail(QStringLiteral("%1: expected %2, got %3 elements")
                        .arg(dimsKey, dimsWanted)
                        .arg(extents.size()));
        return std::nullopt;
    }
    spec.dims = {0, 0, 0};
    for (qsizetype i = 0; i < extents.size(); ++i) {
        const QString problem =
            json::wholeNumberProblem(json::indexPath(dimsKey, i), extents.at(i), positiveInts(1));
        if (!problem.isEmpty()) {
            fields.fail(problem);
            return std::nullopt;
        }
        spec.dims[size_t(i)] = qint64(extents.at(i).toDouble());
    }
    QString channelType;
    if (!fields.readInt(QStringLiteral("layers"), &spec.layers, json::Presence::Optional,
                        positiveInts(0)) ||
        !fields.readBool(QStringLiteral("cubemap"), &spec.cubemap) ||
        !fields.readString(QStringLiteral("channelType"), &channelType) ||
        !fields.readInt(QStringLiteral("channels"), &spec.channels, json::Presence::Optional,
                        positiveInts(1)))
        return std::nullopt;
    if (fields.has(QStringLiteral("channelType"))) {
        const std::optional<ScalarType> type = scalarTypeFromName(channelType);
        if (!type || !isTextureChannelType(*type)) {
            fields.fail(QStringLiteral("channelType: expected one of %1, got '%2'")
                            .arg(channelTypeList(), channelType));
            return std::nullopt;
        }
        spec.channelType = *type;
    }
    if (!surface) {
        if (!readEnumField(fields, QStringLiteral("filter"), kFilters, &spec.filter) ||
            !fields.readBool(QStringLiteral("normalizedCoords"), &spec.normalizedCoords) ||
            !readEnumField(fields, QStringLiteral("readMode"), kReadModes, &spec.readMode))
            return std::nullopt;
        const QString addressKey = QStringLiteral("address");
        const QJsonValue address = json.value(addressKey);
        if (address.isString()) {
            if (!readEnum(fields, address, addressKey, kAddresses, &spec.address[0]))
                return std::nullopt;
            spec.address.fill(spec.address[0]);
        } else if (address.isArray()) {
            const QJsonArray modes = address.toArray();
            if (modes.isEmpty() || modes.size() > 3) {
                fields.fail(QStringLiteral("address: expected one mode or 1 to 3 modes, one per "
                                           "dimension"));
                return std::nullopt;
            }
            // The last mode given holds for the dimensions after it.
            for (int i = 0; i < 3; ++i) {
                const int from = std::min<int>(i, int(modes.size()) - 1);
                if (!readEnum(fields, modes.at(from), json::indexPath(addressKey, from), kAddresses,
                              &spec.address[size_t(i)]))
                    return std::nullopt;
            }
        } else if (!address.isUndefined()) {
            fields.fail(json::typeError(
                addressKey,
                QStringLiteral("a mode (%1) or an array of them").arg(namesOf(kAddresses)),
                address));
            return std::nullopt;
        }
        const QString colorKey = QStringLiteral("borderColor");
        QJsonArray color;
        if (!fields.readArray(colorKey, &color))
            return std::nullopt;
        if (fields.has(colorKey)) {
            if (color.size() != 4) {
                fields.fail(QStringLiteral("borderColor: expected 4 numbers (r, g, b, a), got %1")
                                .arg(color.size()));
                return std::nullopt;
            }
            for (int i = 0; i < 4; ++i) {
                if (!color.at(i).isDouble()) {
                    fields.fail(json::typeError(json::indexPath(colorKey, i),
                                                QStringLiteral("a number"), color.at(i)));
                    return std::nullopt;
                }
                spec.borderColor[size_t(i)] = color.at(i).toDouble();
            }
        }
    }
    if (const QString problem = spec.problem(surface); !problem.isEmpty()) {
        fields.fail(problem);
        return std::nullopt;
    }
    return spec;
}

bool operator==(const TextureSpec& a, const TextureSpec& b) {
    return a.dims == b.dims && a.layers == b.layers && a.cubemap == b.cubemap &&
           a.channelType == b.channelType && a.channels == b.channels && a.filter == b.filter &&
           a.address == b.address && a.normalizedCoords == b.normalizedCoords &&
           a.readMode == b.readMode && a.borderColor == b.borderColor;
}

QString checkTextureLimits(const QString& what, const TextureSpec& spec, bool surface,
                           const TextureLimits& limits) {
    const ArrayShape shape = spec.shape();
    const ArrayLimit& limit = (surface ? limits.surface : limits.texture)[size_t(shape)];
    const QString kind = QStringLiteral("%1 %2").arg(
        arrayShapeName(shape), surface ? QStringLiteral("surface") : QStringLiteral("texture"));
    const auto over = [&](const char* extent, qint64 value, qint64 max, const QString& unit) {
        return QStringLiteral("%1: %2 %3 exceeds the device's %4 limit of %5%6")
            .arg(what, QLatin1String(extent))
            .arg(value)
            .arg(kind)
            .arg(max)
            .arg(unit);
    };
    const qint64 width = spec.dims[0];
    const qint64 height = spec.dims[1];
    if (limit.width > 0 && width > limit.width)
        return over("width", width, limit.width, QString());
    if (limit.height > 0 && height > limit.height)
        return over("height", height, limit.height, QString());
    if (limit.depth > 0 && spec.dims[2] > limit.depth)
        return over("depth", spec.dims[2], limit.depth, QString());
    if (limit.layers <= 0)
        return {};
    if (!spec.cubemap && spec.layers > limit.layers)
        return over("layers", spec.layers, limit.layers, QStringLiteral(" layers"));
    // A layered cubemap's limit counts faces, 6 per layer (2046 on sm_90).
    if (spec.cubemap && qint64(spec.layers) * 6 > limit.layers)
        return QStringLiteral("%1: %2 (%3 faces) exceed the device's %4 limit of %5 faces")
            .arg(what, plural(spec.layers, "layer"))
            .arg(qint64(spec.layers) * 6)
            .arg(kind)
            .arg(limit.layers);
    return {};
}

} // namespace kernelpad
