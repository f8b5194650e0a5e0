// cub::DeviceRadixSort over int32, uint32, float and uint64 keys, keys alone or with values of
// 4 or 8 bytes (any type of that size: a sort moves values and never looks at them), ascending
// or descending. The runtime's context is the caller's (CubReduce.cu says why).

#include "CubPluginCommon.cuh"

#include <cub/device/device_radix_sort.cuh>

namespace kpcub {
namespace {

template <typename K, typename V>
int sortPairs(bool descending, uint64_t temp, size_t* tempBytes, uint64_t keysIn,
              uint64_t keysOut, uint64_t valuesIn, uint64_t valuesOut, int64_t n,
              cudaStream_t s) {
    const K* ki = ptr<K>(keysIn);
    K* ko = ptr<K>(keysOut);
    const V* vi = ptr<V>(valuesIn);
    V* vo = ptr<V>(valuesOut);
    constexpr int kEndBit = int(sizeof(K) * 8);
    if (descending)
        return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
            return cub::DeviceRadixSort::SortPairsDescending(t, bytes, ki, ko, vi, vo, n, 0,
                                                             kEndBit, s);
        });
    return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(t, bytes, ki, ko, vi, vo, n, 0, kEndBit, s);
    });
}

template <typename K>
int sortTyped(bool descending, int valueBytes, uint64_t temp, size_t* tempBytes, uint64_t keysIn,
              uint64_t keysOut, uint64_t valuesIn, uint64_t valuesOut, int64_t n,
              cudaStream_t s) {
    const K* ki = ptr<K>(keysIn);
    K* ko = ptr<K>(keysOut);
    constexpr int kEndBit = int(sizeof(K) * 8);
    switch (valueBytes) {
    case 0:
        if (descending)
            return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
                return cub::DeviceRadixSort::SortKeysDescending(t, bytes, ki, ko, n, 0, kEndBit,
                                                                s);
            });
        return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
            return cub::DeviceRadixSort::SortKeys(t, bytes, ki, ko, n, 0, kEndBit, s);
        });
    case 4:
        return sortPairs<K, uint32_t>(descending, temp, tempBytes, keysIn, keysOut, valuesIn,
                                      valuesOut, n, s);
    case 8:
        return sortPairs<K, uint64_t>(descending, temp, tempBytes, keysIn, keysOut, valuesIn,
                                      valuesOut, n, s);
    default:
        return KP_CUB_UNSUPPORTED;
    }
}

} // namespace
} // namespace kpcub

KP_CUB_EXPORT int kp_cub_sort(int descending, int keyType, int valueBytes, uint64_t temp,
                              size_t* tempBytes, uint64_t keysIn, uint64_t keysOut,
                              uint64_t valuesIn, uint64_t valuesOut, int64_t n, void* stream) {
    const cudaStream_t s = kpcub::streamOf(stream);
    const bool down = descending != 0;
    switch (keyType) {
    case KP_CUB_INT32:
        return kpcub::sortTyped<int32_t>(down, valueBytes, temp, tempBytes, keysIn, keysOut,
                                         valuesIn, valuesOut, n, s);
    case KP_CUB_UINT32:
        return kpcub::sortTyped<uint32_t>(down, valueBytes, temp, tempBytes, keysIn, keysOut,
                                          valuesIn, valuesOut, n, s);
    case KP_CUB_FLOAT32:
        return kpcub::sortTyped<float>(down, valueBytes, temp, tempBytes, keysIn, keysOut,
                                       valuesIn, valuesOut, n, s);
    case KP_CUB_UINT64:
        return kpcub::sortTyped<uint64_t>(down, valueBytes, temp, tempBytes, keysIn, keysOut,
                                          valuesIn, valuesOut, n, s);
    default:
        return KP_CUB_UNSUPPORTED;
    }
}
