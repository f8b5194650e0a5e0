#define BLOCK 1024
#define PER_THREAD 64

// a * in, with each thread loading PER_THREAD elements before it writes any: many loads in
// flight per thread hide memory latency, but each loaded value holds a register until it
// is written out.
// __launch_bounds__(BLOCK): blocks never exceed BLOCK threads, so the compiler keeps the
// registers at 65,536 / BLOCK = 64 per thread or fewer, spilling to local memory if it must.
extern "C" __global__ void __launch_bounds__(BLOCK)
scale_many(const float* in, float* out, float a, unsigned int n)
{
    const unsigned int first = blockIdx.x * BLOCK * PER_THREAD + threadIdx.x;
    float v[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const unsigned int i = first + k * BLOCK;
        v[k] = i < n ? in[i] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const unsigned int i = first + k * BLOCK;
        if (i < n)
            out[i] = a * v[k];
    }
}
