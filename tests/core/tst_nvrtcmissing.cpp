// A computer without the CUDA toolkit, played by pointing
// $KERNELPAD_NVRTC_LIBRARY and $KERNELPAD_NVJITLINK_LIBRARY at files that do not exist: the
// load fails with what was tried and what to do, every compile says so instead of crashing, and
// kernelpad-cli compiles and runs in a runner whose environment has the toolkit.

#include "core/compile/NvrtcApi.h"
#include "core/compile/Program.h"
#include "core/compile/PtxAssembler.h"
#include "core/engine/Engine.h"
#include "core/project/Project.h"
#include "core/project/RunnerSpec.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_nvrtcmissing {

using namespace kernelpad;

namespace {

const QString kMissingNvrtc = QStringLiteral("/nonexistent/libnvrtc.so");
const QString kMissingNvJitLink = QStringLiteral("/nonexistent/libnvJitLink.so");
constexpr int kCliTimeoutMs = 120'000;
constexpr int kCompileTimeoutMs = 60'000;
constexpr int kExitCompileError = 1;
constexpr int kExitCudaError = 3;
constexpr int kExitBadInput = 4;

const QString kSaxpy = QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad");

struct CliResult {
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::CrashExit;
    QString out;
    QString err;
};

/// kernelpad-cli with this process's environment: the libraries missing.
CliResult runCli(const QStringList& args) {
    QProcess process;
    process.start(QStringLiteral(KERNELPAD_CLI_PATH), args);
    if (!process.waitForFinished(kCliTimeoutMs))
        qFatal("kernelpad-cli did not finish");
    return {process.exitCode(), process.exitStatus(),
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

/// A runner elsewhere, played by this build's runner with the libraries' variables removed:
/// its environment has the toolkit, as a GPU machine's would.
QString runnerWithTheToolkit() {
    return QStringLiteral("cmd:env -u KERNELPAD_NVRTC_LIBRARY -u KERNELPAD_NVJITLINK_LIBRARY "
                          "\"%1\" serve")
        .arg(QStringLiteral(KERNELPAD_CLI_PATH));
}

QJsonObject parseJson(const QString& text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

} // namespace

class TestNvrtcMissing : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void loadSaysWhatWasTriedAndWhatToDo();
    void compileSaysNvrtcIsMissing();
    void ptxSaysNvJitLinkIsMissing();
    void theEngineSaysSoWithoutARunnerElsewhere();
    void theEngineCompilesInTheRunnerElsewhere();
    void cliCompileFailsWithTheMessage();
    void cliCompilesInTheRunner_data();
    void cliCompilesInTheRunner();
    void cliRunSaysNvrtcIsMissing();
    void cliRunCompilesInTheRunner();
    void cliVersionAndDevicesSayNotFound();

private:
    QTemporaryDir m_dir;
};

void TestNvrtcMissing::initTestCase() {
    // Before anything loads NVRTC: the load happens once per process.
    qputenv("KERNELPAD_NVRTC_LIBRARY", kMissingNvrtc.toUtf8());
    qputenv("KERNELPAD_NVJITLINK_LIBRARY", kMissingNvJitLink.toUtf8());
    qunsetenv("KERNELPAD_NO_NVRTC");
    qunsetenv("KERNELPAD_RUNNER_SPEC");
    qputenv("KERNELPAD_CACHE_DIR", "off");
    QVERIFY(m_dir.isValid());
}

void TestNvrtcMissing::loadSaysWhatWasTriedAndWhatToDo() {
    QString error;
    QVERIFY(!NvrtcApi::load(&error));
    for (const QString& part :
         {QStringLiteral("NVRTC not found on this computer"),
          QStringLiteral("$KERNELPAD_NVRTC_LIBRARY=") + kMissingNvrtc,
          QStringLiteral("cannot open shared object file"),
          QStringLiteral("compile in a runner that has the CUDA toolkit"),
          QStringLiteral("Edit ▸ Preferences ▸ Runners"), QStringLiteral("--runner")})
        QVERIFY2(error.contains(part), qPrintable(error));
    QVERIFY(nvrtcUnavailableHere());
    QCOMPARE(nvrtcUnavailableReason(), error);
    QVERIFY(Program::nvrtcVersion().isEmpty());
    QCOMPARE(Program::compilerOf(SourceLanguage::Cuda), QStringLiteral("NVRTC not found"));

    QString linkError;
    QVERIFY(!NvJitLinkApi::load(&linkError));
    QVERIFY2(linkError.startsWith(QStringLiteral("nvJitLink not found on this computer ($"
                                                 "KERNELPAD_NVJITLINK_LIBRARY=") +
                                  kMissingNvJitLink),
             qPrintable(linkError));
    QVERIFY(nvJitLinkVersion().isEmpty());
    QCOMPARE(Program::compilerOf(SourceLanguage::Ptx), QStringLiteral("nvJitLink not found"));
}

void TestNvrtcMissing::compileSaysNvrtcIsMissing() {
    QString loadError;
    (void)NvrtcApi::load(&loadError);
    // An include of a toolkit header that is not here either: the missing NVRTC is the news.
    const CompileResult r =
        Program(QStringLiteral("#include <cuda_fp16.h>\n"
                               "extern \"C\" __global__ void k(float* p) { p[0] = 1.0f; }\n"),
                QStringLiteral("k.cu"), {})
            .compile(QStringLiteral("sm_90"));
    QVERIFY(!r.ok);
    QVERIFY(r.compilerMissing);
    QCOMPARE(r.error, loadError);
    QCOMPARE(r.compiler, QStringLiteral("NVRTC not found"));
    QCOMPARE(r.diagnostics.size(), 1);
    QCOMPARE(r.diagnostics.first().severity, Diagnostic::Severity::Error);
    QCOMPARE(r.diagnostics.first().message, loadError);
    // It travels from a runner as it is.
    QString error;
    const std::optional<CompileResult> back = CompileResult::fromJson(r.toJson(), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(back->compilerMissing);
    QCOMPARE(back->error, loadError);
    // And a result from a computer with NVRTC says nothing of it.
    CompileResult fine;
    fine.nvrtcVersion = QStringLiteral("13.0");
    QVERIFY(!fine.toJson().contains(QStringLiteral("compilerMissing")));
}

void TestNvrtcMissing::ptxSaysNvJitLinkIsMissing() {
    const CompileResult r = Program(QStringLiteral(".version 9.0\n.target sm_90\n"
                                                   ".address_size 64\n"
                                                   ".visible .entry k()\n{\n\tret;\n}\n"),
                                    QStringLiteral("k.ptx"), {}, {}, SourceLanguage::Ptx)
                                .compile(QStringLiteral("sm_90"));
    QVERIFY(!r.ok);
    QVERIFY(r.compilerMissing);
    QVERIFY2(r.error.startsWith(QLatin1String("nvJitLink not found on this computer")),
             qPrintable(r.error));
    QCOMPARE(r.compiler, QStringLiteral("nvJitLink not found"));
    // A virtual arch stops at the PTX, for the driver's JIT: nvJitLink is not needed.
    const CompileResult jit = Program(QStringLiteral(".version 9.0\n.target sm_90\n"
                                                     ".address_size 64\n"
                                                     ".visible .entry k()\n{\n\tret;\n}\n"),
                                      QStringLiteral("k.ptx"), {}, {}, SourceLanguage::Ptx)
                                  .compile(QStringLiteral("compute_90"));
    QVERIFY2(jit.ok, qPrintable(jit.error + jit.log));
    QVERIFY(!jit.compilerMissing);
}

void TestNvrtcMissing::theEngineSaysSoWithoutARunnerElsewhere() {
    QString error;
    const std::optional<Project> saxpy = Project::load(kSaxpy, &error);
    QVERIFY2(saxpy, qPrintable(error));
    Engine engine(nullptr, Engine::Isolation::InProcess);
    QVERIFY(engine.runner().isLocal());
    QSignalSpy compiled(&engine, &Engine::compiled);
    const quint64 id = engine.compile(*saxpy, QFileInfo(kSaxpy).absolutePath(), -1);
    QVERIFY(compiled.wait(kCompileTimeoutMs));
    QCOMPARE(compiled.first().at(0).toULongLong(), id);
    const CompileResult r = compiled.first().at(1).value<CompileResult>();
    QVERIFY(!r.ok);
    QVERIFY(r.compilerMissing);
    QVERIFY2(r.error.contains(QLatin1String("NVRTC not found on this computer")),
             qPrintable(r.error));
}

void TestNvrtcMissing::theEngineCompilesInTheRunnerElsewhere() {
    QString error;
    const std::optional<Project> saxpy = Project::load(kSaxpy, &error);
    QVERIFY2(saxpy, qPrintable(error));
    const std::optional<RunnerSpec> spec = RunnerSpec::parse(runnerWithTheToolkit(), &error);
    QVERIFY2(spec, qPrintable(error));
    Engine engine;
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    engine.setRunner(*spec);
    QVERIFY(devices.wait(kCompileTimeoutMs)); // the runner's list (empty without a GPU)
    QSignalSpy compiled(&engine, &Engine::compiled);
    const quint64 id = engine.compile(*saxpy, QFileInfo(kSaxpy).absolutePath(), -1);
    QVERIFY(compiled.wait(kCompileTimeoutMs));
    QCOMPARE(compiled.first().at(0).toULongLong(), id);
    const CompileResult r = compiled.first().at(1).value<CompileResult>();
    QVERIFY2(r.ok, qPrintable(r.error + r.log));
    QVERIFY(!r.compilerMissing);
    QVERIFY(!r.nvrtcVersion.isEmpty()); // the runner's NVRTC
    QVERIFY(r.findKernel(QStringLiteral("saxpy")));
    QVERIFY(r.ptx.contains(QLatin1String(".entry saxpy(")));
}

void TestNvrtcMissing::cliCompileFailsWithTheMessage() {
    const CliResult text = runCli({QStringLiteral("compile"), kSaxpy});
    QCOMPARE(text.status, QProcess::NormalExit);
    QCOMPARE(text.exitCode, kExitBadInput);
    QVERIFY(text.out.isEmpty());
    for (const QString& part : {QStringLiteral("kernelpad-cli: NVRTC not found on this computer"),
                                kMissingNvrtc, QStringLiteral("--runner for kernelpad-cli"),
                                QStringLiteral("(no --runner elsewhere was given)")})
        QVERIFY2(text.err.contains(part), qPrintable(text.err));

    const CliResult json = runCli({QStringLiteral("compile"), kSaxpy, QStringLiteral("--json")});
    QCOMPARE(json.exitCode, kExitBadInput);
    const QJsonObject object = parseJson(json.out);
    QCOMPARE(object.value(QStringLiteral("status")).toString(), QStringLiteral("bad-input"));
    QVERIFY2(object.value(QStringLiteral("error"))
                 .toString()
                 .startsWith(QLatin1String("NVRTC not found on this computer")),
             qPrintable(json.out));
}

void TestNvrtcMissing::cliCompilesInTheRunner_data() {
    QTest::addColumn<QString>("file"); // empty: a source that does not compile, written here
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("printed");
    QTest::newRow("saxpy.kpad, PTX printed") << kSaxpy << 0 << QStringLiteral(".entry saxpy(");
    QTest::newRow("a compile error, its line named")
        << QString() << kExitCompileError << QStringLiteral("broken.cu:3:");
}

void TestNvrtcMissing::cliCompilesInTheRunner() {
    QFETCH(QString, file);
    QFETCH(int, exitCode);
    QFETCH(QString, printed);
    if (file.isEmpty()) {
        file = m_dir.filePath(QStringLiteral("broken.cu"));
        QFile broken(file);
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("extern \"C\" __global__ void fill(float* out, int n)\n{\n"
                     "    int i = blockIdx.x * blockDim.x + threadIdy.x;\n"
                     "    if (i < n) out[i] = 1.0f;\n}\n");
    }
    const CliResult r = runCli({QStringLiteral("compile"), file, QStringLiteral("--ptx"),
                                QStringLiteral("--runner"), runnerWithTheToolkit()});
    QVERIFY2(r.exitCode == exitCode, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(printed), qPrintable(r.out + r.err));
    QVERIFY2(!r.out.contains(QLatin1String("NVRTC not found")), qPrintable(r.out));
}

void TestNvrtcMissing::cliRunSaysNvrtcIsMissing() {
    // The runner on this computer has no NVRTC either: the compile in it says so.
    const CliResult r = runCli({QStringLiteral("run"), kSaxpy, QStringLiteral("--json")});
    QCOMPARE(r.status, QProcess::NormalExit);
    QVERIFY2(r.exitCode == kExitCompileError, qPrintable(r.out + r.err));
    const QJsonObject compile = parseJson(r.out).value(QStringLiteral("compile")).toObject();
    QVERIFY2(compile.value(QStringLiteral("compilerMissing")).toBool(), qPrintable(r.out));
    QVERIFY2(compile.value(QStringLiteral("error"))
                 .toString()
                 .startsWith(QLatin1String("NVRTC not found on this computer")),
             qPrintable(r.out));
}

void TestNvrtcMissing::cliRunCompilesInTheRunner() {
    const CliResult r = runCli({QStringLiteral("run"), kSaxpy, QStringLiteral("--json"),
                                QStringLiteral("--runner"), runnerWithTheToolkit()});
    const QJsonObject result = parseJson(r.out);
    const QJsonObject compile = result.value(QStringLiteral("compile")).toObject();
    QVERIFY2(compile.value(QStringLiteral("ok")).toBool(), qPrintable(r.out + r.err));
    QVERIFY(!compile.value(QStringLiteral("nvrtcVersion")).toString().isEmpty());
    // Without a GPU the run stops after the compile; with one, it runs and verifies.
    QVERIFY2(r.exitCode == 0 || r.exitCode == kExitCudaError, qPrintable(r.out + r.err));
}

void TestNvrtcMissing::cliVersionAndDevicesSayNotFound() {
    const CliResult version = runCli({QStringLiteral("--version")});
    QCOMPARE(version.exitCode, 0);
    QVERIFY2(version.out.startsWith(QLatin1String("kernelpad-cli ")), qPrintable(version.out));
    QVERIFY2(version.out.contains(QLatin1String("\nNVRTC not found on this computer")),
             qPrintable(version.out));
    QVERIFY2(version.out.contains(QLatin1String("\nnvJitLink not found on this computer")),
             qPrintable(version.out));
    // Listing devices needs no compiler: no crash, the driver's answer.
    const CliResult devices = runCli({QStringLiteral("devices")});
    QCOMPARE(devices.status, QProcess::NormalExit);
    QVERIFY2(devices.exitCode == 0 || devices.exitCode == kExitCudaError,
             qPrintable(devices.out + devices.err));
}

KERNELPAD_TEST_GUILESS_MAIN(TestNvrtcMissing)
} // namespace tst_nvrtcmissing
#include "tst_nvrtcmissing.moc"
