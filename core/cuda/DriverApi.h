#pragma once
// libcuda loaded at run time with dlopen; every entry point resolved through
// cuGetProcAddress: plain dlsym returns legacy entry points that fail (cuMemAlloc's
// 32-bit one answered CUDA_ERROR_INVALID_CONTEXT).

#include <cuda.h>

#include <QString>

namespace kernelpad {

/// The driver's entry points used by KernelPad; loaded once, lazily, never unloaded.
struct DriverApi {
#define KERNELPAD_DRIVER_FUNCTIONS(X)                                                              \
    X(cuInit)                                                                                      \
    X(cuDriverGetVersion)                                                                          \
    X(cuGetErrorName)                                                                              \
    X(cuGetErrorString)                                                                            \
    X(cuDeviceGetCount)                                                                            \
    X(cuDeviceGet)                                                                                 \
    X(cuDeviceGetName)                                                                             \
    X(cuDeviceTotalMem)                                                                            \
    X(cuDeviceGetAttribute)                                                                        \
    X(cuDeviceGetPCIBusId)                                                                         \
    X(cuDevicePrimaryCtxRetain)                                                                    \
    X(cuDevicePrimaryCtxRelease)                                                                   \
    X(cuCtxSetCurrent)                                                                             \
    X(cuCtxSynchronize)                                                                            \
    X(cuStreamCreate)                                                                              \
    X(cuStreamDestroy)                                                                             \
    X(cuStreamSynchronize)                                                                         \
    X(cuStreamQuery)                                                                               \
    X(cuEventCreate)                                                                               \
    X(cuEventDestroy)                                                                              \
    X(cuEventRecord)                                                                               \
    X(cuEventSynchronize)                                                                          \
    X(cuEventElapsedTime)                                                                          \
    X(cuMemAlloc)                                                                                  \
    X(cuMemFree)                                                                                   \
    X(cuMemGetInfo)                                                                                \
    X(cuMemAllocHost)                                                                              \
    X(cuMemFreeHost)                                                                               \
    X(cuMemHostGetDevicePointer)                                                                   \
    X(cuMemcpyHtoDAsync)                                                                           \
    X(cuMemcpyDtoHAsync)                                                                           \
    X(cuMemcpyDtoDAsync)                                                                           \
    X(cuMemsetD8Async)                                                                             \
    X(cuModuleLoadData)                                                                            \
    X(cuModuleLoadDataEx)                                                                          \
    X(cuModuleGetGlobal)                                                                           \
    X(cuLaunchKernelEx)                                                                            \
    X(cuOccupancyMaxPotentialClusterSize)                                                          \
    X(cuOccupancyMaxActiveClusters)                                                                \
    X(cuModuleUnload)                                                                              \
    X(cuModuleGetFunction)                                                                         \
    X(cuFuncGetAttribute)                                                                          \
    X(cuFuncSetAttribute)                                                                          \
    X(cuFuncGetParamInfo)                                                                          \
    X(cuLaunchKernel)                                                                              \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                 \
    X(cuArray3DCreate)                                                                             \
    X(cuArrayDestroy)                                                                              \
    X(cuMemcpy3DAsync)                                                                             \
    X(cuTexObjectCreate)                                                                           \
    X(cuTexObjectDestroy)                                                                          \
    X(cuSurfObjectCreate)                                                                          \
    X(cuSurfObjectDestroy)                                                                         \
    X(cuStreamBeginCapture)                                                                        \
    X(cuStreamEndCapture)                                                                          \
    X(cuGraphInstantiateWithFlags)                                                                 \
    X(cuGraphLaunch)                                                                               \
    X(cuGraphExecDestroy)                                                                          \
    X(cuGraphDestroy)                                                                              \
    X(cuTensorMapEncodeTiled)                                                                      \
    X(cuTensorMapEncodeIm2col)

#define KERNELPAD_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
    KERNELPAD_DRIVER_FUNCTIONS(KERNELPAD_DECLARE_POINTER)
#undef KERNELPAD_DECLARE_POINTER

    int driverVersion = 0; ///< e.g. 13000 for CUDA 13.0

    /// The loaded driver, or nullptr with the reason in `why` (no libcuda, cuInit failed,
    /// an entry point missing). Thread-safe; the first call does the work.
    static const DriverApi* load(QString* why = nullptr);
    /// The loaded driver; throws DriverUnavailable when there is none.
    static const DriverApi& get();
};

} // namespace kernelpad
