#pragma once
// What a run will hold in host and device memory, known from the project before any buffer
// is built, and the check of it against what the machine has: three 1.5 GiB buffers used to
// be generated (4.6 GB, 17 s) before anything was checked.

#include "core/launch/ArgumentSpec.h"
#include "core/run/RunBuffers.h"

#include <QByteArray>
#include <QSet>
#include <QString>
#include <QVector>

#include <optional>
#include <vector>

namespace kernelpad {

/// One buffer's share of a run's memory.
struct BufferMemory {
    QString name;
    qint64 bytes = 0;       ///< one copy: count * element size
    qint64 hostBytes = 0;   ///< initial contents, the copy of the output, expected values
    qint64 deviceBytes = 0; ///< the buffer, reference kernels' copies, expected values
};

/// What one run allocates, buffer by buffer, as the executor allocates it: an upper bound
/// of what it holds at once.
struct RunMemoryPlan {
    std::vector<BufferMemory> buffers; ///< in argument order
    qint64 hostBytes = 0;
    qint64 deviceBytes = 0;
};

/// Memory a run may use; nothing: unknown, and not checked.
struct AvailableMemory {
    std::optional<qint64> hostBytes;
    std::optional<qint64> deviceBytes;
};

/// The plan for `args` whose buffers have `counts` elements (`counts[i]` for argument i;
/// scalars' entries are ignored). Per buffer, on the host: the initial contents of in and
/// inout buffers (none for a name in `sharedContents`: an unchanged "in" buffer whose
/// contents the previous run already holds), the copy of each out and inout buffer taken
/// after the launch, and what its check reads (a reference kernel's output, an expression's
/// values as doubles and as elements, a .npy file). On the device: the buffer, a copy of
/// every out and inout buffer for each distinct reference kernel, and an expression's
/// expected values when they are compared on the GPU. Sizes saturate instead of overflowing.
[[nodiscard]] RunMemoryPlan planRunMemory(const QVector<ArgumentSpec>& args,
                                          const QVector<qint64>& counts,
                                          const QSet<QString>& sharedContents = {});

/// Why `plan` does not fit in `available`, or empty: "the run needs 4.50 GiB on the host:
/// x 1.50 GiB, y 1.50 GiB, out 1.50 GiB; 2.10 GiB is available".
[[nodiscard]] QString checkRunMemory(const RunMemoryPlan& plan, const AvailableMemory& available);

/// The whole check the executor makes before it builds any buffer: counts resolved (an
/// error names the buffer), the plan made with the contents `previous` already holds, and
/// checked against `available`, whose device share is what is free now plus what the
/// previous run's buffers hold (they are reused or freed before anything is allocated).
[[nodiscard]] QString checkRunMemory(const QVector<ArgumentSpec>& args, const QString& baseDir,
                                     const std::vector<RunBuffer>& previous,
                                     AvailableMemory available);

/// MemAvailable of a /proc/meminfo text in bytes, or nothing.
[[nodiscard]] std::optional<qint64> parseMemAvailable(const QByteArray& meminfo);
/// The host's MemAvailable now (Linux), or nothing when it cannot be read.
[[nodiscard]] std::optional<qint64> availableHostBytes();

} // namespace kernelpad
