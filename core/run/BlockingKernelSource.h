#pragma once
// The CUDA source of the blocking kernel (BlockingKernel.h), compiled with NVRTC at run time.
// Header-only and dependency-free: bench/raw_driver queues its samples behind the very same
// kernel, so that both harnesses time like with like.

namespace kernelpad {

/// Entry point of kBlockingKernelSource (extern "C": not mangled).
inline constexpr const char* kBlockingKernelName = "kpBlockStream";

/// Spins until the host sets flag[0], or until `timeoutNs` of the GPU's global timer have
/// passed, which it reports in flag[1]. One thread: it must not keep an SM from the work
/// queued after it, which only starts once it has returned anyway (stream order).
inline constexpr const char* kBlockingKernelSource = R"KPCUDA(
extern "C" __global__ void kpBlockStream(volatile int* flag, unsigned long long timeoutNs)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (flag[0] == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > timeoutNs) {
            flag[1] = 1;
            return;
        }
    }
}
)KPCUDA";

} // namespace kernelpad
