#pragma once
// Device memory owned by one object.

#include "core/cuda/Stream.h"

#include <cuda.h>

#include <QString>

namespace kernelpad {

/// A device allocation (cuMemAlloc); move-only, freed in the destructor.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    /// `label` names the buffer in error messages ("buffer 'x'").
    DeviceBuffer(qint64 bytes, const QString& label);
    /// As above, with `guardBytes` more allocated on each side (canaries: core/run/RunBuffers.h);
    /// address() is the buffer's start, still aligned as cuMemAlloc aligns when `guardBytes` is
    /// a multiple of 256.
    DeviceBuffer(qint64 bytes, qint64 guardBytes, const QString& label);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    [[nodiscard]] CUdeviceptr address() const { return m_ptr; }
    [[nodiscard]] qint64 sizeBytes() const { return m_bytes; }
    /// Bytes allocated before address() and after its end (0: none).
    [[nodiscard]] qint64 guardBytes() const { return m_guardBytes; }

    void uploadAsync(const void* host, qint64 bytes, const Stream& stream);
    void downloadAsync(void* host, qint64 bytes, const Stream& stream) const;
    void copyFromAsync(const DeviceBuffer& source, const Stream& stream);
    void fillBytesAsync(unsigned char value, const Stream& stream);

private:
    CUdeviceptr m_ptr = 0;
    qint64 m_bytes = 0;
    qint64 m_guardBytes = 0;
    QString m_label;
};

} // namespace kernelpad
