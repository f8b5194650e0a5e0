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

QString resourceSourceName(ResourceSource source) {
    switch (source) {
    case ResourceSource::Driver:
        return QStringLiteral("the driver");
    case ResourceSource::Cubin:
        return QStringLiteral("the CUBIN");
    case ResourceSource::Ptxas:
        return QStringLiteral("ptxas -v");
    case ResourceSource::None:
        break;
    }
    return {};
}

ResourceFigures kernelResourceFigures(const CompileResult& compile, const QString& lowered,
                                      const KernelResources* driver) {
    ResourceFigures figures;
    const KernelCompileFacts facts = kernelCompileFacts(compile.ptx, compile.log, lowered);
    const CubinKernelInfo cubin = cubinKernelInfo(compile.cubin, lowered);
    figures.staticSharedBytes = facts.sharedBytes;
    if (cubin.found)
        figures.barriers = cubin.barriers;
    else if (facts.ptxasReported)
        figures.barriers = facts.barriers;
    if (driver && driver->registers > 0) {
        figures.source = ResourceSource::Driver;
        figures.registers = driver->registers;
        figures.staticSharedBytes = driver->staticSharedBytes;
        figures.localBytes = driver->localBytes;
        figures.maxThreadsPerBlock = driver->maxThreadsPerBlock;
        figures.constBytes = driver->constBytes;
    } else if (cubin.found) {
        figures.source = ResourceSource::Cubin;
        figures.registers = cubin.registers;
        figures.localBytes = cubin.frameBytes;
        figures.maxThreadsPerBlock = cubin.maxThreadsPerBlock;
        if (facts.ptxasReported)
            figures.constBytes = facts.constBytes;
    } else if (facts.ptxasReported) {
        figures.source = ResourceSource::Ptxas;
        figures.registers = facts.registers;
        figures.localBytes = facts.stackBytes;
        figures.constBytes = facts.constBytes;
    }
    return figures;
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

    const ResourceFigures figures = kernelResourceFigures(compile, lowered, driver);
    // ptxas's report alone (no CUBIN) lacks the launch bounds the curves need.
    if (figures.source != ResourceSource::Driver && figures.source != ResourceSource::Cubin) {
        report.error =
            compile.cubin.isEmpty()
                ? QStringLiteral("the compile made no CUBIN (PTX only): its registers "
                                 "are known once a device loads it")
                : QStringLiteral("the CUBIN has no resource figures for '%1'").arg(kernel);
        return report;
    }
    OccupancyKernel k;
    k.barriers = figures.barriers;
    k.registersPerThread = figures.registers;
    k.staticSharedBytes = int(std::min<qint64>(figures.staticSharedBytes, INT_MAX));
    k.maxThreadsPerBlock = figures.maxThreadsPerBlock;
    report.fromDriver = figures.source == ResourceSource::Driver;
    report.curves = OccupancyCurves::compute(limits, k, blockThreads, dynamicSharedBytes);
    return report;
}

} // namespace kernelpad
