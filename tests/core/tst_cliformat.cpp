// kernelpad-cli's text for a run (app/cli/CliFormat.cpp), pinned line by line on synthetic
// results: a timed run cannot be printed on a machine without a GPU, and scripts read these
// lines. Built with CliFormat.cpp itself (tests/CMakeLists.txt). And `run --json`: the
// result's fields plus its summaries.

#include "app/cli/CliFormat.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

namespace tst_cliformat {

using namespace kernelpad;

namespace {

/// A compiled, timed and verified SAXPY as the runner would return it.
RunResult timedRun() {
    RunResult r;
    r.device.ordinal = 0;
    r.device.name = QStringLiteral("NVIDIA H100 80GB HBM3");
    r.device.ccMajor = 9;
    r.device.ccMinor = 0;
    r.compile.ok = true;
    r.compile.arch = QStringLiteral("sm_90");
    r.compile.nvrtcVersion = QStringLiteral("13.0");
    r.compile.compileMs = 14.52;
    r.compile.cacheHit = true;
    r.compile.fromCache = CompileResult::CacheTier::Memory;
    r.launch.grid = {65536, 1, 1};
    r.launch.block = {256, 1, 1};
    r.timing = computeStats({0.0806, 0.0811, 0.0809, 0.0807, 0.0830}, 201326592, 33554432);
    r.timing.mode = QStringLiteral("hot");
    r.timing.blockingKernel = true;
    r.timing.stopReason = QStringLiteral("noise target reached");
    r.timing.smClockMHz = 1980;
    r.timing.smClockDefaultMHz = 1980;
    r.timing.ceilingGBs = 3025;
    r.timing.verifyMs = 0.412;
    r.timing.uploadsSkipped = 1;
    r.timing.uploadBytesSkipped = 67108864;
    r.resources.registers = 16;
    r.resources.staticSharedBytes = 0;
    r.resources.localBytes = 0;
    r.resources.occupancy = 1.0;
    BufferVerification y;
    y.buffer = QStringLiteral("y");
    y.method = QStringLiteral("expression a*x+y");
    y.passed = true;
    y.checked = 16777216;
    y.maxAbsError = 2.384185791015625e-07;
    y.maxRelError = 1.1920928955078125e-07;
    y.maxUlpError = 2; // in float32 ulps at the expected value
    r.verification = {y};
    r.totalMs = 431.7;
    return r;
}

QString printed(const RunResult& r) {
    QString text;
    QTextStream out(&text);
    cli::printRun(out, r);
    out.flush();
    return text;
}

} // namespace

class TestCliFormat : public QObject {
    Q_OBJECT

private slots:
    void printRun_data() {
        QTest::addColumn<RunResult>("result");
        QTest::addColumn<QString>("expected");

        QTest::newRow("timed, verified, every note")
            << timedRun()
            << QStringLiteral(
                   R"(Device 0: NVIDIA H100 80GB HBM3 (sm_90)
Compiled for sm_90 with NVRTC 13.0 in 14.5 ms (cache hit (memory))

Timing (5 repetitions, 65536x1x1 blocks of 256x1x1):
  min      median   mean     max      stddev  noise   bandwidth
  80.6 µs  80.9 µs  81.3 µs  83.0 µs  991 ns  1.22 %  2488.6 GB/s
  hot timing, queued behind a blocking kernel, stopped: noise target reached, SM clock 1980 MHz (default 1980)
  telemetry: no NVML
  82 % of the device's copy ceiling (3025 GB/s)
  414.8 GFLOP/s
  1 unchanged input buffer(s) kept on the device (64.0 MiB not uploaded)
  verified in 412.0 µs
  registers 16, static shared 0 B, local 0 B, occupancy 100 %

Verification:
  buffer  result  method            max abs err  max rel err  max ulp err  mismatches  NaN  unwritten
  y       PASS    expression a*x+y  2.38e-07     1.19e-07     2            0           0    0

OK in 431.7 ms
)");

        RunResult cold = timedRun();
        cold.timing = computeStats({0.0000004, 0.0000006, 0.0000005});
        cold.timing.mode = QStringLiteral("cold");
        cold.timing.throttledSamples = 2;
        cold.timing.blockingTimeouts = 1;
        cold.resources.occupancy = 0.375;
        cold.resources.staticSharedBytes = 4096;
        cold.resources.localBytes = 8;
        cold.verification.clear();
        cold.totalMs = 2500;
        QTest::newRow("nanoseconds, no bytes, warnings, nothing verified")
            << cold
            << QStringLiteral(
                   R"(Device 0: NVIDIA H100 80GB HBM3 (sm_90)
Compiled for sm_90 with NVRTC 13.0 in 14.5 ms (cache hit (memory))

Timing (3 repetitions, 65536x1x1 blocks of 256x1x1):
  min   median  mean  max   stddev  noise    bandwidth
  0 ns  1 ns    1 ns  1 ns  0 ns    20.00 %  -
  cold timing
  warning: the GPU was throttling during 2 of 3 samples (SM clock under 75 % of its default)
  telemetry: no NVML
  warning: the blocking kernel gave up waiting 1 time(s); those samples may include host launch time
  registers 16, static shared 4.0 KiB, local 8 B, occupancy 38 %

OK in 2.50 s
)");

        RunResult failed = timedRun();
        failed.timing = computeStats({12.5, 1500.0}, 1024);
        failed.timing.stopReason = QStringLiteral("time budget");
        failed.timing.ceilingGBs = 3025; // a share under half a percent is not shown
        failed.verification[0].passed = false;
        failed.verification[0].mismatches = 2;
        failed.verification[0].nanCount = 1;
        failed.verification[0].firstMismatches = {{3, 1.5, 2.0}, {7, 0.125, 0.25}};
        failed.status = RunStatus::VerificationFailed;
        failed.error = QStringLiteral("verification failed for y");
        QTest::newRow("seconds, failed verification")
            << failed
            << QStringLiteral(
                   R"(Device 0: NVIDIA H100 80GB HBM3 (sm_90)
Compiled for sm_90 with NVRTC 13.0 in 14.5 ms (cache hit (memory))

Timing (2 repetitions, 65536x1x1 blocks of 256x1x1):
  min      median    mean      max     stddev  noise     bandwidth
  12.5 ms  756.3 ms  756.3 ms  1.50 s  1.05 s  139.08 %  0.0 GB/s
  hot timing, stopped: time budget
  telemetry: no NVML
  registers 16, static shared 0 B, local 0 B, occupancy 100 %

Verification:
  buffer  result  method            max abs err  max rel err  max ulp err  mismatches  NaN  unwritten
  y       FAIL    expression a*x+y  2.38e-07     1.19e-07     2            2           1    0
  first mismatches in y:
  index  got    expected
  3      1.5    2
  7      0.125  0.25

error: verification failed for y
)");

        RunResult piped = timedRun();
        piped.verification.clear();
        piped.pipeline.launches = 2;
        piped.pipeline.steps = {
            StepTiming{QStringLiteral("reduce_partials"), 1, computeStats({0.0120})},
            StepTiming{QStringLiteral("reduce_final"), 1, computeStats({0.0040})}};
        piped.pipeline.sequence = computeStats({0.0400});
        piped.pipeline.graph = true;
        piped.pipeline.graphReplay = computeStats({0.0250});
        piped.pipeline.graphInstantiateMs = 0.35;
        QTest::newRow("a pipeline: its steps and graph under their heading")
            << piped
            << QStringLiteral(
                   R"(Device 0: NVIDIA H100 80GB HBM3 (sm_90)
Compiled for sm_90 with NVRTC 13.0 in 14.5 ms (cache hit (memory))

Timing (5 repetitions, 65536x1x1 blocks of 256x1x1):
  min      median   mean     max      stddev  noise   bandwidth
  80.6 µs  80.9 µs  81.3 µs  83.0 µs  991 ns  1.22 %  2488.6 GB/s
  hot timing, queued behind a blocking kernel, stopped: noise target reached, SM clock 1980 MHz (default 1980)
  telemetry: no NVML
  82 % of the device's copy ceiling (3025 GB/s)
  414.8 GFLOP/s
  1 unchanged input buffer(s) kept on the device (64.0 MiB not uploaded)
  verified in 412.0 µs
  registers 16, static shared 0 B, local 0 B, occupancy 100 %

Pipeline:
  step 1: reduce_partials x1  12.0 µs
  step 2: reduce_final x1     4.00 µs
  launches per pass           2
  sequence on the stream      40.0 µs
  sequence as a graph         25.0 µs
  time saved by the graph     15.0 µs
  share saved by the graph    37.5 %
  graph capture               350.0 µs

OK in 431.7 ms
)");

        RunResult measured = timedRun();
        measured.verification.clear();
        measured.timing.uploadsSkipped = 0;
        measured.timing.verifyMs = 0;
        measured.timing.ceilingGBs = 0;
        Telemetry& t = measured.timing.telemetry;
        t.available = true;
        t.chunks = {ChunkTelemetry{3, 1980, 2619, 512000, 58, quint64(0)},
                    ChunkTelemetry{2, 1905, 2619, 699500, 66, clockEvent::SwPowerCap}};
        t.smClockMaxMHz = 1980;
        t.smClockDefaultMHz = 1755;
        t.memClockMaxMHz = 2619;
        t.energyMj = 2000.0;
        t.energyIntervalMs = 400;
        t.energyLaunches = 5;
        QTest::newRow("telemetry: unstable, not locked, energy per launch")
            << measured
            << QStringLiteral(
                   R"(Device 0: NVIDIA H100 80GB HBM3 (sm_90)
Compiled for sm_90 with NVRTC 13.0 in 14.5 ms (cache hit (memory))

Timing (5 repetitions, 65536x1x1 blocks of 256x1x1):
  min      median   mean     max      stddev  noise   bandwidth
  80.6 µs  80.9 µs  81.3 µs  83.0 µs  991 ns  1.22 %  2488.6 GB/s
  hot timing, queued behind a blocking kernel, stopped: noise target reached, SM clock 1980 MHz (default 1980)
  GPU: 699.5 W, 66 °C, SM clock spread 3.8 %, clocks locked: no
  to lock them: sudo nvidia-smi --lock-gpu-clocks=1755,1755 --lock-memory-clocks=2619,2619
  warning: unstable timing: SM clock moved 3.8 % (1905-1980 MHz); throttled: sw power cap
  energy: 400 mJ per launch, 5.0 W average, 0.50 GB/J, 0.08 GFLOP/J
  414.8 GFLOP/s
  registers 16, static shared 0 B, local 0 B, occupancy 100 %

OK in 431.7 ms
)");

        RunResult compileOnly;
        compileOnly.compile.ok = true;
        compileOnly.compile.arch = QStringLiteral("sm_90");
        compileOnly.compile.nvrtcVersion = QStringLiteral("13.0");
        compileOnly.compile.compileMs = 206;
        compileOnly.status = RunStatus::DriverUnavailable;
        compileOnly.error = QStringLiteral("no driver: compile-only.");
        QTest::newRow("compile-only: no timing section")
            << compileOnly
            << QStringLiteral(
                   R"(Compiled for sm_90 with NVRTC 13.0 in 206.0 ms

error: no driver: compile-only.
)");
    }
    void printRun() {
        QFETCH(RunResult, result);
        QFETCH(QString, expected);
        const QString actual = printed(result);
        if (actual != expected)
            qWarning("printed:\n%s", qPrintable(actual));
        QCOMPARE(actual.split(QLatin1Char('\n')), expected.split(QLatin1Char('\n')));
    }

