#pragma once
// The "special" init pattern's values (BufferInit.h, specialRateKey()): the special values of
// each scalar type, and their replacement of uniform contents on the host.

#include "core/launch/ArgumentSpec.h"

#include <QVector>

namespace kernelpad {

/// The special values of one component of scalar `type` (a complex number's part, a
/// float4_e2m1x2 nibble) as raw little-endian bits. Floats: NaN, +Inf, -Inf, -0, the smallest
/// denormal and its negative, the largest denormal, the smallest normal, the largest finite and
/// its negative. float8_e4m3 has no infinity (NaN, -0, denormals, normal, +-448); float4_e2m1
/// has neither NaN nor infinity (+-6, +-0.5, -0). Integers: min, max, 0, -1 (unsigned: 0, max).
/// Empty for bool, which has none.
[[nodiscard]] QVector<quint64> specialValueBits(ScalarType type);

/// Replaces the values of the uniform contents in `out` (`count` elements of `type`) that
/// "special" `init` chooses with special ones, as core/run/DeviceInit.cu does on the GPU.
void replaceWithSpecials(const InitSpec& init, ScalarType type, qint64 count, char* out);

} // namespace kernelpad
