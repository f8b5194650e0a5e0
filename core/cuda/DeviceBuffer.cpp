#include "core/cuda/DeviceBuffer.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"

#include <QDebug>

#include <algorithm>
#include <utility>

namespace kernelpad {

DeviceBuffer::DeviceBuffer(qint64 bytes, const QString& label)
    : DeviceBuffer(bytes, 0, label) {}

DeviceBuffer::DeviceBuffer(qint64 bytes, qint64 guardBytes, const QString& label)
    : m_bytes(bytes)
    , m_guardBytes(std::max<qint64>(guardBytes, 0))
    , m_label(label) {
    // cuMemAlloc of 0 bytes is an error; a 1-byte allocation keeps the pointer valid.
    const size_t allocBytes = size_t(std::max<qint64>(bytes, 1) + 2 * m_guardBytes);
    CUdeviceptr base = 0;
    check(DriverApi::get().cuMemAlloc(&base, allocBytes),
          QStringLiteral("cuMemAlloc of %1 for %2").arg(formatBytes(bytes), label));
    m_ptr = base + CUdeviceptr(m_guardBytes);
}

DeviceBuffer::~DeviceBuffer() {
    if (!m_ptr)
        return;
    if (const DriverApi* api = DriverApi::load())
        if (CUresult r = api->cuMemFree(m_ptr - CUdeviceptr(m_guardBytes)); r != CUDA_SUCCESS)
            qWarning("cuMemFree of %s failed: %d", qPrintable(m_label), int(r));
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : m_ptr(std::exchange(other.m_ptr, 0))
    , m_bytes(std::exchange(other.m_bytes, 0))
    , m_guardBytes(std::exchange(other.m_guardBytes, 0))
    , m_label(std::move(other.m_label)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
    std::swap(m_ptr, other.m_ptr);
    std::swap(m_bytes, other.m_bytes);
    std::swap(m_guardBytes, other.m_guardBytes);
    std::swap(m_label, other.m_label);
    return *this;
}

void DeviceBuffer::uploadAsync(const void* host, qint64 bytes, const Stream& stream) {
    if (bytes <= 0)
        return;
    check(DriverApi::get().cuMemcpyHtoDAsync(m_ptr, host, size_t(bytes), stream.handle()),
          QStringLiteral("copying %1 to %2").arg(formatBytes(bytes), m_label));
}

void DeviceBuffer::downloadAsync(void* host, qint64 bytes, const Stream& stream) const {
    if (bytes <= 0)
        return;
    check(DriverApi::get().cuMemcpyDtoHAsync(host, m_ptr, size_t(bytes), stream.handle()),
          QStringLiteral("copying %1 back from %2").arg(formatBytes(bytes), m_label));
}

void DeviceBuffer::copyFromAsync(const DeviceBuffer& source, const Stream& stream) {
    const qint64 bytes = std::min(m_bytes, source.m_bytes);
    if (bytes <= 0)
        return;
    check(DriverApi::get().cuMemcpyDtoDAsync(m_ptr, source.m_ptr, size_t(bytes), stream.handle()),
          QStringLiteral("copying %1 into %2").arg(source.m_label, m_label));
}

void DeviceBuffer::fillBytesAsync(unsigned char value, const Stream& stream) {
    if (m_bytes <= 0)
        return;
    check(DriverApi::get().cuMemsetD8Async(m_ptr, value, size_t(m_bytes), stream.handle()),
          QStringLiteral("filling %1").arg(m_label));
}

} // namespace kernelpad
