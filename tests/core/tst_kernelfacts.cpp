// What a compile alone tells about a kernel's resources: the PTX's launch
// bounds and shared and local declarations, and ptxas's -v report from the program log.

#include "../support/TestMain.h"
#include "core/compile/KernelFacts.h"
#include "core/compile/Program.h"

#include <QtTest>

namespace tst_kernelfacts {

using namespace kernelpad;

namespace {

// reduce: launch bounds, a 1 KiB shared array of its own and a module-scope one it uses;
// dyn: dynamic shared memory and a local array.
const char* const kSource = R"(
__shared__ float tile[64];
extern "C" __global__ void __launch_bounds__(256, 2) reduce(const float* in, float* out, int n)
{
    __shared__ float cache[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cache[threadIdx.x] = i < n ? in[i] : 0.0f;
    tile[threadIdx.x % 64] = 1;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = cache[0] + tile[3];
}
extern "C" __global__ void dyn(float* out, int n, int k)
{
    extern __shared__ float smem[];
    float local[32];
    for (int j = 0; j < 32; ++j) local[j] = out[(j * k) % n];
    smem[threadIdx.x] = local[k % 32];
    __syncthreads();
    out[threadIdx.x] = smem[(threadIdx.x + 1) % blockDim.x];
}
)";

CompileResult compileWith(const QStringList& extraFlags) {
    ProgramOptions options;
    options.extraFlags = extraFlags;
    return Program(QString::fromLatin1(kSource), QStringLiteral("facts.cu"), options)
        .compile(QStringLiteral("sm_90"));
}

} // namespace

class TestKernelFacts : public QObject {
    Q_OBJECT
private slots:
    void fromNvrtcPtx();
    void fromPtxasReport();
    void handWrittenReport();
    void absentEntry();
};

void TestKernelFacts::fromNvrtcPtx() {
    const CompileResult result = compileWith({});
    QVERIFY2(result.ok, qPrintable(result.log));
    const KernelCompileFacts reduce = kernelCompileFacts(result.ptx, result.log, "reduce");
    QVERIFY(reduce.inPtx);
    QCOMPARE(reduce.maxntid, (std::array<int, 3>{256, 1, 1}));
    QCOMPARE(reduce.minBlocksPerSm, 2);
    QCOMPARE(reduce.sharedBytes, qint64(256 * 4 + 64 * 4)); // cache and the tile it uses
    QVERIFY(!reduce.dynamicShared);
    QCOMPARE(reduce.localBytes, qint64(0));
    QVERIFY(!reduce.ptxasReported); // not asked for: no -Xptxas -v

    const KernelCompileFacts dyn = kernelCompileFacts(result.ptx, result.log, "dyn");
    QVERIFY(dyn.inPtx);
    QVERIFY(dyn.dynamicShared);
    QCOMPARE(dyn.sharedBytes, qint64(0));
    QCOMPARE(dyn.localBytes, qint64(32 * 4));
    QCOMPARE(dyn.maxntid, (std::array<int, 3>{0, 0, 0}));
}

void TestKernelFacts::fromPtxasReport() {
    const CompileResult result = compileWith({"-Xptxas", "-v"});
    QVERIFY2(result.ok, qPrintable(result.log));
    const KernelCompileFacts reduce = kernelCompileFacts(result.ptx, result.log, "reduce");
    QVERIFY2(reduce.ptxasReported, qPrintable(result.log));
    QVERIFY(reduce.registers > 0);
    QCOMPARE(reduce.ptxasSharedBytes, qint64(1280));
    QCOMPARE(reduce.spillStoreBytes, qint64(0));
    const KernelCompileFacts dyn = kernelCompileFacts(result.ptx, result.log, "dyn");
    QVERIFY2(dyn.ptxasReported, qPrintable(result.log));
    QVERIFY(dyn.registers > 0);
}

void TestKernelFacts::handWrittenReport() {
    // The report of an older ptxas with spills and constant memory, two kernels interleaved.
    const QString log =
        QStringLiteral("ptxas info    : 0 bytes gmem\n"
                       "ptxas info    : Compiling entry function '_Z4heavyPfi' for 'sm_80'\n"
                       "ptxas info    : Function properties for _Z4heavyPfi\n"
                       "    96 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads\n"
                       "ptxas info    : Used 32 registers, 4096 bytes smem, 364 bytes cmem[0]\n"
                       "ptxas info    : Compiling entry function '_Z5lightPfi' for 'sm_80'\n"
                       "ptxas info    : Function properties for _Z5lightPfi\n"
                       "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                       "ptxas info    : Used 8 registers, 364 bytes cmem[0]\n");
    const QString ptx =
        QStringLiteral(".version 8.0\n.target sm_80\n.address_size 64\n\n"
                       "// .entry _Z4heavyPfi in a comment is not the entry\n"
                       ".visible .entry _Z4heavyPfi(\n\t.param .u64 _Z4heavyPfi_param_0,\n"
                       "\t.param .u32 _Z4heavyPfi_param_1\n)\n.maxntid 128, 2, 1\n.maxnreg 32\n{\n"
                       "\t.local .align 8 .b8 \t__local_depot0[96];\n"
                       "\t.shared .align 16 .v4 .f32 buf[64][4];\n"
                       "\tret;\n}\n");
    const KernelCompileFacts heavy = kernelCompileFacts(ptx, log, "_Z4heavyPfi");
    QVERIFY(heavy.inPtx);
    QCOMPARE(heavy.maxntid, (std::array<int, 3>{128, 2, 1}));
    QCOMPARE(heavy.maxnreg, 32);
    QCOMPARE(heavy.localBytes, qint64(96));
    QCOMPARE(heavy.sharedBytes, qint64(16 * 64 * 4));
    QVERIFY(heavy.ptxasReported);
    QCOMPARE(heavy.registers, 32);
    QCOMPARE(heavy.ptxasSharedBytes, qint64(4096));
    QCOMPARE(heavy.constBytes, qint64(364));
    QCOMPARE(heavy.stackBytes, qint64(96));
    QCOMPARE(heavy.spillStoreBytes, qint64(40));
    QCOMPARE(heavy.spillLoadBytes, qint64(36));
    const KernelCompileFacts light = kernelCompileFacts(ptx, log, "_Z5lightPfi");
    QVERIFY(!light.inPtx); // not in this PTX, but ptxas reported it
    QCOMPARE(light.registers, 8);
    QCOMPARE(light.spillStoreBytes, qint64(0));
}

void TestKernelFacts::absentEntry() {
    const KernelCompileFacts none = kernelCompileFacts(QStringLiteral(".entry k(\n)\n{\n}\n"),
                                                       QString(), QStringLiteral("other"));
    QVERIFY(!none.inPtx);
    QVERIFY(!none.ptxasReported);
    QVERIFY(!kernelCompileFacts(QString(), QString(), QString()).inPtx);
}

KERNELPAD_TEST_MAIN(TestKernelFacts)
} // namespace tst_kernelfacts
#include "tst_kernelfacts.moc"
