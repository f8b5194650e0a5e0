#define BLOCK 256
#define WARP 32

// The tree of the reduction example, kept to compare with: set the project's kernel to
// block_sum_tree and compare the timings and the SASS.
extern "C" __global__ void __launch_bounds__(BLOCK)
block_sum_tree(const float* in, float* out, unsigned int n)
{
    __shared__ float partial[BLOCK];
    const unsigned int i = blockIdx.x * BLOCK + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = partial[0];
}

// The sum of a warp's 32 values in registers, without shared memory or __syncthreads():
// after the step with offset o, lane l holds the sum of lanes l .. l + 2o - 1.
__device__ float warp_sum(float v)
{
    for (int offset = WARP / 2; offset > 0; offset /= 2) {
        // Every lane takes part (full mask). A lane whose partner would be past lane 31
        // gets its own value back: its partial sum goes wrong, but lane 0's never depends on it.
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v; // complete in lane 0 only
}

// Each warp sums its 32 values, lane 0 of each warp leaves the warp's sum in shared memory,
// and the first warp sums those.
extern "C" __global__ void __launch_bounds__(BLOCK)
block_sum_shuffle(const float* in, float* out, unsigned int n)
{
    __shared__ float warpSums[BLOCK / WARP];
    const unsigned int i = blockIdx.x * BLOCK + threadIdx.x;
    const unsigned int lane = threadIdx.x % WARP;
    const unsigned int warp = threadIdx.x / WARP;
    float v = warp_sum(i < n ? in[i] : 0.0f);
    if (lane == 0)
        warpSums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < BLOCK / WARP ? warpSums[lane] : 0.0f);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

// The check: one thread per block adds the block's inputs one by one. Leave it as it is.
extern "C" __global__ void block_sum_reference(const float* in, float* out, unsigned int n)
{
    if (threadIdx.x != 0)
        return;
    float sum = 0.0f;
    for (unsigned int k = 0; k < BLOCK; ++k) {
        const unsigned int i = blockIdx.x * BLOCK + k;
        sum += i < n ? in[i] : 0.0f;
    }
    out[blockIdx.x] = sum;
}
