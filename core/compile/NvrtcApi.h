#pragma once
// NVRTC and nvJitLink loaded at run time with dlopen, as libcuda is (core/cuda/DriverApi.h), so
// that KernelPad starts on a computer without the CUDA toolkit and compiles in a runner that
// has one. The toolkit's headers still give every type and prototype at build time.

#include <nvJitLink.h>
#include <nvrtc.h>

#include <QString>

// nvJitLink.h maps each call to a symbol versioned by its ABI (nvJitLinkCreate calls
// __nvJitLinkCreate_13_0), and the library keeps the unversioned names for older callers only:
// look up the versioned ones, whose prototypes the header declares. A toolkit whose header has
// another ABI fails to compile here instead of calling the library with the wrong one.
#define KERNELPAD_NVJITLINK_ABI 13_0
#define KERNELPAD_NVJITLINK_PASTE_(name, abi) __nvJitLink##name##_##abi
#define KERNELPAD_NVJITLINK_EXPAND_(name, abi) KERNELPAD_NVJITLINK_PASTE_(name, abi)
#define KERNELPAD_NVJITLINK_SYMBOL(name) KERNELPAD_NVJITLINK_EXPAND_(name, KERNELPAD_NVJITLINK_ABI)

namespace kernelpad {

/// NVRTC's entry points used by KernelPad; loaded once, lazily, never unloaded.
struct NvrtcApi {
#define KERNELPAD_NVRTC_FUNCTIONS(X)                                                               \
    X(nvrtcVersion)                                                                                \
    X(nvrtcGetErrorString)                                                                         \
    X(nvrtcCreateProgram)                                                                          \
    X(nvrtcDestroyProgram)                                                                         \
    X(nvrtcAddNameExpression)                                                                      \
    X(nvrtcCompileProgram)                                                                         \
    X(nvrtcGetProgramLogSize)                                                                      \
    X(nvrtcGetProgramLog)                                                                          \
    X(nvrtcGetPTXSize)                                                                             \
    X(nvrtcGetPTX)                                                                                 \
    X(nvrtcGetCUBINSize)                                                                           \
    X(nvrtcGetCUBIN)                                                                               \
    X(nvrtcGetLoweredName)

#define KERNELPAD_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
    KERNELPAD_NVRTC_FUNCTIONS(KERNELPAD_DECLARE_POINTER)
#undef KERNELPAD_DECLARE_POINTER

    // Precompiled headers (NVRTC 12.8+, PrecompiledHeaders.h): null with an older NVRTC, which
    // then compiles without them.
    decltype(&::nvrtcGetPCHCreateStatus) nvrtcGetPCHCreateStatus = nullptr;
    decltype(&::nvrtcGetPCHHeapSizeRequired) nvrtcGetPCHHeapSizeRequired = nullptr;
    decltype(&::nvrtcGetPCHHeapSize) nvrtcGetPCHHeapSize = nullptr;
    decltype(&::nvrtcSetPCHHeapSize) nvrtcSetPCHHeapSize = nullptr;

    QString path; ///< the library loaded, as it was named to dlopen

    /// The loaded library, or nullptr with the reason in `error`: which files were tried,
    /// dlerror(), and what to do instead ("NVRTC not found on this computer (…); compile in a
    /// runner that has the CUDA toolkit: …"). Thread-safe; the first call does the work.
    static const NvrtcApi* load(QString* error = nullptr);
};

/// nvJitLink's entry points used by KernelPad (PTX and NVVM IR sources are assembled by it);
/// loaded once, lazily, never unloaded.
struct NvJitLinkApi {
#define KERNELPAD_NVJITLINK_FUNCTIONS(X)                                                           \
    X(create, Create)                                                                              \
    X(destroy, Destroy)                                                                            \
    X(addData, AddData)                                                                            \
    X(complete, Complete)                                                                          \
    X(getLinkedCubinSize, GetLinkedCubinSize)                                                      \
    X(getLinkedCubin, GetLinkedCubin)                                                              \
    X(getErrorLogSize, GetErrorLogSize)                                                            \
    X(getErrorLog, GetErrorLog)                                                                    \
    X(getInfoLogSize, GetInfoLogSize)                                                              \
    X(getInfoLog, GetInfoLog)

#define KERNELPAD_DECLARE_POINTER(member, name)                                                    \
    decltype(&::KERNELPAD_NVJITLINK_SYMBOL(name)) member = nullptr;
    KERNELPAD_NVJITLINK_FUNCTIONS(KERNELPAD_DECLARE_POINTER)
#undef KERNELPAD_DECLARE_POINTER
    decltype(&::nvJitLinkVersion) version = nullptr; ///< not versioned by the header

    QString path; ///< the library loaded, as it was named to dlopen

    /// As NvrtcApi::load, for libnvJitLink ($KERNELPAD_NVJITLINK_LIBRARY, libnvJitLink.so.13).
    static const NvJitLinkApi* load(QString* error = nullptr);
};

/// What a computer without NVRTC can do instead, the end of every message that says it is
/// missing: "compile in a runner that has the CUDA toolkit: Edit ▸ Preferences ▸ Runners …".
[[nodiscard]] QString useARunnerAdvice();

} // namespace kernelpad
