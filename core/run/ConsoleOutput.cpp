#include "core/run/ConsoleOutput.h"

#include <algorithm>

namespace kernelpad {

qint64 ConsoleOutput::droppedBytes() const {
    return std::max<qint64>(0, totalBytes - text.toUtf8().size());
}

} // namespace kernelpad
