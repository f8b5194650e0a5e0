#define TILE 32
extern "C" __global__ void transpose_naive(const float* in, float* out, int n)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n)
        out[x * n + y] = in[y * n + x];
}
extern "C" __global__ void transpose_tiled(const float* in, float* out, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n)
        tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < n && y < n)
        out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
