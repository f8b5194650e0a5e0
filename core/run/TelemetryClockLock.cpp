#include "core/run/TelemetryClockLock.h"

#include "core/cuda/Nvml.h"

#include <QSet>

#include <cstdlib>
#include <mutex>

namespace kernelpad {
namespace {

std::mutex& clockLockMutex() {
    static std::mutex m;
    return m;
}

/// The devices whose clocks this process locked (PCI bus ids).
QSet<QString>& lockedDevices() {
    static QSet<QString> devices;
    return devices;
}

/// At exit: every lock this process took is undone, whatever ended it normally.
void restoreAllClocks() {
    restoreLockedClocks();
}

} // namespace

void restoreLockedClocks() {
    const std::lock_guard<std::mutex> lock(clockLockMutex());
    // Nothing locked (most runners): NVML is not even opened on the way out.
    const Nvml* nvml = lockedDevices().isEmpty() ? nullptr : Nvml::instance();
    if (!nvml)
        return;
    for (const QString& id : std::as_const(lockedDevices()))
        static_cast<void>(nvml->resetClocks(id)); // nothing to tell anyone at exit
    lockedDevices().clear();
}

QString lockClocksCommand(int smMHz, int memMHz) {
    QString command =
        QStringLiteral("sudo nvidia-smi --lock-gpu-clocks=%1,%1").arg(smMHz > 0 ? smMHz : 0);
    if (memMHz > 0)
        command += QStringLiteral(" --lock-memory-clocks=%1,%1").arg(memMHz);
    return command;
}

ClockLockResult lockClocksToBase(const QString& pciBusId) {
    ClockLockResult result;
    const Nvml* nvml = Nvml::instance();
    if (!nvml) {
        result.error = QStringLiteral("no NVML (libnvidia-ml.so.1): the clocks cannot be locked");
        return result;
    }
    const Nvml::Limits limits = nvml->limits(pciBusId);
    result.smMHz = limits.smDefaultMHz > 0 ? limits.smDefaultMHz : limits.smMaxMHz;
    result.memMHz = limits.memDefaultMHz > 0 ? limits.memDefaultMHz : limits.memMaxMHz;
    if (result.smMHz <= 0) {
        result.error = QStringLiteral("NVML gives no clock for the device %1").arg(pciBusId);
        return result;
    }
    const QString refused = nvml->lockClocks(pciBusId, result.smMHz, result.memMHz);
    if (!refused.isEmpty()) {
        result.error = QStringLiteral("locking clocks needs root or the GPU's admin setting: run "
                                      "`%1` (NVML: %2)")
                           .arg(lockClocksCommand(result.smMHz, result.memMHz), refused);
        return result;
    }
    static std::once_flag registered;
    std::call_once(registered, [] { std::atexit(restoreAllClocks); });
    const std::lock_guard<std::mutex> lock(clockLockMutex());
    lockedDevices().insert(pciBusId);
    return result;
}

QString unlockClocks(const QString& pciBusId) {
    const Nvml* nvml = Nvml::instance();
    const std::lock_guard<std::mutex> lock(clockLockMutex());
    if (!nvml || !lockedDevices().contains(pciBusId))
        return {};
    lockedDevices().remove(pciBusId);
    return nvml->resetClocks(pciBusId);
}

QString applyClockLock(bool wanted, const QString& pciBusId) {
    if (wanted)
        return lockClocksToBase(pciBusId).error;
    return clocksLockedByKernelPad(pciBusId) ? unlockClocks(pciBusId) : QString();
}

bool clocksLockedByKernelPad(const QString& pciBusId) {
    const std::lock_guard<std::mutex> lock(clockLockMutex());
    return lockedDevices().contains(pciBusId);
}

} // namespace kernelpad
