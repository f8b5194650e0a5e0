#pragma once
// A module loaded from CUBIN and the kernels in it.

#include "core/cuda/LaunchDims.h"
#include "core/cuda/Stream.h"

#include <cuda.h>

#include <QByteArray>
#include <QString>
#include <QVector>

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
    /// Lets the kernel use more than the default 48 KiB of dynamic shared memory.
    void allowDynamicSharedBytes(int bytes) const;
    void launch(const LaunchDims& dims, const Stream& stream, void** params) const;

private:
    friend class Module;
    Kernel(CUfunction function, QString name)
        : m_function(function)
        , m_name(std::move(name)) {}
    CUfunction m_function = nullptr;
    QString m_name;
};

/// A module loaded from CUBIN (GPU.md: CUBIN loads in 0.05 ms, PTX JIT takes ~100 ms).
class Module {
public:
    explicit Module(const QByteArray& cubin);
    ~Module();
    Module(Module&& other) noexcept;
    Module& operator=(Module&& other) noexcept;
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    /// The kernel with this lowered (mangled) entry name; throws CudaError if absent.
    [[nodiscard]] Kernel kernel(const QString& lowered, const QString& displayName) const;

private:
    CUmodule m_module = nullptr;
};

} // namespace kernelpad
