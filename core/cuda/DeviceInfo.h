#pragma once
// What a kernel author needs to know about a device, as a plain value.

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <array>
#include <optional>

namespace kernelpad {

/// A device's identity and limits, read once through the driver.
struct DeviceInfo {
    int ordinal = -1;
    QString name;
    int ccMajor = 0, ccMinor = 0;
    qint64 totalMemBytes = 0;
    int smCount = 0;
    int maxThreadsPerBlock = 0;
    std::array<int, 3> maxBlockDim{0, 0, 0};
    std::array<int, 3> maxGridDim{0, 0, 0};
    int sharedMemPerBlockBytes = 0;
    int sharedMemPerBlockOptinBytes = 0;
    int sharedMemPerSmBytes = 0;
    int registersPerBlock = 0;
    int registersPerSm = 0;
    int warpSize = 0;
    int maxThreadsPerSm = 0;
    int maxBlocksPerSm = 0; ///< resident blocks per SM; 0 where the driver does not report it
    /// Shared memory the driver keeps in every block (1 KiB from cc 8.0 on); -1 where unknown.
    int reservedSharedPerBlockBytes = -1;
    int l2CacheBytes = 0;
    int clockRateKHz = 0;       ///< 0 where the driver does not report it
    int memoryClockRateKHz = 0; ///< 0 where the driver does not report it
    int memoryBusWidthBits = 0;
    QString pciBusId;
    int driverVersion = 0; ///< e.g. 13000

    [[nodiscard]] QString arch() const {
        return QStringLiteral("sm_%1%2").arg(ccMajor).arg(ccMinor);
    }
    /// Theoretical DRAM bandwidth from the memory clock and bus width (DDR), 0 if unknown.
    [[nodiscard]] double peakBandwidthGBs() const {
        return 2.0 * memoryClockRateKHz * 1e3 * (memoryBusWidthBits / 8.0) / 1e9;
    }
    /// Label/value rows for tables and dialogs ("Compute capability", "9.0").
    [[nodiscard]] QVector<QPair<QString, QString>> describe() const;
    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the JSON form; nullopt, with a message naming the field under `path`, when a
    /// field is missing or malformed.
    static std::optional<DeviceInfo> fromJson(const QJsonObject& json, QString* error,
                                              const QString& path = {});
};

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::DeviceInfo)
