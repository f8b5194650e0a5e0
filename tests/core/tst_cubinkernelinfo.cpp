// A kernel's registers, barriers and launch bounds read from the CUBIN
// (what occupancy needs without a driver), checked against ptxas's own -v report of the same
// compile, for several architectures.

#include "../support/TestMain.h"
#include "core/compile/CubinKernelInfo.h"
#include "core/compile/KernelFacts.h"
#include "core/compile/Program.h"

#include <QtTest>

namespace tst_cubinkernelinfo {

using namespace kernelpad;

namespace {

// light: few registers, no barrier; tiled: static shared memory, __syncthreads and launch
// bounds; named: a named barrier (bar.sync 3) besides barrier 0, so ptxas counts 4; module:
// a module-scope shared array besides its own; heavy: many live values, capped by
// --maxrregcount in one row.
const char* const kSource = R"(
__shared__ float moduleTile[64];
extern "C" __global__ void light(float* out) { out[threadIdx.x] = 1.0f; }
extern "C" __global__ void __launch_bounds__(256) tiled(const float* in, float* out)
{
    __shared__ float tile[2000];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x * 7) % 2000];
}
extern "C" __global__ void named(float* out)
{
    __shared__ float t[128];
    t[threadIdx.x] = threadIdx.x;
    __syncthreads();
    asm volatile("bar.sync 3, 64;");
    out[threadIdx.x] = t[127 - threadIdx.x];
}
extern "C" __global__ void module(float* out)
{
    moduleTile[threadIdx.x % 64] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = moduleTile[(threadIdx.x + 1) % 64];
}
extern "C" __global__ void heavy(const float* in, float* out, int n)
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
    out[i] = sum;
}
extern "C" __global__ void local(const float* in, float* out, int n)
{
    float a[256]; // indexed at run time: in local memory, a stack frame of 1 KiB
    for (int k = 0; k < 256; ++k)
        a[(k * n) & 255] = in[k];
    out[threadIdx.x] = a[n & 255];
}
)";

} // namespace

class TestCubinKernelInfo : public QObject {
    Q_OBJECT
private slots:
    void matchesPtxas_data();
    void matchesPtxas();
    void absentEntryAndBadBytes();
};

void TestCubinKernelInfo::matchesPtxas_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("maxRegisters");
    QTest::newRow("sm_90") << "sm_90" << 0;
    QTest::newRow("sm_86") << "sm_86" << 0;
    QTest::newRow("sm_80 with --maxrregcount 24") << "sm_80" << 24;
}

void TestCubinKernelInfo::matchesPtxas() {
    QFETCH(QString, arch);
    QFETCH(int, maxRegisters);
    ProgramOptions options;
    options.extraFlags = {QStringLiteral("-Xptxas"), QStringLiteral("-v")};
    if (maxRegisters > 0)
        options.maxRegisters = maxRegisters;
    const CompileResult result =
        Program(QString::fromLatin1(kSource), QStringLiteral("cubin.cu"), options).compile(arch);
    QVERIFY2(result.ok, qPrintable(result.log + result.error));
    QVERIFY(!result.cubin.isEmpty());
    for (const QString kernel : {"light", "tiled", "named", "module", "heavy", "local"}) {
        const KernelCompileFacts ptxas = kernelCompileFacts(result.ptx, result.log, kernel);
        QVERIFY2(ptxas.ptxasReported, qPrintable(kernel));
        const CubinKernelInfo cubin = cubinKernelInfo(result.cubin, kernel);
        QVERIFY2(cubin.found, qPrintable(kernel));
        QCOMPARE(cubin.registers, ptxas.registers);
        QCOMPARE(cubin.barriers, ptxas.barriers);
        QCOMPARE(qint64(cubin.frameBytes), ptxas.stackBytes);
        // The static shared memory occupancy uses comes from the PTX's declarations.
        QCOMPARE(ptxas.sharedBytes, ptxas.ptxasSharedBytes);
        if (maxRegisters > 0)
            QVERIFY(cubin.registers <= maxRegisters);
    }
    // The figures themselves, where the source fixes them.
    QCOMPARE(cubinKernelInfo(result.cubin, "tiled").maxThreadsPerBlock, 256);
    QCOMPARE(cubinKernelInfo(result.cubin, "tiled").barriers, 1);
    QCOMPARE(cubinKernelInfo(result.cubin, "named").barriers, 4);
    QCOMPARE(cubinKernelInfo(result.cubin, "light").barriers, 0);
    QCOMPARE(cubinKernelInfo(result.cubin, "light").maxThreadsPerBlock, 0);
    QCOMPARE(cubinKernelInfo(result.cubin, "light").frameBytes, 0);
    QCOMPARE(cubinKernelInfo(result.cubin, "local").frameBytes, 1024);
    QCOMPARE(kernelCompileFacts(result.ptx, result.log, "module").sharedBytes, qint64(256));
}

void TestCubinKernelInfo::absentEntryAndBadBytes() {
    const CompileResult result =
        Program(QString::fromLatin1(kSource), QStringLiteral("cubin.cu"), ProgramOptions{})
            .compile(QStringLiteral("sm_90"));
    QVERIFY2(result.ok, qPrintable(result.log + result.error));
    QVERIFY(!cubinKernelInfo(result.cubin, "nosuch").found);
    QVERIFY(!cubinKernelInfo(QByteArray(), "light").found);
    QVERIFY(!cubinKernelInfo(QByteArray("\x7f"
                                        "ELF not really"),
                             "light")
                 .found);
    // Every truncation of a real CUBIN is read without crashing (and finds little).
    for (int size = 0; size < result.cubin.size(); size += 97)
        (void)cubinKernelInfo(result.cubin.left(size), "light");
    QByteArray flipped = result.cubin;
    for (int i = 64; i < flipped.size(); i += 13)
        flipped[i] = char(~flipped[i]);
    (void)cubinKernelInfo(flipped, "light");
}

KERNELPAD_TEST_GUILESS_MAIN(TestCubinKernelInfo)
} // namespace tst_cubinkernelinfo
#include "tst_cubinkernelinfo.moc"
