#include "core/cuda/Module.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"

#include <QDebug>
#include <QElapsedTimer>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
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
    // cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE past the last parameter;
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
    constexpr int kDefaultDynamicSharedLimitBytes = 48 * 1024;
    if (bytes <= kDefaultDynamicSharedLimitBytes)
        return;
    check(DriverApi::get().cuFuncSetAttribute(
              m_function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
          QStringLiteral("allowing %1 of dynamic shared memory for '%2'")
              .arg(formatBytes(bytes), m_name));
}

namespace {

/// The launch attributes of `c` (a cluster, cooperative) in `attributes`, and the
/// CUlaunchConfig of cuLaunchKernelEx and the occupancy queries pointing at them.
CUlaunchConfig launchConfig(const LaunchDims& c, CUstream stream,
                            CUlaunchAttribute (&attributes)[2]) {
    CUlaunchConfig config{};
    config.gridDimX = unsigned(c.grid[0]);
    config.gridDimY = unsigned(c.grid[1]);
    config.gridDimZ = unsigned(c.grid[2]);
    config.blockDimX = unsigned(c.block[0]);
    config.blockDimY = unsigned(c.block[1]);
    config.blockDimZ = unsigned(c.block[2]);
    config.sharedMemBytes = unsigned(c.sharedMemBytes);
    config.hStream = stream;
    unsigned count = 0;
    if (c.cluster[0] > 0) {
        CUlaunchAttribute& a = attributes[count++];
        a = CUlaunchAttribute{};
        a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a.value.clusterDim.x = unsigned(c.cluster[0]);
        a.value.clusterDim.y = unsigned(c.cluster[1]);
        a.value.clusterDim.z = unsigned(c.cluster[2]);
    }
    if (c.cooperative) {
        CUlaunchAttribute& a = attributes[count++];
        a = CUlaunchAttribute{};
        a.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        a.value.cooperative = 1;
    }
    config.attrs = count > 0 ? attributes : nullptr;
    config.numAttrs = count;
    return config;
}

} // namespace

int Kernel::maxPotentialClusterBlocks(const LaunchDims& dims, bool nonPortable) const {
    const DriverApi& api = DriverApi::get();
    if (nonPortable)
        check(api.cuFuncSetAttribute(m_function,
                                     CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
              QStringLiteral("allowing non-portable cluster sizes for '%1'").arg(m_name));
    LaunchDims plain = dims;
    plain.cluster = {0, 0, 0}; // the query asks which cluster size fits; it takes none
    plain.cooperative = false;
    CUlaunchAttribute attributes[2];
    const CUlaunchConfig config = launchConfig(plain, nullptr, attributes);
    int blocks = 0;
    check(api.cuOccupancyMaxPotentialClusterSize(&blocks, m_function, &config),
          QStringLiteral("cuOccupancyMaxPotentialClusterSize for '%1'").arg(m_name));
    return blocks;
}

int Kernel::maxActiveClusters(const LaunchDims& dims) const {
    LaunchDims clustered = dims;
    clustered.cooperative = false;
    CUlaunchAttribute attributes[2];
    const CUlaunchConfig config = launchConfig(clustered, nullptr, attributes);
    int clusters = 0;
    check(DriverApi::get().cuOccupancyMaxActiveClusters(&clusters, m_function, &config),
          QStringLiteral("cuOccupancyMaxActiveClusters for '%1'").arg(m_name));
    return clusters;
}

void Kernel::launch(const LaunchDims& c, const Stream& stream, void** params) const {
    if (c.needsLaunchEx()) {
        CUlaunchAttribute attributes[2];
        const CUlaunchConfig config = launchConfig(c, stream.handle(), attributes);
        const CUresult r = DriverApi::get().cuLaunchKernelEx(&config, m_function, params, nullptr);
        if (r != CUDA_SUCCESS)
            throwCudaError(r, QStringLiteral("launching '%1' (cuLaunchKernelEx)").arg(m_name));
        return;
    }
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

namespace {

/// Room for the JIT's logs: ptxas messages of a module are rarely more than a few lines.
constexpr size_t kJitLogBytes = 64 * 1024;

QString logText(const std::string& buffer) {
    return QString::fromUtf8(buffer.c_str()).trimmed(); // the driver NUL-terminates it
}

} // namespace

std::optional<Module> Module::loadPtx(const QByteArray& ptx, JitLog* log) {
    std::string info(kJitLogBytes, '\0');
    std::string error(kJitLogBytes, '\0');
    float wallMs = 0.0f;
    // Option values travel in void* slots: sizes as integers, the wall time comes back as a
    // float written into its slot (CUDA Driver API, CUjit_option).
    // CU_JIT_LOG_VERBOSE makes ptxas write its resource lines ("Used 10 registers") to the
    // info log, which is otherwise empty for a module that compiles.
    CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_LOG_VERBOSE,      CU_JIT_WALL_TIME};
    constexpr size_t kWallTimeSlot = 5;
    void* values[] = {info.data(),
                      reinterpret_cast<void*>(std::uintptr_t(info.size())),
                      error.data(),
                      reinterpret_cast<void*>(std::uintptr_t(error.size())),
                      reinterpret_cast<void*>(std::uintptr_t(1)),
                      nullptr};
    const QByteArray text = ptx.endsWith('\0') ? ptx : ptx + '\0'; // PTX is loaded as a C string
    Module module;
    QElapsedTimer clock;
    clock.start();
    const CUresult r = DriverApi::get().cuModuleLoadDataEx(
        &module.m_module, text.constData(), unsigned(std::size(options)), options, values);
    log->used = true;
    log->loadMs = double(clock.nsecsElapsed()) / 1e6;
    static_assert(sizeof(float) <= sizeof(void*));
    std::memcpy(&wallMs, &values[kWallTimeSlot], sizeof(float));
    log->jitMs = double(wallMs);
    log->infoLog = logText(info);
    log->errorLog = logText(error);
    if (r == CUDA_SUCCESS)
        return module;
    module.m_module = nullptr;
    if (CudaError::isStickyError(r))
        throwCudaError(r, "loading the PTX through the driver's JIT (cuModuleLoadDataEx)");
    const char* name = nullptr;
    log->failure = DriverApi::get().cuGetErrorName(r, &name) == CUDA_SUCCESS && name
                       ? QString::fromUtf8(name)
                       : QStringLiteral("CUresult %1").arg(int(r));
    return std::nullopt;
}

bool Module::global(const QString& lowered, CUdeviceptr* address, size_t* bytes) const {
    const QByteArray name = lowered.toUtf8();
    const CUresult r =
        DriverApi::get().cuModuleGetGlobal(address, bytes, m_module, name.constData());
    if (r == CUDA_ERROR_NOT_FOUND)
        return false;
    check(r,
          QStringLiteral("finding the global '%1' in the module (cuModuleGetGlobal)").arg(lowered));
    return true;
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
