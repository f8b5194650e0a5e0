#include "core/cuda/DeviceInfo.h"

#include "core/cuda/CudaError.h"
#include "core/io/JsonFields.h"

#include <QJsonArray>

#include <limits>
#include <utility>

namespace kernelpad {
namespace {

QJsonArray toArray(const std::array<int, 3>& a) {
    return QJsonArray{a[0], a[1], a[2]};
}

QString dims(const std::array<int, 3>& a) {
    return QStringLiteral("%1 × %2 × %3").arg(a[0]).arg(a[1]).arg(a[2]);
}

QString clock(int kHz) {
    return kHz > 0 ? QStringLiteral("%1 MHz").arg(kHz / 1000) : QStringLiteral("not reported");
}

} // namespace

QVector<QPair<QString, QString>> DeviceInfo::describe() const {
    const double peak = peakBandwidthGBs();
    return {
        {QStringLiteral("Name"), name},
        {QStringLiteral("Ordinal"), QString::number(ordinal)},
        {QStringLiteral("Compute capability"),
         QStringLiteral("%1.%2 (%3)").arg(ccMajor).arg(ccMinor).arg(arch())},
        {QStringLiteral("Total memory"), formatBytes(totalMemBytes)},
        {QStringLiteral("Multiprocessors"), QString::number(smCount)},
        {QStringLiteral("Max threads per block"), QString::number(maxThreadsPerBlock)},
        {QStringLiteral("Max threads per multiprocessor"), QString::number(maxThreadsPerSm)},
        {QStringLiteral("Max block dimensions"), dims(maxBlockDim)},
        {QStringLiteral("Max grid dimensions"), dims(maxGridDim)},
        {QStringLiteral("Shared memory per block"), formatBytes(sharedMemPerBlockBytes)},
        {QStringLiteral("Shared memory per block (opt-in)"),
         formatBytes(sharedMemPerBlockOptinBytes)},
        {QStringLiteral("Shared memory per multiprocessor"), formatBytes(sharedMemPerSmBytes)},
        {QStringLiteral("Reserved shared memory per block"),
         reservedSharedPerBlockBytes >= 0 ? formatBytes(reservedSharedPerBlockBytes)
                                          : QStringLiteral("not reported")},
        {QStringLiteral("Registers per block"), QString::number(registersPerBlock)},
        {QStringLiteral("Registers per multiprocessor"), QString::number(registersPerSm)},
        {QStringLiteral("Max blocks per multiprocessor"),
         maxBlocksPerSm > 0 ? QString::number(maxBlocksPerSm) : QStringLiteral("not reported")},
        {QStringLiteral("Warp size"), QString::number(warpSize)},
        {QStringLiteral("L2 cache"), formatBytes(l2CacheBytes)},
        {QStringLiteral("SM clock"), clock(clockRateKHz)},
        {QStringLiteral("Memory clock"), clock(memoryClockRateKHz)},
        {QStringLiteral("Memory bus width"), QStringLiteral("%1 bits").arg(memoryBusWidthBits)},
        {QStringLiteral("Theoretical memory bandwidth"),
         peak > 0 ? QStringLiteral("%1 GB/s").arg(peak, 0, 'f', 0)
                  : QStringLiteral("not reported")},
        {QStringLiteral("PCI bus"), pciBusId},
        {QStringLiteral("Driver (CUDA version)"),
         QStringLiteral("%1.%2").arg(driverVersion / 1000).arg((driverVersion % 1000) / 10)},
    };
}

QJsonObject DeviceInfo::toJson() const {
    return QJsonObject{
        {"ordinal", ordinal},
        {"name", name},
        {"computeCapability", QStringLiteral("%1.%2").arg(ccMajor).arg(ccMinor)},
        {"ccMajor", ccMajor},
        {"ccMinor", ccMinor},
        {"arch", arch()},
        {"totalMemBytes", double(totalMemBytes)},
        {"smCount", smCount},
        {"maxThreadsPerBlock", maxThreadsPerBlock},
        {"maxBlockDim", toArray(maxBlockDim)},
        {"maxGridDim", toArray(maxGridDim)},
        {"sharedMemPerBlockBytes", sharedMemPerBlockBytes},
        {"sharedMemPerBlockOptinBytes", sharedMemPerBlockOptinBytes},
        {"sharedMemPerSmBytes", sharedMemPerSmBytes},
        {"registersPerBlock", registersPerBlock},
        {"registersPerSm", registersPerSm},
        {"warpSize", warpSize},
        {"maxThreadsPerSm", maxThreadsPerSm},
        {"maxBlocksPerSm", maxBlocksPerSm},
        {"reservedSharedPerBlockBytes", reservedSharedPerBlockBytes},
        {"l2CacheBytes", l2CacheBytes},
        {"clockRateKHz", clockRateKHz},
        {"memoryClockRateKHz", memoryClockRateKHz},
        {"memoryBusWidthBits", memoryBusWidthBits},
        {"peakBandwidthGBs", peakBandwidthGBs()},
        {"pciBusId", pciBusId},
        {"driverVersion", driverVersion},
    };
}

std::optional<DeviceInfo> DeviceInfo::fromJson(const QJsonObject& json, QString* error,
                                               const QString& path) {
    const json::FieldReader fields(json, error, path);
    constexpr auto required = json::Presence::Required;
    constexpr json::WholeRange count{0, std::numeric_limits<int>::max()};
    DeviceInfo d;
    // Every field is written by toJson(); the derived ones (arch, computeCapability,
    // peakBandwidthGBs) are not read back.
    if (!fields.readInt(QStringLiteral("ordinal"), &d.ordinal, required,
                        {-1, std::numeric_limits<int>::max()}) ||
        !fields.readString(QStringLiteral("name"), &d.name, required) ||
        !fields.readInt(QStringLiteral("ccMajor"), &d.ccMajor, required, count) ||
        !fields.readInt(QStringLiteral("ccMinor"), &d.ccMinor, required, count) ||
        !fields.readWholeNumber(QStringLiteral("totalMemBytes"), &d.totalMemBytes, required,
                                {0, json::WholeRange{}.max}) ||
        !fields.readInt(QStringLiteral("smCount"), &d.smCount, required, count) ||
        !fields.readInt(QStringLiteral("maxThreadsPerBlock"), &d.maxThreadsPerBlock, required,
                        count) ||
        !fields.readDims(QStringLiteral("maxBlockDim"), &d.maxBlockDim, required, count) ||
        !fields.readDims(QStringLiteral("maxGridDim"), &d.maxGridDim, required, count))
        return std::nullopt;
    for (const auto& [key, target] :
         {std::pair{QStringLiteral("sharedMemPerBlockBytes"), &d.sharedMemPerBlockBytes},
          std::pair{QStringLiteral("sharedMemPerBlockOptinBytes"), &d.sharedMemPerBlockOptinBytes},
          std::pair{QStringLiteral("sharedMemPerSmBytes"), &d.sharedMemPerSmBytes},
          std::pair{QStringLiteral("registersPerBlock"), &d.registersPerBlock},
          std::pair{QStringLiteral("registersPerSm"), &d.registersPerSm},
          std::pair{QStringLiteral("warpSize"), &d.warpSize},
          std::pair{QStringLiteral("maxThreadsPerSm"), &d.maxThreadsPerSm},
          std::pair{QStringLiteral("l2CacheBytes"), &d.l2CacheBytes},
          std::pair{QStringLiteral("clockRateKHz"), &d.clockRateKHz},
          std::pair{QStringLiteral("memoryClockRateKHz"), &d.memoryClockRateKHz},
          std::pair{QStringLiteral("memoryBusWidthBits"), &d.memoryBusWidthBits},
          std::pair{QStringLiteral("driverVersion"), &d.driverVersion}})
        if (!fields.readInt(key, target, required, count))
            return std::nullopt;
    if (!fields.readString(QStringLiteral("pciBusId"), &d.pciBusId, required))
        return std::nullopt;
    // Added with the occupancy curves: a result written before them has neither, and keeps
    // "not reported" (0) and "unknown" (-1).
    if (!fields.readInt(QStringLiteral("maxBlocksPerSm"), &d.maxBlocksPerSm,
                        json::Presence::Optional, count) ||
        !fields.readInt(QStringLiteral("reservedSharedPerBlockBytes"),
                        &d.reservedSharedPerBlockBytes, json::Presence::Optional,
                        {-1, std::numeric_limits<int>::max()}))
        return std::nullopt;
    return d;
}

} // namespace kernelpad
