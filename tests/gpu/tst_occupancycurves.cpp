// The occupancy curves (core/cuda/OccupancyCurves) against the driver's
// cuOccupancyMaxActiveBlocksPerMultiprocessor at every point checked: every block size, a
// register sweep (the kernels recompiled with --maxrregcount) and every dynamic shared memory
// size up to the opt-in limit, for the examples' kernels and one with named barriers.
// Also checks what compile-only estimates read (registers from the CUBIN, static shared memory
// from the PTX) against the driver's figures.
// Prints each mismatch (qWarning) so a failure shows where the rules part.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/compile/CubinKernelInfo.h"
#include "core/compile/KernelFacts.h"
#include "core/compile/Program.h"
#include "core/cuda/Context.h"
#include "core/cuda/Device.h"
#include "core/cuda/Module.h"
#include "core/cuda/OccupancyCurves.h"

#include <QSet>
#include <QTest>

#include <algorithm>

namespace tst_occupancycurves {

using namespace kernelpad;

namespace {

/// named_barriers: barrier 0 and named barrier 3, so ptxas counts 4 barriers, which limit
/// blocks from cc 9.0 on. heavy: many live values, so --maxrregcount moves its registers over
/// the whole range.
const char* const kKernels = R"(
extern "C" __global__ void heavy(const float* in, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[64];
#pragma unroll
    for (int k = 0; k < 64; ++k)
        acc[k] = in[(i + k * 977) % n];
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < 64; ++k)
        sum += acc[k] * acc[(k * 7) % 64];
    if (i < n)
        out[i] = sum;
}

extern "C" __global__ void named_barriers(float* out)
{
    __shared__ float t[128];
    t[threadIdx.x % 128] = threadIdx.x;
    __syncthreads();
    asm volatile("bar.sync 3, 32;");
    out[blockIdx.x * blockDim.x + threadIdx.x] = t[(threadIdx.x + 1) % 128];
}
)";

/// Register caps of the register sweep (16 is the least ptxas accepts).
constexpr int kRegisterCaps[] = {16, 24, 32, 40, 48, 64, 96, 128, 168, 255};

struct Compiled {
    CompileResult result;
    std::optional<Module> module;
    QString lowered;
};

} // namespace

