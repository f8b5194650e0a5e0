// The fast path from an edit to its result, on a real GPU: large reference-kernel verifications run
// on the GPU and still report a wrong kernel's mismatches, unchanged "in" buffers are not
// uploaded again in the next run of a session, and the device's copy ceiling is measured,
// cached and reported with later runs.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/run/ExecutionSession.h"
#include "core/run/RunVerification.h"
#include "core/verify/Verify.h"

#include <QTemporaryDir>
#include <QTest>

namespace tst_gpufastpath {

using namespace kernelpad;

namespace {

const char* kSource = R"(
extern "C" __global__ void scale(const float* x, float* out, size_t n)
{
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i];
}
extern "C" __global__ void scale_wrong(const float* x, float* out, size_t n)
{
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i] + (i % 1000 == 0 ? 1.0f : 0.0f);
}
extern "C" __global__ void scale_ref(const float* x, float* out, size_t n)
{
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = x[i] + x[i];
}
)";

ArgumentSpec buffer(const QString& name, Direction direction) {
    ArgumentSpec a;
    a.name = name;
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer.count = QStringLiteral("n");
    a.buffer.direction = direction;
    a.buffer.init.kind = InitSpec::Kind::Uniform;
    a.buffer.init.low = -1;
    a.buffer.init.high = 1;
    a.buffer.init.seed = 1;
    return a;
}

Project scaleProject(const QString& kernel, qint64 n) {
    Project p;
    p.source = QString::fromLatin1(kSource);
    p.sourceName = QStringLiteral("scale.cu");
    p.kernel = kernel;
    ArgumentSpec out = buffer(QStringLiteral("out"), Direction::Out);
    out.buffer.verify.kind = VerifySpec::Kind::Reference;
    out.buffer.verify.referenceKernel = QStringLiteral("scale_ref");
    ArgumentSpec count;
    count.name = QStringLiteral("n");
    count.type = ValueType::of(ScalarType::UInt64);
    count.value = QString::number(n);
    p.arguments = {buffer(QStringLiteral("x"), Direction::In), out, count};
    constexpr int kBlock = 256;
    p.launch.block = {kBlock, 1, 1};
    p.launch.grid = {int((n + kBlock - 1) / kBlock), 1, 1};
    p.timing.adaptive = false;
    p.timing.repetitions = 3;
    p.timing.warmupLaunches = 1;
    return p;
}

} // namespace

