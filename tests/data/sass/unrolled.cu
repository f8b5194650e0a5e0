// A kernel whose unrolled loop needs many live registers: 32 accumulators.
extern "C" __global__ void unrolled(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc[32];
#pragma unroll
    for (int k = 0; k < 32; ++k)
        acc[k] = in[(i + k * 977) % n];
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
#pragma unroll
        for (int k = 0; k < 32; ++k)
            acc[k] = acc[k] * acc[(k + r + 1) % 32] + 1.0f;
    }
#pragma unroll
    for (int k = 0; k < 32; ++k)
        s += acc[k];
    out[i] = s;
}
