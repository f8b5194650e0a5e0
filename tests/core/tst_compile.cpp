// Program::compile with the real NVRTC (no driver needed): PTX, CUBIN, kernels, failures.

#include "core/compile/Program.h"

#include <QRegularExpression>
#include <QtTest>

using namespace kernelpad;

Q_DECLARE_METATYPE(kernelpad::ProgramOptions)

namespace {

const char* const kSaxpy = R"(__global__ void saxpy(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
)";

// The seed's cuda.core example (cuda_core/examples/vector_add.py).
const char* const kVectorAdd = R"(template<typename T>
__global__ void vector_add(const T* A, const T* B, T* C, size_t N) {
    const unsigned int tid = threadIdx.x + blockIdx.x * blockDim.x;
    for (size_t i = tid; i < N; i += gridDim.x * blockDim.x) {
        C[i] = A[i] + B[i];
    }
}
)";

const QString kDataDir = QStringLiteral(KERNELPAD_TEST_DATA_DIR);

} // namespace

class TestCompile : public QObject {
    Q_OBJECT

private slots:
    void saxpyCompiles();
    void templateNameExpression();
    void sourcesThatCompile_data();
    void sourcesThatCompile();
    void brokenSourceReportsLine();
    void errorInIncludedHeader();
    void badArch_data();
    void badArch();
    void invalidOptionsDoNotRunNvrtc();
    void externCKernelKeepsItsName();
    void structByValueParam();
    void resultJsonRoundTrip();
};

void TestCompile::saxpyCompiles() {
    const CompileResult result =
        Program(kSaxpy, "saxpy.cu", ProgramOptions{}).compile(QStringLiteral("sm_90"));
    QVERIFY2(result.ok, qPrintable(result.log));
    QVERIFY(result.error.isEmpty());
    QCOMPARE(result.errorCount(), 0);
    QCOMPARE(result.arch, QStringLiteral("sm_90"));
    QVERIFY(result.flags.contains(QStringLiteral("-arch=sm_90")));
    QVERIFY(QRegularExpression(R"(^\d+\.\d+$)").match(result.nvrtcVersion).hasMatch());
    QCOMPARE(result.nvrtcVersion, Program::nvrtcVersion());
    QVERIFY(result.compileMs > 0.0);
    QVERIFY(result.ptx.contains(QLatin1String(".target sm_90")));
    QVERIFY(result.cubin.size() > 4);
    QCOMPARE(result.cubin.left(4), QByteArray("\x7f"
                                              "ELF"));

    QCOMPARE(result.kernels.size(), 1);
    const KernelInfo* kernel = result.findKernel(QStringLiteral("saxpy"));
    QVERIFY(kernel);
    QCOMPARE(kernel->lowered, QStringLiteral("_Z5saxpyfPKfPfi"));
    QCOMPARE(result.findKernel(kernel->lowered), kernel);
    QCOMPARE(kernel->params.size(), 4);
    const QList<int> sizes{4, 8, 8, 4};
    const QList<bool> pointers{false, true, true, false};
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(kernel->params.at(i).sizeBytes, sizes.at(i));
        QCOMPARE(kernel->params.at(i).alignBytes, sizes.at(i));
        QCOMPARE(kernel->params.at(i).isPointer, pointers.at(i));
    }
    QCOMPARE(kernel->params.at(0).ptxType, QStringLiteral(".f32"));
    QVERIFY(result.findKernel(QStringLiteral("nope")) == nullptr);
}

void TestCompile::templateNameExpression() {
    ProgramOptions options;
    options.cppStandard = "c++17";
    const CompileResult result = Program(kVectorAdd, "vector_add.cu", options)
                                     .compile(QStringLiteral("sm_90"), {"vector_add<float>"});
    QVERIFY2(result.ok, qPrintable(result.log));
    QVERIFY(result.flags.contains(QStringLiteral("-std=c++17")));
    QCOMPARE(result.loweredNames.size(), 1);
    QCOMPARE(result.loweredNames.first().first, QStringLiteral("vector_add<float>"));
    const QString lowered = result.loweredNames.first().second;
    QVERIFY2(lowered.startsWith(QLatin1String("_Z10vector_addIfE")), qPrintable(lowered));

    const KernelInfo* kernel = result.findKernel(QStringLiteral("vector_add<float>"));
    QVERIFY(kernel);
    QCOMPARE(kernel->lowered, lowered);
    QCOMPARE(kernel->params.size(), 4);
    for (int i = 0; i < 3; ++i)
        QVERIFY(kernel->params.at(i).isPointer);
    QVERIFY(!kernel->params.at(3).isPointer); // size_t N
    QCOMPARE(kernel->params.at(3).sizeBytes, 8);
}

