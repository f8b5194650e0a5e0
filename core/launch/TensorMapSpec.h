#pragma once
// A TMA tensor map argument (`const __grid_constant__ CUtensorMap`): the view of one of the
// project's buffers that cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col describe. Checked
// without a GPU against the driver's rules (the CUDA driver API's "Tensor Map Object
// Management" section, cuda.h), each refusal naming the field and the rule.

#include "core/launch/ValueType.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <array>
#include <optional>

namespace kernelpad {

struct ArgumentSpec;

enum class TensorMapMode { Tiled, Im2col };
enum class TensorMapInterleave { None, B16, B32 };
/// In the order of CUtensorMapSwizzle; the 128B atom variants came with CUDA 12.8.
enum class TensorMapSwizzle { None, B32, B64, B128, B128Atom32, B128Atom32Flip8, B128Atom64 };
enum class TensorMapL2Promotion { None, B64, B128, B256 };
enum class TensorMapOobFill { None, NanRequestZeroFma };

/// The driver's limits (cuda.h, cuTensorMapEncodeTiled).
inline constexpr int kTensorMapMaxRank = 5;
inline constexpr int kTensorMapMaxBox = 256;
inline constexpr int kTensorMapMaxElementStride = 8;
/// The size of a CUtensorMap, passed by value, and the alignment the encode calls need.
inline constexpr int kTensorMapBytes = 128;
inline constexpr int kTensorMapAlignBytes = 64;

/// One tensor map over the buffer argument `buffer`. Dimension 0 is the innermost
/// (contiguous) one, as the driver numbers them.
struct TensorMapSpec {
    QString buffer; ///< the name of a buffer argument of the same project
    TensorMapMode mode = TensorMapMode::Tiled;
    /// Extents in elements, one per dimension (the rank is their number): integers or
    /// expressions over integer scalars ("cols", "n/4"), as buffer counts are.
    QStringList globalDims{QStringLiteral("64")};
    /// Strides in bytes of dimensions 1 .. rank-1 (dimension 0 is contiguous): rank - 1
    /// expressions.
    QStringList globalStrides;
    QVector<int> boxDims{64};       ///< Tiled: the box in elements, one per dimension
    QVector<int> elementStrides{1}; ///< one per dimension, 1 to 8
    TensorMapInterleave interleave = TensorMapInterleave::None;
    TensorMapSwizzle swizzle = TensorMapSwizzle::None;
    TensorMapL2Promotion l2Promotion = TensorMapL2Promotion::None;
    TensorMapOobFill oobFill = TensorMapOobFill::None;
    /// Im2col: the pixel box's corner offsets, rank - 2 each (D, H, W).
    QVector<int> lowerCorner;
    QVector<int> upperCorner;
    int channelsPerPixel = 1; ///< Im2col: 1 to 256
    int pixelsPerColumn = 1;  ///< Im2col: 1 to 1024

    [[nodiscard]] int rank() const { return int(globalDims.size()); }
    /// Empty when the fields that need no buffer and no scalars can be encoded, else the
    /// field and the driver's rule ("boxDims[1]: 300 is above the driver's limit of 256").
    [[nodiscard]] QString problem() const;
    /// The rules that need the element size: the inner box in bytes, the OOB fill's type.
    [[nodiscard]] QString problemWithElement(ScalarType element) const;
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<TensorMapSpec> fromJson(const QJsonObject& json, QString* error);

    friend bool operator==(const TensorMapSpec& a, const TensorMapSpec& b);
    friend bool operator!=(const TensorMapSpec& a, const TensorMapSpec& b) { return !(a == b); }
};

/// The swizzle's span in bytes (32, 64, 128), 0 for none.
[[nodiscard]] int swizzleSpanBytes(TensorMapSwizzle swizzle);
[[nodiscard]] QString tensorMapModeName(TensorMapMode m);               ///< "tiled", "im2col"
[[nodiscard]] QString tensorMapInterleaveName(TensorMapInterleave i);   ///< "none", "16B", "32B"
[[nodiscard]] QString tensorMapSwizzleName(TensorMapSwizzle s);         ///< "128B_atom_32B" ...
[[nodiscard]] QString tensorMapL2PromotionName(TensorMapL2Promotion p); ///< "none", "64B" ...
[[nodiscard]] QString tensorMapOobFillName(TensorMapOobFill f); ///< "none", "nanRequestZeroFma"
[[nodiscard]] QStringList tensorMapModeNames();
[[nodiscard]] QStringList tensorMapInterleaveNames();
[[nodiscard]] QStringList tensorMapSwizzleNames();
[[nodiscard]] QStringList tensorMapL2PromotionNames();
[[nodiscard]] QStringList tensorMapOobFillNames();

/// The CUtensorMapDataType value for a buffer of `type`, nullopt for a type TMA does not
/// move (bool, int8, int16, complex).
[[nodiscard]] std::optional<int> tensorMapDataType(ScalarType type);
/// The element types a tensor map takes, for messages: "uint8, uint16, ...".
[[nodiscard]] QString tensorMapElementTypeNames();

/// A tensor map with every expression evaluated: what the encode call takes.
struct ResolvedTensorMap {
    int bufferIndex = -1; ///< the buffer's argument index
    ScalarType element = ScalarType::Float32;
    int dataType = 0; ///< CUtensorMapDataType
    int rank = 1;
    std::array<quint64, kTensorMapMaxRank> globalDims{};
    std::array<quint64, kTensorMapMaxRank - 1> globalStrides{};
};

/// Evaluates the map of `arg` (a tensorMap argument) against `args`: its buffer, the element
/// type, the dims and strides, and checks every rule that needs them (dims 1 to 2^32, strides
/// multiples of 16 below 2^40, the mapped extent inside the buffer). The error names the
/// argument and the field ("tensor map 'tmap': globalStrides[0]: 100 bytes is not a multiple
/// of 16 (the driver's rule)").
[[nodiscard]] std::optional<ResolvedTensorMap>
resolveTensorMap(const ArgumentSpec& arg, const QVector<ArgumentSpec>& args, QString* error);

/// The driver's rule on the buffer's device address: 16-byte aligned, 32 with interleave 32B.
[[nodiscard]] QString tensorMapAddressProblem(const TensorMapSpec& spec, quint64 address);

/// "tensor map 'tmap'": how messages name the argument.
[[nodiscard]] QString tensorMapLabel(const ArgumentSpec& arg);
/// A 1-D tensor map named `name` over the buffer argument `buffer`.
[[nodiscard]] ArgumentSpec makeTensorMapArgument(const QString& name, const QString& buffer);
/// {"name", "kind": "tensorMap", "tensorMap": {...}}
[[nodiscard]] QJsonObject tensorMapArgumentToJson(const ArgumentSpec& arg);
[[nodiscard]] std::optional<ArgumentSpec>
tensorMapArgumentFromJson(const QString& name, const QJsonObject& json, QString* error);

} // namespace kernelpad
