// A kernel that spills when held to 32 registers: a per-thread array indexed at run time.
extern "C" __global__ void spill(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v[48];
#pragma unroll
    for (int k = 0; k < 48; ++k)
        v[k] = in[(i + k * 131) % n];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 48; ++k)
        s += v[k] * v[47 - k];
    out[i] = s + v[i % 48];
}