class TestOccupancyCurvesGpu : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<Device> m_device;
    std::unique_ptr<Context> m_context;
    DeviceInfo m_info;
    OccupancyLimits m_limits;

    /// `source` compiled for the device (with `maxRegisters` when > 0) and loaded.
    Compiled compile(const QString& source, ProgramOptions options, const QString& kernel,
                     int maxRegisters) {
        Compiled c;
        if (maxRegisters > 0)
            options.maxRegisters = maxRegisters;
        options.arch.reset();
        // A template kernel (vector_add<float>) is found through its lowered name, which
        // NVRTC gives only for a name expression asked for at compile time.
        c.result = Program(source, QStringLiteral("occupancy.cu"), options)
                       .compile(m_info.arch(), QStringList{kernel});
        if (!c.result.ok)
            return c;
        c.lowered = c.result.loweredName(kernel);
        c.module.emplace(c.result.cubin);
        return c;
    }

    /// The kernel's occupancy inputs from the driver, and barriers from the CUBIN.
    OccupancyKernel kernelOf(const Kernel& k, const Compiled& c) {
        OccupancyKernel kernel;
        kernel.registersPerThread = k.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
        kernel.staticSharedBytes = k.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
        kernel.maxThreadsPerBlock = k.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
        kernel.barriers = cubinKernelInfo(c.result.cubin, c.lowered).barriers;
        return kernel;
    }

    /// Compares `curve` point by point with the driver; `query(x)` asks the driver.
    template <typename Query>
    QStringList compare(const QString& what, const QVector<OccupancyPoint>& curve, Query query) {
        QStringList mismatches;
        for (const OccupancyPoint& p : curve) {
            const int driver = query(p.x);
            if (driver != p.occupancy.activeBlocksPerSm) {
                mismatches << QStringLiteral("%1 at %2: driver %3, ours %4 (%5)")
                                  .arg(what)
                                  .arg(p.x)
                                  .arg(driver)
                                  .arg(p.occupancy.activeBlocksPerSm)
                                  .arg(occupancyLimiterName(p.occupancy.limiter));
                qWarning("%s", qPrintable(mismatches.constLast()));
            }
        }
        return mismatches;
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        m_device = std::make_unique<Device>(0);
        m_info = m_device->info();
        m_context = std::make_unique<Context>(*m_device);
        m_limits = OccupancyLimits::forDevice(m_info);
        QVERIFY(m_limits.isComplete());
        qInfo("%s (%s): %d warps, %d blocks (reported %d), %d registers, %d B shared per SM, "
              "%d B per block opt-in, %d B reserved (reported %d), %d barriers per SM",
              qPrintable(m_info.name), qPrintable(m_info.arch()), m_limits.maxWarpsPerSm,
              m_limits.maxBlocksPerSm, m_info.maxBlocksPerSm, m_limits.registersPerSm,
              m_limits.sharedPerSmBytes, m_limits.maxSharedPerBlockBytes,
              m_limits.reservedSharedPerBlockBytes, m_info.reservedSharedPerBlockBytes,
              m_limits.barriersPerSm);
    }

    void deviceReportsTheNewAttributes() {
        // CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR and ..._RESERVED_SHARED_MEMORY_PER_
        // BLOCK exist since CUDA 11: the driver answers both, and they match the tables.
        QVERIFY(m_info.maxBlocksPerSm > 0);
        QVERIFY(m_info.reservedSharedPerBlockBytes >= 0);
        const OccupancyLimits table = OccupancyLimits::forArch(m_info.arch());
        if (!table.isComplete())
            QSKIP("the tables do not know this architecture");
        QCOMPARE(m_info.maxBlocksPerSm, table.maxBlocksPerSm);
        QCOMPARE(m_info.reservedSharedPerBlockBytes, table.reservedSharedPerBlockBytes);
        QCOMPARE(m_info.sharedMemPerSmBytes, table.sharedPerSmBytes);
        QCOMPARE(m_info.sharedMemPerBlockOptinBytes, table.maxSharedPerBlockBytes);
        QCOMPARE(m_info.maxThreadsPerSm / m_info.warpSize, table.maxWarpsPerSm);
    }

    void curvesMatchDriver_data() {
        QTest::addColumn<QString>("example");
        QTest::addColumn<QString>("kernel");
        QTest::newRow("saxpy") << "saxpy.kpad" << QString();
        QTest::newRow("vector_add") << "vector_add.kpad" << QString();
        QTest::newRow("reduction: static shared, launch bounds") << "reduction.kpad" << QString();
        QTest::newRow("convolution: static shared, constants") << "convolution.kpad" << QString();
        QTest::newRow("named barriers") << QString() << "named_barriers";
        QTest::newRow("many registers") << QString() << "heavy";
    }

    void curvesMatchDriver() {
        QFETCH(QString, example);
        QFETCH(QString, kernel);
        QString source = QString::fromLatin1(kKernels);
        ProgramOptions options;
        if (!example.isEmpty()) {
            const Project p = test::loadExample(example);
            source = p.source;
            options = p.options;
            kernel = p.kernel;
        }
        Compiled c = compile(source, options, kernel, 0);
        QVERIFY2(c.result.ok, qPrintable(c.result.log + c.result.error));
        const Kernel k = c.module->kernel(c.lowered, kernel);
        const OccupancyKernel occ = kernelOf(k, c);

        // The CUBIN reader agrees with the driver (what compile-only estimates rely on).
        const CubinKernelInfo fromCubin = cubinKernelInfo(c.result.cubin, c.lowered);
        QVERIFY(fromCubin.found);
        QCOMPARE(fromCubin.registers, occ.registersPerThread);
        QCOMPARE(kernelCompileFacts(c.result.ptx, c.result.log, c.lowered).sharedBytes,
                 qint64(occ.staticSharedBytes));
        if (fromCubin.maxThreadsPerBlock > 0)
            QVERIFY(occ.maxThreadsPerBlock <= fromCubin.maxThreadsPerBlock);

        // The executor opts in whenever a launch needs more than the default; so do we here,
        // once, to the most the kernel may have.
        const int dynamicMax = m_info.sharedMemPerBlockOptinBytes - occ.staticSharedBytes;
        k.allowDynamicSharedBytes(dynamicMax);

        qInfo("%s: %d registers, %d B static shared, %d barriers, up to %d threads",
              qPrintable(kernel), occ.registersPerThread, occ.staticSharedBytes, occ.barriers,
              occ.maxThreadsPerBlock);
        QStringList mismatches;
        int points = 0;
        for (const int block : {32, 128, 256, std::min(1024, occ.maxThreadsPerBlock)}) {
            if (block > occ.maxThreadsPerBlock)
                continue;
            const OccupancyCurves curves = OccupancyCurves::compute(m_limits, occ, block, 0);
            // Every block size up to the kernel's limit (past it the launch itself fails).
            if (block == 256 || block == occ.maxThreadsPerBlock) {
                QVector<OccupancyPoint> blocks;
                for (const OccupancyPoint& p : curves.byBlockSize)
                    if (p.x <= occ.maxThreadsPerBlock)
                        blocks << p;
                mismatches << compare(QStringLiteral("block size"), blocks,
                                      [&](int x) { return k.maxActiveBlocksPerSm(x, 0); });
                points += int(blocks.size());
            }
            // Every dynamic shared size, one allocation unit apart, up to the opt-in limit.
            mismatches << compare(QStringLiteral("dynamic shared at block %1").arg(block),
                                  curves.byDynamicShared,
                                  [&](int x) { return k.maxActiveBlocksPerSm(block, x); });
            points += int(curves.byDynamicShared.size());
        }
        QVERIFY(points > 0);
        qInfo("%s: %d points checked, %d differ", qPrintable(kernel), points,
              int(mismatches.size()));
        QVERIFY2(mismatches.isEmpty(),
                 qPrintable(mismatches.mid(0, 10).join(QStringLiteral("; "))));
    }

    void registerSweepMatchesDriver_data() { curvesMatchDriver_data(); }

    void registerSweepMatchesDriver() {
        QFETCH(QString, example);
        QFETCH(QString, kernel);
        QString source = QString::fromLatin1(kKernels);
        ProgramOptions options;
        if (!example.isEmpty()) {
            const Project p = test::loadExample(example);
            source = p.source;
            options = p.options;
            kernel = p.kernel;
        }
        QStringList mismatches;
        QSet<int> registerCounts;
        for (const int cap : kRegisterCaps) {
            Compiled c = compile(source, options, kernel, cap);
            QVERIFY2(c.result.ok, qPrintable(c.result.log + c.result.error));
            const Kernel k = c.module->kernel(c.lowered, kernel);
            const OccupancyKernel occ = kernelOf(k, c);
            // ptxas may keep more registers than a low cap asks for (on the H100, convolution
            // and the register-heavy kernel did), so the curve is read at the count it kept.
            registerCounts.insert(occ.registersPerThread);
            for (const int block : {32, 96, 256, 512, 1024}) {
                if (block > occ.maxThreadsPerBlock)
                    continue;
                // The register curve of the kernel at this block, read at the registers the
                // recompiled kernel has, against the driver's answer for that kernel.
                const OccupancyCurves curves = OccupancyCurves::compute(m_limits, occ, block, 0);
                const OccupancyPoint& p = curves.byRegisters[occ.registersPerThread - 1];
                QCOMPARE(p.x, occ.registersPerThread);
                const int driver = k.maxActiveBlocksPerSm(block, 0);
                if (driver != p.occupancy.activeBlocksPerSm)
                    mismatches << QStringLiteral("cap %1 (%2 registers), block %3: driver %4, "
                                                 "ours %5")
                                      .arg(cap)
                                      .arg(occ.registersPerThread)
                                      .arg(block)
                                      .arg(driver)
                                      .arg(p.occupancy.activeBlocksPerSm);
            }
        }
        qInfo("%s: register counts reached %s", qPrintable(kernel), qPrintable([&] {
                  QList<int> sorted = registerCounts.values();
                  std::sort(sorted.begin(), sorted.end());
                  QStringList s;
                  for (int r : sorted)
                      s << QString::number(r);
                  return s.join(QStringLiteral(", "));
              }()));
        QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QStringLiteral("; "))));
    }

    void cleanupTestCase() { m_context.reset(); }
};

KERNELPAD_TEST_GUILESS_MAIN(TestOccupancyCurvesGpu)
} // namespace tst_occupancycurves
#include "tst_occupancycurves.moc"
