#pragma once
// The buffers of one run on the host and the device, and the scalar values of its
// arguments: everything the launch and the verification read.

#include "core/cuda/DeviceBuffer.h"
#include "core/launch/ArgumentSpec.h"
#include "core/run/DeviceInit.h"
#include "core/verify/GuardCheck.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QVector>

#include <optional>
#include <vector>

namespace kernelpad {

/// Everything that decides a buffer's device memory and its contents before the launch.
/// Two runs with equal keys for an "in" buffer need no upload in the second.
struct BufferContentKey {
    QString name;
    QByteArray type; ///< the element type's JSON (scalar, complex, struct layout)
    qint64 count = 0;
    qint64 bytes = 0;
    Direction direction = Direction::In;
    QByteArray init;       ///< the InitSpec's JSON: kind, values, seed, path
    bool fromFile = false; ///< initialised from a .npy file
    /// File init: the .npy's size and modification time (-1: none, or unreadable).
    qint64 fileBytes = -1;
    qint64 fileModifiedMs = -1;

    friend bool operator==(const BufferContentKey& a, const BufferContentKey& b);
    friend bool operator!=(const BufferContentKey& a, const BufferContentKey& b) {
        return !(a == b);
    }
};

/// The key of buffer argument `arg` with `count` elements; `baseDir` resolves .npy paths.
[[nodiscard]] BufferContentKey bufferContentKey(const ArgumentSpec& arg, qint64 count,
                                                const QString& baseDir);

/// What a run may keep of the previous run's buffer with the same name.
enum class BufferReuse {
    Fresh,    ///< allocate and initialise
    Memory,   ///< same size: keep the allocation, initialise it again
    Contents, ///< an unchanged "in" buffer: keep the allocation and its contents, no upload
};

/// The decision for one buffer (`previous` null: no such buffer last run). Only "in"
/// buffers keep their contents: the kernel is declared not to write them (a kernel that
/// writes an "in" buffer anyway breaks that promise, as it would break any caller's);
/// out and inout buffers are always initialised again. File-initialised buffers keep their
/// contents only while the file's size and modification time are unchanged.
[[nodiscard]] BufferReuse decideReuse(const BufferContentKey* previous,
                                      const BufferContentKey& next);

/// One buffer argument: its resolved size, initial contents and device memory.
struct RunBuffer {
    int argIndex = -1;
    QString name;
    ValueType type;
    qint64 count = 0;
    qint64 bytes = 0;
    Direction direction = Direction::In;
    VerifySpec verify;
    /// Host contents before the launch (empty for "out" buffers, and until hostContents()
    /// makes them for contents generated on the GPU).
    mutable QByteArray initial;
    /// Contents the GPU generates from this spec (DeviceInit.h) instead of an upload.
    std::optional<BufferSpec> deviceGenerated;
    /// True when the buffer has contents before the launch (in and inout buffers).
    [[nodiscard]] bool hasInitialContents() const {
        return !initial.isEmpty() || deviceGenerated.has_value();
    }
    /// The contents before the launch on the host: `initial`, made now with the host's
    /// generator (the same values) when the GPU generated them.
    const QByteArray& hostContents() const;
    DeviceBuffer device;
    BufferContentKey key;
    BufferReuse reuse = BufferReuse::Fresh; ///< decided against the previous run's buffers
};

/// What uploadBuffers() kept from the previous run.
struct BufferUploadStats {
    int reused = 0;         ///< allocations kept
    int uploadsSkipped = 0; ///< "in" buffers whose contents were already on the device
    qint64 bytesSkipped = 0;
    qint64 bytesUploaded = 0;
};

/// Host-side preparation of all buffers (counts, sizes, contents); no device memory yet.
/// The error names the argument. With the `previous` run's buffers, each buffer's reuse is
/// decided, and an unchanged "in" buffer shares the previous host contents instead of
/// generating them again.
[[nodiscard]] std::optional<std::vector<RunBuffer>>
prepareBuffers(const QVector<ArgumentSpec>& args, const QString& baseDir, QString* error,
               const std::vector<RunBuffer>* previous = nullptr, bool generateOnDevice = false);

/// "in" buffers of at least this many elements whose contents the GPU can generate are
/// generated there when prepareBuffers() is asked to: below it the host is as fast.
inline constexpr qint64 kDeviceInitMinElements = qint64(1) << 20;

/// Moves the device memory of `previous` buffers that `next` reuses into `next`, then frees
/// the rest of `previous`. Returns the bytes `next` still has to allocate.
qint64 adoptBuffers(std::vector<RunBuffer>& next, std::vector<RunBuffer>& previous);

/// The numeric value of every scalar (non-struct) argument, for expressions.
[[nodiscard]] QHash<QString, double> scalarValues(const QVector<ArgumentSpec>& args);

/// Bytes one launch reads and writes: in = read, out = written, inout = both.
[[nodiscard]] qint64 bytesMoved(const std::vector<RunBuffer>& buffers);

/// Allocates device memory for every buffer that has none, with `guardBytes` of canary on
/// each side (core/verify/GuardCheck.h; 0: none, as under compute-sanitizer, whose own bounds
/// check the guards would hide), uploads the initial contents of in/inout buffers (except those
/// whose reuse is Contents), fills "out" buffers with kPoisonByte and every guard with
/// kGuardByte.
BufferUploadStats uploadBuffers(std::vector<RunBuffer>& buffers, const Stream& stream,
                                const QString& labelPrefix, const DeviceInit* init = nullptr,
                                qint64 guardBytes = 0);

/// Reads back the guards of every buffer that has them (two small copies each, then one
/// synchronisation) and returns the buffers written outside their bounds, in argument order.
[[nodiscard]] QVector<GuardFinding> checkBufferGuards(const std::vector<RunBuffer>& buffers,
                                                      const Stream& stream);

/// The device addresses in argument order (0 for scalars), for PackedArgs::pack.
[[nodiscard]] QVector<quint64> bufferAddresses(const std::vector<RunBuffer>& buffers, int argCount);

} // namespace kernelpad
