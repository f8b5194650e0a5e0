#pragma once
// The buffers of one run on the host and the device, and the scalar values of its
// arguments: everything the launch and the verification read.

#include "core/cuda/DeviceBuffer.h"
#include "core/launch/ArgumentSpec.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QVector>

#include <optional>
#include <vector>

namespace kernelpad {

/// One buffer argument: its resolved size, initial contents and device memory.
struct RunBuffer {
    int argIndex = -1;
    QString name;
    ValueType type;
    qint64 count = 0;
    qint64 bytes = 0;
    Direction direction = Direction::In;
    VerifySpec verify;
    QByteArray initial; ///< host contents before the launch (empty for "out" buffers)
    DeviceBuffer device;
};

/// Host-side preparation of all buffers (counts, sizes, contents); no device memory yet.
/// The error names the argument.
[[nodiscard]] std::optional<std::vector<RunBuffer>> prepareBuffers(const QVector<ArgumentSpec>& args,
                                                               const QString& baseDir,
                                                               QString* error);

/// The numeric value of every scalar (non-struct) argument, for expressions.
[[nodiscard]] QHash<QString, double> scalarValues(const QVector<ArgumentSpec>& args);

/// Bytes one launch reads and writes: in = read, out = written, inout = both.
[[nodiscard]] qint64 bytesMoved(const std::vector<RunBuffer>& buffers);

/// Allocates device memory for every buffer, uploads the initial contents of in/inout
/// buffers and fills "out" buffers with kPoisonByte.
void uploadBuffers(std::vector<RunBuffer>& buffers, const Stream& stream, const QString& labelPrefix);

/// The device addresses in argument order (0 for scalars), for PackedArgs::pack.
[[nodiscard]] QVector<quint64> bufferAddresses(const std::vector<RunBuffer>& buffers, int argCount);

} // namespace kernelpad
