#include "core/run/RunMemory.h"

#include "core/cuda/CudaError.h"
#include "core/launch/BufferInit.h"
#include "core/run/RunVerification.h"
#include "core/verify/GpuCompare.h"

#include <QFile>
#include <QStringList>

#include <algorithm>
#include <limits>

namespace kernelpad {
namespace {

constexpr qint64 kMaxBytes = std::numeric_limits<qint64>::max();
/// /proc/meminfo is a few KiB; a bound keeps a strange /proc from costing memory.
constexpr qint64 kMaxMeminfoBytes = qint64(1) << 20;
constexpr qint64 kBytesPerKiB = 1024;

/// a + b, or kMaxBytes when that would overflow (both are sizes, never negative).
qint64 addBytes(qint64 a, qint64 b) {
    return a > kMaxBytes - b ? kMaxBytes : a + b;
}

/// count * size, saturating like addBytes.
qint64 timesBytes(qint64 count, qint64 size) {
    if (count <= 0 || size <= 0)
        return 0;
    return count > kMaxBytes / size ? kMaxBytes : count * size;
}

/// "x 1.50 GiB, y 1.50 GiB" for the buffers with a share of `side`.
QString shares(const RunMemoryPlan& plan, qint64 BufferMemory::*side) {
    QStringList parts;
    for (const BufferMemory& b : plan.buffers)
        if (b.*side > 0)
            parts << QStringLiteral("%1 %2").arg(b.name, formatBytes(b.*side));
    return parts.join(QStringLiteral(", "));
}

} // namespace

RunMemoryPlan planRunMemory(const QVector<ArgumentSpec>& args, const QVector<qint64>& counts,
                            const QSet<QString>& sharedContents) {
    RunMemoryPlan plan;
    // Each distinct reference kernel runs once, on fresh copies of every out and inout buffer
    // (RunVerifier::runReference), and its copies stay on the device until the run ends.
    QSet<QString> referenceKernels;
    for (int i = 0; i < args.size(); ++i) {
        const ArgumentSpec& a = args[i];
        if (a.isBuffer() && a.buffer.direction != Direction::In &&
            a.buffer.verify.kind == VerifySpec::Kind::Reference)
            referenceKernels.insert(a.buffer.verify.referenceKernel);
    }
    for (int i = 0; i < args.size(); ++i) {
        const ArgumentSpec& a = args[i];
        if (!a.isBuffer())
            continue;
        const BufferSpec& spec = a.buffer;
        const qint64 count = i < counts.size() ? counts[i] : 0;
        BufferMemory m;
        m.name = a.name;
        m.bytes = timesBytes(count, spec.elementType.sizeBytes());
        m.deviceBytes = addBytes(m.bytes, 2 * kGuardBytes); // its canaries (GuardCheck.h)
        const bool hasContents = spec.direction != Direction::Out;
        const bool isOutput = spec.direction != Direction::In;
        if (hasContents && !sharedContents.contains(a.name))
            m.hostBytes = m.bytes; // generated, or read from its .npy (read once, not copied)
        if (isOutput) {
            // Copied back after the launch. Counted even where the check runs on the GPU:
            // when the comparison kernel cannot be used, the host path fetches it anyway.
            m.hostBytes = addBytes(m.hostBytes, m.bytes);
            m.deviceBytes =
                addBytes(m.deviceBytes, timesBytes(qint64(referenceKernels.size()), m.bytes));
            switch (spec.verify.kind) {
            case VerifySpec::Kind::Reference:
            case VerifySpec::Kind::File:
                m.hostBytes = addBytes(m.hostBytes, m.bytes); // the values to compare with
                break;
            case VerifySpec::Kind::Expression:
                if (spec.elementType.isStruct())
                    break; // refused before anything is evaluated
                // evaluateExpression's doubles, then the elements made from them; both exist
                // at once.
                m.hostBytes = addBytes(
                    m.hostBytes, addBytes(timesBytes(count, qint64(sizeof(double))), m.bytes));
                if (count > kGpuVerifyMinElements && GpuComparer::supports(spec.elementType))
                    m.deviceBytes = addBytes(m.deviceBytes, m.bytes);
                break;
            case VerifySpec::Kind::None:
                break;
            }
        }
        plan.hostBytes = addBytes(plan.hostBytes, m.hostBytes);
        plan.deviceBytes = addBytes(plan.deviceBytes, m.deviceBytes);
        plan.buffers.push_back(m);
    }
    return plan;
}

QString checkRunMemory(const RunMemoryPlan& plan, const AvailableMemory& available) {
    QStringList problems;
    if (available.hostBytes && plan.hostBytes > *available.hostBytes)
        problems << QStringLiteral("the run needs %1 on the host: %2; %3 is available")
                        .arg(formatBytes(plan.hostBytes), shares(plan, &BufferMemory::hostBytes),
                             formatBytes(std::max<qint64>(0, *available.hostBytes)));
    if (available.deviceBytes && plan.deviceBytes > *available.deviceBytes)
        problems << QStringLiteral("the run needs %1 on the GPU: %2; %3 is free")
                        .arg(formatBytes(plan.deviceBytes),
                             shares(plan, &BufferMemory::deviceBytes),
                             formatBytes(std::max<qint64>(0, *available.deviceBytes)));
    if (problems.isEmpty())
        return {};
    return problems.join(QStringLiteral("; and ")) + QStringLiteral("; reduce the buffers' sizes");
}

QString checkRunMemory(const QVector<ArgumentSpec>& args, const QString& baseDir,
                       const std::vector<RunBuffer>& previous, AvailableMemory available) {
    QVector<qint64> counts(args.size(), 0);
    QSet<QString> shared;
    for (int i = 0; i < args.size(); ++i) {
        const ArgumentSpec& a = args[i];
        if (!a.isBuffer())
            continue;
        QString why;
        const std::optional<qint64> count = resolveCount(a.buffer.count, args, &why);
        if (!count)
            return QStringLiteral("buffer '%1': %2").arg(a.name, why);
        counts[i] = *count;
        // The same decision prepareBuffers() makes: such contents are shared, not made again.
        const auto before = std::find_if(previous.cbegin(), previous.cend(),
                                         [&](const RunBuffer& b) { return b.name == a.name; });
        if (before != previous.cend() &&
            decideReuse(&before->key, bufferContentKey(a, *count, baseDir)) ==
                BufferReuse::Contents)
            shared.insert(a.name);
    }
    if (available.deviceBytes) {
        for (const RunBuffer& b : previous)
            available.deviceBytes = addBytes(*available.deviceBytes, b.device.sizeBytes());
    }
    return checkRunMemory(planRunMemory(args, counts, shared), available);
}

std::optional<qint64> parseMemAvailable(const QByteArray& meminfo) {
    // "MemAvailable:   2202880 kB" (proc(5)); the kernel has reported it since Linux 3.14.
    for (const QByteArray& line : meminfo.split('\n')) {
        if (!line.startsWith("MemAvailable:"))
            continue;
        const QList<QByteArray> fields = line.mid(13).simplified().split(' ');
        bool ok = false;
        const qint64 kib = fields.value(0).toLongLong(&ok);
        if (!ok || kib < 0 || fields.value(1) != "kB")
            return std::nullopt;
        return timesBytes(kib, kBytesPerKiB);
    }
    return std::nullopt;
}

std::optional<qint64> availableHostBytes() {
    // Not readRegularFile: /proc's files report a size of 0, so a plain bounded read it is.
    QFile file(QStringLiteral("/proc/meminfo"));
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return parseMemAvailable(file.read(kMaxMeminfoBytes));
}

} // namespace kernelpad
