#pragma once
// "Measure device ceiling": the bandwidth of a large device-to-device copy, the
// practical upper bound a memory-bound kernel's GB/s is shown against. Measured once per
// device and driver, kept for the runner's lifetime and on disk next to the compile cache.

#include "core/cuda/Device.h"
#include "core/cuda/DeviceInfo.h"
#include "core/cuda/Stream.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace kernelpad {

/// One measured copy ceiling.
struct CopyCeiling {
    QString deviceName;
    QString pciBusId;
    int driverVersion = 0;
    qint64 bytes = 0;      ///< bytes copied per timed copy (each read once and written once)
    int copies = 0;        ///< timed copies; the fastest one gives gbs
    double bestMs = 0;     ///< time of the fastest copy
    double gbs = 0;        ///< 2 * bytes / bestMs, in GB/s (10^9 bytes), read + write
    QString measuredAtUtc; ///< ISO 8601

    [[nodiscard]] QJsonObject toJson() const;
    /// Reads an entry of the ceilings file; nullopt, with a message naming the field, when a
    /// field is missing or malformed or the entry is not a measurement (gbs and bytes > 0).
    [[nodiscard]] static std::optional<CopyCeiling> fromJson(const QJsonObject& json,
                                                             QString* error);
};

/// Bytes the measurement copies: min(1 GiB, free / 4) (source and destination then take
/// half the free memory at most), rounded down to 2 MiB; 0 when under 64 MiB are free.
[[nodiscard]] qint64 ceilingCopyBytes(qint64 freeBytes);

/// GB/s counting read + write for `bytes` copied in `ms` (0 for ms <= 0).
[[nodiscard]] double copyGBs(qint64 bytes, double ms);

/// Times device-to-device copies (cuMemcpyDtoDAsync, events on `stream`) of
/// ceilingCopyBytes(free) bytes: one warm-up copy, then kCeilingCopies timed ones; the
/// fastest gives the ceiling. `device`'s context must be current. Throws CudaError.
[[nodiscard]] CopyCeiling measureCopyCeiling(const Device& device, Stream& stream);
inline constexpr int kCeilingCopies = 10;

/// The key a ceiling is stored under: device name, PCI bus id and driver version.
[[nodiscard]] QString ceilingKey(const DeviceInfo& device);
/// "<compile cache directory>/device-ceilings.json" (DiskCompileCache::defaultDirectory());
/// empty when the disk cache is off.
[[nodiscard]] QString defaultCeilingPath();
/// The ceiling stored under `key` in the JSON file at `path`, or nothing (no file, no
/// entry, or an unreadable one).
[[nodiscard]] std::optional<CopyCeiling> readCachedCeiling(const QString& path, const QString& key);
/// Stores `ceiling` under `key`, keeping the file's other entries; written atomically.
/// False when the file cannot be written.
bool writeCachedCeiling(const QString& path, const QString& key, const CopyCeiling& ceiling);

} // namespace kernelpad
