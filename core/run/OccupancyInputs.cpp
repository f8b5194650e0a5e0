#include "core/run/OccupancyInputs.h"

#include "core/compile/CubinKernelInfo.h"
#include "core/compile/KernelFacts.h"

#include <algorithm>
#include <climits>

namespace kernelpad {

QString OccupancyReport::sourceText(const QString& deviceName) const {
    if (fromDevice)
        return QStringLiteral("from the %1's attributes (%2)")
            .arg(deviceName.isEmpty() ? QStringLiteral("device") : deviceName, curves.limits.arch);
    return QStringLiteral("from %1's limits, no device").arg(curves.limits.arch);
}

OccupancyReport occupancyReport(const CompileResult& compile, const QString& kernel,
                                const DeviceInfo* device, const KernelResources* driver,
                                int blockThreads, int dynamicSharedBytes) {
    OccupancyReport report;
    if (!compile.ok) {
        report.error = QStringLiteral("the source does not compile");
        return report;
    }
    const QString lowered = compile.loweredName(kernel);
    if (lowered.isEmpty()) {
        report.error = QStringLiteral("the last compile has no kernel named '%1'").arg(kernel);
        return report;
    }
    OccupancyLimits limits;
    if (device && device->ccMajor > 0) {
        limits = OccupancyLimits::forDevice(*device);
        report.fromDevice = true;
    } else {
        limits = OccupancyLimits::forArch(compile.arch);
        if (!limits.isComplete()) {
            report.error =
                QStringLiteral("no limits known for %1: choose an sm_XY architecture or a device")
                    .arg(compile.arch.isEmpty() ? QStringLiteral("this compile") : compile.arch);
            return report;
        }
    }

    const CubinKernelInfo cubin = cubinKernelInfo(compile.cubin, lowered);
    OccupancyKernel k;
    k.barriers = cubin.barriers;
    if (driver && driver->registers > 0) {
        k.registersPerThread = driver->registers;
        k.staticSharedBytes = driver->staticSharedBytes;
        k.maxThreadsPerBlock = driver->maxThreadsPerBlock;
        report.fromDriver = true;
    } else if (cubin.found) {
        k.registersPerThread = cubin.registers;
        k.staticSharedBytes = int(std::min<qint64>(
            kernelCompileFacts(compile.ptx, compile.log, lowered).sharedBytes, INT_MAX));
        k.maxThreadsPerBlock = cubin.maxThreadsPerBlock;
    } else {
        report.error =
            compile.cubin.isEmpty()
                ? QStringLiteral("the compile made no CUBIN (PTX only): its registers "
                                 "are known once a device loads it")
                : QStringLiteral("the CUBIN has no resource figures for '%1'").arg(kernel);
        return report;
    }
    report.curves = OccupancyCurves::compute(limits, k, blockThreads, dynamicSharedBytes);
    return report;
}

} // namespace kernelpad
