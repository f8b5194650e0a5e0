#pragma once
// Helpers of core/launch: reading and writing one scalar element as raw bytes, float16
// conversion by hand (KernelPad's one float16 codec, also used by core/verify), and number
// parsing/formatting shared by packing, buffer initialisation and the .npy code.

#include "core/launch/ValueType.h"

#include <QString>
#include <QtGlobal>

#include <optional>

namespace kernelpad::detail {

/// IEEE 754 binary16 bits of `value`, rounded to nearest, ties to even (overflow -> inf).
[[nodiscard]] quint16 doubleToHalfBits(double value);
/// The exact value of binary16 `bits`.
[[nodiscard]] double halfBitsToDouble(quint16 bits);

/// A float4_e2m1x2 byte: `low` rounded into the low nibble (the .x of __nv_fp4x2_e2m1),
/// `high` into the high one.
[[nodiscard]] quint8 packFp4x2(double low, double high);
/// Value `index` (0: low nibble, 1: high nibble) of a float4_e2m1x2 byte.
[[nodiscard]] double fp4x2Component(quint8 byte, int index);

/// Writes `re` (and `im` for complex types and the high nibble of float4_e2m1x2) as `type` at `dst`
/// (unaligned). Integers are converted with a saturating cast of the value rounded to nearest; bool
/// is `re != 0`.
void storeScalar(ScalarType type, double re, double im, char* dst);
/// The value at `src` (unaligned) as a double; the imaginary part goes to `im` when given.
[[nodiscard]] double loadScalar(ScalarType type, const char* src, double* im = nullptr);
/// The element at `src` formatted for display: shortest text that reads back to the same
/// value ("0.1", "-3", "true", "(1, -2)").
[[nodiscard]] QString formatScalar(ScalarType type, const char* src);

/// An integer literal: optional sign, decimal or 0x hex digits. `magnitude` gets the absolute
/// value; nullopt-like false when the text is not an integer or exceeds 64 bits (`overflow`).
struct ParsedInteger {
    bool negative = false;
    quint64 magnitude = 0;
};
[[nodiscard]] std::optional<ParsedInteger> parseIntegerLiteral(const QString& text,
                                                               bool* overflow = nullptr);
/// A floating-point literal in the C locale ("2.5", "-1e-3", "inf", "nan").
[[nodiscard]] std::optional<double> parseDouble(const QString& text);

/// The size of one ulp of `type` at `value`: the spacing of the type's numbers between
/// |value| and the next larger one (subnormal spacing near zero; complex types by their
/// component type; 1 for bool and the integers).
[[nodiscard]] double ulpOf(ScalarType type, double value);

/// True when a low-precision `type` cannot hold finite `value` (MiniFloat's miniOverflows);
/// false for every other type.
[[nodiscard]] bool lowPrecisionOverflows(ScalarType type, double value);

/// True for bool and the integer types.
[[nodiscard]] bool isIntegerType(ScalarType type);
/// Range of an integer type as doubles (bool: 0..1).
void integerRange(ScalarType type, double* lowest, double* highest);

} // namespace kernelpad::detail
