// Program::compile with the real NVRTC (no driver needed): PTX, CUBIN, kernels, failures.

#include "core/compile/Program.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <cstring>
#include <future>
#include <thread>

namespace tst_compile {

using namespace kernelpad;

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

// Long enough for NVRTC on a loaded 2-core machine, short against "for ever".
constexpr int kHangLimitSeconds = 60;
// Ten times what the include check takes on pathological input on a loaded 2-core machine.
constexpr qint64 kLinearCheckLimitMs = 5000;

/// Compiles on a detached thread and gives up after kHangLimitSeconds, so a compile that blocks
/// (NVRTC opening a FIFO) fails the test instead of hanging it.
std::optional<CompileResult> compileWithin(const Program& program) {
    auto task = std::make_shared<std::packaged_task<CompileResult()>>(
        [program] { return program.compile(QStringLiteral("sm_90")); });
    std::future<CompileResult> result = task->get_future();
    std::thread([task] { (*task)(); }).detach();
    if (result.wait_for(std::chrono::seconds(kHangLimitSeconds)) != std::future_status::ready)
        return std::nullopt;
    return result.get();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly), qPrintable(path));
    QCOMPARE(file.write(bytes), bytes.size());
}

/// Makes the special file a row asks for at `path`; false if this system cannot.
bool makeSpecialFile(const QString& kind, const QString& path) {
    const QByteArray native = QFile::encodeName(path);
    if (kind == QLatin1String("fifo"))
        return ::mkfifo(native.constData(), 0600) == 0;
    if (kind == QLatin1String("folder"))
        return QDir().mkpath(path);
    if (kind == QLatin1String("socket")) {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (fd < 0 || size_t(native.size()) >= sizeof(address.sun_path))
            return false;
        std::memcpy(address.sun_path, native.constData(), size_t(native.size()));
        const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
        ::close(fd); // the socket file stays
        return bound;
    }
    if (kind == QLatin1String("link to /dev/zero"))
        return QFile::link(QStringLiteral("/dev/zero"), path);
    return false;
}

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
    void virtualArchMakesPtxOnly_data();
    void virtualArchMakesPtxOnly();
    void invalidOptionsDoNotRunNvrtc();
    void externCKernelKeepsItsName();
    void structByValueParam();
    void resultJsonRoundTrip();
    void machineCodeHashFollowsTheCode();
    void allowedExtraFlagsCompile_data();
    void allowedExtraFlagsCompile();
    void refusedFlagNeverReachesNvrtc_data();
    void refusedFlagNeverReachesNvrtc();
    void nulInSource_data();
    void nulInSource();
    void specialFileInclude_data();
    void specialFileInclude();
    void quotedIncludeFromWorkingDirectory();
    void nestedRegularHeadersCompile();
    void pathologicalSourceCheckedQuickly();
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
    options.includeDirs = QStringList{QStringLiteral("compile")};
    const CompileResult result = Program("#include \"broken_header.cuh\"\n__global__ void k(float* "
                                         "x) { x[0] = helper(x[0]); }\n",
                                         "main.cu", options, kDataDir)
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
    QTest::newRow("well formed virtual arch unknown to NVRTC") << "compute_9999";
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

void TestCompile::virtualArchMakesPtxOnly_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<QString>("target");
    QTest::newRow("the seed's compute_75") << "compute_75"
                                           << ".target sm_75";
    QTest::newRow("compute_90 for an H100's JIT") << "compute_90"
                                                  << ".target sm_90";
}

