#include "core/run/DeviceCeiling.h"

#include "core/compile/DiskCompileCache.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/DriverApi.h"
#include "core/io/JsonFields.h"
#include "core/io/SafeFile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <algorithm>
#include <limits>

namespace kernelpad {
namespace {

constexpr qint64 kMiB = qint64(1) << 20;
/// 1 GiB: large enough that launch and event overheads are under 0.1 % of a copy on an
/// H100 (~0.7 ms), small enough to fit beside a user's buffers.
constexpr qint64 kMaxCeilingBytes = qint64(1) << 30;
constexpr qint64 kMinCeilingBytes = 16 * kMiB;
/// Copies are a multiple of this so that both ends stay aligned to large pages.
constexpr qint64 kCeilingGranuleBytes = 2 * kMiB;

} // namespace

QJsonObject CopyCeiling::toJson() const {
    return QJsonObject{{QStringLiteral("deviceName"), deviceName},
                       {QStringLiteral("pciBusId"), pciBusId},
                       {QStringLiteral("driverVersion"), driverVersion},
                       {QStringLiteral("bytes"), double(bytes)},
                       {QStringLiteral("copies"), copies},
                       {QStringLiteral("bestMs"), bestMs},
                       {QStringLiteral("gbs"), gbs},
                       {QStringLiteral("measuredAtUtc"), measuredAtUtc}};
}

std::optional<CopyCeiling> CopyCeiling::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    constexpr auto required = json::Presence::Required;
    CopyCeiling c;
    if (!fields.readString(QStringLiteral("deviceName"), &c.deviceName, required) ||
        !fields.readString(QStringLiteral("pciBusId"), &c.pciBusId, required) ||
        !fields.readInt(QStringLiteral("driverVersion"), &c.driverVersion, required) ||
        !fields.readWholeNumber(QStringLiteral("bytes"), &c.bytes, required) ||
        !fields.readInt(QStringLiteral("copies"), &c.copies, required,
                        {0, std::numeric_limits<int>::max()}) ||
        !fields.readNumber(QStringLiteral("bestMs"), &c.bestMs, required) ||
        !fields.readNumber(QStringLiteral("gbs"), &c.gbs, required) ||
        !fields.readString(QStringLiteral("measuredAtUtc"), &c.measuredAtUtc, required))
        return std::nullopt;
    // Not a measurement (too little memory was free): never show a made-up ceiling.
    if (!(c.gbs > 0) || c.bytes <= 0) {
        fields.fail(QStringLiteral("gbs: %1 GB/s over %2 bytes is not a measurement")
                        .arg(c.gbs)
                        .arg(c.bytes));
        return std::nullopt;
    }
    return c;
}

qint64 ceilingCopyBytes(qint64 freeBytes) {
    const qint64 bytes = std::min(kMaxCeilingBytes, freeBytes / 4);
    const qint64 rounded = bytes / kCeilingGranuleBytes * kCeilingGranuleBytes;
    return rounded < kMinCeilingBytes ? 0 : rounded;
}

double copyGBs(qint64 bytes, double ms) {
    return ms > 0 ? 2.0 * double(bytes) / (ms * 1e-3) / 1e9 : 0.0;
}

CopyCeiling measureCopyCeiling(const Device& device, Stream& stream) {
    const DeviceInfo info = device.info();
    size_t freeBytes = 0, totalBytes = 0;
    check(DriverApi::get().cuMemGetInfo(&freeBytes, &totalBytes), "cuMemGetInfo");
    CopyCeiling c;
    c.deviceName = info.name;
    c.pciBusId = info.pciBusId;
    c.driverVersion = info.driverVersion;
    c.bytes = ceilingCopyBytes(qint64(freeBytes));
    if (c.bytes == 0)
        return c; // too little free memory to measure anything meaningful: gbs stays 0
    DeviceBuffer source(c.bytes, QStringLiteral("the ceiling's source buffer"));
    DeviceBuffer destination(c.bytes, QStringLiteral("the ceiling's destination buffer"));
    source.fillBytesAsync(0x5a, stream);
    destination.copyFromAsync(source, stream); // warm-up: first-touch and clocks up
    Event start, stop;
    double best = 0;
    for (int i = 0; i < kCeilingCopies; ++i) {
        start.record(stream);
        destination.copyFromAsync(source, stream);
        stop.record(stream);
        stop.synchronize();
        const double ms = stop.elapsedMsSince(start);
        if (ms > 0 && (best == 0 || ms < best))
            best = ms;
        ++c.copies;
    }
    c.bestMs = best;
    c.gbs = copyGBs(c.bytes, best);
    c.measuredAtUtc = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    return c;
}

QString ceilingKey(const DeviceInfo& device) {
    return QStringLiteral("%1|%2|driver %3")
        .arg(device.name, device.pciBusId)
        .arg(device.driverVersion);
}

QString defaultCeilingPath() {
    const QString dir = DiskCompileCache::defaultDirectory();
    // Not a hex name: the compile cache's eviction leaves it alone.
    return dir.isEmpty() ? QString() : dir + QStringLiteral("/device-ceilings.json");
}

namespace {

/// The ceilings file holds one small entry per device: anything larger is not ours.
constexpr qint64 kMaxCeilingFileBytes = 1 << 20;

/// The file's JSON object, or an empty one; only a regular file of bounded size is read.
QJsonObject readCeilingFile(const QString& path) {
    QString ignored;
    const std::optional<QByteArray> bytes =
        readRegularFile(path, ReadLimits{kMaxCeilingFileBytes, false}, &ignored);
    return bytes ? QJsonDocument::fromJson(*bytes).object() : QJsonObject();
}

} // namespace

std::optional<CopyCeiling> readCachedCeiling(const QString& path, const QString& key) {
    if (path.isEmpty())
        return std::nullopt;
    const QJsonObject all = readCeilingFile(path);
    if (!all.contains(key))
        return std::nullopt;
    // An entry this build cannot read is measured again, as if it were not there.
    return CopyCeiling::fromJson(all.value(key).toObject(), nullptr);
}

bool writeCachedCeiling(const QString& path, const QString& key, const CopyCeiling& ceiling) {
    if (path.isEmpty() || !QDir().mkpath(QFileInfo(path).absolutePath()))
        return false;
    QJsonObject all = readCeilingFile(path);
    all.insert(key, ceiling.toJson());
    // A reader sees the old file or the new one, never half of one.
    QString ignored; // the ceiling is re-measured when it cannot be kept
    return writeFileAtomically(path, QJsonDocument(all).toJson(), &ignored);
}

} // namespace kernelpad
