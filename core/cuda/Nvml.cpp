#include "core/cuda/Nvml.h"

#include <QElapsedTimer>
#include <QHash>

#include <dlfcn.h>

#include <mutex>

// From NVML's public C API (nvml.h, "Device Queries" and "Device Commands"): nvmlReturn_t is
// an int enum with NVML_SUCCESS = 0, NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_NO_PERMISSION =
// 4; nvmlDevice_t is an opaque pointer; nvmlClockType_t: SM = 1, MEM = 2;
// nvmlTemperatureSensors_t: GPU = 0. Outside the anonymous namespace: Nvml::Api's members
// have these types.
struct nvmlDevice_st;
using nvmlReturn_t = int;
using nvmlDevice_t = nvmlDevice_st*;

namespace kernelpad {
namespace {

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlNotSupported = 3;
constexpr int kNvmlNoPermission = 4;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;

template <typename F> void nvmlSymbol(void* lib, const char* name, F* out) {
    *out = reinterpret_cast<F>(dlsym(lib, name));
}

} // namespace

struct Nvml::Api {
    using Uint = unsigned int;
    using Ull = unsigned long long;
    nvmlReturn_t (*init)() = nullptr;
    const char* (*errorString)(nvmlReturn_t) = nullptr;
    nvmlReturn_t (*byPciBusId)(const char*, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*clockInfo)(nvmlDevice_t, int, Uint*) = nullptr;
    nvmlReturn_t (*defaultAppClock)(nvmlDevice_t, int, Uint*) = nullptr;
    nvmlReturn_t (*maxClock)(nvmlDevice_t, int, Uint*) = nullptr;
    nvmlReturn_t (*powerUsage)(nvmlDevice_t, Uint*) = nullptr;
    nvmlReturn_t (*powerLimit)(nvmlDevice_t, Uint*) = nullptr;
    nvmlReturn_t (*temperature)(nvmlDevice_t, int, Uint*) = nullptr;
    nvmlReturn_t (*eventReasons)(nvmlDevice_t, Ull*) = nullptr;
    nvmlReturn_t (*totalEnergy)(nvmlDevice_t, Ull*) = nullptr;
    nvmlReturn_t (*lockGpu)(nvmlDevice_t, Uint, Uint) = nullptr;
    nvmlReturn_t (*resetGpu)(nvmlDevice_t) = nullptr;
    nvmlReturn_t (*lockMemory)(nvmlDevice_t, Uint, Uint) = nullptr;
    nvmlReturn_t (*resetMemory)(nvmlDevice_t) = nullptr;

    /// The device's handle, looked up once: on an H200 host a timed run's lookups and limit
    /// reads cost about 6 ms, more with two runners at once, paid by every configuration of a
    /// sweep (bench/RESULTS.md). A handle stays valid while NVML is initialised, which it is
    /// for the life of the process.
    nvmlDevice_t device(const QString& pciBusId) const {
        const std::lock_guard<std::mutex> lock(cacheMutex);
        if (const auto it = handles.constFind(pciBusId); it != handles.constEnd())
            return *it;
        nvmlDevice_t d = nullptr;
        const QByteArray id = pciBusId.toLatin1();
        if (byPciBusId(id.constData(), &d) != kNvmlSuccess)
            return nullptr; // not kept: a device may appear (a driver reload) and be found later
        handles.insert(pciBusId, d);
        return d;
    }
    /// NVML's own words for a failure, with the permission case made actionable.
    QString failure(nvmlReturn_t status) const {
        if (status == kNvmlNoPermission)
            return QStringLiteral("no permission (locking clocks needs root or the GPU's admin "
                                  "setting)");
        const char* text = errorString ? errorString(status) : nullptr;
        return text ? QString::fromLatin1(text) : QStringLiteral("NVML error %1").arg(status);
    }

