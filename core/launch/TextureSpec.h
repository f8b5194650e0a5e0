#pragma once
// The CUDA array behind a texture or surface argument and how a texture samples it: shape,
// channel format, filter, address modes, coordinates, read mode. Checked without a GPU, and
// against a device's limits given as plain numbers (TextureLimits).

#include "core/launch/ValueType.h"

#include <QJsonObject>
#include <QString>

#include <array>
#include <optional>

namespace kernelpad {

enum class TextureFilter { Point, Linear };
enum class TextureAddress { Wrap, Clamp, Mirror, Border };
/// Element: texels read as stored (integers as integers); NormalizedFloat: 8/16-bit integers
/// read as floats in [0, 1] (unsigned) or [-1, 1] (signed).
enum class TextureReadMode { Element, NormalizedFloat };

/// The kinds of CUDA array, each with its own device limits.
enum class ArrayShape { D1, D2, D3, D1Layered, D2Layered, Cubemap, CubemapLayered };
inline constexpr int kArrayShapeCount = 7;
/// "1D", "2D layered", "cubemap", ... for messages.
[[nodiscard]] QString arrayShapeName(ArrayShape shape);

/// A device's largest arrays of one shape; 0 where the shape has no such extent.
struct ArrayLimit {
    qint64 width = 0;
    qint64 height = 0;
    qint64 depth = 0;
    qint64 layers = 0;
};

/// The limits of textures and of surfaces per shape (CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE*,
/// _SURFACE*), indexed by ArrayShape; all zero: unknown, nothing checked.
struct TextureLimits {
    std::array<ArrayLimit, kArrayShapeCount> texture{};
    std::array<ArrayLimit, kArrayShapeCount> surface{};
};

/// The array and the sampler of one texture or surface argument; a surface uses only the
/// array fields. Its contents (init, direction, verify) are the argument's BufferSpec.
struct TextureSpec {
    /// Width, height, depth: 1 to 3 leading extents, the rest 0 (as cuArray3DCreate takes
    /// them). A cubemap gives two equal extents, the side of its square faces.
    std::array<qint64, 3> dims{64, 0, 0};
    int layers = 0; ///< 0: not layered; n: a layered array of n layers (cubemap: n × 6 faces)
    bool cubemap = false;
    ScalarType channelType = ScalarType::Float32;
    int channels = 1; ///< 1, 2 or 4
    TextureFilter filter = TextureFilter::Point;
    /// Per dimension (x, y, z); JSON takes one mode for all or one per dimension.
    std::array<TextureAddress, 3> address{TextureAddress::Clamp, TextureAddress::Clamp,
                                          TextureAddress::Clamp};
    bool normalizedCoords = false;
    TextureReadMode readMode = TextureReadMode::Element;
    std::array<double, 4> borderColor{0, 0, 0, 0}; ///< with address mode border

    [[nodiscard]] int dimensionCount() const; ///< leading non-zero extents, 1 to 3
    [[nodiscard]] ArrayShape shape() const;
    /// Texels of the whole array: every face and layer; nullopt when the product of the
    /// extents does not fit in 64 bits (`overflowField`, when given, names the extent that
    /// overflowed it: "dims" or "layers").
    [[nodiscard]] std::optional<qint64> checkedTexelCount(QString* overflowField = nullptr) const;
    /// checkedTexelCount(), saturated at the largest qint64 (problem() refuses such a spec
    /// first; a saturated count is never below the true one, so bounds checks still hold).
    [[nodiscard]] qint64 texelCount() const;
    /// Channel values of the whole array: the element count of its contents (saturated like
    /// texelCount()).
    [[nodiscard]] qint64 elementCount() const;
    [[nodiscard]] int texelBytes() const;
    /// The type of one channel value, the element type of the contents.
    [[nodiscard]] ValueType elementType() const { return ValueType::of(channelType); }
    /// "1 × float32", "4 × uint8"
    [[nodiscard]] QString formatName() const;
    /// "64 x 64", "64 x 64 x 6 faces", "256 x 4 layers"
    [[nodiscard]] QString extentText() const;

    /// Empty when the array (and, for a texture, the sampler) can be made, else why not,
    /// naming the field ("filter: linear filtering needs ..."). No device needed.
    [[nodiscard]] QString problem(bool surface) const;
    [[nodiscard]] QJsonObject toJson(bool surface) const;
    /// Reads the array and sampler fields; the contents' fields are the caller's.
    static std::optional<TextureSpec> fromJson(const QJsonObject& json, bool surface,
                                               QString* error);

    friend bool operator==(const TextureSpec& a, const TextureSpec& b);
    friend bool operator!=(const TextureSpec& a, const TextureSpec& b) { return !(a == b); }
};

/// Channel types a CUDA array holds: float32, float16 and the 8/16/32-bit integers.
[[nodiscard]] bool isTextureChannelType(ScalarType type);
[[nodiscard]] QString textureFilterName(TextureFilter f);     ///< "point", "linear"
[[nodiscard]] QString textureAddressName(TextureAddress a);   ///< "wrap", "clamp", ...
[[nodiscard]] QString textureReadModeName(TextureReadMode m); ///< "element", ...
[[nodiscard]] std::optional<TextureFilter> textureFilterFromName(const QString& name);
[[nodiscard]] std::optional<TextureAddress> textureAddressFromName(const QString& name);
[[nodiscard]] std::optional<TextureReadMode> textureReadModeFromName(const QString& name);

/// Empty when `spec` fits the device's `limits`, else a sentence naming the argument `what`
/// ("texture 'tex'"), the extent and the limit: "texture 'tex': width 70000 exceeds the
/// device's 2D texture limit of 65536".
[[nodiscard]] QString checkTextureLimits(const QString& what, const TextureSpec& spec, bool surface,
                                         const TextureLimits& limits);

} // namespace kernelpad
