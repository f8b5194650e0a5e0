// Inverts a grey image (values in [0, 1)) stored row by row: pixel (x, y) is at y * width + x.
// Launch: 16 x 16 blocks, 63 x 38 of them, enough to cover 1000 x 600 pixels.
extern "C" __global__ void invert(const float* in, float* out, int width, int height)
{
    // x runs along a row, so the 16 threads of a block row read 16 neighbouring pixels.
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    // The grid covers 1008 x 608 pixels: the threads beyond the image's edge must stop.
    if (x >= width || y >= height)
        return;
    out[y * width + x] = 1.0f - in[y * width + x];
}
