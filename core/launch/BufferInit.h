#pragma once
// Element counts and initial contents of buffers, made on the host.

#include "core/launch/ArgumentSpec.h"

#include <QByteArray>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// Largest buffer KernelPad will create on the host, in bytes (16 GiB): a typo like
/// "n*n*n" must become a message, not an out-of-memory kill.
inline constexpr qint64 kMaxBufferBytes = qint64(16) << 30;

/// Evaluates a buffer's count: an integer or an expression over integer scalar arguments
/// of `args` ("n", "n*2", "rows*cols"). The error names the buffer and what is wrong.
[[nodiscard]] std::optional<qint64> resolveCount(const QString& countText,
                                                 const QVector<ArgumentSpec>& args, QString* error);

/// The element count a 1-D launch should cover: the largest count among the buffers (the
/// input of a reduction, not its n/256 partial sums), else the first integer scalar; 0 when
/// neither is known.
[[nodiscard]] qint64 elementsToCover(const QVector<ArgumentSpec>& args);

/// The counter-based generator of "uniform" contents (splitmix64's finaliser, applied twice):
/// randomKey(seed) once per buffer, then draw k's 64 bits are randomBits(key, k), so element
/// i's value depends on (seed, i) alone and the GPU (core/run/DeviceInit.cu) computes the same
/// bits. A real element i is low + unitFromBits(randomBits(key, i)) * (high - low) (a value
/// that rounds to `high` becomes the largest double below it), then rounded to its type;
/// a complex element takes draws 2i and 2i + 1; an integer element the floor of the real draw
/// (at least ceil(low)); a bool the top bit of draw i.
[[nodiscard]] constexpr quint64 splitmix64Finalise(quint64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
[[nodiscard]] constexpr quint64 randomKey(quint64 seed) {
    return splitmix64Finalise(seed ^ 0x6A09E667F3BCC909ULL);
}
[[nodiscard]] constexpr quint64 randomBits(quint64 key, quint64 draw) {
    return splitmix64Finalise(key + (draw + 1) * 0x9E3779B97F4A7C15ULL);
}
/// [0, 1) with the top 53 bits of `bits`.
[[nodiscard]] constexpr double unitFromBits(quint64 bits) {
    return double(bits >> 11) * 0x1.0p-53;
}

/// "normal" contents are counter-based too: element i is mean + stddev * normalFromBits(
/// randomBits(key, i)) (each operation rounded once), then rounded to its type as any value
/// is (integers: nearest, saturated; complex: draws 2i and 2i + 1). normalFromBits takes p =
/// (2k + 1) / 2^53 from the top 52 bits k (so p is never 0 or 1, and 1 - p is exact) and
/// returns the inverse normal CDF at p by Wichura's AS241 (Applied Statistics 37(3), 1988;
/// relative error about 1e-16), the tails' log(p) computed from p's exponent and an atanh
/// series. Every step is +, -, *, / or sqrt in double, which IEEE 754 rounds correctly
/// everywhere, so the GPU (core/run/DeviceInit.cu, with the same constants) computes the same
/// bits; Box-Muller would need log, sin and cos, whose last bits differ between libraries,
/// and a sum of 12 uniforms ends at 6 sigma and is several percent off at 3.
/// The draws reach +-8.21 (p = 2^-53).
[[nodiscard]] double normalFromBits(quint64 bits);
/// log(x) of a positive normal double from +, -, *, / only (an exponent and an atanh series,
/// relative error below 1e-15): the one log normalFromBits uses.
[[nodiscard]] double portableLog(double x);

/// "special" contents: the "uniform" contents of the same seed, low and high, then each value
/// d (element i, or component 2i and 2i + 1 of a complex or float4_e2m1x2 element, as uniform
/// draws them) with unitFromBits(randomBits(specialRateKey(seed), d)) < rate is replaced by
/// entry randomBits(specialPickKey(seed), d) % size of specialValueBits(). Integer operations
/// and one exact comparison: core/run/DeviceInit.cu replaces the same values.
[[nodiscard]] constexpr quint64 specialRateKey(quint64 seed) {
    return splitmix64Finalise(randomKey(seed) ^ 0xD1B54A32D192ED03ULL);
}
[[nodiscard]] constexpr quint64 specialPickKey(quint64 seed) {
    return splitmix64Finalise(randomKey(seed) ^ 0x8CB92BA72F3D8DD7ULL);
}
/// Why `init` cannot fill elements of scalar `type`, empty when it can: a "uniform" range
/// whose integer bounds do not fit an integer type or that holds no integer, a "constant"
/// or "iota" that is not an exact integer of it. The names the messages give are the init's.
[[nodiscard]] QString initProblemForType(const InitSpec& init, ScalarType type, qint64 count);

/// The initial contents of a buffer of `count` elements, as raw bytes. Random contents are
/// deterministic for a seed. File contents come from a .npy file (relative to `baseDir`)
/// whose dtype and element count must match.
[[nodiscard]] std::optional<QByteArray> makeBufferContents(const BufferSpec& spec, qint64 count,
                                                           const QString& baseDir, QString* error);

/// The value of element `index` of a buffer of `type` as a double (real part for complex,
/// first field for structs); used by verification and the buffer viewer.
[[nodiscard]] double elementAsDouble(const ValueType& type, const char* data, qint64 index);
/// Element `index` formatted for display ("1.5", "(1, -2)", "{5, 2.5}").
[[nodiscard]] QString elementToString(const ValueType& type, const char* data, qint64 index);

} // namespace kernelpad
