// cub::DeviceHistogram::HistogramEven over uint32 or float samples into int32 or uint32
// counters. The runtime's context is the caller's (CubReduce.cu says why).

#include "CubPluginCommon.cuh"

#include <cub/device/device_histogram.cuh>

namespace kpcub {
namespace {

/// `Level` is the type CUB computes bins in: the samples' own.
template <typename Sample, typename Counter>
int histogramTyped(uint64_t temp, size_t* tempBytes, uint64_t samples, uint64_t histogram,
                   int levels, double lower, double upper, int64_t n, cudaStream_t s) {
    const Sample* in = ptr<Sample>(samples);
    Counter* out = ptr<Counter>(histogram);
    const Sample lo = static_cast<Sample>(lower), hi = static_cast<Sample>(upper);
    return twoPhase(temp, tempBytes, [&](void* t, size_t& bytes) {
        return cub::DeviceHistogram::HistogramEven(t, bytes, in, out, levels, lo, hi, n, s);
    });
}

template <typename Sample>
int histogramCounters(int counterType, uint64_t temp, size_t* tempBytes, uint64_t samples,
                      uint64_t histogram, int levels, double lower, double upper, int64_t n,
                      cudaStream_t s) {
    switch (counterType) {
    case KP_CUB_INT32:
        return histogramTyped<Sample, int32_t>(temp, tempBytes, samples, histogram, levels, lower,
                                               upper, n, s);
    case KP_CUB_UINT32:
        return histogramTyped<Sample, uint32_t>(temp, tempBytes, samples, histogram, levels,
                                                lower, upper, n, s);
    default:
        return KP_CUB_UNSUPPORTED;
    }
}

} // namespace
} // namespace kpcub

KP_CUB_EXPORT int kp_cub_histogram_even(int sampleType, int counterType, uint64_t temp,
                                        size_t* tempBytes, uint64_t samples, uint64_t histogram,
                                        int levels, double lower, double upper, int64_t n,
                                        void* stream) {
    const cudaStream_t s = kpcub::streamOf(stream);
    switch (sampleType) {
    case KP_CUB_UINT32:
        return kpcub::histogramCounters<uint32_t>(counterType, temp, tempBytes, samples,
                                                  histogram, levels, lower, upper, n, s);
    case KP_CUB_FLOAT32:
        return kpcub::histogramCounters<float>(counterType, temp, tempBytes, samples, histogram,
                                               levels, lower, upper, n, s);
    default:
        return KP_CUB_UNSUPPORTED;
    }
}
