// Occupancy's arithmetic against the driver's cuOccupancyMaxActiveBlocksPerMultiprocessor, for
// kernels with different register and shared-memory use at every block size from 32 to 1024.
// Prints one table per kernel (qInfo) so a mismatch shows where the rules part.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/compile/Program.h"
#include "core/cuda/Context.h"
#include "core/cuda/Device.h"
#include "core/cuda/Module.h"
#include "core/cuda/Occupancy.h"

#include <QTest>

namespace tst_occupancy {

using namespace kernelpad;

namespace {

constexpr int kBlockStep = 32;  ///< one warp
constexpr int kMaxBlock = 1024; ///< every device since cc 2.0

/// Three kernels: few registers; many registers (the unrolled sums keep many live, and
/// __launch_bounds__(1024) caps them at 64 so every block size still launches); static
/// shared memory.
const char* const kSource = R"(
extern "C" __global__ void light(float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = float(i);
}

extern "C" __global__ void __launch_bounds__(1024) heavy(const float* in, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[32];
#pragma unroll
    for (int k = 0; k < 32; ++k)
        acc[k] = in[(i + k * 977) % n];
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < 32; ++k)
        sum += acc[k] * acc[(k * 7) % 32];
    if (i < n)
        out[i] = sum;
}

extern "C" __global__ void tiled(const float* in, float* out, int n)
{
    __shared__ float tile[5000]; // 20000 B: ~11 blocks per SM at most on an H100
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = threadIdx.x; k < 5000; k += blockDim.x)
        tile[k] = i < n ? in[i] : 0.f;
    __syncthreads();
    if (i < n)
        out[i] = tile[(threadIdx.x * 3) % 5000];
}
)";

} // namespace

class TestOccupancyGpu : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<Device> m_device;
    std::unique_ptr<Context> m_context;
    std::optional<Module> m_module;
    CompileResult m_compiled;
    DeviceInfo m_info;

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        m_device = std::make_unique<Device>(0);
        m_info = m_device->info();
        m_context = std::make_unique<Context>(*m_device);
        ProgramOptions options;
        const Program program(QString::fromLatin1(kSource), QStringLiteral("occupancy.cu"),
                              options);
        m_compiled = program.compile(m_info.arch());
        QVERIFY2(m_compiled.ok, qPrintable(m_compiled.log + m_compiled.error));
        m_module.emplace(m_compiled.cubin);
    }

    void matchesDriver_data() {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("dynamicSharedBytes");
        QTest::newRow("few registers, no shared memory") << "light" << 0;
        QTest::newRow("many registers") << "heavy" << 0;
        QTest::newRow("static shared memory") << "tiled" << 0;
        QTest::newRow("few registers, 12 KiB dynamic shared memory") << "light" << 12288;
    }

    void matchesDriver() {
        QFETCH(QString, kernel);
        QFETCH(int, dynamicSharedBytes);
        const KernelInfo* info = m_compiled.findKernel(kernel);
        QVERIFY(info);
        const Kernel k = m_module->kernel(info->lowered, kernel);
        const int registers = k.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
        const int staticShared = k.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
        const int maxThreads = k.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
        const OccupancyLimits limits = OccupancyLimits::forDevice(m_info);
        qInfo("%s on %s (%s): %d registers, %d B static + %d B dynamic shared, up to %d "
              "threads",
              qPrintable(kernel), qPrintable(m_info.name), qPrintable(m_info.arch()), registers,
              staticShared, dynamicSharedBytes, maxThreads);
        qInfo("%6s %8s %8s %10s  %s", "block", "driver", "ours", "occupancy", "limiter");
        QStringList mismatches;
        for (int block = kBlockStep; block <= std::min(kMaxBlock, maxThreads);
             block += kBlockStep) {
            const int driver = k.maxActiveBlocksPerSm(block, dynamicSharedBytes);
            const Occupancy ours =
                Occupancy::of(limits, registers, staticShared + dynamicSharedBytes, block);
            qInfo("%6d %8d %8d %9.1f%%  %s%s", block, driver, ours.activeBlocksPerSm,
                  ours.occupancy * 100, qPrintable(occupancyLimiterName(ours.limiter)),
                  driver == ours.activeBlocksPerSm ? "" : "  <-- differs");
            if (driver != ours.activeBlocksPerSm)
                mismatches << QStringLiteral("block %1: driver %2, ours %3")
                                  .arg(block)
                                  .arg(driver)
                                  .arg(ours.activeBlocksPerSm);
        }
        QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QStringLiteral("; "))));
    }

    void cleanupTestCase() {
        m_module.reset();
        m_context.reset();
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestOccupancyGpu)
} // namespace tst_occupancy
#include "tst_occupancy.moc"
