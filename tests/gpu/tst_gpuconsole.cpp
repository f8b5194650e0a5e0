// Device printf on a real GPU, through the runner: 10,000 lines, text without a newline, and
// lines shaped like the runner's own messages all come back as the run's console output, and
// never change its verdict (such lines once turned a failed verification into PASS).

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "core/engine/Engine.h"
#include "core/runner/RunnerClient.h"

#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace tst_gpuconsole {

using namespace kernelpad;

namespace {

constexpr int kLines = 10000;
constexpr int kBlock = 256;

/// SAXPY over kLines elements with `body` run by every thread after it wrote its element
/// (`tid`, `n`, `out` in scope). One repetition, so the runs stay short.
Project printingSaxpy(const QString& body) {
    Project p = test::loadExample("saxpy.kpad");
    p.source = QStringLiteral("extern \"C\" __global__\nvoid saxpy(float a, float *x, float *y, "
                              "float *out, size_t n)\n{\n"
                              "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (tid < n) out[tid] = a * x[tid] + y[tid];\n") +
               body + QStringLiteral("\n}\n");
    p.arguments[4].value = QString::number(kLines);
    p.launch.grid = {(kLines + kBlock - 1) / kBlock, 1, 1};
    p.launch.block = {kBlock, 1, 1};
    p.timing.repetitions = 2;
    p.timing.warmupLaunches = 1;
    p.timing.adaptive = false;
    return p;
}

/// Every thread's element is written, except the last one's: verification must fail.
const QString kForgery = QStringLiteral(
    "    if (tid == n - 1) out[tid] = 12345.0f;\n"
    "    if (tid < 8) printf(\"{\\\"type\\\":\\\"result\\\",\\\"id\\\":%d,\\\"result\\\":"
    "{\\\"status\\\":\\\"ok\\\",\\\"verification\\\":[]},\\\"outputs\\\":[],"
    "\\\"poisoned\\\":false}\\n\", int(tid));\n"
    "    if (tid == 0) printf(\"{\\\"type\\\":\\\"hello\\\",\\\"version\\\":1,\\\"pid\\\":1,"
    "\\\"outputDir\\\":\\\".\\\"}\\n\");");

} // namespace

class TestGpuConsole : public QObject {
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
    }

    void tenThousandLines() {
        const RunResult r = run(
            printingSaxpy(QStringLiteral("    if (tid < n) printf(\"line %d\\n\", int(tid));")));
        QVERIFY2(r.status == RunStatus::Ok && r.verified(), qPrintable(r.error));
        const QStringList lines = r.console.text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        qInfo("console: %lld lines, %lld bytes from the verified launch, %lld after it",
              qint64(lines.size()), r.console.totalBytes, r.console.laterBytes);
        QCOMPARE(lines.size(), kLines);
        QSet<QString> seen(lines.cbegin(), lines.cend());
        for (int i = 0; i < kLines; i += 997)
            QVERIFY2(seen.contains(QStringLiteral("line %1").arg(i)),
                     qPrintable(QString::number(i)));
        QCOMPARE(seen.size(), kLines);
        // Warm-up and two repetitions print the same again: counted, not kept.
        QCOMPARE(r.console.laterBytes, 3 * r.console.totalBytes);
    }

    void textWithoutANewline() {
        const RunResult r =
            run(printingSaxpy(QStringLiteral("    if (tid < 64) printf(\"i=%d \", int(tid));")));
        QVERIFY2(r.status == RunStatus::Ok && r.verified(), qPrintable(r.error));
        QVERIFY2(r.console.text.contains(QLatin1String("i=0 ")) &&
                     r.console.text.contains(QLatin1String("i=63 ")),
                 qPrintable(r.console.text.left(200)));
        QCOMPARE(r.console.text.count(QLatin1Char('\n')), 0);
    }

    void protocolShapedLinesCannotForgeAResult() {
        const RunResult r = run(printingSaxpy(kForgery));
        qInfo("forgery: %s: %s", qPrintable(runStatusName(r.status)), qPrintable(r.error));
        QCOMPARE(r.status, RunStatus::VerificationFailed);
        QVERIFY(!r.verified());
        QVERIFY(r.console.text.contains(QLatin1String("\"type\":\"result\",\"id\":7")));
        QVERIFY(r.console.text.contains(QLatin1String("\"type\":\"hello\"")));
        // The runner is still the same healthy process: the next run verifies.
        const RunResult good = run(printingSaxpy(QString()));
        QVERIFY2(good.status == RunStatus::Ok && good.verified(), qPrintable(good.error));
        QVERIFY(good.console.isEmpty());
    }

    void theExampleTellsWhoRunsWhere() {
        const RunResult r = run(test::loadExample("printf_whoami.kpad"));
        QVERIFY2(r.status == RunStatus::Ok && r.verified(), qPrintable(r.error));
        const QStringList lines = r.console.text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        // The first thread's summary and one line per warp leader of the 1000 elements.
        QCOMPARE(lines.size(), 1 + (1000 + 31) / 32);
        QVERIFY(lines.contains(
            QStringLiteral("grid of 4 blocks x 256 threads = 1024 threads for n = 1000")));
        QVERIFY(lines.contains(QStringLiteral("block 3, warp 6, thread 192 -> element 960")));
    }

    void cliJsonCarriesTheConsoleAndTheTrueVerdict_data() {
        QTest::addColumn<bool>("inProcess");
        QTest::newRow("runner") << false;
        QTest::newRow("in process") << true;
    }
    void cliJsonCarriesTheConsoleAndTheTrueVerdict() {
        QFETCH(bool, inProcess);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("forgery.kpad"));
        QString error;
        QVERIFY2(printingSaxpy(kForgery).save(path, &error), qPrintable(error));
        QProcess cli;
        QStringList args{QStringLiteral("run"), path, QStringLiteral("--json")};
        if (inProcess)
            args << QStringLiteral("--in-process");
        cli.start(RunnerClient::findRunner(), args);
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 2); // verification failed
        QJsonParseError parse{};
        const QJsonDocument doc = QJsonDocument::fromJson(cli.readAllStandardOutput(), &parse);
        QVERIFY2(parse.error == QJsonParseError::NoError, qPrintable(parse.errorString()));
        QCOMPARE(doc.object().value("status").toString(), QStringLiteral("verification-failed"));
        QVERIFY(doc.object().value("stdout").toString().contains(QLatin1String("\"id\":3")));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuConsole)
} // namespace tst_gpuconsole
#include "tst_gpuconsole.moc"
