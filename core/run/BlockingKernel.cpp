#include "core/run/BlockingKernel.h"

#include "core/compile/CompileCache.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"

#include <QDebug>

#include <atomic>
#include <utility>

namespace kernelpad {

namespace {

constexpr const char* kBlockingSourceName = "kernelpad_block.cu";

} // namespace

Program blockingKernelProgram() {
    return Program(QString::fromLatin1(kBlockingKernelSource), QLatin1String(kBlockingSourceName),
                   ProgramOptions{});
}

BlockingKernel::BlockingKernel(CompileCache* cache)
    : m_cache(cache) {}

BlockingKernel::~BlockingKernel() {
    release();
    if (!m_host)
        return;
    if (const DriverApi* api = DriverApi::load())
        if (CUresult r = api->cuMemFreeHost(const_cast<int*>(m_host)); r != CUDA_SUCCESS)
            qWarning("cuMemFreeHost of the blocking kernel's flag failed: %d", int(r));
}

BlockingKernel::BlockingKernel(BlockingKernel&& other) noexcept
    : m_cache(other.m_cache)
    , m_arch(std::move(other.m_arch))
    , m_module(std::move(other.m_module))
    , m_kernel(std::move(other.m_kernel))
    , m_host(std::exchange(other.m_host, nullptr))
    , m_device(std::exchange(other.m_device, 0))
    , m_blocked(std::exchange(other.m_blocked, false)) {
    other.m_kernel.reset();
}

BlockingKernel& BlockingKernel::operator=(BlockingKernel&& other) noexcept {
    std::swap(m_cache, other.m_cache);
    std::swap(m_arch, other.m_arch);
    std::swap(m_module, other.m_module);
    std::swap(m_kernel, other.m_kernel);
    std::swap(m_host, other.m_host);
    std::swap(m_device, other.m_device);
    std::swap(m_blocked, other.m_blocked);
    return *this;
}

CompileResult BlockingKernel::compileFor(CompileCache* cache, const QString& arch) {
    const auto compile = [&] { return blockingKernelProgram().compile(arch); };
    return cache
               ? cache->findOrCompile(CompileCache::key(QString::fromLatin1(kBlockingKernelSource),
                                                        QLatin1String(kBlockingSourceName),
                                                        ProgramOptions{}.toFlags(arch), {},
                                                        Program::nvrtcVersion()),
                                      compile)
               : compile();
}

bool BlockingKernel::prepare(const QString& arch, QString* error) {
    if (m_kernel && arch == m_arch)
        return true;
    const CompileResult compiled = compileFor(m_cache, arch);
    if (!compiled.ok) {
        *error = QStringLiteral("the blocking kernel did not compile for %1: %2")
                     .arg(arch, compiled.error.isEmpty() ? compiled.log : compiled.error);
        return false;
    }
    auto module = std::make_unique<Module>(compiled.cubin);
    m_kernel.emplace(
        module->kernel(QLatin1String(kBlockingKernelName), QLatin1String(kBlockingKernelName)));
    m_module = std::move(module);
    m_arch = arch;
    if (!m_host) {
        const DriverApi& api = DriverApi::get();
        void* host = nullptr;
        check(api.cuMemAllocHost(&host, 2 * sizeof(int)),
              "cuMemAllocHost for the blocking kernel's flag");
        m_host = static_cast<volatile int*>(host);
        m_host[0] = 1;
        m_host[1] = 0;
        check(api.cuMemHostGetDevicePointer(&m_device, host, 0),
              "cuMemHostGetDevicePointer for the blocking kernel's flag");
    }
    return true;
}

void BlockingKernel::block(const Stream& stream, qint64 timeoutNs) {
    m_host[0] = 0;
    m_host[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    CUdeviceptr flag = m_device;
    unsigned long long timeout = static_cast<unsigned long long>(timeoutNs);
    void* params[] = {&flag, &timeout};
    m_kernel->launch(LaunchDims{}, stream, params);
    m_blocked = true;
}

void BlockingKernel::release() {
    if (!m_blocked)
        return;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    m_host[0] = 1;
    m_blocked = false;
}

bool BlockingKernel::timedOut() const {
    return m_host && m_host[1] != 0;
}

} // namespace kernelpad
