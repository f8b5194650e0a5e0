// compute-sanitizer on a real GPU through the RunnerClient: an out-of-bounds write is reported
// at its source line with a thread and block; a clean SAXPY reports nothing and verifies; the
// warm runner is left alone.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/SanitizerRun.h"

#include <QSignalSpy>
#include <QTest>

namespace tst_memcheck {

using namespace kernelpad;

namespace {

constexpr const char* kSmallN = "1048576";
constexpr int kSmallGrid = 4096; // 1,048,576 / 256

/// The line of `out[tid + n] = ...` below (1-based): the one memcheck must name.
constexpr int kBadWriteLine = 6;

Project smallSaxpy() {
    Project p = test::loadExample("saxpy.kpad");
    p.arguments[4].value = QString::fromLatin1(kSmallN);
    p.launch.grid = {kSmallGrid, 1, 1};
    return p;
}

/// SAXPY whose last block writes past the end of `out`: tid + 64 for the threads of the
/// last block lands up to 256 bytes beyond the allocation, inside memcheck's padding.
Project outOfBoundsSaxpy() {
    Project p = smallSaxpy();
    p.source = QStringLiteral(
        "extern \"C\" __global__\n"                                                          // 1
        "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"                    // 2
        "{\n"                                                                                // 3
        "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"                          // 4
        "    if (tid < n)\n"                                                                 // 5
        "        out[tid + (blockIdx.x + 1 == gridDim.x ? 64 : 0)] = a * x[tid] + y[tid];\n" // 6
        "}\n");
    return p;
}

RunResult runWith(RunnerClient& client, const Project& p, SanitizerTool tool) {
    QSignalSpy finished(&client, &RunnerClient::runFinished);
    RunRequest r;
    r.project = p;
    r.projectDir = test::examplesDir();
    r.keepOutputs = false;
    r.sanitizer = tool;
    client.run(1, r);
    if (!finished.wait(300000)) {
        RunResult none;
        none.error = QStringLiteral("no answer within 300 s");
        return none;
    }
    return finished.first().at(1).value<RunResult>();
}

} // namespace

class TestMemcheck : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        qRegisterMetaType<kernelpad::RunResult>();
        KERNELPAD_REQUIRE_DRIVER();
        if (findComputeSanitizer().isEmpty()) {
            QStringList searched;
            (void)findComputeSanitizer(&searched);
            QSKIP(qPrintable(sanitizerNotFoundMessage(searched)));
        }
        if (RunnerClient::findRunner().isEmpty())
            QSKIP("kernelpad-cli (the runner) was not found");
    }

    void outOfBoundsWriteIsReportedAtItsLine() {
        RunnerClient client;
        const RunResult r = runWith(client, outOfBoundsSaxpy(), SanitizerTool::Memcheck);
        qInfo("status %s, %lld report(s), %d error(s) in %.0f ms: %s",
              qPrintable(runStatusName(r.status)), qlonglong(r.sanitizer.size()), r.sanitizerErrors,
              r.totalMs, qPrintable(r.error));
        for (const SanitizerReport& s : r.sanitizer)
            qInfo("  %s:%d: %s", qPrintable(s.file), s.line, qPrintable(s.message()));
        QVERIFY2(r.compile.ok, qPrintable(r.error));
        QCOMPARE(r.sanitizerTool, SanitizerTool::Memcheck);
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY(r.sanitizerErrorCount() > 0);
        QVERIFY(!r.sanitizer.isEmpty());
        const SanitizerReport& first = r.sanitizer.first();
        QVERIFY2(first.kind.startsWith(QLatin1String("Invalid __global__ write")),
                 qPrintable(first.kind));
        QCOMPARE(first.file, QStringLiteral("saxpy.cu"));
        QCOMPARE(first.line, kBadWriteLine);
        QCOMPARE(first.kernel, QStringLiteral("saxpy"));
        QVERIFY(first.thread && first.block);
        QCOMPARE((*first.block)[0], kSmallGrid - 1); // only the last block writes out of bounds
        QVERIFY2(first.detail.contains(QLatin1String("out of bounds")), qPrintable(first.detail));
        QVERIFY2(r.error.contains(QStringLiteral("saxpy.cu:%1").arg(kBadWriteLine)),
                 qPrintable(r.error));
        QCOMPARE(client.startCount(), 0); // the warm runner was never involved
    }

    void cleanSaxpyReportsNothingAndVerifies() {
        RunnerClient client;
        client.warmUp();
        const qint64 warmPid = client.runnerPid();
        const RunResult r = runWith(client, smallSaxpy(), SanitizerTool::Memcheck);
        qInfo("status %s, %d error(s), %d timed repetition(s) in %.0f ms: %s",
              qPrintable(runStatusName(r.status)), r.sanitizerErrors, r.timing.reps(), r.totalMs,
              qPrintable(r.sanitizerNote));
        QCOMPARE(r.status, RunStatus::Ok);
        QVERIFY(r.sanitizer.isEmpty());
        QCOMPARE(r.sanitizerErrors, 0);
        QVERIFY(r.verified());
        QVERIFY(!r.verification.isEmpty());
        QCOMPARE(r.timing.reps(), 1);
        QVERIFY(r.compile.flags.contains(QStringLiteral("-lineinfo")));
        QCOMPARE(client.runnerPid(), warmPid); // the warm runner was left alone
        QCOMPARE(client.startCount(), 1);
        // And it still serves a normal run.
        const RunResult normal = runWith(client, smallSaxpy(), SanitizerTool::None);
        QCOMPARE(normal.status, RunStatus::Ok);
        QCOMPARE(normal.sanitizerTool, SanitizerTool::None);
        QCOMPARE(client.startCount(), 1);
    }

    void racecheckAndInitcheckRunClean_data() {
        QTest::addColumn<int>("tool");
        QTest::newRow("racecheck") << int(SanitizerTool::Racecheck);
        QTest::newRow("initcheck") << int(SanitizerTool::Initcheck);
    }
    void racecheckAndInitcheckRunClean() {
        QFETCH(int, tool);
        RunnerClient client;
        const RunResult r = runWith(client, smallSaxpy(), SanitizerTool(tool));
        qInfo("%s: status %s, %d error(s): %s", qPrintable(sanitizerToolName(SanitizerTool(tool))),
              qPrintable(runStatusName(r.status)), r.sanitizerErrors, qPrintable(r.error));
        for (const SanitizerReport& s : r.sanitizer)
            qInfo("  %s:%d: %s", qPrintable(s.file), s.line, qPrintable(s.message()));
        QCOMPARE(r.sanitizerTool, SanitizerTool(tool));
        QVERIFY2(r.sanitizerErrors >= 0, qPrintable(r.sanitizerNote));
        QCOMPARE(r.status, RunStatus::Ok);
        QVERIFY(r.verified());
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestMemcheck)
} // namespace tst_memcheck
#include "tst_memcheck.moc"
