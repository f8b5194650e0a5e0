#include "core/run/RunBuffers.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"
#include "core/launch/BufferInit.h"
#include "core/launch/Packing.h"
#include "core/run/RunTypes.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>

namespace kernelpad {
namespace {

const RunBuffer* findByName(const std::vector<RunBuffer>* buffers, const QString& name) {
    if (!buffers)
        return nullptr;
    for (const RunBuffer& b : *buffers)
        if (b.name == name)
            return &b;
    return nullptr;
}

/// Sets both guards of `device` to kGuardByte: on every run, since a reused allocation keeps
/// whatever the last run's kernel wrote into them.
void fillGuards(const DeviceBuffer& device, const Stream& stream) {
    const qint64 guard = device.guardBytes();
    if (guard <= 0 || device.address() == 0)
        return;
    const DriverApi& api = DriverApi::get();
    const CUdeviceptr start = device.address();
    const QString what = QStringLiteral("filling the guard bytes of a buffer");
    check(
        api.cuMemsetD8Async(start - CUdeviceptr(guard), kGuardByte, size_t(guard), stream.handle()),
        what);
    check(api.cuMemsetD8Async(start + CUdeviceptr(device.sizeBytes()), kGuardByte, size_t(guard),
                              stream.handle()),
          what);
}

} // namespace

bool operator==(const BufferContentKey& a, const BufferContentKey& b) {
    return a.name == b.name && a.type == b.type && a.count == b.count && a.bytes == b.bytes &&
           a.direction == b.direction && a.init == b.init && a.fromFile == b.fromFile &&
           a.fileBytes == b.fileBytes && a.fileModifiedMs == b.fileModifiedMs;
}

BufferContentKey bufferContentKey(const ArgumentSpec& arg, qint64 count, const QString& baseDir) {
    BufferContentKey k;
    k.name = arg.name;
    k.type = QJsonDocument(arg.buffer.elementType.toJson()).toJson(QJsonDocument::Compact);
    k.count = count;
    k.bytes = count * arg.buffer.elementType.sizeBytes();
    k.direction = arg.buffer.direction;
    k.init = QJsonDocument(arg.buffer.init.toJson()).toJson(QJsonDocument::Compact);
    k.fromFile = arg.buffer.init.kind == InitSpec::Kind::File;
    if (k.fromFile) {
        const QFileInfo info(QDir(baseDir).absoluteFilePath(arg.buffer.init.path));
        if (info.isFile()) {
            k.fileBytes = info.size();
            k.fileModifiedMs = info.lastModified().toMSecsSinceEpoch();
        }
    }
    return k;
}

BufferReuse decideReuse(const BufferContentKey* previous, const BufferContentKey& next) {
    if (!previous || previous->bytes != next.bytes)
        return BufferReuse::Fresh;
    // An unreadable file has no stamp: never trust contents we cannot tie to it.
    const bool fileKnown = !next.fromFile || (next.fileBytes >= 0 && next.fileModifiedMs >= 0);
    if (next.direction == Direction::In && *previous == next && fileKnown)
        return BufferReuse::Contents;
    return BufferReuse::Memory;
}

std::optional<std::vector<RunBuffer>> prepareBuffers(const QVector<ArgumentSpec>& args,
                                                     const QString& baseDir, QString* error,
                                                     const std::vector<RunBuffer>* previous,
                                                     bool generateOnDevice) {
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
        b.key = bufferContentKey(a, b.count, baseDir);
        const RunBuffer* before = findByName(previous, b.name);
        b.reuse = decideReuse(before ? &before->key : nullptr, b.key);
        if (b.reuse == BufferReuse::Contents &&
            (before->initial.size() == b.bytes || before->deviceGenerated)) {
            b.initial = before->initial; // implicitly shared: no generation, no copy
            b.deviceGenerated = before->deviceGenerated;
        } else if (generateOnDevice && b.direction == Direction::In &&
                   b.count >= kDeviceInitMinElements && deviceCanGenerate(a.buffer)) {
            if (b.reuse == BufferReuse::Contents)
                b.reuse = BufferReuse::Memory;
            b.deviceGenerated = a.buffer;
        } else if (b.direction != Direction::Out) {
            if (b.reuse == BufferReuse::Contents)
                b.reuse = BufferReuse::Memory;
            std::optional<QByteArray> contents =
                makeBufferContents(a.buffer, b.count, baseDir, &why);
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

QHash<QString, double> scalarValues(const QVector<ArgumentSpec>& args) {
    QHash<QString, double> values;
    for (const ArgumentSpec& a : args) {
        if (!a.isScalar() || a.type.isStruct())
            continue;
        QString ignored;
        if (const std::optional<QByteArray> bytes = packValue(a.type, a.value, &ignored))
            values.insert(a.name, elementAsDouble(a.type, bytes->constData(), 0));
    }
    return values;
}

qint64 bytesMoved(const std::vector<RunBuffer>& buffers) {
    qint64 total = 0;
    for (const RunBuffer& b : buffers)
        total += b.direction == Direction::InOut ? 2 * b.bytes : b.bytes;
    return total;
}

qint64 adoptBuffers(std::vector<RunBuffer>& next, std::vector<RunBuffer>& previous) {
    qint64 toAllocate = 0;
    for (RunBuffer& b : next) {
        RunBuffer* before = const_cast<RunBuffer*>(findByName(&previous, b.name));
        if (b.reuse != BufferReuse::Fresh && before && before->device.sizeBytes() == b.bytes &&
            (b.bytes == 0 || before->device.address() != 0)) {
            b.device = std::move(before->device);
        } else {
            b.reuse = BufferReuse::Fresh;
            toAllocate += b.bytes;
        }
    }
    previous.clear(); // frees what was not adopted before the new allocations
    return toAllocate;
}

const QByteArray& RunBuffer::hostContents() const {
    if (initial.isEmpty() && deviceGenerated) {
        QString why;
        std::optional<QByteArray> contents = makeBufferContents(*deviceGenerated, count, {}, &why);
        if (contents)
            initial = std::move(*contents);
    }
    return initial;
}

BufferUploadStats uploadBuffers(std::vector<RunBuffer>& buffers, const Stream& stream,
                                const QString& labelPrefix, const DeviceInit* init,
                                qint64 guardBytes) {
    BufferUploadStats stats;
    for (RunBuffer& b : buffers) {
        if (b.reuse != BufferReuse::Fresh && b.device.sizeBytes() == b.bytes &&
            b.device.guardBytes() == guardBytes && (b.bytes == 0 || b.device.address() != 0)) {
            ++stats.reused;
        } else {
            b.reuse = BufferReuse::Fresh;
            b.device = DeviceBuffer(b.bytes, guardBytes,
                                    QStringLiteral("%1buffer '%2'").arg(labelPrefix, b.name));
        }
        fillGuards(b.device, stream);
        if (b.reuse == BufferReuse::Contents) {
            ++stats.uploadsSkipped;
            stats.bytesSkipped += b.bytes;
        } else if (b.direction == Direction::Out) {
            b.device.fillBytesAsync(kPoisonByte, stream);
        } else if (b.deviceGenerated && init && init->ready()) {
            init->generate(*b.deviceGenerated, b.count, b.device, stream);
        } else {
            (void)b.hostContents();
            b.device.uploadAsync(b.initial.constData(), b.initial.size(), stream);
            stats.bytesUploaded += b.initial.size();
        }
    }
    return stats;
}

QVector<GuardFinding> checkBufferGuards(const std::vector<RunBuffer>& buffers,
                                        const Stream& stream) {
    struct Read {
        const RunBuffer* buffer;
        QByteArray before, after;
    };
    std::vector<Read> reads;
    const DriverApi& api = DriverApi::get();
    for (const RunBuffer& b : buffers) {
        const qint64 guard = b.device.guardBytes();
        if (guard <= 0 || b.device.address() == 0)
            continue;
        Read r{&b, QByteArray(qsizetype(guard), Qt::Uninitialized),
               QByteArray(qsizetype(guard), Qt::Uninitialized)};
        const CUdeviceptr start = b.device.address();
        const QString what = QStringLiteral("reading the guard bytes of buffer '%1'").arg(b.name);
        check(api.cuMemcpyDtoHAsync(r.before.data(), start - CUdeviceptr(guard), size_t(guard),
                                    stream.handle()),
              what);
        check(api.cuMemcpyDtoHAsync(r.after.data(), start + CUdeviceptr(b.device.sizeBytes()),
                                    size_t(guard), stream.handle()),
              what);
        reads.push_back(std::move(r));
    }
    QVector<GuardFinding> found;
    if (reads.empty())
        return found;
    stream.synchronize(QStringLiteral("reading the buffers' guard bytes"));
    for (const Read& r : reads)
        if (std::optional<GuardFinding> f = findGuardWrites(
                r.buffer->name, r.buffer->count, r.buffer->type.sizeBytes(), r.before, r.after))
            found.push_back(std::move(*f));
    return found;
}

QVector<quint64> bufferAddresses(const std::vector<RunBuffer>& buffers, int argCount) {
    QVector<quint64> addresses(argCount, 0);
    for (const RunBuffer& b : buffers)
        addresses[b.argIndex] = quint64(b.device.address());
    return addresses;
}

} // namespace kernelpad
