#pragma once
// What an ExecutionSession keeps on its device between runs (the context, the stream, the last
// module, the last run's buffers, ...), shared by ExecutionSession.cpp and the run's phases
// (DeviceRun.cpp). Internal to core/run.

#include "core/compile/CompileResult.h"
#include "core/cuda/Context.h"
#include "core/cuda/Device.h"
#include "core/cuda/DeviceBuffer.h"
#include "core/cuda/JitLog.h"
#include "core/cuda/Module.h"
#include "core/cuda/Stream.h"
#include "core/run/BlockingKernel.h"
#include "core/run/DeviceCeiling.h"
#include "core/run/DeviceInit.h"
#include "core/run/ExecutionSession.h"
#include "core/run/RunBuffers.h"
#include "core/run/RunTextures.h"
#include "core/run/RunVerification.h"
#include "core/verify/ExpressionKernel.h"
#include "core/verify/GpuCompare.h"

#include <QByteArray>
#include <QString>

#include <optional>
#include <vector>

namespace kernelpad {

/// The context, stream and the last module of the device a session uses.
struct ExecutionSession::DeviceState {
    DeviceState(int ordinal, CompileCache* cache)
        : device(ordinal)
        , info(device.info())
        , context(device)
        , comparer(cache)
        , expressionEvaluator(cache)
        , deviceInit(cache)
        , blocker(cache) {
        // A ceiling measured by an earlier process is shown from the first run on.
        if (std::optional<CopyCeiling> known =
                readCachedCeiling(defaultCeilingPath(), ceilingKey(info)))
            ceiling = *known;
    }
    Device device;
    DeviceInfo info;
    Context context;
    Stream stream;
    QByteArray moduleCubin; ///< the CUBIN (or, for a virtual arch, the PTX) of `module`
    std::optional<Module> module;
    JitLog moduleJit;     ///< the JIT's report when `module` came from PTX
    DeviceBuffer l2Flush; ///< cold-mode flush buffer, allocated once and reused
    /// The last run's buffers: the next run keeps the allocations (and the contents of
    /// unchanged "in" buffers) it can ("Fast edit -> result").
    std::vector<RunBuffer> buffers;
    GpuComparer comparer; ///< large reference-kernel verifications (RunVerification.h)
    GpuExpressionEvaluator expressionEvaluator; ///< expression checks compared on the GPU
    DeviceInit deviceInit;                      ///< seeded random inputs generated on the GPU
    BlockingKernel blocker; ///< what timed samples are queued behind (Measure.h)
    ExpectedCache expected; ///< expression checks' expected values, kept between runs
    /// The reference kernels' copies of the last run's outputs, whose allocations the next
    /// run's reference takes (RunVerifier::referenceOutputs).
    std::vector<RunBuffer> referenceOutputs;
    std::optional<CopyCeiling> ceiling; ///< the device's copy ceiling when known
    /// A measurement was tried: one that failed (too little free memory) is not tried again
    /// before every later run, which would add it to each configuration of a sweep.
    bool ceilingTried = false;
    /// The run's textures and surfaces: freed when the run ends, or by the next run when an
    /// error ended it (never while a sticky fault unwinds: docs/ARCHITECTURE.md, "Threading").
    std::optional<RunTextures> textures;

    const Module& moduleFor(const QByteArray& cubin) {
        if (!module || cubin != moduleCubin) {
            module.reset();
            module.emplace(cubin);
            moduleCubin = cubin;
            moduleJit = JitLog{};
        }
        return *module;
    }

    /// The module of `compiled`: its CUBIN, or for a virtual arch (no CUBIN) its PTX through
    /// the driver's JIT. Null when the JIT refused the PTX; `jit` gets the JIT's report (a
    /// module kept from the last run says `reused`).
    const Module* moduleOf(const CompileResult& compiled, JitLog* jit) {
        if (!compiled.cubin.isEmpty()) {
            *jit = JitLog{};
            return &moduleFor(compiled.cubin);
        }
        const QByteArray ptx = compiled.ptx.toUtf8();
        if (module && ptx == moduleCubin) {
            *jit = moduleJit;
            jit->reused = true;
            return &*module;
        }
        module.reset();
        moduleCubin.clear();
        JitLog log;
        log.target = info.arch();
        std::optional<Module> loaded = Module::loadPtx(ptx, &log);
        *jit = log;
        if (!loaded)
            return nullptr;
        module.emplace(std::move(*loaded));
        moduleCubin = ptx;
        moduleJit = log;
        return &*module;
    }
};

/// "the driver's JIT could not compile the PTX for sm_90: CUDA_ERROR_INVALID_PTX\n<log>"
[[nodiscard]] QString jitFailure(const JitLog& jit, const QString& arch);
/// A kernel's registers, memory and occupancy at `launch` on the device `d`.
[[nodiscard]] KernelResources resourcesOf(const Kernel& k, const DeviceInfo& d,
                                          const LaunchConfig& launch);

} // namespace kernelpad
