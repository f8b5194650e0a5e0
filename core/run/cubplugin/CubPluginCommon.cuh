#pragma once
// What the plugin's .cu files share: the exported-symbol attribute and the two-phase CUB call
// (size query with temp 0, then the call) written once.

#include "CubPluginAbi.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#define KP_CUB_EXPORT extern "C" __attribute__((visibility("default")))

namespace kpcub {

template <typename T> T* ptr(uint64_t address) {
    return reinterpret_cast<T*>(static_cast<uintptr_t>(address));
}

inline cudaStream_t streamOf(void* stream) {
    // CUstream and cudaStream_t are the same handle (both CUstream_st*).
    return static_cast<cudaStream_t>(stream);
}

/// Runs `call(tempPointer, tempBytes)`: a size query when `temp` is 0, else the call itself.
template <typename Call> int twoPhase(uint64_t temp, size_t* tempBytes, Call call) {
    if (temp == 0) {
        *tempBytes = 0;
        return static_cast<int>(call(static_cast<void*>(nullptr), *tempBytes));
    }
    return static_cast<int>(call(ptr<void>(temp), *tempBytes));
}

} // namespace kpcub
