#include "core/cuda/DeviceInfo.h"

#include "core/cuda/CudaError.h"

#include <QJsonArray>

namespace kernelpad {
namespace {

QJsonArray toArray(const std::array<int, 3>& a) {
    return QJsonArray{a[0], a[1], a[2]};
}

std::array<int, 3> fromArray(const QJsonValue& v) {
    const QJsonArray a = v.toArray();
    return {a.at(0).toInt(), a.at(1).toInt(), a.at(2).toInt()};
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

DeviceInfo DeviceInfo::fromJson(const QJsonObject& j) {
    DeviceInfo d;
    d.ordinal = j.value("ordinal").toInt(-1);
    d.name = j.value("name").toString();
    d.ccMajor = j.value("ccMajor").toInt();
    d.ccMinor = j.value("ccMinor").toInt();
    d.totalMemBytes = qint64(j.value("totalMemBytes").toDouble());
    d.smCount = j.value("smCount").toInt();
    d.maxThreadsPerBlock = j.value("maxThreadsPerBlock").toInt();
    d.maxBlockDim = fromArray(j.value("maxBlockDim"));
    d.maxGridDim = fromArray(j.value("maxGridDim"));
    d.sharedMemPerBlockBytes = j.value("sharedMemPerBlockBytes").toInt();
    d.sharedMemPerBlockOptinBytes = j.value("sharedMemPerBlockOptinBytes").toInt();
    d.sharedMemPerSmBytes = j.value("sharedMemPerSmBytes").toInt();
    d.registersPerBlock = j.value("registersPerBlock").toInt();
    d.registersPerSm = j.value("registersPerSm").toInt();
    d.warpSize = j.value("warpSize").toInt();
    d.maxThreadsPerSm = j.value("maxThreadsPerSm").toInt();
    d.maxBlocksPerSm = j.value("maxBlocksPerSm").toInt();
    d.reservedSharedPerBlockBytes = j.value("reservedSharedPerBlockBytes").toInt(-1);
    d.l2CacheBytes = j.value("l2CacheBytes").toInt();
    d.clockRateKHz = j.value("clockRateKHz").toInt();
    d.memoryClockRateKHz = j.value("memoryClockRateKHz").toInt();
    d.memoryBusWidthBits = j.value("memoryBusWidthBits").toInt();
    d.pciBusId = j.value("pciBusId").toString();
    d.driverVersion = j.value("driverVersion").toInt();
    return d;
}

} // namespace kernelpad
