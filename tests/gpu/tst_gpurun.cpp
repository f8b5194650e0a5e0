// Real launches on a GPU: every example verifies, bad configurations are refused before
// the launch, and a wrong kernel is caught by verification with the right counts.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/cuda/Device.h"
#include "core/engine/Engine.h"
#include "core/run/ExecutionSession.h"

#include <QSignalSpy>
#include <QTest>

namespace tst_gpurun {

using namespace kernelpad;

class TestGpuRun : public QObject {
    Q_OBJECT

private:
    CompileCache m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};

    RunResult run(const Project& p, std::optional<int> reps = std::nullopt) {
        RunRequest r;
        r.project = p;
        r.projectDir = test::examplesDir();
        r.repetitions = reps;
        return m_session->run(r, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        m_session = std::make_unique<ExecutionSession>(&m_cache);
    }

    void devicesHaveSaneLimits() {
        const QVector<DeviceInfo> devices = Device::all();
        QVERIFY(!devices.isEmpty());
        const DeviceInfo& d = devices.first();
        qInfo("device 0: %s, %s, %d SMs, %lld MiB, peak %.0f GB/s", qPrintable(d.name),
              qPrintable(d.arch()), d.smCount, d.totalMemBytes >> 20, d.peakBandwidthGBs());
        QVERIFY(d.ccMajor >= 5);
        QVERIFY(d.smCount > 0);
        QCOMPARE(d.warpSize, 32);
        QVERIFY(d.maxThreadsPerBlock >= 1024);
        QVERIFY(d.totalMemBytes > (qint64(1) << 30));
    }

    void examplesVerify_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("verifiedBuffers");
        QTest::newRow("saxpy") << "saxpy.kpad" << 1;
        QTest::newRow("vector_add<float> by name expression") << "vector_add.kpad" << 1;
        QTest::newRow("testStruct: int, float and struct outputs") << "test_struct.kpad" << 3;
        QTest::newRow("shared-memory reduction vs reference") << "reduction.kpad" << 1;
    }
    void examplesVerify() {
        QFETCH(QString, file);
        QFETCH(int, verifiedBuffers);
        const RunResult r = run(test::loadExample(file));
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), verifiedBuffers);
        for (const BufferVerification& v : r.verification) {
            QVERIFY2(v.passed, qPrintable(v.buffer + ": " + v.error));
            QCOMPARE(v.unwritten, 0);
            QVERIFY(v.checked > 0);
        }
        QCOMPARE(r.timing.reps(), r.timing.timesMs.size());
        QVERIFY(r.timing.medianMs > 0);
        QVERIFY(r.timing.minMs <= r.timing.medianMs && r.timing.medianMs <= r.timing.maxMs);
        QVERIFY(r.resources.registers > 0);
        qInfo("%s: median %.4f ms, %.1f GB/s, %d regs, occupancy %.0f%%", qPrintable(file),
              r.timing.medianMs, r.timing.bandwidthGBs, r.resources.registers,
              r.resources.occupancy * 100);
    }

    void saxpyMovesThreeBuffers() {
        const RunResult r = run(test::loadExample("saxpy.kpad"), 5);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.timing.bytesMoved, qint64(3) * 16777216 * 4);
        QCOMPARE(r.timing.reps(), 5);
    }

    void wrongArgumentCountIsCaughtBeforeLaunch() {
        Project p = test::loadExample("saxpy.kpad");
        p.arguments.removeLast(); // drop n
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.contains("5") && r.error.contains("4"), qPrintable(r.error));
        QCOMPARE(r.timing.reps(), 0);
    }

    void wrongArgumentSizeNamesTheArgument() {
        Project p = test::loadExample("saxpy.kpad");
        p.arguments[4].type = ValueType::of(ScalarType::UInt32); // size_t n passed as 4 bytes
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.contains("'n'"), qPrintable(r.error));
    }

    void blockOf2048ThreadsIsRefused() {
        Project p = test::loadExample("saxpy.kpad");
        p.launch.block = {2048, 1, 1};
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.contains("1024"), qPrintable(r.error));
        QCOMPARE(r.timing.reps(), 0);
    }

    void hugeBufferIsRefusedWithAMessage() {
        Project p = test::loadExample("saxpy.kpad");
        p.arguments[4].value = QStringLiteral("26843545600"); // 100 GiB per buffer
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.contains("GiB"), qPrintable(r.error));
    }

    void wrongKernelFailsVerificationWithTheRightCounts() {
        // Writes only the first half, and writes x instead of a*x+y at every 1000th index.
        Project p = test::loadExample("saxpy.kpad");
        p.source = QStringLiteral(R"(extern "C" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n / 2)
        out[tid] = tid % 1000 == 0 ? x[tid] + 1000.0f : a * x[tid] + y[tid];
})");
        const qint64 n = 16777216;
        const RunResult r = run(p, 3);
        QCOMPARE(r.status, RunStatus::VerificationFailed);
        QCOMPARE(r.verification.size(), 1);
        const BufferVerification& v = r.verification.first();
        QVERIFY(!v.passed);
        const qint64 wrongWritten = (n / 2 + 999) / 1000;
        QCOMPARE(v.unwritten, n / 2);
        QCOMPARE(v.mismatches, n / 2 + wrongWritten);
        QVERIFY(!v.firstMismatches.isEmpty());
        QCOMPARE(v.firstMismatches.first().index, 0);
    }

    void engineRunsOnItsWorkerThread() {
        Engine engine;
        QSignalSpy finished(&engine, &Engine::runFinished);
        QSignalSpy progress(&engine, &Engine::runProgress);
        RunRequest r;
        r.project = test::loadExample("vector_add.kpad");
        r.projectDir = test::examplesDir();
        const quint64 id = engine.run(r);
        QVERIFY(engine.isRunning());
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.first().at(0).toULongLong(), id);
        const RunResult result = finished.first().at(1).value<RunResult>();
        QVERIFY2(result.status == RunStatus::Ok, qPrintable(result.error));
        QVERIFY(progress.count() > 0);
        QVERIFY(!engine.isRunning());
    }

    void coldModeIsSlowerForAnL2ResidentKernel() {
        // vector_add over 3 x 4 MiB fits in the 50 MiB L2 of an H100: hot launches find the
        // data in L2, cold launches read it from DRAM after the flush.
        Project p = test::loadExample("vector_add.kpad");
        const RunResult hot = run(p, 200);
        p.timing.mode = TimingSpec::Mode::Cold;
        const RunResult cold = run(p, 200);
        QVERIFY2(hot.status == RunStatus::Ok && cold.status == RunStatus::Ok,
                 qPrintable(hot.error + cold.error));
        QCOMPARE(hot.timing.mode, QStringLiteral("hot"));
        QCOMPARE(cold.timing.mode, QStringLiteral("cold"));
        qInfo("vector_add 1M floats: hot median %.2f us, cold median %.2f us",
              hot.timing.medianMs * 1e3, cold.timing.medianMs * 1e3);
        QVERIFY(cold.timing.medianMs > hot.timing.medianMs);
    }

    void stoppingRuleFinishesInAboutASecond_data() {
        QTest::addColumn<QString>("cyclesToSpin");
        QTest::newRow("5 us kernel") << "5000";
        QTest::newRow("200 ms kernel") << "396000000"; // 200 ms at 1.98 GHz
    }
    void stoppingRuleFinishesInAboutASecond() {
        QFETCH(QString, cyclesToSpin);
        Project p;
        p.name = QStringLiteral("spin");
        p.source = QStringLiteral(R"(extern "C" __global__ void spin(long long cycles, int* out)
{
    const long long start = clock64();
    while (clock64() - start < cycles) { }
    if (threadIdx.x == 0) out[0] = 1;
})");
        p.kernel = QStringLiteral("spin");
        ArgumentSpec cycles;
        cycles.name = QStringLiteral("cycles");
        cycles.type = ValueType::of(ScalarType::Int64);
        cycles.value = cyclesToSpin;
        ArgumentSpec out;
        out.name = QStringLiteral("out");
        out.kind = ArgumentSpec::Kind::Buffer;
        out.buffer.elementType = ValueType::of(ScalarType::Int32);
        out.buffer.direction = Direction::Out;
        p.arguments = {cycles, out};
        p.timing.warmupLaunches = 1;
        p.timing.repetitions = 5;
        const RunResult r = run(p);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        qInfo("%s: %d samples, median %.4f ms, noise %.2f %%, stopped by %s, whole run %.0f ms, SM "
              "clock %d of %d MHz, "
              "%d throttled",
              QTest::currentDataTag(), r.timing.reps(), r.timing.medianMs, r.timing.relNoise * 100,
              qPrintable(r.timing.stopReason), r.totalMs, r.timing.smClockMHz,
              r.timing.smClockDefaultMHz, r.timing.throttledSamples);
        QVERIFY(r.timing.reps() >= 5);
        // The rule (time budget, noise target or sample cap) ended it, not the fixed count.
        QVERIFY2(r.timing.stopReason != QLatin1String("fixed count") &&
                     !r.timing.stopReason.isEmpty(),
                 qPrintable(r.timing.stopReason));
        // About a second of the GPU's own time in samples (events on the GPU, which a loaded
        // host does not stretch); the run's wall time is measured in bench/.
        double sampledMs = 0;
        for (double ms : r.timing.timesMs)
            sampledMs += ms;
        QVERIFY2(sampledMs < 2500, qPrintable(QString::number(sampledMs)));
    }

    void secondRunHitsTheCompileCache() {
        const Project p = test::loadExample("vector_add.kpad");
        (void)run(p, 2);
        const RunResult r = run(p, 2);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QVERIFY(r.compile.cacheHit);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuRun)
} // namespace tst_gpurun
#include "tst_gpurun.moc"
