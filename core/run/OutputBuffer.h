#pragma once
// An output buffer's contents after a run.

#include "core/launch/ValueType.h"

#include <QByteArray>
#include <QString>

namespace kernelpad {

/// An output buffer's contents after the run.
struct OutputBuffer {
    QString name;
    ValueType type;
    qint64 count = 0;
    QByteArray data; ///< count * type.sizeBytes() bytes; not part of the JSON form
    /// Non-zero when the contents stayed on a runner that shares no file system with the
    /// client (streamed buffers beyond their size limit): `data` is empty, and ranges are
    /// fetched from the runner with this run's id (OutputRangeReader) until its next run.
    quint64 keptRun = 0;

    [[nodiscard]] bool isKept() const { return keptRun != 0; }
    /// The buffer's size in bytes, whether its contents are here or on the runner.
    [[nodiscard]] qint64 sizeBytes() const { return count * type.sizeBytes(); }
};

} // namespace kernelpad
