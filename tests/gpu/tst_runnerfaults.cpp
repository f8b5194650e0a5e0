// Faults tried on a real GPU through the runner process: each ends with its own clear message,
// the next good run verifies, and the client process never dies. Ends with a soak of 100 runs
// alternating a faulting kernel and SAXPY.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/engine/Engine.h"
#include "core/run/RunStage.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

namespace tst_runnerfaults {

using namespace kernelpad;

namespace {

constexpr const char* kSmallN = "1048576";
constexpr int kSmallGrid = 4096; // 1,048,576 / 256

Project smallSaxpy() {
    Project p = test::loadExample("saxpy.kpad");
    p.arguments[4].value = QString::fromLatin1(kSmallN);
    p.launch.grid = {kSmallGrid, 1, 1};
    p.timing.repetitions = 5;
    p.timing.warmupLaunches = 1;
    return p;
}

QString saxpyWithBody(const QString& body, const QString& prelude = {}) {
    return prelude +
           QStringLiteral("extern \"C\" __global__\nvoid saxpy(float a, float *x, float *y, float "
                          "*out, size_t n)\n{\n"
                          "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n") +
           body + QStringLiteral("\n}\n");
}

} // namespace

class TestRunnerFaults : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<Engine> m_engine;

    RunResult run(const Project& p) { return test::runAndWait(*m_engine, p); }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        QVERIFY2(Engine::defaultIsolation() == Engine::Isolation::Process,
                 "the runner (kernelpad-cli) must be found");
        m_engine = std::make_unique<Engine>(nullptr, Engine::Isolation::Process);
        const RunResult first = run(smallSaxpy());
        QVERIFY2(first.status == RunStatus::Ok, qPrintable(first.error));
    }

    void faultIsReportedAndTheNextRunVerifies_data() {
        QTest::addColumn<Project>("project");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("mustSay");

        Project p = smallSaxpy();
        p.source =
            saxpyWithBody("    if (tid < n) out[tid + (size_t(1) << 40)] = a * x[tid] + y[tid];");
        QTest::newRow("out-of-bounds global write")
            << p << int(RunStatus::CudaError) << "CUDA_ERROR_ILLEGAL_ADDRESS";

        p = smallSaxpy();
        p.source =
            saxpyWithBody("    if (tid < n) out[tid] = a * x[tid + (size_t(1) << 40)] + y[tid];");
        QTest::newRow("out-of-bounds read")
            << p << int(RunStatus::CudaError) << "CUDA_ERROR_ILLEGAL_ADDRESS";

        p = smallSaxpy();
        p.source = saxpyWithBody(
            "    if (tid == 12345) __trap();\n    if (tid < n) out[tid] = a * x[tid] + y[tid];");
        QTest::newRow("__trap()") << p << int(RunStatus::CudaError) << "saxpy";

        p = smallSaxpy();
        p.source =
            saxpyWithBody("    assert(a < 0.0f);\n    if (tid < n) out[tid] = a * x[tid] + y[tid];",
                          "#include <cuda/std/cassert>\n");
        QTest::newRow("failed device assert")
            << p << int(RunStatus::CudaError) << "CUDA_ERROR_ASSERT";

        p = smallSaxpy();
        p.source =
            saxpyWithBody("    if (tid < n) *reinterpret_cast<float*>(reinterpret_cast<char*>(out "
                          "+ tid) + 1) = a;");
        QTest::newRow("misaligned access")
            << p << int(RunStatus::CudaError) << "CUDA_ERROR_MISALIGNED_ADDRESS";

        p = smallSaxpy();
        // x holds values in [-1, 1): a volatile global read the compiler cannot remove.
        p.source = saxpyWithBody("    while (*reinterpret_cast<volatile float*>(x) < 1e30f) { }\n  "
                                 "  if (tid < n) out[tid] = a;");
        p.timing.timeLimitMs = 1500;
        QTest::newRow("infinite loop") << p << int(RunStatus::Timeout) << "time limit";

        p = smallSaxpy();
        p.source = saxpyWithBody("    if (tid < n) out[tid] = a * x[tid] + y[tid];");
        p.source.replace("extern \"C\" __global__\n",
                         "extern \"C\" __global__ __launch_bounds__(256)\n");
        p.launch.block = {1024, 1, 1};
        p.launch.grid = {1024, 1, 1};
        QTest::newRow("block larger than the kernel's limit")
            << p << int(RunStatus::BadInput) << "256";

        p = smallSaxpy();
        p.launch.sharedMemBytes = 300 * 1024;
        QTest::newRow("too much shared memory") << p << int(RunStatus::BadInput) << "shared";

        p = smallSaxpy();
        p.arguments[4].value = QStringLiteral("274877906944"); // 2^38 floats: 1 TiB a buffer
        QTest::newRow("1 TiB allocation") << p << int(RunStatus::BadInput) << "GiB";

        p = smallSaxpy();
        p.launch.grid = {16, 70000, 1};
        QTest::newRow("grid beyond the device's limits")
            << p << int(RunStatus::BadInput) << "65535";
    }
    void faultIsReportedAndTheNextRunVerifies() {
        QFETCH(Project, project);
        QFETCH(int, status);
        QFETCH(QString, mustSay);
        QElapsedTimer t;
        t.start();
        const RunResult bad = run(project);
        const qint64 faultMs = t.elapsed();
        qInfo("%s -> %s in %lld ms: %s", QTest::currentDataTag(),
              qPrintable(runStatusName(bad.status)), faultMs, qPrintable(bad.error));
        QCOMPARE(int(bad.status), status);
        QVERIFY2(bad.error.contains(mustSay), qPrintable(bad.error));
        t.restart();
        const RunResult good = run(smallSaxpy());
        qInfo("  next SAXPY: %s in %lld ms", qPrintable(runStatusName(good.status)), t.elapsed());
        QVERIFY2(good.status == RunStatus::Ok, qPrintable(good.error));
        QVERIFY(good.verified());
    }

    void hungKernelIsReportedAtItsLimit() {
        // The message waited for the killed runner's teardown (7.3 s for a 2 s limit).
        Project p = smallSaxpy();
        p.source = saxpyWithBody("    while (*reinterpret_cast<volatile float*>(x) < 1e30f) { }\n  "
                                 "  if (tid < n) out[tid] = a;");
        constexpr int kLimitMs = 2000;
        constexpr int kAllowedLateMs = 500;
        p.timing.timeLimitMs = kLimitMs;
        QElapsedTimer sinceLaunch;
        const QMetaObject::Connection c =
            connect(m_engine.get(), &Engine::runProgress, this,
                    [&](quint64, const QString& stage, int, int) {
                        if (stage == toString(RunStage::VerifyingLaunch))
                            sinceLaunch.start();
                    });
        const RunResult hung = run(p);
        disconnect(c);
        QVERIFY(sinceLaunch.isValid());
        const qint64 reportedMs = sinceLaunch.elapsed();
        qInfo("hung kernel with a %d ms limit reported %lld ms after its launch: %s", kLimitMs,
              reportedMs, qPrintable(hung.error));
        QCOMPARE(hung.status, RunStatus::Timeout);
        QVERIFY2(hung.error.contains("being freed"), qPrintable(hung.error));
        QVERIFY2(reportedMs <= kLimitMs + kAllowedLateMs, qPrintable(QString::number(reportedMs)));
        QElapsedTimer next;
        next.start();
        const RunResult good = run(smallSaxpy());
        qInfo("  next SAXPY: %s in %lld ms", qPrintable(runStatusName(good.status)),
              next.elapsed());
        QVERIFY2(good.status == RunStatus::Ok && good.verified(), qPrintable(good.error));
    }

    void soakAlternatingFaultAndSaxpy() {
        Project fault = smallSaxpy();
        fault.source =
            saxpyWithBody("    if (tid < n) out[tid + (size_t(1) << 40)] = a * x[tid] + y[tid];");
        const Project good = smallSaxpy();
        QElapsedTimer t;
        t.start();
        int verified = 0;
        for (int i = 0; i < 50; ++i) {
            const RunResult bad = run(fault);
            QCOMPARE(bad.status, RunStatus::CudaError);
            const RunResult ok = run(good);
            QVERIFY2(ok.status == RunStatus::Ok && ok.verified(), qPrintable(ok.error));
            ++verified;
        }
        qInfo("soak: 100 runs (50 faults, %d verified SAXPY) in %lld ms, %.0f ms per "
              "fault+recovery pair",
              verified, t.elapsed(), t.elapsed() / 50.0);
        QCOMPARE(verified, 50);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestRunnerFaults)
} // namespace tst_runnerfaults
#include "tst_runnerfaults.moc"