// A virtual arch is accepted, NVRTC makes PTX for it and no CUBIN; the
// runner hands the PTX to the driver's JIT.
void TestCompile::virtualArchMakesPtxOnly() {
    QFETCH(QString, arch);
    QFETCH(QString, target);
    const CompileResult result = Program(kSaxpy, "saxpy.cu", ProgramOptions{}).compile(arch);
    QVERIFY2(result.ok, qPrintable(result.log + result.diagnostics.value(0).message));
    QCOMPARE(result.arch, arch);
    QVERIFY(result.flags.contains(QStringLiteral("-arch=") + arch));
    QVERIFY2(result.ptx.contains(target), qPrintable(result.ptx.left(400)));
    QVERIFY(result.cubin.isEmpty());
    QCOMPARE(result.kernels.size(), 1);
    QCOMPARE(result.kernels.first().name, QStringLiteral("saxpy"));
    QCOMPARE(result.kernels.first().params.size(), 4);

    // The project's arch field takes it too, and the result says which arch it was.
    ProgramOptions options;
    options.arch = arch;
    QVERIFY2(options.validate().isEmpty(), qPrintable(options.validate()));
    const CompileResult fromOption = Program(kSaxpy, "saxpy.cu", options).compile({});
    QVERIFY(fromOption.ok);
    QCOMPARE(fromOption.arch, arch);
    QVERIFY(fromOption.cubin.isEmpty());
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
    QString error;
    const std::optional<CompileResult> back = CompileResult::fromJson(result.toJson(), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->toJson(), result.toJson());
    QCOMPARE(back->ptx, result.ptx);
    QCOMPARE(back->loweredNames, result.loweredNames);
    QVERIFY(back->findKernel(QStringLiteral("vector_add<int>")));
    QVERIFY(back->cubin.isEmpty()); // sent separately
    QVERIFY(!result.toJson(false).contains(QStringLiteral("ptx")));
    QVERIFY(!result.toJson().contains(QStringLiteral("cubin")));
    QCOMPARE(back->machineCodeHash(), result.machineCodeHash());
}

void TestCompile::machineCodeHashFollowsTheCode() {
    const auto hashOf = [](const QString& source) {
        const CompileResult r =
            Program(source, "saxpy.cu", ProgramOptions{}).compile(QStringLiteral("sm_90"));
        return r.ok ? r.machineCodeHash() : QStringLiteral("failed: ") + r.log;
    };
    const QString saxpy = QString::fromLatin1(kSaxpy);
    const QString hash = hashOf(saxpy);
    QCOMPARE(hash.size(), 32);
    // A comment, and a blank line that moves every line after it: the same machine code.
    QCOMPARE(hashOf(saxpy + QStringLiteral("// faster?\n")), hash);
    QCOMPARE(hashOf(QStringLiteral("\n") + saxpy), hash);
    // Other arithmetic: other code.
    QString minus = saxpy;
    minus.replace(QStringLiteral("a * x[i] + y[i]"), QStringLiteral("a * x[i] - y[i]"));
    QVERIFY(minus != saxpy);
    QVERIFY(hashOf(minus) != hash);
    // A failed compile has none.
    QCOMPARE(Program(QStringLiteral("__global__ void k( {"), "broken.cu", ProgramOptions{})
                 .compile(QStringLiteral("sm_90"))
                 .machineCodeHash(),
             QString());
}

void TestCompile::allowedExtraFlagsCompile_data() {
    QTest::addColumn<QStringList>("extraFlags");
    // Every entry of the allow-list in at least one spelling, as NVRTC 13 takes them.
    const QList<QStringList> rows{
        {"--dopt=on"},
        {"-dopt", "on"},
        {"-ftz=true", "--prec-div=false", "-prec-sqrt", "true"},
        {"--extra-device-vectorization", "-restrict", "-w"},
        {"--disable-warnings", "--diag-suppress=177,550", "-diag-error", "20012"},
        {"--diag-warn=177", "--display-error-number"},
        {"-no-err-no", "-default-device"},
        {"--device-as-default-execution-space", "-err-no"},
        {"-UFOO", "-U", "BAR", "--undefine-macro=BAZ", "--undefine-macro", "QUX"},
        {"--relocatable-device-code=false", "-rdc", "false"},
        {"-Xptxas", "-v", "-Xptxas=-O2", "--ptxas-options=--warn-on-spills"},
        {"--ptxas-options", "--warn-on-local-memory-usage", "-Xptxas", "-O0"},
        {"-device-int128", "--builtin-move-forward=true", "--builtin-initializer-list=false"},
        {"-brief-diag=true", "--optimization-info=inline", "-opt-info=inline"},
        {"--modify-stack-limit=false", "--device-stack-protector=true"},
    };
    for (const QStringList& row : rows)
        QTest::newRow(qPrintable(row.join(' '))) << row;
}

