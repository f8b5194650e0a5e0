#include "core/run/DeviceInit.h"

#include "core/compile/Program.h"
#include "core/cuda/LaunchDims.h"
#include "core/launch/BufferInit.h"
#include "core/launch/BufferInitSpecial.h"
#include "core/run/DeviceInitSource.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace kernelpad {

namespace {
constexpr const char* kSourceName = "kernelpad_device_init.cu";
} // namespace

bool deviceCanGenerate(const BufferSpec& spec) {
    const InitSpec& init = spec.init;
    if (spec.elementType.isStruct() ||
        deviceInitKernelName(init.kind, spec.elementType.scalar).isEmpty())
        return false;
    // A spec the host refuses is left to the host, which says why.
    if (!init.problem().isEmpty() ||
        !initProblemForType(init, spec.elementType.scalar, 0).isEmpty())
        return false;
    // A range wider than the largest double makes NaNs (0 * inf), whose bits the CPU and the
    // GPU spell differently: the host makes those.
    return init.kind == InitSpec::Kind::Normal || std::isfinite(init.high - init.low);
}

Program deviceInitProgram() {
    ProgramOptions options;
    // Each rounding is spelled out with __dadd_rn/__dmul_rn; this keeps anything else apart.
    options.fmad = false;
    return Program(QString::fromLatin1(kDeviceInitSource), QLatin1String(kSourceName), options);
}

QString deviceInitKernelName(InitSpec::Kind kind, ScalarType type) {
    // "special" starts as uniform does; bool has no special values.
    const bool uniform = kind == InitSpec::Kind::Uniform ||
                         (kind == InitSpec::Kind::Special && type != ScalarType::Bool);
    const char* prefix = uniform                          ? "kpUniform_"
                         : kind == InitSpec::Kind::Normal ? "kpNormal_"
                                                          : nullptr;
    if (!prefix)
        return {};
    // DeviceInit.cu has both kinds for every scalar type of the table (the low-precision ones
    // rounded as core/launch/MiniFloat.cpp rounds them).
    return QLatin1String(prefix) + QLatin1String(scalarTypeInfo(type).numpyName);
}

DeviceInit::DeviceInit(CompileCache* cache)
    : m_cache(cache) {}
DeviceInit::~DeviceInit() = default;

CompileResult DeviceInit::compileFor(CompileCache* cache, const QString& arch) {
    const auto compile = [&] { return deviceInitProgram().compile(arch); };
    return cache ? cache->findOrCompile(CompileCache::key(QString::fromLatin1(kDeviceInitSource),
                                                          QLatin1String(kSourceName),
                                                          {arch, QStringLiteral("--fmad=false")},
                                                          {}, Program::nvrtcVersion()),
                                        compile)
                 : compile();
}

bool DeviceInit::prepare(const QString& arch, QString* error) {
    if (m_module && arch == m_arch)
        return true;
    m_module.reset();
    const CompileResult compiled = compileFor(m_cache, arch);
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
    const QString name = deviceInitKernelName(spec.init.kind, spec.elementType.scalar);
    const Kernel kernel = m_module->kernel(name, name);
    CUdeviceptr outPtr = out.address();
    unsigned long long n = static_cast<unsigned long long>(count);
    unsigned long long key = randomKey(spec.init.seed);
    // DeviceInit.cu's (a, b, c): uniform's low, high and ceil(low); normal's mean and stddev.
    const bool uniform = spec.init.kind != InitSpec::Kind::Normal;
    double a = uniform ? spec.init.low : spec.init.mean;
    double b = uniform ? spec.init.high : spec.init.stddev;
    double c = uniform ? std::ceil(spec.init.low) : 0.0;
    void* params[] = {&outPtr, &n, &key, &a, &b, &c};
    constexpr qint64 threads = 256;
    LaunchDims dims;
    dims.grid = {int(std::min<qint64>((count + threads - 1) / threads, qint64(1) << 16)), 1, 1};
    dims.block = {int(threads), 1, 1};
    kernel.launch(dims, stream, params);
    if (spec.init.kind == InitSpec::Kind::Special)
        replaceWithSpecials(spec, count, out, stream, dims);
}

void DeviceInit::replaceWithSpecials(const BufferSpec& spec, qint64 count, const DeviceBuffer& out,
                                     const Stream& stream, const LaunchDims& dims) const {
    const ScalarType type = spec.elementType.scalar;
    const QVector<quint64> bits = specialValueBits(type);
    // Laid out as DeviceInit.cu's KpSpecialTable, passed by value.
    struct {
        unsigned long long bits[16];
        unsigned count;
    } table{};
    for (qsizetype k = 0; k < bits.size() && k < qsizetype(std::size(table.bits)); ++k)
        table.bits[k] = bits[k];
    table.count = unsigned(std::min<qsizetype>(bits.size(), qsizetype(std::size(table.bits))));
    if (table.count == 0)
        return;
    const bool nibbles = type == ScalarType::Float4E2M1x2;
    const int components = componentCount(type);
    const int componentBytes = scalarTypeInfo(type).sizeBytes / (nibbles ? 1 : components);
    const QString name = nibbles ? QStringLiteral("kpSpecial_fp4x2")
                                 : QStringLiteral("kpSpecial_%1").arg(componentBytes);
    const Kernel kernel = m_module->kernel(name, name);
    CUdeviceptr outPtr = out.address();
    unsigned long long values =
        static_cast<unsigned long long>(nibbles ? count : count * components);
    unsigned long long rateKey = specialRateKey(spec.init.seed);
    unsigned long long pickKey = specialPickKey(spec.init.seed);
    double rate = spec.init.rate;
    void* params[] = {&outPtr, &values, &rateKey, &pickKey, &rate, &table};
    kernel.launch(dims, stream, params);
}

} // namespace kernelpad
