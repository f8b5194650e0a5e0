// A library baseline on a real GPU: naive GEMM kernels run against cuBLAS on the run's context
// and stream (fp32 row-major, fp16 and bf16 inputs, fp8 through cuBLASLt, a batched column-major
// call with a transpose and a padded ldc), and simple reduce, scan, sort and histogram kernels
// against the CUB plugin, each verified against the library's output and given a ratio; a wrong
// kernel is caught by the comparison. Failures print the times, the check and the
// error in full.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/compile/CompileCache.h"
#include "core/run/CubPlugin.h"
#include "core/run/CublasLibrary.h"
#include "core/run/ExecutionSession.h"

#include <QTest>

#include <memory>

namespace tst_baseline {

using namespace kernelpad;

namespace {

ArgumentSpec buffer(const char* name, ScalarType type, const QString& count, Direction direction,
                    quint64 seed = 0) {
    ArgumentSpec a;
    a.name = QString::fromLatin1(name);
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.elementType = ValueType::of(type);
    a.buffer.count = count;
    a.buffer.direction = direction;
    if (direction == Direction::In) {
        a.buffer.init.kind = InitSpec::Kind::Uniform;
        a.buffer.init.seed = seed;
    }
    a.buffer.verify.atol = 1e-3;
    a.buffer.verify.rtol = 1e-4;
    return a;
}

ArgumentSpec scalar(const char* name, int value) {
    ArgumentSpec a;
    a.name = QString::fromLatin1(name);
    a.type = ValueType::of(ScalarType::Int32);
    a.value = QString::number(value);
    return a;
}

/// Row-major C (M x N) = A (M x K) B (K x N), one thread per element; `T` is A's and B's type.
Project rowMajorGemm(int size, ScalarType ab, const QString& compute, const QString& body) {
    Project p;
    p.name = QStringLiteral("naive gemm");
    p.source = QStringLiteral(R"(#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
extern "C" __global__ void gemm(const %1* A, const %1* B, float* C, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += float(A[row * K + k]) * float(B[k * N + col]);
    %2
})")
                   .arg(ab == ScalarType::Float16      ? QStringLiteral("__half")
                        : ab == ScalarType::BFloat16   ? QStringLiteral("__nv_bfloat16")
                        : ab == ScalarType::Float8E4M3 ? QStringLiteral("__nv_fp8_e4m3")
                                                       : QStringLiteral("float"),
                        body);
    p.kernel = QStringLiteral("gemm");
    p.arguments = {buffer("A", ab, QStringLiteral("M*K"), Direction::In, 1),
                   buffer("B", ab, QStringLiteral("K*N"), Direction::In, 2),
                   buffer("C", ScalarType::Float32, QStringLiteral("M*N"), Direction::Out),
                   scalar("M", size),
                   scalar("N", size),
                   scalar("K", size)};
    p.launch.grid = {size / 16, size / 16, 1};
    p.launch.block = {16, 16, 1};
    p.timing.adaptive = false;
    p.timing.repetitions = 20;
    p.baseline.library = QStringLiteral("cublas");
    p.baseline.call = QStringLiteral("gemm");
    p.baseline.order = QStringLiteral("row");
    p.baseline.a = QStringLiteral("A");
    p.baseline.b = QStringLiteral("B");
    p.baseline.c = QStringLiteral("C");
    p.baseline.m = QStringLiteral("M");
    p.baseline.n = QStringLiteral("N");
    p.baseline.k = QStringLiteral("K");
    p.baseline.compute = compute;
    return p;
}

QString describe(const RunResult& r) {
    const BaselineResult& b = r.baseline;
    return QStringLiteral("status %1, error '%2'; kernel median %3 ms; %4 %5: median %6 ms over "
                          "%7 samples, ratio %8, error '%9'; check: passed %10, %11 checked, %12 "
                          "mismatches, %13 unwritten, max abs err %14, max rel err %15")
        .arg(runStatusName(r.status), r.error)
        .arg(r.timing.medianMs)
        .arg(b.library, b.call)
        .arg(b.timing.medianMs)
        .arg(b.timing.reps())
        .arg(b.ratio(r.timing.medianMs))
        .arg(b.error)
        .arg(b.check.passed)
        .arg(b.check.checked)
        .arg(b.check.mismatches)
        .arg(b.check.unwritten)
        .arg(b.check.maxAbsError)
        .arg(b.check.maxRelError);
}

/// A buffer of `type` with uniform values in [low, high).
ArgumentSpec uniform(const char* name, ScalarType type, int count, double low, double high,
                     quint64 seed) {
    ArgumentSpec a = buffer(name, type, QString::number(count), Direction::In, seed);
    a.buffer.init.low = low;
    a.buffer.init.high = high;
    return a;
}

/// An output the kernel accumulates into (atomics), starting at `start`.
ArgumentSpec accumulator(const char* name, ScalarType type, int count, double start) {
    ArgumentSpec a = buffer(name, type, QString::number(count), Direction::InOut);
    a.buffer.init.kind = InitSpec::Kind::Constant;
    a.buffer.init.value = start;
    return a;
}

/// A one-kernel project with a CUB baseline, `threads` threads in blocks of 256.
Project cubProject(const QString& source, const QString& kernel, int threads,
                   const QVector<ArgumentSpec>& arguments, const BaselineSpec& baseline) {
    Project p;
    p.name = QStringLiteral("against CUB");
    p.source = source;
    p.kernel = kernel;
    p.arguments = arguments;
    p.launch.grid = {(threads + 255) / 256, 1, 1};
    p.launch.block = {256, 1, 1};
    p.timing.adaptive = false;
    p.timing.repetitions = 10;
    p.baseline = baseline;
    return p;
}

BaselineSpec cubCall(const char* call, const char* in, const char* out, int n) {
    BaselineSpec b;
    b.library = QStringLiteral("cub");
    b.call = QString::fromLatin1(call);
    b.in = QString::fromLatin1(in);
    b.out = QString::fromLatin1(out);
    b.n = QString::number(n);
    return b;
}

/// The first mismatches of the baseline's check, for a failure's message.
QString mismatches(const RunResult& r) {
    QStringList parts;
    for (const Mismatch& m : r.baseline.check.firstMismatches)
        parts << QStringLiteral("[%1] kernel %2, CUB %3")
                     .arg(m.index)
                     .arg(m.got, 0, 'g', 17)
                     .arg(m.expected, 0, 'g', 17);
    return QStringLiteral("; buffer '%1', first mismatches: %2")
        .arg(r.baseline.check.buffer,
             parts.isEmpty() ? QStringLiteral("none") : parts.join(QStringLiteral(", ")));
}

/// The row's kernels: a block reduction with atomics, a prefix sum per thread, a rank sort
/// (stable, as CUB's radix sort is) and a histogram with atomics.
const char* const kCubKernels = R"(
extern "C" __global__ void reduce_sum(const float* x, float* total, int n) {
    __shared__ float part[256];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += x[i];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, part[0]);
}
extern "C" __global__ void reduce_min(const int* x, int* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMin(total, x[i]);
}
extern "C" __global__ void reduce_max(const int* x, int* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMax(total, x[i]);
}
extern "C" __global__ void scan_inclusive(const int* x, int* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int acc = 0;
    for (int j = 0; j <= i; ++j) acc += x[j];
    y[i] = acc;
}
extern "C" __global__ void scan_exclusive(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double acc = 0.0;
    for (int j = 0; j < i; ++j) acc += x[j];
    y[i] = acc;
}
template <typename K, typename V, bool Descending>
__device__ void rankSort(const K* keys, K* out, const V* values, V* valuesOut, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const K k = keys[i];
    int pos = 0;
    for (int j = 0; j < n; ++j) {
        const K o = keys[j];
        pos += (Descending ? o > k : o < k) || (o == k && j < i);
    }
    out[pos] = k;
    if (values) valuesOut[pos] = values[i];
}
extern "C" __global__ void sort_pairs_u32(const unsigned* k, unsigned* ko, const float* v,
                                          float* vo, int n) {
    rankSort<unsigned, float, false>(k, ko, v, vo, n);
}
extern "C" __global__ void sort_f32_desc(const float* k, float* ko, int n) {
    rankSort<float, int, true>(k, ko, nullptr, nullptr, n);
}
extern "C" __global__ void sort_i32(const int* k, int* ko, int n) {
    rankSort<int, int, false>(k, ko, nullptr, nullptr, n);
}
extern "C" __global__ void sort_u64(const unsigned long long* k, unsigned long long* ko, int n) {
    rankSort<unsigned long long, int, false>(k, ko, nullptr, nullptr, n);
}
extern "C" __global__ void histogram_u32(const unsigned* x, unsigned* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&h[x[i]], 1u);
}
extern "C" __global__ void histogram_f32(const float* x, int* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&h[min(int(x[i] * 64.0f), 63)], 1);
}
)";

} // namespace

