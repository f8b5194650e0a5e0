#pragma once
// The C interface of the CUB baseline plugin (libkernelpad_cub.so, built with nvcc from the
// .cu files beside this header): CUB's device-wide algorithms are host-dispatched C++ templates,
// which NVRTC cannot compile, so a small shared library instantiates a few element types at
// build time and the runner dlopens it (core/run/CubPlugin.h). Plain C, no CUDA header: the
// plugin and the runner share only these declarations.
//
// Every call takes device addresses (CUdeviceptr) and a stream (CUstream) of the context current
// on the calling thread. With `temp` 0 it only writes the temporary storage the call needs to
// *tempBytes and queues nothing; otherwise it queues the call on `stream` with `temp` of
// *tempBytes bytes. It returns 0, a cudaError_t, or KP_CUB_UNSUPPORTED for a type or operation
// the plugin was not built for.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Bumped whenever a declaration below changes; the runner refuses another version.
#define KP_CUB_ABI_VERSION 1
#define KP_CUB_UNSUPPORTED (-1)

/// Element types, as the runner names them to the plugin.
enum KpCubType {
    KP_CUB_INT32 = 0,
    KP_CUB_UINT32 = 1,
    KP_CUB_FLOAT32 = 2,
    KP_CUB_FLOAT64 = 3,
    KP_CUB_UINT64 = 4,
};

enum KpCubReduceOp { KP_CUB_SUM = 0, KP_CUB_MIN = 1, KP_CUB_MAX = 2 };

typedef int (*KpCubAbiVersionFn)(void);
/// The text of a status the calls returned ("cudaErrorInvalidValue: invalid argument").
typedef const char* (*KpCubErrorStringFn)(int status);
/// cub::DeviceReduce::Sum/Min/Max of n elements of `type` into out[0].
typedef int (*KpCubReduceFn)(int op, int type, uint64_t temp, size_t* tempBytes, uint64_t in,
                             uint64_t out, int64_t n, void* stream);
/// cub::DeviceScan::InclusiveSum (exclusive 0) or ExclusiveSum (exclusive 1).
typedef int (*KpCubScanFn)(int exclusive, int type, uint64_t temp, size_t* tempBytes, uint64_t in,
                           uint64_t out, int64_t n, void* stream);
/// cub::DeviceRadixSort::SortKeys (valueBytes 0) or SortPairs with values of 4 or 8 bytes
/// (moved, never compared), ascending or descending.
typedef int (*KpCubSortFn)(int descending, int keyType, int valueBytes, uint64_t temp,
                           size_t* tempBytes, uint64_t keysIn, uint64_t keysOut, uint64_t valuesIn,
                           uint64_t valuesOut, int64_t n, void* stream);
/// cub::DeviceHistogram::HistogramEven: levels - 1 bins of equal width over [lower, upper).
typedef int (*KpCubHistogramEvenFn)(int sampleType, int counterType, uint64_t temp,
                                    size_t* tempBytes, uint64_t samples, uint64_t histogram,
                                    int levels, double lower, double upper, int64_t n,
                                    void* stream);

#ifdef __cplusplus
}
#endif
