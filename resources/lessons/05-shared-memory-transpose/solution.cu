#define TILE 32
// The block is TILE x ROWS_PER_PASS threads; each thread moves TILE / ROWS_PER_PASS elements
// of its block's TILE x TILE tile, so a block has enough threads and enough work.
#define ROWS_PER_PASS 8

// out (cols x rows) = in (rows x cols) transposed, through a TILE x TILE tile in shared memory.
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    // One column of padding keeps a column of the tile in 32 different banks (lesson 6).
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    // Read a tile along the rows of in: coalesced.
    for (int k = 0; k < TILE; k += ROWS_PER_PASS)
        if (x < cols && y + k < rows)
            tile[threadIdx.y + k][threadIdx.x] = in[(y + k) * cols + x];
    // Each element of the tile is read by another thread than the one that wrote it.
    __syncthreads();
    // The tile goes to block (blockIdx.y, blockIdx.x) of out, and threadIdx.x now runs
    // along a row of out, so the writes are coalesced too; the tile is read down a column.
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS_PER_PASS)
        if (x < rows && y + k < cols)
            out[(y + k) * rows + x] = tile[threadIdx.x][threadIdx.y + k];
}

// The check: the same naive transpose, one element at a time. Leave it as it is.
extern "C" __global__ void transpose_reference(const float* in, float* out, int rows, int cols)
{
    const int x = blockIdx.x * TILE + threadIdx.x;
    for (int k = 0; k < TILE; k += ROWS_PER_PASS) {
        const int y = blockIdx.y * TILE + threadIdx.y + k;
        if (x < cols && y < rows)
            out[x * rows + y] = in[y * cols + x];
    }
}
