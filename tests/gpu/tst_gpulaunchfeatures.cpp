// Launch features on a GPU: a virtual arch through the driver's JIT, module globals written and
// verified, thread block clusters and cooperative launches, and each bad input's message.
// In process (ExecutionSession) and once through the runner (Engine), so that the new project
// and result fields are seen to travel through the protocol.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/cuda/Device.h"
#include "core/engine/Engine.h"
#include "core/run/ExecutionSession.h"

#include <QTest>

namespace tst_gpulaunchfeatures {

using namespace kernelpad;

class TestGpuLaunchFeatures : public QObject {
    Q_OBJECT

private:
    CompileCache m_cache;
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};
    DeviceInfo m_device;

    RunResult run(const Project& p, std::optional<int> reps = 5) {
        RunRequest r;
        r.project = p;
        r.projectDir = test::examplesDir();
        r.repetitions = reps;
        return m_session->run(r, m_cancel);
    }

    static void requireAllPassed(const RunResult& r, int expectedChecks) {
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), expectedChecks);
        for (const BufferVerification& v : r.verification) {
            QVERIFY2(v.passed, qPrintable(v.buffer + ": " + v.error));
            QCOMPARE(v.unwritten, 0);
            QCOMPARE(v.mismatches, 0);
            QVERIFY(v.checked > 0);
        }
        QVERIFY(r.timing.medianMs > 0);
    }

    [[nodiscard]] bool hasClusters() const { return m_device.ccMajor >= 9; }

