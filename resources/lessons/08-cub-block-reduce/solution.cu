#include <cub/block/block_reduce.cuh>

#define BLOCK 256

// Sums each block's BLOCK inputs with CUB's block-wide reduction. CUB ships with the CUDA
// toolkit; KernelPad hands NVRTC the toolkit's include folders, so the include just works.
extern "C" __global__ void __launch_bounds__(BLOCK)
block_sum_cub(const float* in, float* out, unsigned int n)
{
    // BlockReduce picks warp shuffles and a shared-memory step suited to this block size;
    // TempStorage is the shared memory it needs, declared by the caller.
    using BlockReduce = cub::BlockReduce<float, BLOCK>;
    __shared__ typename BlockReduce::TempStorage temp;
    const unsigned int i = blockIdx.x * BLOCK + threadIdx.x;
    const float v = i < n ? in[i] : 0.0f;
    // Every thread calls Sum (it contains a barrier); the result is valid in thread 0.
    const float sum = BlockReduce(temp).Sum(v);

    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
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
