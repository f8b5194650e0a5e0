// The blocking kernel (core/run/BlockingKernel.h). Not built by nvcc: NVRTC compiles this
// text at run time, embedded at build time as kBlockingKernelSource (BlockingKernelSource.h).

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
