#include "core/run/DeviceInit.h"

#include "core/compile/Program.h"
#include "core/cuda/LaunchDims.h"
#include "core/launch/BufferInit.h"
#include "core/run/DeviceInitSource.h"

#include <algorithm>

namespace kernelpad {

namespace {
constexpr const char* kSourceName = "kernelpad_device_init.cu";
} // namespace

bool deviceCanGenerate(const BufferSpec& spec) {
    return spec.init.kind == InitSpec::Kind::Uniform && !spec.elementType.isStruct() &&
           !deviceInitKernelName(spec.elementType.scalar).isEmpty();
}

Program deviceInitProgram() {
    ProgramOptions options;
    // Each rounding is spelled out with __dadd_rn/__dmul_rn; this keeps anything else apart.
    options.fmad = false;
    return Program(QString::fromLatin1(kDeviceInitSource), QLatin1String(kSourceName), options);
}

QString deviceInitKernelName(ScalarType type) {
    if (type == ScalarType::Float32)
        return QStringLiteral("kpUniform_float32");
    if (type == ScalarType::Float64)
        return QStringLiteral("kpUniform_float64");
    return {};
}

DeviceInit::DeviceInit(CompileCache* cache)
    : m_cache(cache) {}
DeviceInit::~DeviceInit() = default;

bool DeviceInit::prepare(const QString& arch, QString* error) {
    if (m_module && arch == m_arch)
        return true;
    m_module.reset();
    const auto compile = [&] { return deviceInitProgram().compile(arch); };
    const CompileResult compiled =
        m_cache ? m_cache->findOrCompile(CompileCache::key(QString::fromLatin1(kDeviceInitSource),
                                                           QLatin1String(kSourceName),
                                                           {arch, QStringLiteral("--fmad=false")},
                                                           {}, Program::nvrtcVersion()),
                                         compile)
                : compile();
    if (!compiled.ok || compiled.cubin.isEmpty()) {
        *error = QStringLiteral("the device-side generator did not compile for %1: %2")
                     .arg(arch, compiled.error.isEmpty() ? compiled.log : compiled.error);
        return false;
    }
    m_module = std::make_unique<Module>(compiled.cubin);
    m_arch = arch;
    return true;
}

void DeviceInit::generate(const BufferSpec& spec, qint64 count, const DeviceBuffer& out,
                          const Stream& stream) const {
    if (count == 0)
        return;
    const QString name = deviceInitKernelName(spec.elementType.scalar);
    const Kernel kernel = m_module->kernel(name, name);
    CUdeviceptr outPtr = out.address();
    unsigned long long n = static_cast<unsigned long long>(count);
    unsigned long long key = randomKey(spec.init.seed);
    double low = spec.init.low;
    double high = spec.init.high;
    void* params[] = {&outPtr, &n, &key, &low, &high};
    constexpr qint64 threads = 256;
    LaunchDims dims;
    dims.grid = {int(std::min<qint64>((count + threads - 1) / threads, qint64(1) << 16)), 1, 1};
    dims.block = {int(threads), 1, 1};
    kernel.launch(dims, stream, params);
}

} // namespace kernelpad
