#include "core/cuda/Device.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"

namespace kernelpad {

Device::Device(int ordinal)
    : m_ordinal(ordinal) {
    const DriverApi& api = DriverApi::get();
    const int n = count();
    if (ordinal < 0 || ordinal >= n)
        throw CudaError(CUDA_ERROR_INVALID_DEVICE, QStringLiteral("CUDA_ERROR_INVALID_DEVICE"),
                        QStringLiteral("there are %1 device(s), numbered from 0").arg(n),
                        QStringLiteral("selecting device %1").arg(ordinal));
    check(api.cuDeviceGet(&m_handle, ordinal), QStringLiteral("cuDeviceGet(%1)").arg(ordinal));
}

int Device::count() {
    int n = 0;
    check(DriverApi::get().cuDeviceGetCount(&n), "cuDeviceGetCount");
    return n;
}

QVector<DeviceInfo> Device::all() {
    QVector<DeviceInfo> devices;
    const int n = count();
    for (int i = 0; i < n; ++i)
        devices.push_back(Device(i).info());
    return devices;
}

int Device::attribute(CUdevice_attribute attribute) const {
    int value = 0;
    // Some attributes (clock rates) are not reported by every driver: 0 means unknown.
    if (DriverApi::get().cuDeviceGetAttribute(&value, attribute, m_handle) != CUDA_SUCCESS)
        return 0;
    return value;
}

DeviceInfo Device::info() const {
    const DriverApi& api = DriverApi::get();
    DeviceInfo d;
    d.ordinal = m_ordinal;
    char name[256] = {};
    check(api.cuDeviceGetName(name, sizeof(name) - 1, m_handle), "cuDeviceGetName");
    d.name = QString::fromUtf8(name);
    size_t total = 0;
    check(api.cuDeviceTotalMem(&total, m_handle), "cuDeviceTotalMem");
    d.totalMemBytes = qint64(total);
    d.ccMajor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    d.ccMinor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    d.smCount = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    d.maxThreadsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    d.maxBlockDim = {attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                     attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                     attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
    d.maxGridDim = {attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                    attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                    attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
    d.sharedMemPerBlockBytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    d.sharedMemPerBlockOptinBytes =
        attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    d.sharedMemPerSmBytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    d.registersPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    d.registersPerSm = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    d.warpSize = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    d.maxThreadsPerSm = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    d.maxBlocksPerSm = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    // 0 is a real answer here (before cc 8.0), so a failed query must read as unknown.
    int reserved = 0;
    if (api.cuDeviceGetAttribute(&reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
                                 m_handle) == CUDA_SUCCESS)
        d.reservedSharedPerBlockBytes = reserved;
    d.l2CacheBytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    d.clockRateKHz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    d.memoryClockRateKHz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    d.memoryBusWidthBits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    char bus[64] = {};
    if (api.cuDeviceGetPCIBusId(bus, sizeof(bus) - 1, m_handle) == CUDA_SUCCESS)
        d.pciBusId = QString::fromLatin1(bus);
    d.driverVersion = api.driverVersion;
    return d;
}

} // namespace kernelpad