private slots:
    void initTestCase() {
        // The driver's JIT cache would make a second run's JIT nearly free; the JIT time
        // asserted below must be the real compile's.
        qputenv("CUDA_CACHE_DISABLE", "1");
        KERNELPAD_REQUIRE_DRIVER();
        m_session = std::make_unique<ExecutionSession>(&m_cache);
        const QVector<DeviceInfo> devices = Device::all();
        QVERIFY(!devices.isEmpty());
        m_device = devices.first();
    }

    // Point 6: compute_XX for the device's own major/minor; PTX only, loaded by the JIT.
    void saxpyThroughTheJit() {
        Project p = test::loadExample("saxpy.kpad");
        p.options.arch = QStringLiteral("compute_%1%2").arg(m_device.ccMajor).arg(m_device.ccMinor);
        const RunResult r = run(p);
        requireAllPassed(r, 1);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(r.compile.arch, *p.options.arch);
        QVERIFY(r.compile.cubin.isEmpty());
        QVERIFY(r.jit.used);
        QVERIFY(!r.jit.reused);
        QVERIFY(!r.jit.failed());
        QCOMPARE(r.jit.target, m_device.arch());
        QVERIFY2(r.jit.jitMs > 0, qPrintable(QString::number(r.jit.jitMs)));
        QVERIFY(r.jit.loadMs >= r.jit.jitMs * 0.5);
        qInfo("JIT %.3f ms (load %.3f ms); info log: %s", r.jit.jitMs, r.jit.loadMs,
              qPrintable(r.jit.infoLog));
        // The same PTX again: the module is kept, and the result says so.
        const RunResult again = run(p);
        requireAllPassed(again, 1);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(again.jit.reused);
        // A CUBIN run reports no JIT.
        const RunResult cubin = run(test::loadExample("saxpy.kpad"));
        requireAllPassed(cubin, 1);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(!cubin.jit.used);
    }

    void jitFailureCarriesTheLog() {
        // PTX for a newer virtual arch than the device: the JIT refuses it with its log.
        Project p = test::loadExample("saxpy.kpad");
        p.options.arch = QStringLiteral("compute_%1%2").arg(m_device.ccMajor + 1).arg(0);
        const RunResult r = run(p);
        if (!r.compile.ok)
            QSKIP(qPrintable("NVRTC does not know " + *p.options.arch));
        QCOMPARE(r.status, RunStatus::CompileError);
        QVERIFY2(r.error.contains(QLatin1String("driver's JIT")), qPrintable(r.error));
        QVERIFY(r.jit.failed());
        QVERIFY2(r.error.contains(r.jit.failure), qPrintable(r.error));
    }

    // Point 2: the filter and gain in __constant__ memory, a __device__ counter read back.
    void convolutionWithConstantFilter() {
        const RunResult r = run(test::loadExample("convolution.kpad"));
        requireAllPassed(r, 2); // out (reference kernel) and blocksDone (expression)
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(r.verification[1].buffer, QStringLiteral("blocksDone"));
        QVERIFY(r.compile.findGlobal(QStringLiteral("filter")));
        QCOMPARE(r.compile.findGlobal(QStringLiteral("filter"))->sizeBytes, 36);
        QCOMPARE(r.compile.findGlobal(QStringLiteral("gain"))->space, QStringLiteral("const"));
        bool sawCounter = false;
        for (const OutputBuffer& o : r.outputs)
            if (o.name == QLatin1String("blocksDone")) {
                sawCounter = true;
                QCOMPARE(o.data.size(), 4);
                quint32 blocks = 0;
                memcpy(&blocks, o.data.constData(), 4);
                QCOMPARE(blocks, 4096u);
            }
        QVERIFY(sawCounter);
    }

    void convolutionCatchesAWrongFilter() {
        // The gain doubled behind the reference's back is impossible (both read it), so the
        // counter is checked against a wrong expectation instead: the global's check fails.
        Project p = test::loadExample("convolution.kpad");
        p.globals[2].value.verify.expression = QStringLiteral("n/128");
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::VerificationFailed);
        QVERIFY2(r.error.contains(QLatin1String("blocksDone")), qPrintable(r.error));
    }

    void globalsBadInput_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("count");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown global") << "filtr"
                                        << "9"
                                        << "globals[0] 'filtr': the module has no __constant__ or "
                                           "__device__ variable of that name; it has: filter";
        QTest::newRow("size mismatch") << "filter"
                                       << "8"
                                       << "globals[0] 'filter': the project gives 8 × float32 = "
                                          "32 bytes, but the module's __constant__ float[";
    }
    void globalsBadInput() {
        QFETCH(QString, name);
        QFETCH(QString, count);
        QFETCH(QString, message);
        Project p = test::loadExample("convolution.kpad");
        p.globals[0].name = name;
        p.globals[0].value.count = count;
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.startsWith(message), qPrintable(r.error));
    }

    // Point 4: a histogram in distributed shared memory, clusters of 4 blocks.
    void clusterHistogram() {
        if (!hasClusters())
            QSKIP("thread block clusters need compute capability 9.0");
        const Project p = test::loadExample("cluster_histogram.kpad");
        QCOMPARE(p.launch.cluster, (std::array<int, 3>{4, 1, 1}));
        const RunResult r = run(p);
        requireAllPassed(r, 1);
        if (QTest::currentTestFailed())
            return;
        // Every input landed in exactly one bin.
        for (const OutputBuffer& o : r.outputs)
            if (o.name == QLatin1String("bins")) {
                qint64 sum = 0;
                for (qint64 k = 0; k < o.count; ++k)
                    sum += reinterpret_cast<const qint32*>(o.data.constData())[k];
                // Each verified launch adds n; the output is copied after the first.
                QCOMPARE(sum, qint64(4194304));
            }
    }

    void clusterDeclaredInSource() {
        if (!hasClusters())
            QSKIP("thread block clusters need compute capability 9.0");
        // __cluster_dims__ instead of launch.cluster: the kernel's own clusters are used.
        Project p = test::loadExample("cluster_histogram.kpad");
        p.source.replace(QStringLiteral("__global__ void clusterHist"),
                         QStringLiteral("__global__ void __cluster_dims__(4, 1, 1) clusterHist"));
        p.launch.cluster = {0, 0, 0};
        requireAllPassed(run(p), 1);
        if (QTest::currentTestFailed())
            return;
        // A different launch.cluster is refused, naming both.
        p.launch.cluster = {2, 1, 1};
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.contains(QLatin1String("__cluster_dims__(4, 1, 1)")), qPrintable(r.error));
        // An odd grid against the declared cluster.
        p.launch.cluster = {0, 0, 0};
        p.launch.grid = {10, 1, 1};
        const RunResult odd = run(p);
        QCOMPARE(odd.status, RunStatus::BadInput);
        QCOMPARE(odd.error, QStringLiteral("grid.x 10 is not a multiple of cluster.x 4"));
    }

    void clusterBadInput_data() {
        QTest::addColumn<int>("gridX");
        QTest::addColumn<int>("clusterX");
        QTest::addColumn<QString>("message");
        QTest::newRow("grid not a multiple of the cluster")
            << 10 << 4 << "grid.x 10 is not a multiple of cluster.x 4";
        QTest::newRow("cluster larger than the device allows")
            << 256 << 64
            << "cluster 64 x 1 x 1 has 64 blocks, more than the device's maximum for the kernel "
               "'clusterHist' of ";
    }
    void clusterBadInput() {
        if (!hasClusters())
            QSKIP("thread block clusters need compute capability 9.0");
        QFETCH(int, gridX);
        QFETCH(int, clusterX);
        QFETCH(QString, message);
        Project p = test::loadExample("cluster_histogram.kpad");
        p.launch.grid = {gridX, 1, 1};
        p.launch.cluster = {clusterX, 1, 1};
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.startsWith(message), qPrintable(r.error));
    }

    void cooperativeGridSync() {
        const Project p = test::loadExample("cooperative_sum.kpad");
        QVERIFY(p.launch.cooperative);
        requireAllPassed(run(p), 1);
    }

    void cooperativeGridTooLarge() {
        Project p = test::loadExample("cooperative_sum.kpad");
        p.launch.grid = {100000, 1, 1};
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::BadInput);
        // "grid of 100000 blocks cannot be co-resident: at most 1056 (8 per SM × 132 SMs)"
        const QString prefix =
            QStringLiteral("grid of 100000 blocks cannot be co-resident: at most ");
        QVERIFY2(r.error.startsWith(prefix), qPrintable(r.error));
        QVERIFY2(r.error.contains(QStringLiteral(" per SM × %1 SMs)").arg(m_device.smCount)),
                 qPrintable(r.error));
    }

    // The same features through the runner process: project and result fields travel.
    void throughTheRunner() {
        Engine engine;
        Project conv = test::loadExample("convolution.kpad");
        conv.options.arch =
            QStringLiteral("compute_%1%2").arg(m_device.ccMajor).arg(m_device.ccMinor);
        const RunResult r = test::runAndWait(engine, conv);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.verification.size(), 2);
        QVERIFY(r.jit.used);
        QVERIFY(r.jit.jitMs > 0);
        QVERIFY(!r.compile.globals.isEmpty());
        const RunResult coop = test::runAndWait(engine, test::loadExample("cooperative_sum.kpad"));
        QVERIFY2(coop.status == RunStatus::Ok, qPrintable(coop.error));
        QVERIFY(coop.launch.cooperative);
        if (hasClusters()) {
            const RunResult hist =
                test::runAndWait(engine, test::loadExample("cluster_histogram.kpad"));
            QVERIFY2(hist.status == RunStatus::Ok, qPrintable(hist.error));
            QCOMPARE(hist.launch.cluster, (std::array<int, 3>{4, 1, 1}));
        }
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuLaunchFeatures)
} // namespace tst_gpulaunchfeatures
#include "tst_gpulaunchfeatures.moc"
