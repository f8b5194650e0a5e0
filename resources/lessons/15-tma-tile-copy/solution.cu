// A 2D tile copy fed by TMA (the Tensor Memory Accelerator, sm_90): each block asks the
// TMA unit for one boxCols x boxRows tile of `src` through the tensor map `srcMap`, waits on
// an mbarrier until the bytes have landed in shared memory, and has the TMA unit store the
// tile to `dst` through `dstMap`. No thread computes an address. plainTileCopy does the same
// copy with ordinary loads and stores; it is the reference the TMA copy is verified against,
// and setting "kernel" to plainTileCopy times it with the same grid for comparison.
//
// NVRTC cannot include <cuda.h> (it declares the host API), so the 128-byte, 64-byte aligned
// CUtensorMap is declared here under cuda.h's names; <cuda/barrier> forward-declares the same
// names, so its TMA helpers take this type too. KernelPad encodes each map on the host with
// cuTensorMapEncodeTiled over the buffer the argument names and passes it by value.
typedef struct alignas(64) CUtensorMap_st { unsigned long long opaque[16]; } CUtensorMap;

// Waits until phase `parity` of the mbarrier at shared address `bar` completes.
__device__ __forceinline__ void waitPhase(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p;\n"
                     "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "  selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

extern "C" __global__ void tmaTileCopy(const float* src, float* dst,
                                       const __grid_constant__ CUtensorMap srcMap,
                                       const __grid_constant__ CUtensorMap dstMap,
                                       int rows, int cols, int boxCols, int boxRows)
{
    extern __shared__ unsigned char smem[];
    __shared__ alignas(8) unsigned long long bar;
    // Swizzle 128B repeats every 1024 bytes: the tile starts on that boundary.
    unsigned char* tile = (unsigned char*)(((size_t)smem + 1023) & ~size_t(1023));
    const unsigned tileAddr = (unsigned)__cvta_generic_to_shared(tile);
    const unsigned barAddr = (unsigned)__cvta_generic_to_shared(&bar);
    const int x = blockIdx.x * boxCols, y = blockIdx.y * boxRows;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(barAddr) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        // One arrival that also expects the tile's bytes; the copy completes the phase.
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     :: "r"(barAddr), "r"(unsigned(boxCols * boxRows * sizeof(float))) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(tileAddr), "l"(&srcMap), "r"(x), "r"(y), "r"(barAddr) : "memory");
        waitPhase(barAddr, 0);
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                     :: "l"(&dstMap), "r"(x), "r"(y), "r"(tileAddr) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        // Shared memory must outlive the store's reads of it.
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}

// The same tiles with plain loads and stores: a row of 32 threads reads 128 contiguous bytes.
extern "C" __global__ void plainTileCopy(const float* src, float* dst,
                                         const __grid_constant__ CUtensorMap srcMap,
                                         const __grid_constant__ CUtensorMap dstMap,
                                         int rows, int cols, int boxCols, int boxRows)
{
    const int x = blockIdx.x * boxCols, y = blockIdx.y * boxRows;
    for (int e = threadIdx.x; e < boxCols * boxRows; e += blockDim.x) {
        const int r = y + e / boxCols, c = x + e % boxCols;
        if (r < rows && c < cols)
            dst[size_t(r) * cols + c] = src[size_t(r) * cols + c];
    }
}
