#include "core/verify/GpuCompare.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"
#include "core/verify/GpuCompareKernels.h"
#include "core/verify/Verify.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>

namespace kernelpad {

namespace {

/// One mismatch as the kernels write it (KpRecord in GpuCompareKernels.h).
struct GpuCompareRecord {
    qint64 index;
    double got;
    double expected;
};
static_assert(sizeof(GpuCompareRecord) == 24, "must match KpRecord");

/// The start of the scratch buffer: everything the host reads back, in one copy.
struct GpuCompareResult {
    quint64 mismatches; ///< the kernels' `stats` array, in its order
    quint64 nanCount;
    quint64 unwritten;
    quint64 maxAbsBits; ///< bit pattern of a non-negative double
    quint64 maxRelBits;
    quint64 maxUlpBits;
    quint32 recordCount; ///< written by kpGatherMismatches
    quint32 padding;
    GpuCompareRecord records[kMaxReportedMismatches];
};
static_assert(offsetof(GpuCompareResult, recordCount) == 48, "stats are 6 u64");
static_assert(offsetof(GpuCompareResult, records) == 56, "records are 8-byte aligned");

/// Bytes zeroed before each comparison: the atomically accumulated totals.
constexpr size_t kZeroedBytes = offsetof(GpuCompareResult, recordCount);
/// Per-block record counts follow the result block.
constexpr qint64 kBlockRecordedOffset = 512;
static_assert(sizeof(GpuCompareResult) <= kBlockRecordedOffset, "result block overflows");
constexpr qint64 kBlockRecordsOffset =
    kBlockRecordedOffset + qint64(sizeof(quint32)) * kGpuCompareMaxBlocks;
static_assert(kBlockRecordsOffset % 8 == 0, "records need 8-byte alignment");
constexpr qint64 kScratchBytes = kBlockRecordsOffset + qint64(sizeof(GpuCompareRecord)) *
                                                           kMaxReportedMismatches *
                                                           kGpuCompareMaxBlocks;
constexpr qint64 kTileElements = qint64(kGpuCompareThreads) * kGpuCompareItems;

double fromBits(quint64 bits) {
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

} // namespace

Program gpuCompareProgram(ScalarType type) {
    ProgramOptions options;
    options.defines = {QStringLiteral("KP_THREADS=%1").arg(kGpuCompareThreads),
                       QStringLiteral("KP_ITEMS=%1").arg(kGpuCompareItems),
                       QStringLiteral("KP_RECORDS=%1").arg(kMaxReportedMismatches)};
    if (GpuComparer::supports(ValueType::of(type)))
        options.defines.append(QStringLiteral("KP_WANT_") +
                               QLatin1String(scalarTypeInfo(type).numpyName));
    // The host computes atol + rtol * |expected| with two roundings; the kernels say so with
    // __dadd_rn/__dmul_rn too, this keeps any other expression from being contracted.
    options.fmad = false;
    return Program(QString::fromLatin1(kGpuCompareSource), QStringLiteral("kernelpad_compare.cu"),
                   options);
}

QString gpuCompareKernelName(ScalarType type) {
    if (!GpuComparer::supports(ValueType::of(type)))
        return {};
    return QStringLiteral("kpCompare_") + QLatin1String(scalarTypeInfo(type).numpyName);
}

GpuComparer::GpuComparer(CompileCache* cache)
    : m_cache(cache) {}
GpuComparer::~GpuComparer() = default;
GpuComparer::GpuComparer(GpuComparer&&) noexcept = default;
GpuComparer& GpuComparer::operator=(GpuComparer&&) noexcept = default;

bool GpuComparer::supports(const ValueType& type) {
    // Complex and struct buffers are compared on the host (compareBuffers); bfloat16, fp8
    // and fp4 are decoded on the device (GpuCompareKernels.cu).
    return !type.isStruct() && !scalarTypeInfo(type.scalar).isComplex;
}

const Module* GpuComparer::module(ScalarType type, const QString& arch, QString* error) {
    if (arch != m_arch) {
        m_modules.clear();
        m_compileErrors.clear();
        m_arch = arch;
    }
    if (const auto it = m_modules.find(type); it != m_modules.end())
        return it->second.get();
    if (const auto it = m_compileErrors.find(type); it != m_compileErrors.end()) {
        *error = it->second;
        return nullptr;
    }
    const auto compile = [&] { return gpuCompareProgram(type).compile(arch); };
    const CompileResult compiled =
        m_cache ? m_cache->findOrCompile(
                      CompileCache::key(QString::fromLatin1(kGpuCompareSource),
                                        QStringLiteral("kernelpad_compare.cu"),
                                        {arch, QString::number(kGpuCompareThreads),
                                         QString::number(kGpuCompareItems),
                                         QString::number(kMaxReportedMismatches),
                                         QLatin1String(scalarTypeInfo(type).numpyName)},
                                        {}, Program::nvrtcVersion()),
                      compile)
                : compile();
    if (!compiled.ok) {
        *error = QStringLiteral("the GPU comparison kernel for %1 did not compile for %2: %3")
                     .arg(QLatin1String(scalarTypeInfo(type).numpyName), arch,
                          compiled.error.isEmpty() ? compiled.log : compiled.error);
        m_compileErrors[type] = *error;
        return nullptr;
    }
    return (m_modules[type] = std::make_unique<Module>(compiled.cubin)).get();
}

BufferVerification GpuComparer::compare(const DeviceBuffer& got, const DeviceBuffer& expected,
                                        const ValueType& type, qint64 count, double atol,
                                        double rtol, double ulp, const Stream& stream,
                                        const QString& arch, NanComparison nan) {
    BufferVerification report;
    const auto fail = [&report](const QString& message) {
        report.error = message;
        report.passed = false;
        return report;
    };
    // Then the checks of compareBuffers(), so both refuse in the same words.
    if (!supports(type))
        return fail(QStringLiteral("type %1 cannot be compared on the GPU; compare it on the host")
                        .arg(type.displayName()));
    if (const QString problem =
            comparisonProblem(type, count, atol, rtol, got.sizeBytes(), expected.sizeBytes(), ulp);
        !problem.isEmpty())
        return fail(problem);

    report.checked = count * componentCount(type.scalar); // two values per fp4x2 byte
    if (count == 0) {
        report.passed = true;
        return report;
    }
    QString problem;
    const Module* const loaded = module(type.scalar, arch, &problem);
    if (!loaded)
        return fail(problem);
    if (!m_scratch.address())
        m_scratch = DeviceBuffer(kScratchBytes, QStringLiteral("GPU comparison scratch"));

    // Contiguous ranges of whole tiles, one per block, so each block sees its elements in
    // index order; at most kGpuCompareMaxBlocks blocks (several waves on any GPU).
    const qint64 tiles = (count + kTileElements - 1) / kTileElements;
    qint64 blocks = std::min<qint64>(kGpuCompareMaxBlocks, tiles);
    const qint64 perBlock = (tiles + blocks - 1) / blocks * kTileElements;
    blocks = (count + perBlock - 1) / perBlock;

    const DriverApi& api = DriverApi::get();
    const CUdeviceptr scratch = m_scratch.address();
    check(api.cuMemsetD8Async(scratch, 0, kZeroedBytes, stream.handle()),
          "clearing the GPU comparison totals");

    const Kernel compareKernel =
        loaded->kernel(gpuCompareKernelName(type.scalar), gpuCompareKernelName(type.scalar));
    CUdeviceptr gotPtr = got.address();
    CUdeviceptr expectedPtr = expected.address();
    unsigned long long count64 = static_cast<unsigned long long>(count);
    unsigned long long perBlock64 = static_cast<unsigned long long>(perBlock);
    // Integers are compared bit for bit when no tolerance is asked for (as on the host).
    // Bit 1: NaN equals nothing (GpuCompareKernels.cu reads both bits).
    int exact =
        (atol == 0 && rtol == 0 && ulp == 0 ? 1 : 0) | (nan == NanComparison::Differ ? 2 : 0);
    CUdeviceptr stats = scratch;
    CUdeviceptr blockRecorded = scratch + kBlockRecordedOffset;
    CUdeviceptr blockRecords = scratch + kBlockRecordsOffset;
    void* compareParams[] = {&gotPtr, &expectedPtr, &count64, &perBlock64,    &atol,        &rtol,
                             &ulp,    &exact,       &stats,   &blockRecorded, &blockRecords};
    LaunchDims config;
    config.grid = {int(blocks), 1, 1};
    config.block = {kGpuCompareThreads, 1, 1};
    compareKernel.launch(config, stream, compareParams);

    const Kernel gather =
        loaded->kernel(QLatin1String(kGpuGatherKernelName), QLatin1String(kGpuGatherKernelName));
    unsigned blockCount = unsigned(blocks);
    CUdeviceptr out = scratch + offsetof(GpuCompareResult, records);
    CUdeviceptr outCount = scratch + offsetof(GpuCompareResult, recordCount);
    void* gatherParams[] = {&blockRecorded, &blockRecords, &blockCount, &out, &outCount};
    LaunchDims one;
    one.block = {kGpuCompareThreads, 1, 1};
    gather.launch(one, stream, gatherParams);

    GpuCompareResult result{};
    check(api.cuMemcpyDtoHAsync(&result, scratch, sizeof result, stream.handle()),
          "copying the GPU comparison result back");
    stream.synchronize(QStringLiteral("comparing %1 elements of %2 on the GPU")
                           .arg(count)
                           .arg(type.displayName()));

    report.mismatches = qint64(result.mismatches);
    report.nanCount = qint64(result.nanCount);
    report.unwritten = qint64(result.unwritten);
    report.maxAbsError = fromBits(result.maxAbsBits);
    report.maxRelError = fromBits(result.maxRelBits);
    report.maxUlpError = fromBits(result.maxUlpBits);
    const int records = std::min<int>(int(result.recordCount), kMaxReportedMismatches);
    for (int k = 0; k < records; ++k)
        report.firstMismatches.append(
            Mismatch{result.records[k].index, result.records[k].got, result.records[k].expected});
    report.passed = report.mismatches == 0;
    report.failure = nonFiniteMismatch(report);
    return report;
}

} // namespace kernelpad