class TestGpuFastPath : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_cacheDir;
    std::unique_ptr<CompileCache> m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};

    RunResult run(const Project& p, bool keepOutputs = false) {
        RunRequest r;
        r.project = p;
        r.keepOutputs = keepOutputs;
        return m_session->run(r, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        QVERIFY(m_cacheDir.isValid());
        qputenv("KERNELPAD_CACHE_DIR", m_cacheDir.path().toUtf8()); // keep ~/.cache clean
        m_cache = std::make_unique<CompileCache>();
        m_session = std::make_unique<ExecutionSession>(m_cache.get());
    }

    void cleanupTestCase() {
        m_session.reset();
        qunsetenv("KERNELPAD_CACHE_DIR");
    }

    void referenceVerification_data() {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<qint64>("n");
        QTest::addColumn<bool>("onGpu");
        QTest::addColumn<qint64>("mismatches");
        const qint64 big = qint64(1) << 24; // 16,777,216 floats
        QTest::newRow("16M right: on the GPU") << "scale" << big << true << qint64(0);
        // Indices 0, 1000, ..., 16777000.
        QTest::newRow("16M wrong: on the GPU, mismatches found")
            << "scale_wrong" << big << true << (big - 1) / 1000 + 1;
        QTest::newRow("4096 wrong: on the host")
            << "scale_wrong" << qint64(4096) << false << qint64(5);
    }

    void referenceVerification() {
        QFETCH(QString, kernel);
        QFETCH(qint64, n);
        QFETCH(bool, onGpu);
        QFETCH(qint64, mismatches);
        const RunResult r = run(scaleProject(kernel, n));
        QVERIFY2(r.status == (mismatches ? RunStatus::VerificationFailed : RunStatus::Ok),
                 qPrintable(r.error));
        QCOMPARE(r.verification.size(), 1);
        const BufferVerification& v = r.verification.first();
        qInfo("%s n=%lld: %s, verify %.2f ms, %lld mismatches", qPrintable(kernel), n,
              qPrintable(v.method), r.timing.verifyMs, v.mismatches);
        QCOMPARE(v.method.contains(QLatin1String("on the GPU")), onGpu);
        QVERIFY2(v.error.isEmpty(), qPrintable(v.error));
        QCOMPARE(v.checked, n);
        QCOMPARE(v.mismatches, mismatches);
        QCOMPARE(v.passed, mismatches == 0);
        QCOMPARE(v.unwritten, qint64(0));
        QCOMPARE(v.nanCount, qint64(0));
        if (mismatches) {
            QVERIFY(!v.firstMismatches.isEmpty());
            QCOMPARE(v.firstMismatches.first().index, qint64(0));
            if (v.firstMismatches.size() > 1)
                QCOMPARE(v.firstMismatches.at(1).index, qint64(1000));
            QVERIFY(v.maxAbsError >= 1.0 && v.maxAbsError < 1.01);
        }
    }

    void referenceGetsTheKernelsDynamicSharedMemory() {
        // 64 KiB of dynamic shared memory needs an opt-in per kernel: the reference kernel,
        // launched with the kernel's launch, must get it too (it was refused with "invalid
        // argument" while only the kernel under test had it).
        Project p = scaleProject(QStringLiteral("scale"), 4096);
        p.source += QStringLiteral(R"(
extern "C" __global__ void staged(const float* x, float* out, size_t n)
{
    extern __shared__ float stage[];
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    stage[threadIdx.x + 16000] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = 2.0f * stage[threadIdx.x + 16000];
}
extern "C" __global__ void staged_ref(const float* x, float* out, size_t n)
{
    extern __shared__ float stage[];
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    stage[threadIdx.x + 16000] = i < n ? x[i] + x[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = stage[threadIdx.x + 16000];
}
)");
        p.kernel = QStringLiteral("staged");
        p.arguments[1].buffer.verify.referenceKernel = QStringLiteral("staged_ref");
        p.launch.sharedMemBytes = 64 * 1024;
        const RunResult r = run(p);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 1);
        QVERIFY2(r.verification.first().passed, qPrintable(r.verification.first().error));
        QCOMPARE(r.verification.first().checked, qint64(4096));
        // The occupancy counts the 64 KiB: at most 3 blocks of 256 threads per SM (228 KiB).
        QVERIFY2(r.resources.occupancyBlocksPerSm >= 1 && r.resources.occupancyBlocksPerSm <= 3,
                 qPrintable(QString::number(r.resources.occupancyBlocksPerSm)));
    }

    void gpuAndHostReportsAgree() {
        // The same wrong 16M output: kept on the host (keepOutputs) it is still verified on
        // the GPU; the host loop over the kept copy must report the same.
        const Project p = scaleProject(QStringLiteral("scale_wrong"), qint64(1) << 24);
        const RunResult r = run(p, true);
        QCOMPARE(r.outputs.size(), 1);
        const RunResult ref = run(scaleProject(QStringLiteral("scale_ref"), qint64(1) << 24), true);
        QCOMPARE(ref.outputs.size(), 1);
        BufferVerification host =
            compareBuffers(p.arguments[1].buffer.elementType, r.outputs[0].data,
                           ref.outputs[0].data, qint64(1) << 24, 1e-6, 1e-5);
        const BufferVerification& gpu = r.verification.first();
        QCOMPARE(gpu.mismatches, host.mismatches);
        QCOMPARE(gpu.maxAbsError, host.maxAbsError);
        QCOMPARE(gpu.maxRelError, host.maxRelError);
        QCOMPARE(gpu.firstMismatches.size(), host.firstMismatches.size());
        for (int i = 0; i < gpu.firstMismatches.size(); ++i)
            QCOMPARE(gpu.firstMismatches[i].index, host.firstMismatches[i].index);
    }

    void unchangedInputsAreNotUploadedAgain() {
        const qint64 n = qint64(1) << 22;
        Project p = scaleProject(QStringLiteral("scale"), n);
        p.timing.repetitions = 1;
        RunResult first = run(p);
        QVERIFY2(first.status == RunStatus::Ok, qPrintable(first.error));
        const RunResult second = run(p);
        QVERIFY2(second.status == RunStatus::Ok, qPrintable(second.error));
        QCOMPARE(second.timing.uploadsSkipped, 1); // x; out is re-poisoned every run
        QCOMPARE(second.timing.uploadBytesSkipped, n * 4);
        QCOMPARE(second.timing.buffersReused, 2);
        QVERIFY(second.verified());
        p.arguments[0].buffer.init.seed = 2; // new contents: uploaded again
        const RunResult third = run(p);
        QCOMPARE(third.timing.uploadsSkipped, 0);
        QCOMPARE(third.timing.buffersReused, 2);
        QVERIFY(third.verified());
        p.arguments[2].value = QString::number(n / 2); // new size: fresh allocations
        p.launch.grid[0] /= 2;
        const RunResult fourth = run(p);
        QCOMPARE(fourth.timing.buffersReused, 0);
        QVERIFY(fourth.verified());
    }

    void expressionValuesAreKeptAndComparedOnTheGpu() {
        // The edit loop: the kernel changes, the expression and the inputs do not.
        const qint64 n = qint64(1) << 24;
        auto expressionProject = [&](const QString& kernel) {
            Project p = scaleProject(kernel, n);
            p.arguments[1].buffer.verify = VerifySpec();
            p.arguments[1].buffer.verify.kind = VerifySpec::Kind::Expression;
            p.arguments[1].buffer.verify.expression = QStringLiteral("2*x");
            return p;
        };
        const RunResult first = run(expressionProject(QStringLiteral("scale")));
        QVERIFY2(first.status == RunStatus::Ok, qPrintable(first.error));
        const BufferVerification& v1 = first.verification.first();
        QVERIFY2(v1.method.contains(QLatin1String("on the GPU")), qPrintable(v1.method));
        QVERIFY2(!v1.method.contains(QLatin1String("kept")), qPrintable(v1.method));

        const RunResult wrong = run(expressionProject(QStringLiteral("scale_wrong")));
        QCOMPARE(wrong.status, RunStatus::VerificationFailed);
        const BufferVerification& v2 = wrong.verification.first();
        QVERIFY2(v2.method.contains(QLatin1String("kept")), qPrintable(v2.method));
        QCOMPARE(v2.mismatches, (n - 1) / 1000 + 1);
        QCOMPARE(v2.firstMismatches.first().index, qint64(0));

        Project changed = expressionProject(QStringLiteral("scale"));
        changed.arguments[1].buffer.verify.expression = QStringLiteral("x+x");
        const RunResult third = run(changed);
        QVERIFY2(third.status == RunStatus::Ok, qPrintable(third.error));
        QVERIFY2(!third.verification.first().method.contains(QLatin1String("kept")),
                 qPrintable(third.verification.first().method));
        qInfo("expression check of 16M floats: first %.1f ms (evaluated on the host), "
              "with kept values %.1f ms",
              first.timing.verifyMs, wrong.timing.verifyMs);
    }

    void copyCeilingIsMeasuredCachedAndReported() {
        QString error;
        const std::optional<CopyCeiling> c = m_session->deviceCeiling(0, true, &error);
        QVERIFY2(c, qPrintable(error));
        qInfo("copy ceiling: %.0f GB/s (%lld MiB in %.3f ms)", c->gbs, c->bytes >> 20, c->bestMs);
        QVERIFY(c->gbs > 50);
        QCOMPARE(c->copies, kCeilingCopies);
        const std::optional<CopyCeiling> again = m_session->deviceCeiling(0, false, &error);
        QVERIFY(again);
        QCOMPARE(again->gbs, c->gbs); // cached, not measured again
        QCOMPARE(readCachedCeiling(defaultCeilingPath(), ceilingKey(Device(0).info()))->gbs,
                 c->gbs);
        const RunResult r = run(scaleProject(QStringLiteral("scale"), qint64(1) << 24));
        QCOMPARE(r.timing.ceilingGBs, c->gbs);
        QVERIFY(r.timing.ceilingShare() > 0);
        QVERIFY(r.toJson()
                    .value(QStringLiteral("timing"))
                    .toObject()
                    .contains(QStringLiteral("ceilingGBs")));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuFastPath)
} // namespace tst_gpufastpath
#include "tst_gpufastpath.moc"
