#pragma once
// Included by tst_compile and tst_diagnostics: the error must be reported in this file.
inline __device__ float helper(float v)
{
    return v * undefined_in_header;
}
