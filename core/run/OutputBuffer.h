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
};

} // namespace kernelpad
