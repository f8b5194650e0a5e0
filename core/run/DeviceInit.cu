// "uniform" buffer contents generated on the GPU, bit for bit as the host's generator in
// core/launch/BufferInit.h makes them (randomKey, randomBits, unitFromBits): element i is
// low + unit(i) * (high - low) with each operation rounded once, then rounded to the type.

__device__ __forceinline__ unsigned long long kpFinalise(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__device__ __forceinline__ double kpUniform(unsigned long long key, unsigned long long i,
                                            double low, double high)
{
    const unsigned long long bits = kpFinalise(key + (i + 1ULL) * 0x9E3779B97F4A7C15ULL);
    const double unit = __dmul_rn((double)(bits >> 11), 0x1.0p-53);
    const double x = __dadd_rn(low, __dmul_rn(unit, __dsub_rn(high, low)));
    return (x >= high && high > low) ? nextafter(high, low) : x;
}

extern "C" __global__ void kpUniform_float32(float* out, unsigned long long n,
                                             unsigned long long key, double low, double high)
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = __double2float_rn(kpUniform(key, i, low, high));
}

extern "C" __global__ void kpUniform_float64(double* out, unsigned long long n,
                                             unsigned long long key, double low, double high)
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = kpUniform(key, i, low, high);
}
