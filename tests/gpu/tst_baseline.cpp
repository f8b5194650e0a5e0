// A library baseline on a real GPU: naive GEMM kernels run against cuBLAS on the run's context
// and stream (fp32 row-major, fp16 and bf16 inputs, fp8 through cuBLASLt, a batched column-major
// call with a transpose and a padded ldc), each verified against the library's output and given a
// ratio; a wrong kernel is caught by the comparison. Failures print the times, the check and the
// error in full.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/compile/CompileCache.h"
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
