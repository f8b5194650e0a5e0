#pragma once
// The CUDA of the device-side "uniform" and "normal" generators (DeviceInit.cu), embedded at
// build time (kernelpad_embed_cuda, target kernelpad_device_init_source).

namespace kernelpad {

inline constexpr const char* kDeviceInitSource =
#include "core/run/DeviceInit.cu.inc"
    ;

} // namespace kernelpad
