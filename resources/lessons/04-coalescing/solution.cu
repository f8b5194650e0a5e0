// Copies a rows x cols row-major matrix, one element per thread. Which element thread t
// copies decides how a warp's 32 accesses fall in memory.
extern "C" __global__ void copy_matrix(const float* in, float* out, int rows, int cols)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    // Consecutive threads walk along a row: a warp's 32 floats are 128 contiguous bytes,
    // four whole sectors, so every byte the memory system moves is used.
    const int row = t / cols;
    const int col = t % cols;
    if (row < rows && col < cols)
        out[row * cols + col] = in[row * cols + col];
}
