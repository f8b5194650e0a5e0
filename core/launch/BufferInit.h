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
