#pragma once
// The device's primary context, retained for the lifetime of this object.

#include "core/cuda/Device.h"

#include <cuda.h>

namespace kernelpad {

/// A retained primary context, made current on the constructing thread. Move-only.
class Context {
public:
    explicit Context(const Device& device);
    ~Context();
    Context(Context&& other) noexcept;
    Context& operator=(Context&& other) noexcept;
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    /// Makes the context current on the calling thread (worker threads call this first).
    void makeCurrent() const;
    void synchronize() const;
    [[nodiscard]] CUcontext handle() const { return m_context; }
    [[nodiscard]] const Device& device() const { return m_device; }

private:
    Device m_device;
    CUcontext m_context = nullptr;
};

} // namespace kernelpad
