// cub::DeviceReduce (sum, min, max) and cub::DeviceScan (inclusive and exclusive sum) over
// int32, uint32, float and double, and the plugin's version and error text.
//
// The CUDA runtime linked statically here uses the context the runner made current: "CUDA
// Runtime API calls operate on the CUDA Driver API CUcontext which is current to the calling
// host thread" (CUDA Runtime API reference, "Interactions with the CUDA Driver API"). The
// runner's context is the device's primary context, so the runtime never makes one of its own
// and the addresses and stream it is given are valid here.

#include "CubPluginCommon.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

namespace kpcub {
namespace {

template <typename T>
int reduceTyped(int op, uint64_t temp, size_t* tempBytes, uint64_t in, uint64_t out, int64_t n,
                cudaStream_t stream) {
    const T* input = ptr<T>(in);
    T* output = ptr<T>(out);
    switch (op) {
    case KP_CUB_SUM:
        return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
            return cub::DeviceReduce::Sum(t, bytes, input, output, n, stream);
        });
    case KP_CUB_MIN:
        return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
            return cub::DeviceReduce::Min(t, bytes, input, output, n, stream);
        });
    case KP_CUB_MAX:
        return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
            return cub::DeviceReduce::Max(t, bytes, input, output, n, stream);
        });
    default:
        return KP_CUB_UNSUPPORTED;
    }
}

template <typename T>
int scanTyped(int exclusive, uint64_t temp, size_t* tempBytes, uint64_t in, uint64_t out,
              int64_t n, cudaStream_t stream) {
    const T* input = ptr<T>(in);
    T* output = ptr<T>(out);
    if (exclusive)
        return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
            return cub::DeviceScan::ExclusiveSum(t, bytes, input, output, n, stream);
        });
    return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
        return cub::DeviceScan::InclusiveSum(t, bytes, input, output, n, stream);
    });
}

} // namespace
} // namespace kpcub

KP_CUB_EXPORT int kp_cub_abi_version(void) {
    return KP_CUB_ABI_VERSION;
}

KP_CUB_EXPORT const char* kp_cub_error_string(int status) {
    if (status == KP_CUB_UNSUPPORTED)
        return "the plugin has no such element type or operation";
    return cudaGetErrorString(static_cast<cudaError_t>(status));
}

KP_CUB_EXPORT int kp_cub_reduce(int op, int type, uint64_t temp, size_t* tempBytes, uint64_t in,
                                uint64_t out, int64_t n, void* stream) {
    const cudaStream_t s = kpcub::streamOf(stream);
    switch (type) {
    case KP_CUB_INT32:
        return kpcub::reduceTyped<int32_t>(op, temp, tempBytes, in, out, n, s);
    case KP_CUB_UINT32:
        return kpcub::reduceTyped<uint32_t>(op, temp, tempBytes, in, out, n, s);
    case KP_CUB_FLOAT32:
        return kpcub::reduceTyped<float>(op, temp, tempBytes, in, out, n, s);
    case KP_CUB_FLOAT64:
        return kpcub::reduceTyped<double>(op, temp, tempBytes, in, out, n, s);
    default:
        return KP_CUB_UNSUPPORTED;
    }
}

KP_CUB_EXPORT int kp_cub_scan(int exclusive, int type, uint64_t temp, size_t* tempBytes,
                              uint64_t in, uint64_t out, int64_t n, void* stream) {
    const cudaStream_t s = kpcub::streamOf(stream);
    switch (type) {
    case KP_CUB_INT32:
        return kpcub::scanTyped<int32_t>(exclusive, temp, tempBytes, in, out, n, s);
    case KP_CUB_UINT32:
        return kpcub::scanTyped<uint32_t>(exclusive, temp, tempBytes, in, out, n, s);
    case KP_CUB_FLOAT32:
        return kpcub::scanTyped<float>(exclusive, temp, tempBytes, in, out, n, s);
    case KP_CUB_FLOAT64:
        return kpcub::scanTyped<double>(exclusive, temp, tempBytes, in, out, n, s);
    default:
        return KP_CUB_UNSUPPORTED;
    }
}