void TestCompile::sourcesThatCompile_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<ProgramOptions>("options");
    QTest::addColumn<QString>("kernelName");

    QTest::newRow("cub block reduce from the toolkit's CCCL dir")
        << QStringLiteral(R"(#include <cub/block/block_reduce.cuh>
__global__ void reduce(const float* in, float* out)
{
    using Reduce = cub::BlockReduce<float, 128>;
    __shared__ typename Reduce::TempStorage storage;
    float sum = Reduce(storage).Sum(in[threadIdx.x]);
    if (threadIdx.x == 0)
        *out = sum;
}
)") << ProgramOptions{}
        << "reduce";
    QTest::newRow("cuda_fp16.h half arithmetic") << QStringLiteral(R"(#include <cuda_fp16.h>
__global__ void scale(__half* x, float s) { x[threadIdx.x] = __hmul(x[threadIdx.x], __float2half(s)); }
)") << ProgramOptions{} << "scale";
    ProgramOptions relative;
    relative.includeDirs = QStringList{"compile"};
    QTest::newRow("include dir relative to the project")
        << QStringLiteral(
               "#include \"twice.cuh\"\n__global__ void k(float* x) { x[0] = twice(x[0]); }\n")
        << relative << "k";
    ProgramOptions defined;
    defined.defines = QStringList{"N=3"};
    QTest::newRow("define reaches the preprocessor")
        << QStringLiteral("#if N != 3\n#error N not defined\n#endif\n__global__ void k(int* x) { "
                          "x[0] = N; }\n")
        << defined << "k";
    QTest::newRow("explicit instantiation named without an expression")
        << QStringLiteral("template <typename T> __global__ void fill(T* x) { x[0] = T(1); }\n"
                          "template __global__ void fill<int>(int*);\n")
        << ProgramOptions{} << "fill<int>";
    ProgramOptions fast;
    fast.fastMath = true;
    fast.maxRegisters = 32;
    fast.lineInfo = true;
    QTest::newRow("fast math, register cap, lineinfo")
        << QStringLiteral("__global__ void e(float* x) { x[0] = __expf(x[0]); }\n") << fast << "e";
}

void TestCompile::sourcesThatCompile() {
    QFETCH(QString, source);
    QFETCH(ProgramOptions, options);
    QFETCH(QString, kernelName);
    const CompileResult result =
        Program(source, "test.cu", options, kDataDir).compile(QStringLiteral("sm_90"));
    QVERIFY2(result.ok, qPrintable(result.log + result.flags.join(' ')));
    QVERIFY2(result.findKernel(kernelName), qPrintable(result.ptx.left(2000)));
    QVERIFY(!result.cubin.isEmpty());
}

void TestCompile::brokenSourceReportsLine() {
    const QString source = QStringLiteral("__global__ void k(float* out)\n"
                                          "{\n"
                                          "    float a = 1.0f;\n"
                                          "    out[0] = a;\n"
                                          "    out[1] = missing_value;\n"
                                          "}\n");
    const CompileResult result = Program(source, "broken.cu", ProgramOptions{}).compile("sm_90");
    QVERIFY(!result.ok);
    QVERIFY(result.error.isEmpty()); // a source error is not "NVRTC could not run"
    QVERIFY(result.log.contains(QLatin1String("missing_value")));
    QVERIFY(result.kernels.isEmpty());
    QCOMPARE(result.errorCount(), 1);
    const Diagnostic& d = result.diagnostics.first();
    QCOMPARE(d.file, QStringLiteral("broken.cu"));
    QCOMPARE(d.line, 5);
    QCOMPARE(d.column, source.split('\n').at(4).indexOf(QLatin1String("missing_value")) + 1);
    QVERIFY(d.message.contains(QLatin1String("\"missing_value\" is undefined")));
}

void TestCompile::errorInIncludedHeader() {
    ProgramOptions options;
    options.includeDirs = QStringList{kDataDir + "/compile"};
    const CompileResult result = Program("#include \"broken_header.cuh\"\n__global__ void k(float* "
                                         "x) { x[0] = helper(x[0]); }\n",
                                         "main.cu", options)
                                     .compile("sm_90");
    QVERIFY(!result.ok);
    QCOMPARE(result.errorCount(), 1);
    QVERIFY2(result.diagnostics.first().file.endsWith(QLatin1String("broken_header.cuh")),
             qPrintable(result.diagnostics.first().file));
    QCOMPARE(result.diagnostics.first().line, 5);
}

