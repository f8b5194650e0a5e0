// Each thread writes down which block and which thread it is, in the element it owns.
// Launch: 64 blocks of 256 threads, one thread per element of n = 16,384.
extern "C" __global__ void who_am_i(int* block, int* thread, int n)
{
    // Block b owns elements b * blockDim.x up to (b + 1) * blockDim.x - 1.
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    // The launch may hold more threads than elements; those threads have nothing to do.
    if (i < n) {
        block[i] = blockIdx.x;
        thread[i] = threadIdx.x;
    }
}
