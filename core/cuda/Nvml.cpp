#include "core/cuda/Nvml.h"

#include <dlfcn.h>

#include <mutex>

// From NVML's public C API (nvml.h, "Device Queries"): nvmlReturn_t is an int enum with
// NVML_SUCCESS = 0; nvmlDevice_t is an opaque pointer; nvmlClockType_t: SM = 1, MEM = 2.
// Outside the anonymous namespace: Nvml::Api's members have these types.
struct nvmlDevice_st;
using nvmlReturn_t = int;
using nvmlDevice_t = nvmlDevice_st*;

namespace kernelpad {
namespace {

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;

} // namespace

struct Nvml::Api {
    nvmlReturn_t (*init)() = nullptr;
    nvmlReturn_t (*byPciBusId)(const char*, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*clockInfo)(nvmlDevice_t, int, unsigned int*) = nullptr;
    nvmlReturn_t (*defaultAppClock)(nvmlDevice_t, int, unsigned int*) = nullptr;
    nvmlReturn_t (*maxClock)(nvmlDevice_t, int, unsigned int*) = nullptr;

    nvmlDevice_t device(const QString& pciBusId) const {
        nvmlDevice_t d = nullptr;
        const QByteArray id = pciBusId.toLatin1();
        return byPciBusId(id.constData(), &d) == kNvmlSuccess ? d : nullptr;
    }
};

const Nvml* Nvml::instance() {
    static Api api;
    static std::optional<Nvml> nvml;
    static std::once_flag once;
    std::call_once(once, [] {
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            return;
        api.init = reinterpret_cast<decltype(api.init)>(dlsym(lib, "nvmlInit_v2"));
        api.byPciBusId = reinterpret_cast<decltype(api.byPciBusId)>(
            dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
        api.clockInfo =
            reinterpret_cast<decltype(api.clockInfo)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
        api.defaultAppClock = reinterpret_cast<decltype(api.defaultAppClock)>(
            dlsym(lib, "nvmlDeviceGetDefaultApplicationsClock"));
        api.maxClock =
            reinterpret_cast<decltype(api.maxClock)>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
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
    nvmlDevice_t d = m_api->device(pciBusId);
    unsigned int mhz = 0;
    if (!d)
        return 0;
    if (m_api->defaultAppClock && m_api->defaultAppClock(d, kNvmlClockSm, &mhz) == kNvmlSuccess &&
        mhz > 0)
        return int(mhz);
    if (m_api->maxClock && m_api->maxClock(d, kNvmlClockSm, &mhz) == kNvmlSuccess)
        return int(mhz);
    return 0;
}

} // namespace kernelpad
