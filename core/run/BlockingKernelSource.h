#pragma once
// The CUDA source of the blocking kernel (BlockingKernel.h), compiled with NVRTC at run time;
// the text is BlockingKernel.cu, embedded at build time (kernelpad_embed_cuda in
// core/CMakeLists.txt, target kernelpad_blocking_kernel_source). Dependency-free:
// bench/raw_driver queues its samples behind the very same kernel, so that both harnesses time
// like with like.

namespace kernelpad {

/// Entry point of kBlockingKernelSource (extern "C": not mangled).
inline constexpr const char* kBlockingKernelName = "kpBlockStream";

/// Spins until the host sets flag[0], or until `timeoutNs` of the GPU's global timer have
/// passed, which it reports in flag[1]. One thread: it must not keep an SM from the work
/// queued after it, which only starts once it has returned anyway (stream order).
inline constexpr const char* kBlockingKernelSource =
#include "core/run/BlockingKernel.cu.inc"
    ;

} // namespace kernelpad
