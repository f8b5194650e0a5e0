#pragma once
// The CUDA source of GpuComparer's kernels, compiled with NVRTC at run time. The text is
// GpuCompareKernels.cu, embedded at build time (kernelpad_embed_cuda in core/CMakeLists.txt).

namespace kernelpad {

/// CUDA C++ source: one extern "C" comparison kernel per scalar type (kpCompare_<numpy
/// name>, those asked for with -DKP_WANT_<numpy name> or all with -DKP_WANT_ALL) and
/// kpGatherMismatches, which merges the per-block first mismatches.
inline constexpr const char* kGpuCompareSource =
#include "core/verify/GpuCompareKernels.cu.inc"
    ;

} // namespace kernelpad