class TestBaseline : public QObject {
    Q_OBJECT

private:
    CompileCache m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};

    RunResult run(const Project& p) {
        RunRequest r;
        r.project = p;
        r.keepOutputs = false;
        return m_session->run(r, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        QString why;
        if (!CublasLibrary::load(&why))
            QSKIP(qPrintable(why));
        m_session = std::make_unique<ExecutionSession>(&m_cache);
    }

    void naiveGemmAgainstCublas_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<QString>("compute");
        QTest::newRow("fp32") << int(ScalarType::Float32) << QStringLiteral("fp32");
        QTest::newRow("fp16 inputs, fp32 output")
            << int(ScalarType::Float16) << QStringLiteral("fp16");
        QTest::newRow("bf16 inputs, fp32 output")
            << int(ScalarType::BFloat16) << QStringLiteral("bf16");
    }
    void naiveGemmAgainstCublas() {
        QFETCH(int, type);
        QFETCH(QString, compute);
        const RunResult r = run(rowMajorGemm(1024, ScalarType(type), compute,
                                             QStringLiteral("C[row * N + col] = acc;")));
        const QString what = describe(r);
        qInfo("%s", qPrintable(what));
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(what));
        QVERIFY2(r.baseline.error.isEmpty(), qPrintable(what));
        QVERIFY2(r.baseline.check.passed, qPrintable(what));
        QCOMPARE(r.baseline.check.checked, qint64(1024) * 1024);
        QCOMPARE(r.baseline.timing.reps(), 20);
        const double ratio = r.baseline.ratio(r.timing.medianMs);
        // A naive kernel is slower than cuBLAS: the library's time over the kernel's is under 1.
        QVERIFY2(ratio > 0 && ratio < 1, qPrintable(what));
        QVERIFY2(r.baseline.timing.gflops > 0, qPrintable(what));
    }

    void fp8GemmAgainstCublasLt() {
        // cuBLASLt's fp8 GEMM takes only the TN form: in row order B stored N x K (transB).
        Project p = rowMajorGemm(1024, ScalarType::Float8E4M3, QStringLiteral("fp8"),
                                 QStringLiteral("C[row * N + col] = acc;"));
        p.source.replace(QStringLiteral("B[k * N + col]"), QStringLiteral("B[col * K + k]"));
        p.baseline.transB = true;
        // Hopper's fp8 tensor cores sum with fewer bits than fp32: on the H100 cuBLASLt's
        // results differ from the kernel's fp32 sums by up to 8e-4 relative (sums near 250),
        // while a wrong layout differs by whole units (37x relative, measured).
        p.arguments[2].buffer.verify.rtol = 2e-3;
        const RunResult r = run(p);
        const QString what = describe(r);
        qInfo("%s", qPrintable(what));
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(what));
        QVERIFY2(r.baseline.error.isEmpty(), qPrintable(what));
        QVERIFY2(r.baseline.check.passed, qPrintable(what));
        QCOMPARE(r.baseline.check.checked, qint64(1024) * 1024);
        const double ratio = r.baseline.ratio(r.timing.medianMs);
        QVERIFY2(ratio > 0 && ratio < 1, qPrintable(what));
    }

    void wrongKernelFailsTheComparison() {
        const RunResult r =
            run(rowMajorGemm(256, ScalarType::Float32, QStringLiteral("fp32"),
                             QStringLiteral("C[row * N + col] = (row == 7 && col == 9) ? acc + "
                                            "1.0f : acc;")));
        const QString what = describe(r);
        QVERIFY2(r.status == RunStatus::VerificationFailed, qPrintable(what));
        QVERIFY2(r.error.startsWith(QStringLiteral("kernel vs cuBLAS: 'C' differs")),
                 qPrintable(what));
        QCOMPARE(r.baseline.check.mismatches, qint64(1));
        QCOMPARE(r.baseline.check.firstMismatches.front().index, qint64(7 * 256 + 9));
    }

    void kernelsAgainstCub_data() {
        QTest::addColumn<Project>("project");
        QTest::addColumn<qint64>("checked");
        const QString src = QString::fromLatin1(kCubKernels);
        const auto scalarN = [](int n) { return scalar("n", n); };
        constexpr int big = 1 << 20, small = 4096;
        BaselineSpec b = cubCall("reduce", "x", "total", big);
        QTest::newRow("reduce sum float32")
            << cubProject(src, QStringLiteral("reduce_sum"), 256 * 256,
                          {uniform("x", ScalarType::Float32, big, 0, 1, 5),
                           accumulator("total", ScalarType::Float32, 1, 0), scalarN(big)},
                          b)
            << qint64(1);
        b = cubCall("reduce", "x", "total", big);
        b.op = QStringLiteral("min");
        QTest::newRow("reduce min int32")
            << cubProject(src, QStringLiteral("reduce_min"), big,
                          {uniform("x", ScalarType::Int32, big, -100000, 100000, 6),
                           accumulator("total", ScalarType::Int32, 1, 2147483647), scalarN(big)},
                          b)
            << qint64(1);
        b.op = QStringLiteral("max");
        QTest::newRow("reduce max int32")
            << cubProject(src, QStringLiteral("reduce_max"), big,
                          {uniform("x", ScalarType::Int32, big, -100000, 100000, 7),
                           accumulator("total", ScalarType::Int32, 1, -2147483648.0), scalarN(big)},
                          b)
            << qint64(1);
        b = cubCall("scan", "x", "y", small);
        QTest::newRow("inclusive sum scan int32")
            << cubProject(src, QStringLiteral("scan_inclusive"), small,
                          {uniform("x", ScalarType::Int32, small, 0, 100, 8),
                           buffer("y", ScalarType::Int32, QString::number(small), Direction::Out),
                           scalarN(small)},
                          b)
            << qint64(small);
        b.exclusive = true;
        QTest::newRow("exclusive sum scan float64")
            << cubProject(src, QStringLiteral("scan_exclusive"), small,
                          {uniform("x", ScalarType::Float64, small, 0, 1, 9),
                           buffer("y", ScalarType::Float64, QString::number(small), Direction::Out),
                           scalarN(small)},
                          b)
            << qint64(small);
        b = cubCall("sort", "k", "ko", small);
        b.valuesIn = QStringLiteral("v");
        b.valuesOut = QStringLiteral("vo");
        QTest::newRow("sort uint32 pairs, repeated keys")
            << cubProject(
                   src, QStringLiteral("sort_pairs_u32"), small,
                   {uniform("k", ScalarType::UInt32, small, 0, 500, 10),
                    buffer("ko", ScalarType::UInt32, QString::number(small), Direction::Out),
                    uniform("v", ScalarType::Float32, small, 0, 1, 11),
                    buffer("vo", ScalarType::Float32, QString::number(small), Direction::Out),
                    scalarN(small)},
                   b)
            << qint64(2 * small);
        b = cubCall("sort", "k", "ko", small);
        b.descending = true;
        QTest::newRow("sort float32 keys descending")
            << cubProject(
                   src, QStringLiteral("sort_f32_desc"), small,
                   {uniform("k", ScalarType::Float32, small, -1, 1, 12),
                    buffer("ko", ScalarType::Float32, QString::number(small), Direction::Out),
                    scalarN(small)},
                   b)
            << qint64(small);
        b.descending = false;
        QTest::newRow("sort int32 keys")
            << cubProject(src, QStringLiteral("sort_i32"), small,
                          {uniform("k", ScalarType::Int32, small, -1000000, 1000000, 13),
                           buffer("ko", ScalarType::Int32, QString::number(small), Direction::Out),
                           scalarN(small)},
                          b)
            << qint64(small);
        QTest::newRow("sort uint64 keys")
            << cubProject(src, QStringLiteral("sort_u64"), small,
                          {uniform("k", ScalarType::UInt64, small, 0, 1e15, 14),
                           buffer("ko", ScalarType::UInt64, QString::number(small), Direction::Out),
                           scalarN(small)},
                          b)
            << qint64(small);
        b = cubCall("histogram", "x", "h", big);
        b.levels = QStringLiteral("257");
        b.lower = QStringLiteral("0");
        b.upper = QStringLiteral("256");
        QTest::newRow("histogram uint32 samples")
            << cubProject(src, QStringLiteral("histogram_u32"), big,
                          {uniform("x", ScalarType::UInt32, big, 0, 256, 15),
                           accumulator("h", ScalarType::UInt32, 256, 0), scalarN(big)},
                          b)
            << qint64(256);
        b.levels = QStringLiteral("65");
        b.upper = QStringLiteral("1");
        QTest::newRow("histogram float32 samples")
            << cubProject(src, QStringLiteral("histogram_f32"), big,
                          {uniform("x", ScalarType::Float32, big, 0, 1, 16),
                           accumulator("h", ScalarType::Int32, 64, 0), scalarN(big)},
                          b)
            << qint64(64);
    }
    void kernelsAgainstCub() {
        QFETCH(Project, project);
        QFETCH(qint64, checked);
        QString why;
        if (!CubPlugin::load(&why))
            QSKIP(qPrintable(why));
        // A float sum in another order, and a float sample on a bin's edge, differ slightly.
        for (ArgumentSpec& a : project.arguments)
            if (a.isBuffer() && a.buffer.direction != Direction::In)
                a.buffer.verify.atol = a.name == QLatin1String("h") ? 2 : 1e-3;
        const RunResult r = run(project);
        const QString what = describe(r) + mismatches(r);
        qInfo("%s", qPrintable(what));
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(what));
        QVERIFY2(r.baseline.error.isEmpty(), qPrintable(what));
        QCOMPARE(r.baseline.library, QStringLiteral("CUB"));
        QVERIFY2(r.baseline.check.passed, qPrintable(what));
        QCOMPARE(r.baseline.check.checked, checked);
        QCOMPARE(r.baseline.check.unwritten, qint64(0));
        QCOMPARE(r.baseline.timing.reps(), 10);
        QVERIFY2(r.baseline.ratio(r.timing.medianMs) > 0, qPrintable(what));
        QVERIFY2(r.baseline.ratioText(r.timing.medianMs).endsWith(QStringLiteral("× CUB")),
                 qPrintable(what));
    }

    void wrongKernelFailsTheCubComparison() {
        QString why;
        if (!CubPlugin::load(&why))
            QSKIP(qPrintable(why));
        constexpr int n = 4096;
        BaselineSpec b = cubCall("scan", "x", "y", n);
        QString src = QString::fromLatin1(kCubKernels);
        src.replace(QStringLiteral("y[i] = acc;\n}\nextern \"C\" __global__ void scan_exclusive"),
                    QStringLiteral("y[i] = i == 100 ? acc + 1 : acc;\n}\nextern \"C\" "
                                   "__global__ void scan_exclusive"));
        QVERIFY(src.contains(QStringLiteral("acc + 1")));
        const RunResult r = run(cubProject(
            src, QStringLiteral("scan_inclusive"), n,
            {uniform("x", ScalarType::Int32, n, 0, 100, 8),
             buffer("y", ScalarType::Int32, QString::number(n), Direction::Out), scalar("n", n)},
            b));
        const QString what = describe(r) + mismatches(r);
        QVERIFY2(r.status == RunStatus::VerificationFailed, qPrintable(what));
        QVERIFY2(r.error.startsWith(QStringLiteral("kernel vs CUB: 'y' differs")),
                 qPrintable(what));
        QCOMPARE(r.baseline.check.mismatches, qint64(1));
        QCOMPARE(r.baseline.check.firstMismatches.front().index, qint64(100));
    }

    void batchedColumnMajorWithTransposeAndPaddedLdc() {
        // C_b (M x N, ldc M + 3) = A_b^T B_b, A_b stored K x M, B_b K x N, column-major, 3 times.
        constexpr int m = 96, n = 64, k = 80, batch = 3, ldc = m + 3;
        Project p;
        p.name = QStringLiteral("batched gemm");
        p.source = QStringLiteral(R"(
extern "C" __global__ void gemm(const float* A, const float* B, float* C) {
    const int M = %1, N = %2, K = %3, LDC = %4;
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, b = blockIdx.z;
    if (i >= M) return;
    const float* a = A + b * K * M; const float* bb = B + b * K * N;
    float acc = 0.0f;
    for (int p = 0; p < K; ++p) acc += a[p + i * K] * bb[p + j * K];
    C[b * LDC * N + i + j * LDC] = acc;
})")
                       .arg(m)
                       .arg(n)
                       .arg(k)
                       .arg(ldc);
        p.kernel = QStringLiteral("gemm");
        p.arguments = {
            buffer("A", ScalarType::Float32, QString::number(k * m * batch), Direction::In, 3),
            buffer("B", ScalarType::Float32, QString::number(k * n * batch), Direction::In, 4),
            buffer("C", ScalarType::Float32, QString::number(ldc * n * batch), Direction::Out)};
        p.launch.grid = {1, n, batch};
        p.launch.block = {128, 1, 1};
        p.timing.adaptive = false;
        p.timing.repetitions = 5;
        BaselineSpec& s = p.baseline;
        s.library = QStringLiteral("cublas");
        s.call = QStringLiteral("gemm");
        s.a = QStringLiteral("A");
        s.b = QStringLiteral("B");
        s.c = QStringLiteral("C");
        s.transA = true;
        s.m = QString::number(m);
        s.n = QString::number(n);
        s.k = QString::number(k);
        s.ldc = QString::number(ldc);
        s.batch = QString::number(batch);
        const RunResult r = run(p);
        const QString what = describe(r);
        qInfo("%s", qPrintable(what));
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(what));
        QVERIFY2(r.baseline.check.passed, qPrintable(what));
        // The padding rows are neither's: only m x n x batch elements are compared.
        QCOMPARE(r.baseline.check.checked, qint64(m) * n * batch);
        QCOMPARE(r.baseline.check.unwritten, qint64(0));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestBaseline)
} // namespace tst_baseline
#include "tst_baseline.moc"
