#pragma once
// Included by tst_compile through a project-relative include dir.
inline __device__ float twice(float v) { return 2.0f * v; }
