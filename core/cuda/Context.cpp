#include "core/cuda/Context.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"

#include <QDebug>

#include <utility>

namespace kernelpad {

Context::Context(const Device& device)
    : m_device(device) {
    const DriverApi& api = DriverApi::get();
    check(api.cuDevicePrimaryCtxRetain(&m_context, device.handle()),
          QStringLiteral("retaining the primary context of device %1").arg(device.ordinal()));
    makeCurrent();
}

Context::~Context() {
    if (!m_context)
        return;
    if (const DriverApi* api = DriverApi::load()) {
        if (CUresult r = api->cuDevicePrimaryCtxRelease(m_device.handle()); r != CUDA_SUCCESS)
            qWarning("cuDevicePrimaryCtxRelease failed: %d", int(r));
    }
}

Context::Context(Context&& other) noexcept
    : m_device(other.m_device)
    , m_context(std::exchange(other.m_context, nullptr)) {}

Context& Context::operator=(Context&& other) noexcept {
    if (this != &other) {
        std::swap(m_device, other.m_device);
        std::swap(m_context, other.m_context);
    }
    return *this;
}

void Context::makeCurrent() const {
    check(DriverApi::get().cuCtxSetCurrent(m_context), "cuCtxSetCurrent");
}

void Context::synchronize() const {
    check(DriverApi::get().cuCtxSynchronize(), "cuCtxSynchronize");
}

} // namespace kernelpad
