#pragma once
// A module loaded from CUBIN and the kernels in it.

#include "core/cuda/JitLog.h"
#include "core/cuda/LaunchDims.h"
#include "core/cuda/Stream.h"

#include <cuda.h>

#include <QByteArray>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

class Module;

/// A kernel of a loaded module; borrowed from the Module, valid while it lives.
class Kernel {
public:
    [[nodiscard]] CUfunction handle() const { return m_function; }
    [[nodiscard]] const QString& name() const { return m_name; }
    [[nodiscard]] int attribute(CUfunction_attribute attribute) const;
    /// Offsets and sizes of the parameters (cuFuncGetParamInfo).
    [[nodiscard]] QVector<ParamLayout> paramLayouts() const;
    /// Blocks of `blockThreads` threads that fit on one SM at once.
    [[nodiscard]] int maxActiveBlocksPerSm(int blockThreads, int dynamicSharedBytes) const;
    /// Lets the kernel use `bytes` of dynamic shared memory: above the default 48 KiB a kernel
    /// must opt in with an attribute (compute capability 7.0+); at or below it, nothing to do.
    void allowDynamicSharedBytes(int bytes) const;
    /// cuLaunchKernel; with a cluster or a cooperative launch, cuLaunchKernelEx with those
    /// launch attributes (a plain launch keeps the plain call: its timing is the raw one).
    void launch(const LaunchDims& dims, const Stream& stream, void** params) const;
    /// The largest cluster (in blocks) the device can launch for this kernel at `dims`
    /// (cuOccupancyMaxPotentialClusterSize); with `nonPortable` the kernel first opts in to
    /// sizes above the portable 8.
    [[nodiscard]] int maxPotentialClusterBlocks(const LaunchDims& dims, bool nonPortable) const;
    /// Clusters of `dims.cluster` that can be resident at once (cuOccupancyMaxActiveClusters);
    /// 0 when one does not fit.
    [[nodiscard]] int maxActiveClusters(const LaunchDims& dims) const;

private:
    friend class Module;
    Kernel(CUfunction function, QString name)
        : m_function(function)
        , m_name(std::move(name)) {}
    CUfunction m_function = nullptr;
    QString m_name;
};

/// A module loaded from CUBIN (about 0.05 ms on the H100), or from PTX through the driver's JIT
/// (about 100 ms).
class Module {
public:
    explicit Module(const QByteArray& cubin);
    /// A module from PTX, compiled for the current device by the driver's JIT
    /// (cuModuleLoadDataEx), with its logs and times in `log`. Nothing when the JIT refuses
    /// the PTX (`log->failure` and `log->errorLog` say why); throws CudaError only for a
    /// sticky error.
    [[nodiscard]] static std::optional<Module> loadPtx(const QByteArray& ptx, JitLog* log);
    ~Module();
    Module(Module&& other) noexcept;
    Module& operator=(Module&& other) noexcept;
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    /// The kernel with this lowered (mangled) entry name; throws CudaError if absent.
    [[nodiscard]] Kernel kernel(const QString& lowered, const QString& displayName) const;

    /// Device address and size in bytes of the `__constant__` or `__device__` variable with
    /// this lowered name (cuModuleGetGlobal); false when the module has none of that name.
    [[nodiscard]] bool global(const QString& lowered, CUdeviceptr* address, size_t* bytes) const;

private:
    Module() = default;
    CUmodule m_module = nullptr;
};

} // namespace kernelpad
