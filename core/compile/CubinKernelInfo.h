#pragma once
// A kernel's resources read from the CUBIN NVRTC produced, without a driver: what occupancy
// needs beside the PTX's declarations (registers, barriers, launch bounds) for compile-only
// estimates. Static shared memory is not read here: for sm_90 the .nv.shared.<entry> section
// also counts the 1 KiB the driver reserves (9,024 B for an 8,000 B array), while the PTX's
// declarations (KernelFacts.h) give the kernel's own bytes.

#include <QByteArray>
#include <QString>

namespace kernelpad {

/// One kernel's figures from its CUBIN's ELF sections.
struct CubinKernelInfo {
    bool found = false;         ///< the CUBIN has the entry and its register count
    int registers = 0;          ///< EIATTR_REGCOUNT in .nv.info
    int barriers = 0;           ///< EIATTR_NUM_BARRIERS in .nv.info.<entry>; 0 when none
    int maxThreadsPerBlock = 0; ///< EIATTR_MAX_THREADS (__launch_bounds__); 0 when none
    /// EIATTR_FRAME_SIZE in .nv.info: the stack frame per thread, in local memory (local
    /// arrays and register spills), as ptxas -v's "bytes stack frame".
    int frameBytes = 0;
};

/// The figures of the entry `lowered` in `cubin`; `found` false when the data is not an ELF
/// CUBIN or has no such entry. Bounds-checked: any bytes are safe.
[[nodiscard]] CubinKernelInfo cubinKernelInfo(const QByteArray& cubin, const QString& lowered);

} // namespace kernelpad
