#pragma once
// Devices as the driver reports them.

#include "core/cuda/DeviceInfo.h"

#include <cuda.h>

#include <QVector>

namespace kernelpad {

/// A CUDA device by ordinal; cheap to copy (the driver owns the device itself).
class Device {
public:
    /// Throws CudaError for an ordinal the driver does not know, DriverUnavailable without one.
    explicit Device(int ordinal);

    [[nodiscard]] static int count();
    [[nodiscard]] static QVector<DeviceInfo> all();

    [[nodiscard]] int ordinal() const { return m_ordinal; }
    [[nodiscard]] CUdevice handle() const { return m_handle; }
    [[nodiscard]] int attribute(CUdevice_attribute attribute) const;
    /// Every attribute KernelPad shows, read now.
    [[nodiscard]] DeviceInfo info() const;

private:
    int m_ordinal;
    CUdevice m_handle = 0;
};

} // namespace kernelpad
