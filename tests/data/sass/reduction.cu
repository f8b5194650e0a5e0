#define BLOCK 256

// Tree reduction in shared memory: each block writes the sum of its BLOCK inputs.
extern "C" __global__ void __launch_bounds__(BLOCK)
block_sum(const float* in, float* out, unsigned int n)
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

// Reference: one thread per block adds its inputs one by one.
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
