#include "core/cuda/DriverApi.h"

#include "core/cuda/CudaError.h"

#include <cudaTypedefs.h>
#include <dlfcn.h>

#include <mutex>

namespace kernelpad {
namespace {

struct LoadState {
    DriverApi api;
    const DriverApi* loaded = nullptr;
    QString error;
};

QString resultName(const DriverApi& api, CUresult r) {
    const char* name = nullptr;
    if (api.cuGetErrorName && api.cuGetErrorName(r, &name) == CUDA_SUCCESS && name)
        return QString::fromUtf8(name);
    return QStringLiteral("CUresult %1").arg(int(r));
}

void loadInto(LoadState& s) {
    // libcuda.so.1 is the driver's soname; libcuda.so exists only with dev symlinks.
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        s.error = QStringLiteral("no CUDA driver found (libcuda.so.1 could not be loaded: %1)")
                      .arg(QString::fromUtf8(dlerror()));
        return;
    }
    auto getProc = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(lib, "cuGetProcAddress_v2"));
    if (!getProc) {
        s.error = QStringLiteral("the CUDA driver is too old: cuGetProcAddress_v2 is missing "
                                 "(KernelPad needs a driver for CUDA 12.0 or newer)");
        return;
    }
    QString missing;
    auto resolve = [&](const char* symbol, void** slot) {
        CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        if (getProc(symbol, slot, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found) !=
                CUDA_SUCCESS ||
            found != CU_GET_PROC_ADDRESS_SUCCESS || !*slot) {
            *slot = nullptr;
            missing += (missing.isEmpty() ? "" : ", ") + QString::fromLatin1(symbol);
        }
    };
#define KERNELPAD_RESOLVE(name) resolve(#name, reinterpret_cast<void**>(&s.api.name));
    KERNELPAD_DRIVER_FUNCTIONS(KERNELPAD_RESOLVE)
#undef KERNELPAD_RESOLVE
    if (!missing.isEmpty()) {
        s.error =
            QStringLiteral("the CUDA driver lacks entry points KernelPad needs: %1").arg(missing);
        return;
    }
    if (CUresult r = s.api.cuInit(0); r != CUDA_SUCCESS) {
        s.error = QStringLiteral("the CUDA driver could not start (cuInit: %1)")
                      .arg(resultName(s.api, r));
        return;
    }
    s.api.cuDriverGetVersion(&s.api.driverVersion);
    s.loaded = &s.api;
}

LoadState& state() {
    static LoadState s;
    static std::once_flag once;
    std::call_once(once, [] { loadInto(s); });
    return s;
}

} // namespace

const DriverApi* DriverApi::load(QString* why) {
    LoadState& s = state();
    if (!s.loaded && why)
        *why = s.error;
    return s.loaded;
}

const DriverApi& DriverApi::get() {
    QString why;
    if (const DriverApi* api = load(&why))
        return *api;
    throw DriverUnavailable(why);
}

} // namespace kernelpad