void TestCompile::allowedExtraFlagsCompile() {
    QFETCH(QStringList, extraFlags);
    ProgramOptions options;
    options.extraFlags = extraFlags;
    const CompileResult result = Program(kSaxpy, "saxpy.cu", options).compile("sm_90");
    QVERIFY2(result.ok, qPrintable(result.log + "\n" + result.flags.join(' ')));
    QVERIFY(result.findKernel(QStringLiteral("saxpy")));
    for (const QString& flag : extraFlags)
        QVERIFY(result.flags.contains(flag));
}

void TestCompile::refusedFlagNeverReachesNvrtc_data() {
    QTest::addColumn<QString>("flagTemplate"); // %1: a path in a fresh temporary folder
    QTest::addColumn<QString>("writtenFile");  // what NVRTC would have written, under %1's folder
    QTest::newRow("--create-pch") << "--create-pch=%1"
                                  << "";
    QTest::newRow("--time") << "--time=%1"
                            << "";
    QTest::newRow("-fdevice-time-trace") << "-fdevice-time-trace=%1"
                                         << ".json";
}

void TestCompile::refusedFlagNeverReachesNvrtc() {
    QFETCH(QString, flagTemplate);
    QFETCH(QString, writtenFile);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString target = dir.filePath(QStringLiteral("victim"));
    const QString flag = flagTemplate.arg(target);
    ProgramOptions options;
    options.extraFlags = QStringList{flag};
    const CompileResult result = Program(kSaxpy, "saxpy.cu", options).compile("sm_90");
    QVERIFY(!result.ok);
    QVERIFY(result.log.isEmpty()); // NVRTC never ran
    QCOMPARE(result.diagnostics.size(), 1);
    const QString message = result.diagnostics.first().message;
    QVERIFY2(message.contains(QStringLiteral("extraFlags[0]: \"%1\" is refused").arg(flag)),
             qPrintable(message));
    QVERIFY(!QFileInfo::exists(target + writtenFile));
    QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{});
}

void TestCompile::nulInSource_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::newRow("NUL hides the rest of a kernel")
        << QStringLiteral("__global__ void k(float* x)\n{\n    x[0] = 1;") + QChar(u'\0') +
               QStringLiteral("\n    x[1] = undefined_after_nul;\n}\n")
        << 3 << 14;
    QTest::newRow("NUL first") << QChar(u'\0') + QString::fromLatin1(kSaxpy) << 1 << 1;
    QTest::newRow("NUL after non-ASCII text: column in characters")
        << QStringLiteral("// µ€ comment\n// é") + QChar(u'\0') + QString::fromLatin1(kSaxpy) << 2
        << 5;
}

void TestCompile::nulInSource() {
    QFETCH(QString, source);
    QFETCH(int, line);
    QFETCH(int, column);
    const CompileResult result = Program(source, "nul.cu", ProgramOptions{}).compile("sm_90");
    QVERIFY(!result.ok);
    QVERIFY(result.log.isEmpty()); // refused before NVRTC
    QCOMPARE(result.errorCount(), 1);
    const Diagnostic& d = result.diagnostics.first();
    QCOMPARE(d.file, QStringLiteral("nul.cu"));
    QCOMPARE(d.line, line);
    QCOMPARE(d.column, column);
    QVERIFY2(d.message.contains(QLatin1String("NUL character")), qPrintable(d.message));
}

