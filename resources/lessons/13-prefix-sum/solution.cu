#define BLOCK 1024

// Inclusive prefix sum of each block's BLOCK values (Hillis and Steele): after the step with
// offset d, element t holds the sum of the 2d values ending at t (or all of them, from 0).
extern "C" __global__ void __launch_bounds__(BLOCK)
block_scan(const int* in, int* out, unsigned int n)
{
    // Two buffers, read one and write the other: a step never overwrites a value that
    // another thread still has to read in the same step.
    __shared__ int buffer[2][BLOCK];
    const unsigned int t = threadIdx.x;
    const unsigned int i = blockIdx.x * BLOCK + t;
    int current = 0;
    buffer[current][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int offset = 1; offset < BLOCK; offset *= 2) {
        // Element t gains the partial sum ending `offset` places to its left.
        int v = buffer[current][t];
        if (t >= offset)
            v += buffer[current][t - offset];
        buffer[1 - current][t] = v;
        current = 1 - current;
        __syncthreads();
    }
    if (i < n)
        out[i] = buffer[current][t];
}

// The check: one thread per block adds up the block's values in order. Leave it as it is.
extern "C" __global__ void block_scan_reference(const int* in, int* out, unsigned int n)
{
    if (threadIdx.x != 0)
        return;
    int sum = 0;
    for (unsigned int k = 0; k < BLOCK; ++k) {
        const unsigned int i = blockIdx.x * BLOCK + k;
        if (i < n) {
            sum += in[i];
            out[i] = sum;
        }
    }
}
