// A faulting kernel ends in a clear message, and the session refuses further GPU work
// instead of calling into a poisoned context (a sticky fault poisons the process:
// docs/ARCHITECTURE.md, "Threading"). The message explains the fault whichever code the address
// produced, and one run under memcheck names its line, thread and block: through the RunnerClient
// as the window does it, and through `kernelpad-cli run --memcheck-on-fault`.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/run/ErrorText.h"
#include "core/run/ExecutionSession.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/SanitizerRun.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace tst_gpufaults {

using namespace kernelpad;

namespace {

constexpr const char* kSmallN = "1048576";
constexpr int kSmallGrid = 4096; // 1,048,576 / 256
/// The line of the wild write in wildWriteSaxpy() (1-based): the one memcheck must name.
constexpr int kWildWriteLine = 6;
constexpr int kSanitizedRunTimeoutMs = 300000;

/// SAXPY whose last block writes 4 TiB past `out`, into no allocation: a wild write. Only
/// that block faults, so memcheck must name it.
Project wildWriteSaxpy() {
    Project p = test::loadExample("saxpy.kpad");
    p.arguments[4].value = QString::fromLatin1(kSmallN);
    p.launch.grid = {kSmallGrid, 1, 1};
    p.source = QStringLiteral(
        "extern \"C\" __global__\n"                                                // 1
        "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"          // 2
        "{\n"                                                                      // 3
        "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"                // 4
        "    size_t wild = blockIdx.x + 1 == gridDim.x ? (size_t(1) << 40) : 0;\n" // 5
        "    if (tid < n) out[tid + wild] = a * x[tid] + y[tid];\n"                // 6
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
    if (!finished.wait(kSanitizedRunTimeoutMs)) {
        RunResult none;
        none.error = QStringLiteral("no answer within 300 s");
        return none;
    }
    return finished.first().at(1).value<RunResult>();
}

/// The explanation of the result's code must be in its message, whichever code it was.
void verifyExplained(const RunResult& r) {
    QCOMPARE(r.status, RunStatus::CudaError);
    const std::optional<FaultExplanation> e = explainFault(CUresult(r.faultCode));
    QVERIFY2(e, qPrintable(QStringLiteral("faultCode %1: %2").arg(r.faultCode).arg(r.error)));
    QVERIFY2(e->memcheckLocates, qPrintable(e->name));
    QVERIFY2(r.error.contains(e->name), qPrintable(r.error));
    QVERIFY2(r.error.contains(e->headline), qPrintable(r.error));
    QVERIFY2(r.error.contains(e->causes), qPrintable(r.error));
    QVERIFY2(r.error.contains(QLatin1String("saxpy")), qPrintable(r.error));
}

bool haveSanitizer(QString* why) {
    if (!findComputeSanitizer().isEmpty())
        return true;
    QStringList searched;
    (void)findComputeSanitizer(&searched);
    *why = sanitizerNotFoundMessage(searched);
    return false;
}

} // namespace

class TestGpuFaults : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        qRegisterMetaType<kernelpad::RunResult>();
        KERNELPAD_REQUIRE_DRIVER();
    }

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
        qInfo("%s", qPrintable(bad.error));
        // The H100 has answered this kernel with ILLEGAL_ADDRESS and INVALID_ADDRESS_SPACE:
        // either way the message explains a bad memory access.
        verifyExplained(bad);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(bad.error.contains(QLatin1String("made a bad memory access")),
                 qPrintable(bad.error));
        QVERIFY(memcheckCanLocateFault(bad));
        QVERIFY(session.isPoisoned());

        RunRequest good;
        good.project = test::loadExample("saxpy.kpad");
        good.projectDir = r.projectDir;
        const RunResult after = session.run(good, cancel);
        QCOMPARE(after.status, RunStatus::CudaError);
        QVERIFY2(after.error.contains("restarted"), qPrintable(after.error));
    }

    // What the window does with "after a memory fault, re-run under memcheck automatically":
    // the faulted result says memcheck can place it, and the one memcheck run names the line,
    // thread and block.
    void memcheckRerunNamesLineThreadAndBlock() {
        QString why;
        if (!haveSanitizer(&why))
            QSKIP(qPrintable(why));
        if (RunnerClient::findRunner().isEmpty())
            QSKIP("kernelpad-cli (the runner) was not found");
        RunnerClient client;
        const RunResult fault = runWith(client, wildWriteSaxpy(), SanitizerTool::None);
        qInfo("fault: %s", qPrintable(fault.error));
        verifyExplained(fault);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(memcheckCanLocateFault(fault));

        const RunResult memcheck = runWith(client, wildWriteSaxpy(), SanitizerTool::Memcheck);
        const QString finding = memcheckFinding(memcheck);
        qInfo("memcheck: %s", qPrintable(finding));
        QCOMPARE(memcheck.sanitizerTool, SanitizerTool::Memcheck);
        QVERIFY2(!memcheck.sanitizer.isEmpty(), qPrintable(memcheck.error));
        const SanitizerReport& first = memcheck.sanitizer.first();
        QCOMPARE(first.file, QStringLiteral("saxpy.cu"));
        QCOMPARE(first.line, kWildWriteLine);
        QVERIFY(first.thread && first.block);
        QCOMPARE((*first.block)[0], kSmallGrid - 1);
        QVERIFY2(finding.startsWith(QLatin1String("memcheck found it: Invalid __global__ write")),
                 qPrintable(finding));
        QVERIFY2(finding.endsWith(QStringLiteral(", block (%1,0,0).").arg(kSmallGrid - 1)),
                 qPrintable(finding));
        QVERIFY2(finding.contains(QStringLiteral("at saxpy.cu:%1, thread (").arg(kWildWriteLine)),
                 qPrintable(finding));
    }

    // kernelpad-cli run --memcheck-on-fault: the explanation, then the sanitizer's lines and
    // the finding, last.
    void cliMemcheckOnFault() {
        QString why;
        if (!haveSanitizer(&why))
            QSKIP(qPrintable(why));
        const QString cli = RunnerClient::findRunner();
        if (cli.isEmpty())
            QSKIP("kernelpad-cli was not found");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath(QStringLiteral("wild.kpad"));
        QString error;
        QVERIFY2(wildWriteSaxpy().save(file, &error), qPrintable(error));
        QProcess p;
        p.start(cli, {QStringLiteral("run"), file, QStringLiteral("--memcheck-on-fault")});
        QVERIFY(p.waitForFinished(kSanitizedRunTimeoutMs));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        qInfo("%s", qPrintable(out));
        qInfo("stderr: %s", p.readAllStandardError().constData());
        QCOMPARE(p.exitCode(), 3); // a CUDA error
        QVERIFY2(out.contains(QLatin1String("made a bad memory access")), qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("compute-sanitizer memcheck: ")), qPrintable(out));
        QVERIFY2(
            out.contains(
                QStringLiteral("saxpy.cu:%1: error: Invalid __global__ write").arg(kWildWriteLine)),
            qPrintable(out));
        const QString last = out.trimmed().section(QLatin1Char('\n'), -1);
        QVERIFY2(last.startsWith(QLatin1String("memcheck found it: ")), qPrintable(last));
        QVERIFY2(last.endsWith(QStringLiteral(", block (%1,0,0).").arg(kSmallGrid - 1)),
                 qPrintable(last));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuFaults)
} // namespace tst_gpufaults
#include "tst_gpufaults.moc"
