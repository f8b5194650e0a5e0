#pragma once
// The tensor maps of one run: each tensorMap argument encoded with cuTensorMapEncodeTiled or
// cuTensorMapEncodeIm2col over its buffer's device address, after the buffers are made, and
// passed to the kernel by value (128 bytes).

#include "core/launch/ArgumentSpec.h"

#include <QByteArray>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// The 128-byte CUtensorMap of every tensorMap argument of `args`, by argument index (empty
/// for the other arguments), over the device addresses of their buffers in `addresses` (by
/// argument index, as PackedArgs::pack takes them). Nothing, with the sentence in `error`,
/// when a map breaks a rule (checked before the driver is asked) or the driver refuses it:
/// the argument, the call, the CUresult's name and the map's fields.
[[nodiscard]] std::optional<QVector<QByteArray>> encodeTensorMaps(const QVector<ArgumentSpec>& args,
                                                                  const QVector<quint64>& addresses,
                                                                  QString* error);

/// Whether `args` hold a tensor map.
[[nodiscard]] bool hasTensorMaps(const QVector<ArgumentSpec>& args);

/// "float32, dims [64, 32], strides [256] B, box [32, 8], swizzle 128B": the map's fields
/// for messages.
[[nodiscard]] QString describeTensorMap(const TensorMapSpec& spec,
                                        const ResolvedTensorMap& resolved);

} // namespace kernelpad
