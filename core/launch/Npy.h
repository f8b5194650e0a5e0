#pragma once
// NumPy .npy files (format 1.0-3.0), little-endian, C order.

#include "core/launch/ValueType.h"

#include <QByteArray>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// The contents of a .npy file.
struct NpyArray {
    ValueType type;        ///< scalar types only ("<f4", "|b1", "<c8", ...)
    QVector<qint64> shape; ///< empty for a 0-d array
    QByteArray data;       ///< element count * type size bytes

    [[nodiscard]] qint64 elementCount() const;
};

/// What a .npy header says, known before any data is read.
struct NpyHeader {
    ValueType type;
    QString descr;           ///< as written ("<f4")
    QVector<qint64> shape;   ///< empty for a 0-d array
    qint64 dataOffset = 0;   ///< bytes before the data (magic, version, length, header)
    qint64 elementCount = 0; ///< product of the shape; -1 when its bytes pass 2^63
    qint64 dataBytes = 0;    ///< elementCount * type size; -1 when past 2^63
};

/// Parses the header at the start of `bytes`, which need not hold the data; the error says
/// what is wrong (bad magic, Fortran order, big-endian, unsupported dtype, truncated header).
[[nodiscard]] std::optional<NpyHeader> parseNpyHeader(const QByteArray& bytes, QString* error);

/// Parses .npy bytes; the error says what is wrong (bad magic, Fortran order, big-endian,
/// unsupported dtype, truncated data).
[[nodiscard]] std::optional<NpyArray> parseNpy(const QByteArray& bytes, QString* error);

/// What the caller knows a .npy file must hold; readNpy() checks it against the header
/// before a byte of data is read or allocated.
struct NpyExpectation {
    std::optional<qint64> elementCount; ///< the buffer's element count (nothing: any)
    std::optional<ValueType> type;      ///< the buffer's element type (nothing: any)
    /// How messages name the buffer ("the buffer", "buffer 'x'").
    QString what = QStringLiteral("the buffer");
    /// Data larger than this is refused; -1: kMaxBufferBytes.
    qint64 maxDataBytes = -1;
};

/// Reads a .npy file without trusting it: only a regular file is opened (without blocking,
/// so a FIFO is refused rather than waited on, and /dev/zero is refused by its type), the
/// header is read and validated first (at most 1 MiB of it), and the data's size from shape
/// and dtype is compared with `expected` and with the file's size before the data is read.
/// Errors name the file and, for a size mismatch, both sizes.
[[nodiscard]] std::optional<NpyArray> readNpy(const QString& path, const NpyExpectation& expected,
                                              QString* error);
/// readNpy() with no expectation but the size bound.
[[nodiscard]] std::optional<NpyArray> readNpy(const QString& path, QString* error);
[[nodiscard]] QByteArray serializeNpy(const NpyArray& array);
[[nodiscard]] bool writeNpy(const QString& path, const NpyArray& array, QString* error);

/// The NumPy dtype string of a scalar type ("<f4").
[[nodiscard]] QString npyDescr(ScalarType type);

} // namespace kernelpad
