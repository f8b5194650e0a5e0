#pragma once
// Host conversions of the low-precision float types (bfloat16, float8 e4m3/e5m2, float4 e2m1)
// that give the bits of the CUDA toolkit's constructors from float/double (cuda_bf16.h,
// cuda_fp8.h, cuda_fp4.h): one rounding to nearest, ties to even; bfloat16 overflows to inf,
// the fp8 and fp4 constructors saturate to the largest finite value (__NV_SATFINITE).

#include <QString>
#include <QtGlobal>

namespace kernelpad::detail {

/// Which low-precision format a bit pattern is in.
enum class MiniFormat { BFloat16, E4M3, E5M2, E2M1 };

/// The bits of `value` in `format` (an fp4 value in the low nibble). NaN gives the toolkit's
/// canonical NaN (bf16 0x7FFF, fp8 0x7F); fp4 has none and, as cuda_fp4.hpp, gives +6.
[[nodiscard]] quint16 doubleToMiniBits(MiniFormat format, double value);
/// The exact value of `bits` in `format` (NaN for the NaN encodings).
[[nodiscard]] double miniBitsToDouble(MiniFormat format, quint16 bits);
/// The shortest decimal text that reads back (through doubleToMiniBits) to `bits`.
[[nodiscard]] QString formatMiniBits(MiniFormat format, quint16 bits);
/// The distance between `value` and the next larger-magnitude number of `format` (the size
/// of one ulp at `value`; subnormal spacing below the smallest normal).
[[nodiscard]] double miniUlp(MiniFormat format, double value);
/// True when `value` is finite and more than half an ulp past the largest finite value:
/// bfloat16 rounds it to inf, the fp8 and fp4 types saturate it.
[[nodiscard]] bool miniOverflows(MiniFormat format, double value);
/// Number of bits of the format (16, 8 or 4).
[[nodiscard]] int miniBitWidth(MiniFormat format);

} // namespace kernelpad::detail
