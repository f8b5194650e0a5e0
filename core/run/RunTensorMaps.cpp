#include "core/run/RunTensorMaps.h"

#include "core/cuda/DriverApi.h"

#include <QStringList>

#include <algorithm>
#include <array>

namespace kernelpad {
namespace {

template <typename T, size_t N> QString tensorMapValues(const std::array<T, N>& values, int count) {
    QStringList parts;
    for (int i = 0; i < count; ++i)
        parts << QString::number(values[size_t(i)]);
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

QString tensorMapInts(const QVector<int>& values) {
    QStringList parts;
    for (int v : values)
        parts << QString::number(v);
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

QString tensorMapResultName(CUresult result) {
    const char* name = nullptr;
    if (DriverApi::get().cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
        return QString::fromUtf8(name);
    return QStringLiteral("CUresult %1").arg(int(result));
}

/// The driver's call for one map; the CUresult as it returned.
CUresult encode(const TensorMapSpec& spec, const ResolvedTensorMap& map, quint64 address,
                CUtensorMap* out) {
    std::array<cuuint32_t, kTensorMapMaxRank> elementStrides{};
    std::array<cuuint64_t, kTensorMapMaxRank> dims{};
    std::array<cuuint64_t, kTensorMapMaxRank - 1> strides{};
    for (int i = 0; i < map.rank; ++i) {
        elementStrides[size_t(i)] = cuuint32_t(spec.elementStrides.at(i));
        dims[size_t(i)] = cuuint64_t(map.globalDims[size_t(i)]);
        if (i + 1 < map.rank)
            strides[size_t(i)] = cuuint64_t(map.globalStrides[size_t(i)]);
    }
    const auto dataType = CUtensorMapDataType(map.dataType);
    const auto interleave = CUtensorMapInterleave(spec.interleave);
    const auto swizzle = CUtensorMapSwizzle(spec.swizzle);
    const auto promotion = CUtensorMapL2promotion(spec.l2Promotion);
    const auto fill = CUtensorMapFloatOOBfill(spec.oobFill);
    // The encode functions take a non-const pointer to the global memory they describe.
    void* global = reinterpret_cast<void*>(address);
    const DriverApi& api = DriverApi::get();
    if (spec.mode == TensorMapMode::Tiled) {
        std::array<cuuint32_t, kTensorMapMaxRank> box{};
        for (int i = 0; i < map.rank; ++i)
            box[size_t(i)] = cuuint32_t(spec.boxDims.at(i));
        return api.cuTensorMapEncodeTiled(out, dataType, cuuint32_t(map.rank), global, dims.data(),
                                          strides.data(), box.data(), elementStrides.data(),
                                          interleave, swizzle, promotion, fill);
    }
    return api.cuTensorMapEncodeIm2col(
        out, dataType, cuuint32_t(map.rank), global, dims.data(), strides.data(),
        spec.lowerCorner.constData(), spec.upperCorner.constData(),
        cuuint32_t(spec.channelsPerPixel), cuuint32_t(spec.pixelsPerColumn), elementStrides.data(),
        interleave, swizzle, promotion, fill);
}

} // namespace

// The enums of TensorMapSpec.h are cast to the driver's: they must list the same values.
static_assert(int(TensorMapSwizzle::B128Atom64) == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B);
static_assert(int(TensorMapInterleave::B32) == CU_TENSOR_MAP_INTERLEAVE_32B);
static_assert(int(TensorMapL2Promotion::B256) == CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
static_assert(int(TensorMapOobFill::NanRequestZeroFma) ==
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
// CUDA 13's cuda.h aligns the host struct to 128 bytes; the encode calls need 64.
static_assert(sizeof(CUtensorMap) == kTensorMapBytes &&
              alignof(CUtensorMap) >= kTensorMapAlignBytes);

bool hasTensorMaps(const QVector<ArgumentSpec>& args) {
    return std::any_of(args.cbegin(), args.cend(),
                       [](const ArgumentSpec& a) { return a.isTensorMap(); });
}

QString describeTensorMap(const TensorMapSpec& spec, const ResolvedTensorMap& resolved) {
    QString text = QStringLiteral("%1 %2, dims %3, strides %4 B")
                       .arg(tensorMapModeName(spec.mode),
                            QLatin1String(scalarTypeInfo(resolved.element).numpyName),
                            tensorMapValues(resolved.globalDims, resolved.rank),
                            tensorMapValues(resolved.globalStrides, resolved.rank - 1));
    if (spec.mode == TensorMapMode::Tiled)
        text += QStringLiteral(", box %1").arg(tensorMapInts(spec.boxDims));
    else
        text += QStringLiteral(", corners %1 to %2, %3 channels per pixel, %4 pixels per column")
                    .arg(tensorMapInts(spec.lowerCorner), tensorMapInts(spec.upperCorner))
                    .arg(spec.channelsPerPixel)
                    .arg(spec.pixelsPerColumn);
    return text +
           QStringLiteral(", element strides %1, interleave %2, swizzle %3, L2 promotion "
                          "%4, OOB fill %5")
               .arg(tensorMapInts(spec.elementStrides), tensorMapInterleaveName(spec.interleave),
                    tensorMapSwizzleName(spec.swizzle), tensorMapL2PromotionName(spec.l2Promotion),
                    tensorMapOobFillName(spec.oobFill));
}

std::optional<QVector<QByteArray>> encodeTensorMaps(const QVector<ArgumentSpec>& args,
                                                    const QVector<quint64>& addresses,
                                                    QString* error) {
    QVector<QByteArray> maps(args.size());
    for (int i = 0; i < args.size(); ++i) {
        const ArgumentSpec& arg = args[i];
        if (!arg.isTensorMap())
            continue;
        const std::optional<ResolvedTensorMap> map = resolveTensorMap(arg, args, error);
        if (!map)
            return std::nullopt;
        const quint64 address = addresses.value(map->bufferIndex);
        if (const QString p = tensorMapAddressProblem(arg.tensorMap, address); !p.isEmpty()) {
            *error = QStringLiteral("%1: %2").arg(tensorMapLabel(arg), p);
            return std::nullopt;
        }
        CUtensorMap encoded{};
        const CUresult result = encode(arg.tensorMap, *map, address, &encoded);
        if (result != CUDA_SUCCESS) {
            *error = QStringLiteral("%1: %2 returned %3 for %4")
                         .arg(tensorMapLabel(arg),
                              arg.tensorMap.mode == TensorMapMode::Tiled
                                  ? QStringLiteral("cuTensorMapEncodeTiled")
                                  : QStringLiteral("cuTensorMapEncodeIm2col"),
                              tensorMapResultName(result), describeTensorMap(arg.tensorMap, *map));
            return std::nullopt;
        }
        maps[i] = QByteArray(reinterpret_cast<const char*>(&encoded), sizeof(encoded));
    }
    return maps;
}

} // namespace kernelpad
