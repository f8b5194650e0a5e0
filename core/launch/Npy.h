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
    ValueType type;         ///< scalar types only ("<f4", "|b1", "<c8", ...)
    QVector<qint64> shape;  ///< empty for a 0-d array
    QByteArray data;        ///< element count * type size bytes

    [[nodiscard]] qint64 elementCount() const;
};

/// Parses .npy bytes; the error says what is wrong (bad magic, Fortran order, big-endian,
/// unsupported dtype, truncated data).
[[nodiscard]] std::optional<NpyArray> parseNpy(const QByteArray& bytes, QString* error);
[[nodiscard]] std::optional<NpyArray> readNpy(const QString& path, QString* error);
[[nodiscard]] QByteArray serializeNpy(const NpyArray& array);
[[nodiscard]] bool writeNpy(const QString& path, const NpyArray& array, QString* error);

/// The NumPy dtype string of a scalar type ("<f4").
[[nodiscard]] QString npyDescr(ScalarType type);

} // namespace kernelpad
