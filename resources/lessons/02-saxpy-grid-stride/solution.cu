// out = a*x + y over n elements. The launch is fixed at 256 blocks of 256 threads (65,536
// threads), whatever n is: a kernel written this way runs on any grid size.
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned int n)
{
    // The grid's thread count is the stride: on every pass neighbouring threads still touch
    // neighbouring elements, so every pass reads and writes whole memory sectors.
    const unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = a * x[i] + y[i];
}