void TestCompile::badArch_data() {
    QTest::addColumn<QString>("arch");
    QTest::newRow("not an arch at all") << "banana";
    QTest::newRow("virtual arch gives no CUBIN") << "compute_90";
    QTest::newRow("well formed but unknown to NVRTC") << "sm_9999";
}

void TestCompile::badArch() {
    QFETCH(QString, arch);
    const CompileResult result = Program(kSaxpy, "saxpy.cu", ProgramOptions{}).compile(arch);
    QVERIFY(!result.ok);
    QVERIFY(result.error.isEmpty());
    QVERIFY(result.errorCount() >= 1);
    const QString message = result.diagnostics.first().message;
    QVERIFY2(message.contains(arch), qPrintable(message)); // the user sees what they asked for
    QVERIFY2(message.contains(QLatin1String("arch")), qPrintable(message));
}

void TestCompile::invalidOptionsDoNotRunNvrtc() {
    ProgramOptions options;
    options.maxRegisters = 4;
    const CompileResult result = Program(kSaxpy, "saxpy.cu", options).compile("sm_90");
    QVERIFY(!result.ok);
    QVERIFY(result.log.isEmpty());
    QVERIFY(result.flags.isEmpty());
    QCOMPARE(result.diagnostics.size(), 1);
    QVERIFY2(result.diagnostics.first().message.contains(QLatin1String("maxRegisters")),
             qPrintable(result.diagnostics.first().message));
}

void TestCompile::externCKernelKeepsItsName() {
    const CompileResult result =
        Program("extern \"C\" __global__ void plain(float* x, unsigned long long n, int k) {}\n",
                "plain.cu", ProgramOptions{})
            .compile("sm_90");
    QVERIFY2(result.ok, qPrintable(result.log));
    const KernelInfo* kernel = result.findKernel(QStringLiteral("plain"));
    QVERIFY(kernel);
    QCOMPARE(kernel->lowered, QStringLiteral("plain"));
    QCOMPARE(kernel->params.size(), 3);
    // Without a mangled signature a 64-bit parameter may be a pointer; say so.
    QVERIFY(kernel->params.at(0).isPointer);
    QVERIFY(!kernel->params.at(2).isPointer);
}

void TestCompile::structByValueParam() {
    const CompileResult result =
        Program("struct Pair { int a; float b; };\n"
                "__global__ void usePair(Pair p, float* out) { out[0] = p.a + p.b; }\n",
                "pair.cu", ProgramOptions{})
            .compile("sm_90");
    QVERIFY2(result.ok, qPrintable(result.log));
    const KernelInfo* kernel = result.findKernel(QStringLiteral("usePair"));
    QVERIFY(kernel);
    QCOMPARE(kernel->params.size(), 2);
    QCOMPARE(kernel->params.at(0).sizeBytes, int(sizeof(int) + sizeof(float)));
    QCOMPARE(kernel->params.at(0).alignBytes, int(alignof(int)));
    QCOMPARE(kernel->params.at(0).ptxType, QStringLiteral(".b8"));
    QVERIFY(!kernel->params.at(0).isPointer);
    QVERIFY(kernel->params.at(1).isPointer);
}

void TestCompile::resultJsonRoundTrip() {
    const CompileResult result = Program(kVectorAdd, "vector_add.cu", ProgramOptions{})
                                     .compile("sm_90", {"vector_add<float>", "vector_add<int>"});
    QVERIFY2(result.ok, qPrintable(result.log));
    QCOMPARE(result.kernels.size(), 2);
    const CompileResult back = CompileResult::fromJson(result.toJson());
    QCOMPARE(back.toJson(), result.toJson());
    QCOMPARE(back.ptx, result.ptx);
    QCOMPARE(back.loweredNames, result.loweredNames);
    QVERIFY(back.findKernel(QStringLiteral("vector_add<int>")));
    QVERIFY(back.cubin.isEmpty()); // sent separately
    QVERIFY(!result.toJson(false).contains(QStringLiteral("ptx")));
    QVERIFY(!result.toJson().contains(QStringLiteral("cubin")));
}

QTEST_GUILESS_MAIN(TestCompile)
#include "tst_compile.moc"
