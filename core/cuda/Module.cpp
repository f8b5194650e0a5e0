#include "core/cuda/Module.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"

#include <QDebug>

#include <utility>

namespace kernelpad {

int Kernel::attribute(CUfunction_attribute attribute) const {
    int value = 0;
    check(DriverApi::get().cuFuncGetAttribute(&value, attribute, m_function),
          QStringLiteral("cuFuncGetAttribute for '%1'").arg(m_name));
    return value;
}

QVector<ParamLayout> Kernel::paramLayouts() const {
    const DriverApi& api = DriverApi::get();
    QVector<ParamLayout> layouts;
    // cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE past the last parameter (GPU.md);
    // a kernel has at most a few thousand bytes of parameters, so the loop is bounded.
    constexpr int kMaxParams = 4096;
    for (int i = 0; i < kMaxParams; ++i) {
        size_t offset = 0, size = 0;
        const CUresult r = api.cuFuncGetParamInfo(m_function, size_t(i), &offset, &size);
        if (r == CUDA_ERROR_INVALID_VALUE)
            break;
        check(r, QStringLiteral("cuFuncGetParamInfo(%1) for '%2'").arg(i).arg(m_name));
        layouts.push_back(ParamLayout{qint64(offset), qint64(size)});
    }
    return layouts;
}

int Kernel::maxActiveBlocksPerSm(int blockThreads, int dynamicSharedBytes) const {
    int blocks = 0;
    check(DriverApi::get().cuOccupancyMaxActiveBlocksPerMultiprocessor(
              &blocks, m_function, blockThreads, size_t(dynamicSharedBytes)),
          QStringLiteral("cuOccupancyMaxActiveBlocksPerMultiprocessor for '%1'").arg(m_name));
    return blocks;
}

void Kernel::allowDynamicSharedBytes(int bytes) const {
    check(DriverApi::get().cuFuncSetAttribute(
              m_function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
          QStringLiteral("allowing %1 of dynamic shared memory for '%2'")
              .arg(formatBytes(bytes), m_name));
}

void Kernel::launch(const LaunchDims& c, const Stream& stream, void** params) const {
    // The message is built only on failure: this runs between the timing events.
    const CUresult r = DriverApi::get().cuLaunchKernel(
        m_function, unsigned(c.grid[0]), unsigned(c.grid[1]), unsigned(c.grid[2]),
        unsigned(c.block[0]), unsigned(c.block[1]), unsigned(c.block[2]),
        unsigned(c.sharedMemBytes), stream.handle(), params, nullptr);
    if (r != CUDA_SUCCESS)
        throwCudaError(r, QStringLiteral("launching '%1'").arg(m_name));
}

Module::Module(const QByteArray& cubin) {
    check(DriverApi::get().cuModuleLoadData(&m_module, cubin.constData()),
          "loading the compiled module (cuModuleLoadData)");
}

Module::~Module() {
    if (!m_module)
        return;
    if (const DriverApi* api = DriverApi::load())
        if (CUresult r = api->cuModuleUnload(m_module); r != CUDA_SUCCESS)
            qWarning("cuModuleUnload failed: %d", int(r));
}

Module::Module(Module&& other) noexcept
    : m_module(std::exchange(other.m_module, nullptr)) {}

Module& Module::operator=(Module&& other) noexcept {
    std::swap(m_module, other.m_module);
    return *this;
}

Kernel Module::kernel(const QString& lowered, const QString& displayName) const {
    CUfunction f = nullptr;
    const QByteArray name = lowered.toUtf8();
    check(DriverApi::get().cuModuleGetFunction(&f, m_module, name.constData()),
          QStringLiteral("finding kernel '%1' in the module").arg(displayName));
    return Kernel(f, displayName);
}

} // namespace kernelpad
