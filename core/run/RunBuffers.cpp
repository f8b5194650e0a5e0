#include "core/run/RunBuffers.h"

#include "core/cuda/CudaError.h"
#include "core/launch/BufferInit.h"
#include "core/launch/Packing.h"
#include "core/run/RunTypes.h"

namespace kernelpad {

std::optional<std::vector<RunBuffer>> prepareBuffers(const QVector<ArgumentSpec>& args,
                                                 const QString& baseDir, QString* error)
{
    std::vector<RunBuffer> buffers;
    for (int i = 0; i < args.size(); ++i) {
        const ArgumentSpec& a = args[i];
        if (!a.isBuffer())
            continue;
        QString why;
        const std::optional<qint64> count = resolveCount(a.buffer.count, args, &why);
        if (!count) {
            *error = QStringLiteral("buffer '%1': %2").arg(a.name, why);
            return std::nullopt;
        }
        RunBuffer b;
        b.argIndex = i;
        b.name = a.name;
        b.type = a.buffer.elementType;
        b.count = *count;
        b.bytes = *count * b.type.sizeBytes();
        b.direction = a.buffer.direction;
        b.verify = a.buffer.verify;
        if (b.bytes > kMaxBufferBytes) {
            *error = QStringLiteral("buffer '%1': %2 elements of %3 bytes need %4, more than the "
                                    "%5 KernelPad allows for one buffer")
                         .arg(a.name)
                         .arg(b.count)
                         .arg(b.type.sizeBytes())
                         .arg(formatBytes(b.bytes), formatBytes(kMaxBufferBytes));
            return std::nullopt;
        }
        if (b.direction != Direction::Out) {
            std::optional<QByteArray> contents = makeBufferContents(a.buffer, b.count, baseDir, &why);
            if (!contents) {
                *error = QStringLiteral("buffer '%1': %2").arg(a.name, why);
                return std::nullopt;
            }
            b.initial = std::move(*contents);
        }
        buffers.push_back(std::move(b));
    }
    return buffers;
}

QHash<QString, double> scalarValues(const QVector<ArgumentSpec>& args)
{
    QHash<QString, double> values;
    for (const ArgumentSpec& a : args) {
        if (a.isBuffer() || a.type.isStruct())
            continue;
        QString ignored;
        if (const std::optional<QByteArray> bytes = packValue(a.type, a.value, &ignored))
            values.insert(a.name, elementAsDouble(a.type, bytes->constData(), 0));
    }
    return values;
}

qint64 bytesMoved(const std::vector<RunBuffer>& buffers)
{
    qint64 total = 0;
    for (const RunBuffer& b : buffers)
        total += b.direction == Direction::InOut ? 2 * b.bytes : b.bytes;
    return total;
}

void uploadBuffers(std::vector<RunBuffer>& buffers, const Stream& stream, const QString& labelPrefix)
{
    for (RunBuffer& b : buffers) {
        b.device = DeviceBuffer(b.bytes, QStringLiteral("%1buffer '%2'").arg(labelPrefix, b.name));
        if (b.direction == Direction::Out)
            b.device.fillBytesAsync(kPoisonByte, stream);
        else
            b.device.uploadAsync(b.initial.constData(), b.initial.size(), stream);
    }
}

QVector<quint64> bufferAddresses(const std::vector<RunBuffer>& buffers, int argCount)
{
    QVector<quint64> addresses(argCount, 0);
    for (const RunBuffer& b : buffers)
        addresses[b.argIndex] = quint64(b.device.address());
    return addresses;
}

} // namespace kernelpad
