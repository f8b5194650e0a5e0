// A faulting kernel ends in a clear message, and the session refuses further GPU work
// instead of calling into a poisoned context (GPU.md, "A sticky fault poisons the process").

#include "GpuTestSupport.h"

#include "core/run/ExecutionSession.h"

#include <QTest>

using namespace kernelpad;

class TestGpuFaults : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { KERNELPAD_REQUIRE_DRIVER(); }

    void outOfBoundsWriteIsReportedAndPoisonsTheSession() {
        CompileCache cache;
        ExecutionSession session(&cache);
        std::atomic_bool cancel{false};
        RunRequest r;
        r.project = test::loadExample("saxpy.kpad");
        r.projectDir = test::examplesDir();
        r.project.source.replace(QStringLiteral("out[tid] ="),
                                 QStringLiteral("out[tid + (size_t(1) << 40)] ="));
        const RunResult bad = session.run(r, cancel);
        QCOMPARE(bad.status, RunStatus::CudaError);
        QVERIFY2(bad.error.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), qPrintable(bad.error));
        QVERIFY2(bad.error.contains("saxpy"), qPrintable(bad.error));
        QVERIFY(session.isPoisoned());

        RunRequest good;
        good.project = test::loadExample("saxpy.kpad");
        good.projectDir = r.projectDir;
        const RunResult after = session.run(good, cancel);
        QCOMPARE(after.status, RunStatus::CudaError);
        QVERIFY2(after.error.contains("restarted"), qPrintable(after.error));
    }
};

QTEST_GUILESS_MAIN(TestGpuFaults)
#include "tst_gpufaults.moc"