    // A guard hit, a zeros-would-pass warning and tolerance advice each get their line under
    // the verification table.
    void verificationNotesArePrinted() {
        RunResult r = timedRun();
        r.verification[0].warnings << QStringLiteral(
            "y: this check would also pass if the kernel wrote nothing (all zeros)");
        r.verification[0].advice = QStringLiteral("worst error 2 ulp (1.2e-07 relative)");
        BufferVerification guard;
        guard.buffer = QStringLiteral("out");
        guard.method = QStringLiteral("guard bytes");
        guard.failure = QStringLiteral("out: 4 bytes written past the end (element 1024)");
        r.verification << guard;
        r.status = RunStatus::VerificationFailed;
        r.error = QStringLiteral("verification failed for out");
        const QString text = printed(r);
        for (const char* line : {"\n  out     FAIL    guard bytes",
                                 "\n  out: 4 bytes written past the end (element 1024)\n",
                                 "\n  warning: y: this check would also pass if the kernel wrote "
                                 "nothing (all zeros)\n",
                                 "\n  y: worst error 2 ulp (1.2e-07 relative)\n"})
            QVERIFY2(text.contains(QLatin1String(line)), qPrintable(text));
    }

    // `compile`'s text lists the globals the project declares and only counts those a toolkit
    // header brought (cooperative_groups.h: about a thousand rows otherwise).
    void compileListsOnlyTheProjectsGlobals() {
        CompileResult r;
        r.ok = true;
        r.arch = QStringLiteral("sm_90");
        ModuleGlobal own;
        own.name = QStringLiteral("gain");
        own.lowered = QStringLiteral("gain");
        own.ptxType = QStringLiteral(".f32");
        own.sizeBytes = 4;
        ModuleGlobal toolkit = own;
        toolkit.name = QStringLiteral("cuda::std::__4::ignore");
        toolkit.lowered = QStringLiteral("_ZN4cuda3std3__46ignoreE");
        toolkit.fromProject = false;
        r.globals = {own, toolkit, toolkit};
        QString text;
        QTextStream out(&text);
        cli::printCompile(out, r, false);
        out.flush();
        QVERIFY2(text.contains(QStringLiteral("gain")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("ignore")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Globals from the toolkit's headers: 2 (not listed")),
                 qPrintable(text));
        // Only toolkit globals: no empty table, the count alone.
        r.globals = {toolkit};
        text.clear();
        cli::printCompile(out, r, false);
        out.flush();
        QVERIFY2(!text.contains(QStringLiteral("Globals:\n")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Globals from the toolkit's headers: 1 ")),
                 qPrintable(text));
    }

    // A runner lost before it compiled (Slurm ended its job): no "Compilation failed for  with
    // NVRTC  in 0 ns" header of empty fields, the reason alone.
    void lostRunnerPrintsNoEmptyCompileHeader() {
        CompileResult r;
        r.ok = false;
        r.error = QStringLiteral("KernelPad's runner was stopped by Slurm while running 'saxpy'");
        QString text;
        QTextStream out(&text);
        cli::printCompile(out, r, false);
        out.flush();
        QVERIFY2(text.startsWith(QStringLiteral("No compilation was made\nerror: KernelPad's "
                                                "runner was stopped by Slurm")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("NVRTC  in")), qPrintable(text));
    }

    // `run --json` keeps every field it had and adds "summaries" (with or without a GPU).
    void runJsonAddsSummaries() {
        QProcess cli;
        // KERNELPAD_CLI and KERNELPAD_EXAMPLES: the copies on a GPU machine, where the
        // suite runs against a bundle of the built programs (scripts/gpu-bundle.sh).
        const QString cliPath = qEnvironmentVariableIsSet("KERNELPAD_CLI")
                                    ? qEnvironmentVariable("KERNELPAD_CLI")
                                    : QStringLiteral(KERNELPAD_CLI_PATH);
        const QString examples = qEnvironmentVariableIsSet("KERNELPAD_EXAMPLES")
                                     ? qEnvironmentVariable("KERNELPAD_EXAMPLES")
                                     : QStringLiteral(KERNELPAD_EXAMPLES_DIR);
        cli.start(cliPath, {QStringLiteral("run"), examples + QStringLiteral("/saxpy.kpad"),
                            QStringLiteral("--json"), QStringLiteral("--in-process"),
                            QStringLiteral("--reps"), QStringLiteral("3")});
        QVERIFY(cli.waitForFinished(120000));
        QJsonParseError error{};
        const QJsonObject json =
            QJsonDocument::fromJson(cli.readAllStandardOutput(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        for (const char* key : {"status", "error", "compile", "device", "timing", "verification",
                                "resources", "totalMs", "stdout"})
            QVERIFY2(json.contains(QLatin1String(key)), key);
        QStringList keys;
        for (const QJsonValue& v : json.value("summaries").toArray())
            keys << v.toObject().value("key").toString();
        QVERIFY2(keys.contains("compile.time") && keys.contains("run.time"),
                 qPrintable(keys.join(' ')));
        // Timed on a GPU: the table's figures are there too.
        QCOMPARE(keys.contains("time.median"),
                 json.value("timing").toObject().value("reps").toInt() > 0);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestCliFormat)
} // namespace tst_cliformat
#include "tst_cliformat.moc"