void TestCompile::specialFileInclude_data() {
    QTest::addColumn<QString>("kind");           // what to make at the include's target
    QTest::addColumn<QString>("sourceTemplate"); // %1: the temporary folder
    QTest::addColumn<QString>("includer");       // empty: the main source; else a header's name
    QTest::addColumn<int>("line");

    const QString kernel = QStringLiteral("__global__ void k(float* x) { x[0] = 1; }\n");
    QTest::newRow("quoted include of a FIFO in an include dir (the hang)")
        << "fifo"
        << "// a comment\n#include \"special.cuh\"\n" + kernel << QString() << 2;
    QTest::newRow("angled include of a FIFO")
        << "fifo"
        << "#include <special.cuh>\n" + kernel << QString() << 1;
    QTest::newRow("absolute path to a FIFO")
        << "fifo"
        << "#include \"%1/inc/special.cuh\"\n" + kernel << QString() << 1;
    QTest::newRow("FIFO included by a user header")
        << "fifo"
        << "#include \"outer.cuh\"\n" + kernel << "outer.cuh" << 3;
    QTest::newRow("include commented out by a block comment is still checked")
        << "fifo"
        << "/*\n#include \"special.cuh\"\n*/\n" + kernel << QString() << 2;
    QTest::newRow("directive after a comment's end")
        << "fifo"
        << "/* x\n*/ #include \"special.cuh\"\n" + kernel << QString() << 2;
    QTest::newRow("directive split by a line splice")
        << "fifo"
        << "#inc\\\nlude \"special.cuh\"\n" + kernel << QString() << 1;
    QTest::newRow("__has_include of a FIFO")
        << "fifo"
        << "#if __has_include(\"special.cuh\")\n#endif\n" + kernel << QString() << 1;
    QTest::newRow("a folder") << "folder"
                              << "#include \"special.cuh\"\n" + kernel << QString() << 1;
    QTest::newRow("a socket") << "socket"
                              << "#include \"special.cuh\"\n" + kernel << QString() << 1;
    QTest::newRow("a link to /dev/zero") << "link to /dev/zero"
                                         << "#include \"special.cuh\"\n" + kernel << QString() << 1;
    QTest::newRow("an include named by a macro")
        << "none"
        << "#define H \"%1/inc/special.cuh\"\n#include H\n" + kernel << QString() << 2;
}

void TestCompile::specialFileInclude() {
    QFETCH(QString, kind);
    QFETCH(QString, sourceTemplate);
    QFETCH(QString, includer);
    QFETCH(int, line);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("inc")));
    const QString special = dir.filePath(QStringLiteral("inc/special.cuh"));
    if (kind != QLatin1String("none") && !makeSpecialFile(kind, special))
        QSKIP(qPrintable(QStringLiteral("cannot make a %1 here").arg(kind)));
    writeFile(dir.filePath(QStringLiteral("inc/outer.cuh")),
              "#pragma once\n// includes the special file\n#include \"special.cuh\"\n");
    if (QTest::currentTestFailed())
        return;

    ProgramOptions options;
    options.includeDirs = QStringList{QStringLiteral("inc")};
    const Program program(sourceTemplate.arg(dir.path()), "main.cu", options, dir.path());
    QElapsedTimer timer;
    timer.start();
    const std::optional<CompileResult> result = compileWithin(program);
    QVERIFY2(result, "the compile hung");
    QVERIFY(!result->ok);
    QVERIFY(result->log.isEmpty()); // refused before NVRTC opened anything
    QCOMPARE(result->errorCount(), 1);
    const Diagnostic& d = result->diagnostics.first();
    qInfo("%s:%d:%d: %s", qPrintable(d.file), d.line, d.column, qPrintable(d.message));
    QCOMPARE(d.line, line);
    if (includer.isEmpty())
        QCOMPARE(d.file, QStringLiteral("main.cu"));
    else
        QVERIFY2(d.file.endsWith(QStringLiteral("inc/") + includer), qPrintable(d.file));
    if (kind == QLatin1String("none"))
        QVERIFY2(d.message.contains(QLatin1String("named by a macro")), qPrintable(d.message));
    else if (kind == QLatin1String("link to /dev/zero")) // it leads out of the project folder
        QVERIFY2(d.message.contains(QLatin1String("/dev/zero' is outside the project folder")),
                 qPrintable(d.message));
    else if (sourceTemplate.contains(QLatin1String("%1"))) // never looked at: absolute
        QVERIFY2(d.message.contains(special) && d.message.contains(QLatin1String("absolute path")),
                 qPrintable(d.message));
    else
        QVERIFY2(d.message.contains(special) && d.message.contains(QLatin1String("regular file")),
                 qPrintable(d.message));
}

