// Hand-written PTX on a real GPU: the shipped PTX SAXPY assembles with nvJitLink and verifies
// in process and through the runner, the same PTX through the driver's JIT (a virtual arch)
// verifies too, a C++ project's PTX saved as a PTX project runs like the original, a ptxas
// error stops the run at its line, and kernelpad-cli assembles and runs the example.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/compile/PtxAssembler.h"
#include "core/cuda/Device.h"
#include "core/engine/Engine.h"
#include "core/project/PtxProject.h"
#include "core/run/ExecutionSession.h"
#include "core/runner/RunnerClient.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace tst_gpuptx {

using namespace kernelpad;

namespace {

void checkVerified(const RunResult& r) {
    QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
    QCOMPARE(r.verification.size(), 1);
    const BufferVerification& v = r.verification.first();
    QVERIFY2(v.passed, qPrintable(v.buffer + ": " + v.error));
    QCOMPARE(v.buffer, QStringLiteral("out"));
    QCOMPARE(v.checked, qint64(16777216));
    QCOMPARE(v.unwritten, 0);
    QVERIFY(r.timing.medianMs > 0);
    QVERIFY(r.resources.registers > 0);
}

} // namespace

class TestGpuPtx : public QObject {
    Q_OBJECT

private:
    CompileCache m_cache{8, QString()};
    std::unique_ptr<ExecutionSession> m_session;
    std::atomic_bool m_cancel{false};
    QString m_arch;

    RunResult run(const Project& p) {
        RunRequest r;
        r.project = p;
        r.projectDir = test::examplesDir();
        r.repetitions = 5;
        return m_session->run(r, m_cancel);
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        m_session = std::make_unique<ExecutionSession>(&m_cache);
        const QVector<DeviceInfo> devices = Device::all();
        QVERIFY(!devices.isEmpty());
        m_arch = devices.first().arch();
        qInfo("device 0: %s (%s), nvJitLink %s", qPrintable(devices.first().name),
              qPrintable(m_arch), qPrintable(nvJitLinkVersion()));
    }

    void handWrittenPtxSaxpyVerifies() {
        const Project p = test::loadExample(QStringLiteral("ptx_saxpy.kpad"));
        QCOMPARE(p.language, SourceLanguage::Ptx);
        const RunResult r = run(p);
        checkVerified(r);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(r.compile.language, SourceLanguage::Ptx);
        QVERIFY2(r.compile.compiler.startsWith(QLatin1String("nvJitLink")),
                 qPrintable(r.compile.compiler));
        QCOMPARE(r.compile.arch, m_arch); // assembled for the device's exact arch
        QVERIFY(r.compile.cubin.startsWith("\x7f"
                                           "ELF"));
        qInfo("PTX SAXPY: median %.4f ms, %.1f GB/s, %d registers", r.timing.medianMs,
              r.timing.bandwidthGBs, r.resources.registers);
    }

    void throughTheRunner() {
        QVERIFY2(Engine::defaultIsolation() == Engine::Isolation::Process,
                 "the runner (kernelpad-cli) must be found");
        Engine engine(nullptr, Engine::Isolation::Process);
        const RunResult r =
            test::runAndWait(engine, test::loadExample(QStringLiteral("ptx_saxpy.kpad")));
        checkVerified(r);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(r.compile.language, SourceLanguage::Ptx);
    }

    void virtualArchGoesThroughTheDriverJit() {
        Project p = test::loadExample(QStringLiteral("ptx_saxpy.kpad"));
        QString virtualArch = m_arch;
        virtualArch.replace(QStringLiteral("sm_"), QStringLiteral("compute_"));
        p.options.arch = virtualArch;
        const RunResult r = run(p);
        checkVerified(r);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(r.compile.cubin.isEmpty()); // the driver assembled the PTX itself
    }

    void cppProjectSavedAsPtxRunsTheSame() {
        const Project cpp = test::loadExample(QStringLiteral("saxpy.kpad"));
        const CompileResult compiled = compileProject(cpp, test::examplesDir(), m_arch, &m_cache);
        QVERIFY2(compiled.ok, qPrintable(compiled.log));
        const Project ptx = ptxProjectFrom(cpp, compiled.ptx, compiled.loweredName(cpp.kernel));
        QCOMPARE(ptx.language, SourceLanguage::Ptx);
        QVERIFY(sameArguments(ptx.arguments, cpp.arguments));
        checkVerified(run(ptx));
    }

    void ptxErrorStopsTheRunAtItsLine() {
        Project p = test::loadExample(QStringLiteral("ptx_saxpy.kpad"));
        const qsizetype at = p.source.indexOf(QLatin1String("mul.rn.f32"));
        QVERIFY(at > 0);
        const int line = int(p.source.left(at).count(QLatin1Char('\n'))) + 1;
        p.source.replace(at, 10, QStringLiteral("mull.rn.f32"));
        const RunResult r = run(p);
        QCOMPARE(r.status, RunStatus::CompileError);
        bool marked = false;
        for (const Diagnostic& d : r.compile.diagnostics)
            marked = marked || (d.line == line && d.file == p.sourceName &&
                                d.severity == Diagnostic::Severity::Error);
        QVERIFY2(marked, qPrintable(r.compile.log));
    }

    void cliAssemblesAndRuns() {
        const QString example = test::examplesDir() + QStringLiteral("/ptx_saxpy.kpad");
        QProcess compile;
        compile.start(RunnerClient::findRunner(), {QStringLiteral("compile"), example});
        QVERIFY(compile.waitForFinished(60000));
        const QString text = QString::fromUtf8(compile.readAllStandardOutput());
        QCOMPARE(compile.exitCode(), 0);
        QVERIFY2(text.startsWith(QStringLiteral("Assembled PTX for sm_90 with nvJitLink ")),
                 qPrintable(text));

        QProcess run;
        run.start(RunnerClient::findRunner(),
                  {QStringLiteral("run"), example, QStringLiteral("--json")});
        QVERIFY(run.waitForFinished(120000));
        QCOMPARE(run.exitCode(), 0);
        const QJsonObject json = QJsonDocument::fromJson(run.readAllStandardOutput()).object();
        QCOMPARE(json.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuPtx)
} // namespace tst_gpuptx
#include "tst_gpuptx.moc"