    mutable std::mutex cacheMutex;
    mutable QHash<QString, nvmlDevice_t> handles;
    struct KeptLimits {
        Limits limits;
        QElapsedTimer age;
    };
    mutable QHash<QString, KeptLimits> limits;
};

const Nvml* Nvml::instance() {
    static Api api;
    static std::optional<Nvml> nvml;
    static std::once_flag once;
    std::call_once(once, [] {
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            return;
        nvmlSymbol(lib, "nvmlInit_v2", &api.init);
        nvmlSymbol(lib, "nvmlErrorString", &api.errorString);
        nvmlSymbol(lib, "nvmlDeviceGetHandleByPciBusId_v2", &api.byPciBusId);
        nvmlSymbol(lib, "nvmlDeviceGetClockInfo", &api.clockInfo);
        nvmlSymbol(lib, "nvmlDeviceGetDefaultApplicationsClock", &api.defaultAppClock);
        nvmlSymbol(lib, "nvmlDeviceGetMaxClockInfo", &api.maxClock);
        nvmlSymbol(lib, "nvmlDeviceGetPowerUsage", &api.powerUsage);
        nvmlSymbol(lib, "nvmlDeviceGetEnforcedPowerLimit", &api.powerLimit);
        nvmlSymbol(lib, "nvmlDeviceGetTemperature", &api.temperature);
        // Renamed from "throttle reasons" in NVML 12.2; the old name stays for older drivers.
        nvmlSymbol(lib, "nvmlDeviceGetCurrentClocksEventReasons", &api.eventReasons);
        if (!api.eventReasons)
            nvmlSymbol(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &api.eventReasons);
        nvmlSymbol(lib, "nvmlDeviceGetTotalEnergyConsumption", &api.totalEnergy);
        nvmlSymbol(lib, "nvmlDeviceSetGpuLockedClocks", &api.lockGpu);
        nvmlSymbol(lib, "nvmlDeviceResetGpuLockedClocks", &api.resetGpu);
        nvmlSymbol(lib, "nvmlDeviceSetMemoryLockedClocks", &api.lockMemory);
        nvmlSymbol(lib, "nvmlDeviceResetMemoryLockedClocks", &api.resetMemory);
        if (api.init && api.byPciBusId && api.clockInfo && api.init() == kNvmlSuccess)
            nvml.emplace(Nvml(&api));
    });
    return nvml ? &*nvml : nullptr;
}

std::optional<Nvml::Clocks> Nvml::currentClocks(const QString& pciBusId) const {
    nvmlDevice_t d = m_api->device(pciBusId);
    unsigned int sm = 0, mem = 0;
    if (!d || m_api->clockInfo(d, kNvmlClockSm, &sm) != kNvmlSuccess)
        return std::nullopt;
    m_api->clockInfo(d, kNvmlClockMem, &mem);
    return Clocks{int(sm), int(mem)};
}

int Nvml::defaultSmClockMHz(const QString& pciBusId) const {
    const Limits l = limits(pciBusId);
    return l.smDefaultMHz > 0 ? l.smDefaultMHz : l.smMaxMHz;
}

std::optional<Nvml::Reading> Nvml::read(const QString& pciBusId) const {
    nvmlDevice_t d = m_api->device(pciBusId);
    unsigned int sm = 0, mem = 0, mw = 0, celsius = 0;
    if (!d || m_api->clockInfo(d, kNvmlClockSm, &sm) != kNvmlSuccess)
        return std::nullopt;
    Reading r;
    r.smMHz = int(sm);
    if (m_api->clockInfo(d, kNvmlClockMem, &mem) == kNvmlSuccess)
        r.memMHz = int(mem);
    if (m_api->powerUsage && m_api->powerUsage(d, &mw) == kNvmlSuccess)
        r.powerMw = int(mw);
    if (m_api->temperature && m_api->temperature(d, kNvmlTemperatureGpu, &celsius) == kNvmlSuccess)
        r.temperatureC = int(celsius);
    unsigned long long reasons = 0;
    if (m_api->eventReasons && m_api->eventReasons(d, &reasons) == kNvmlSuccess)
        r.clockEventReasons = quint64(reasons);
    return r;
}

std::optional<quint64> Nvml::totalEnergyMj(const QString& pciBusId) const {
    nvmlDevice_t d = m_api->device(pciBusId);
    unsigned long long mj = 0;
    if (!d || !m_api->totalEnergy || m_api->totalEnergy(d, &mj) != kNvmlSuccess)
        return std::nullopt;
    return quint64(mj);
}

Nvml::Limits Nvml::limits(const QString& pciBusId) const {
    // Every timed run reads them; the clocks are fixed and the power limit changes only by an
    // administrator's command, so a reading a few seconds old is as good and saves five NVML
    // calls per run (a sweep makes one run per configuration).
    constexpr qint64 kLimitsKeptMs = 5000;
    {
        const std::lock_guard<std::mutex> lock(m_api->cacheMutex);
        if (const auto it = m_api->limits.constFind(pciBusId); it != m_api->limits.constEnd() &&
                                                               it->age.isValid() &&
                                                               !it->age.hasExpired(kLimitsKeptMs))
            return it->limits;
    }
    Limits l;
    nvmlDevice_t d = m_api->device(pciBusId);
    if (!d)
        return l;
    const auto clock = [d](auto fn, int type) {
        unsigned int mhz = 0;
        return fn && fn(d, type, &mhz) == kNvmlSuccess ? int(mhz) : 0;
    };
    l.smMaxMHz = clock(m_api->maxClock, kNvmlClockSm);
    l.memMaxMHz = clock(m_api->maxClock, kNvmlClockMem);
    l.smDefaultMHz = clock(m_api->defaultAppClock, kNvmlClockSm);
    l.memDefaultMHz = clock(m_api->defaultAppClock, kNvmlClockMem);
    unsigned int mw = 0;
    if (m_api->powerLimit && m_api->powerLimit(d, &mw) == kNvmlSuccess)
        l.powerLimitMw = int(mw);
    const std::lock_guard<std::mutex> lock(m_api->cacheMutex);
    Api::KeptLimits& kept = m_api->limits[pciBusId];
    kept.limits = l;
    kept.age.start();
    return l;
}

QString Nvml::lockClocks(const QString& pciBusId, int smMHz, int memMHz) const {
    nvmlDevice_t d = m_api->device(pciBusId);
    if (!d)
        return QStringLiteral("NVML does not know the device %1").arg(pciBusId);
    if (!m_api->lockGpu)
        return QStringLiteral("this NVML cannot lock clocks (nvmlDeviceSetGpuLockedClocks)");
    const nvmlReturn_t gpu = m_api->lockGpu(d, unsigned(smMHz), unsigned(smMHz));
    if (gpu != kNvmlSuccess)
        return m_api->failure(gpu);
    // The memory clock lock is newer (Ampere and later): without it the SM lock still holds.
    if (m_api->lockMemory && memMHz > 0) {
        const nvmlReturn_t mem = m_api->lockMemory(d, unsigned(memMHz), unsigned(memMHz));
        if (mem != kNvmlSuccess && mem != kNvmlNotSupported) {
            m_api->resetGpu(d);
            return m_api->failure(mem);
        }
    }
    return {};
}

QString Nvml::resetClocks(const QString& pciBusId) const {
    nvmlDevice_t d = m_api->device(pciBusId);
    if (!d || !m_api->resetGpu)
        return QStringLiteral("NVML cannot reset the clocks of %1").arg(pciBusId);
    if (m_api->resetMemory)
        m_api->resetMemory(d);
    const nvmlReturn_t gpu = m_api->resetGpu(d);
    return gpu == kNvmlSuccess ? QString() : m_api->failure(gpu);
}

} // namespace kernelpad