void TestCompile::quotedIncludeFromWorkingDirectory() {
    // NVRTC resolves the main source's quoted includes against the working directory; so does
    // the check.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(::mkfifo(QFile::encodeName(dir.filePath(QStringLiteral("cwd.cuh"))).constData(),
                     0600) == 0);
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.path()));
    const std::optional<CompileResult> result = compileWithin(
        Program("#include \"cwd.cuh\"\n__global__ void k() {}\n", "main.cu", ProgramOptions{}));
    QDir::setCurrent(previous);
    QVERIFY2(result, "the compile hung");
    QVERIFY(!result->ok);
    QCOMPARE(result->errorCount(), 1);
    QCOMPARE(result->diagnostics.first().line, 1);
    QVERIFY2(result->diagnostics.first().message.contains(QLatin1String("cwd.cuh")),
             qPrintable(result->diagnostics.first().message));
}

void TestCompile::nestedRegularHeadersCompile() {
    // Regular headers, including each other in a cycle behind include guards, still compile.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("inc/sub")));
    writeFile(dir.filePath(QStringLiteral("inc/a.cuh")),
              "#pragma once\n#include \"sub/b.cuh\"\n#include <cuda_fp16.h>\n"
              "__device__ inline float a(float x) { return b(x) + 1; }\n");
    if (QTest::currentTestFailed())
        return;
    writeFile(dir.filePath(QStringLiteral("inc/sub/b.cuh")),
              "#pragma once\n#include \"../a.cuh\"\n"
              "__device__ inline float b(float x) { return 2 * x; }\n");
    if (QTest::currentTestFailed())
        return;
    ProgramOptions options;
    options.includeDirs = QStringList{QStringLiteral("inc")};
    const CompileResult result =
        Program("#include <a.cuh>\n__global__ void k(float* x) { x[0] = a(x[0]); }\n", "main.cu",
                options, dir.path())
            .compile("sm_90");
    QVERIFY2(result.ok, qPrintable(result.log + result.diagnostics.value(0).message));
}

void TestCompile::pathologicalSourceCheckedQuickly() {
    // Lines built to make a naive scanner quadratic: many names, many unclosed comments, one
    // huge unterminated name. The check stays linear and refuses the last line.
    const QString source = QStringLiteral("__has_include(<kp_no_such_header.h>)").repeated(20000) +
                           u'\n' + QStringLiteral("/*").repeated(500000) + u'\n' +
                           QStringLiteral("__has_include(<").repeated(100000) + u'\n';
    QElapsedTimer timer;
    timer.start();
    const std::optional<CompileResult> result =
        compileWithin(Program(source, "slow.cu", ProgramOptions{}));
    QVERIFY2(result, "the check hung");
    qInfo("checked in %lld ms", timer.elapsed());
    // About 0.5 s on a loaded 2-core machine; the quadratic version took 15 s.
    QVERIFY(timer.elapsed() < kLinearCheckLimitMs);
    QVERIFY(!result->ok);
    QCOMPARE(result->diagnostics.size(), 1);
    QCOMPARE(result->diagnostics.first().line, 3);
    QVERIFY2(
        result->diagnostics.first().message.contains(QLatin1String("cannot read the file name")),
        qPrintable(result->diagnostics.first().message));
}

KERNELPAD_TEST_GUILESS_MAIN(TestCompile)
} // namespace tst_compile
#include "tst_compile.moc"
