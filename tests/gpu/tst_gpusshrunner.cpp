// The runner over ssh on a GPU: a throwaway OpenSSH server on a loopback port (tests/support/
// LoopbackSsh.h), then SAXPY through `ssh localhost kernelpad-cli serve`: the devices named,
// the run verified and timed, its output back; the connection killed and the next run
// reconnecting and passing again. A sweep over two runners on the same GPU, this computer's and
// the ssh one (a RunnerPool of two specs), every configuration verified and the results naming
// both; the CLI's sweep over two --runner options. A 256 MiB output over ssh with streamed
// buffers: with the runner's keep limit above it, it comes back with the run; with the default
// limit it stays on the runner and is fetched whole; both timed (MB/s) for bench/RESULTS.md.

#include "../support/LoopbackSsh.h"
#include "../support/TestMain.h"
#include "GpuTestSupport.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/RunnerPool.h"
#include "core/runner/RunnerSurvey.h"
#include "core/sweep/PoolSweepEvaluator.h"
#include "core/sweep/Sweep.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <csignal>
#include <cstring>

namespace tst_gpusshrunner {

using namespace kernelpad;

namespace {

RunRequest saxpy() {
    RunRequest r;
    r.project = test::loadExample(QStringLiteral("saxpy.kpad"));
    r.projectDir = test::examplesDir();
    return r;
}

RunResult waitForResult(QSignalSpy& spy) {
    if (spy.isEmpty() && !spy.wait(120000)) {
        RunResult none;
        none.error = QStringLiteral("no result within the wait");
        return none;
    }
    return spy.takeFirst().at(1).value<RunResult>();
}

void verifySaxpy(const RunResult& r) {
    QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
    QCOMPARE(r.verification.size(), 1);
    QVERIFY2(r.verification.first().passed,
             qPrintable(r.verification.first().buffer + ": " + r.verification.first().error));
    QVERIFY(r.verification.first().checked > 0);
    QVERIFY(r.timing.medianMs > 0);
}

/// SAXPY over n elements with x = iota and y = 1, so out[i] = 2 * float(i) + 1 (doubling is
/// exact in float, so the host computes the GPU's value).
RunRequest saxpyOver(qint64 n) {
    RunRequest r;
    r.project = test::loadExample(QStringLiteral("saxpy.kpad"));
    r.project.arguments[1].buffer.init = InitSpec{};
    r.project.arguments[1].buffer.init.kind = InitSpec::Kind::Iota;
    r.project.arguments[2].buffer.init = InitSpec{};
    r.project.arguments[2].buffer.init.kind = InitSpec::Kind::Ones;
    r.project.arguments[4].value = QString::number(n);
    r.project.launch.grid = {int((n + 255) / 256), 1, 1};
    r.project.timing.adaptive = false;
    r.project.timing.warmupLaunches = 1;
    r.project.timing.repetitions = 3;
    return r;
}

const OutputBuffer* findOutput(const RunResult& r, const QString& name) {
    for (const OutputBuffer& b : r.outputs)
        if (b.name == name)
            return &b;
    return nullptr;
}

/// Checks out[i] = 2 * i + 1 at a few places of `bytes` (n floats).
bool holdsSaxpy(const QByteArray& bytes, qint64 n, QString* why) {
    if (bytes.size() != n * 4) {
        *why = QStringLiteral("%1 bytes, expected %2").arg(bytes.size()).arg(n * 4);
        return false;
    }
    for (qint64 i : {qint64(0), qint64(1), n / 3, n / 2 + 12345, n - 1}) {
        float v = 0;
        std::memcpy(&v, bytes.constData() + i * 4, 4);
        if (v != 2.0f * float(i) + 1.0f) {
            *why = QStringLiteral("out[%1] = %2, expected %3")
                       .arg(i)
                       .arg(v)
                       .arg(2.0f * float(i) + 1.0f);
            return false;
        }
    }
    return true;
}

} // namespace

class TestGpuSshRunner : public QObject {
    Q_OBJECT
    std::unique_ptr<test::LoopbackSsh> m_ssh;
    QString m_cli;

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        qRegisterMetaType<kernelpad::RunResult>();
        qRegisterMetaType<QVector<kernelpad::DeviceInfo>>();
        if (const QString why = test::LoopbackSsh::unavailable(); !why.isEmpty())
            QSKIP(qPrintable(QStringLiteral("no loopback ssh server: ") + why));
        m_ssh = std::make_unique<test::LoopbackSsh>();
        QString error;
        if (!m_ssh->start(&error))
            QSKIP(qPrintable(QStringLiteral("the loopback sshd could not be started: ") + error));
        m_cli = RunnerClient::findRunner();
        QVERIFY2(!m_cli.isEmpty(), "kernelpad-cli not found");
    }

    void devicesOverSsh() {
        QString error;
        RunnerSpec spec = m_ssh->spec(m_cli);
        spec.name = QStringLiteral("loopback");
        const QVector<DeviceInfo> devices = RunnerClient::devicesOf(spec, &error);
        QVERIFY2(!devices.isEmpty(), qPrintable(error));
        QVERIFY(devices.first().ccMajor >= 5);
        qInfo("loopback: %s, %s", qPrintable(devices.first().name),
              qPrintable(devices.first().arch()));
    }

    void saxpyVerifiesOverSshAndSurvivesAKilledConnection() {
        RunnerClient client;
        QString error;
        QVERIFY2(client.setSpec(m_ssh->spec(m_cli), &error), qPrintable(error));
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        QElapsedTimer clock;
        clock.start();
        client.run(1, saxpy());
        RunResult r = waitForResult(finished);
        verifySaxpy(r);
        if (QTest::currentTestFailed())
            return;
        qInfo("saxpy over ssh: first run %lld ms (connect, compile, run), median %.4f ms",
              clock.elapsed(), r.timing.medianMs);
        // On the same computer the runner's output folder is readable here: the buffers came.
        QVERIFY(!r.outputs.isEmpty());
        QVERIFY(r.outputs.first().data.size() > 0);

        const qint64 sshPid = client.runnerPid();
        QVERIFY(sshPid > 0);
        RunRequest slow = saxpy();
        slow.project.timing.adaptive = false;
        slow.project.timing.repetitions = 100000;
        slow.project.timing.timeLimitMs = 60000;
        QSignalSpy progress(&client, &RunnerClient::runProgress);
        client.run(2, slow);
        // Killed while it times: the connection is gone mid-run.
        QVERIFY(progress.wait(60000));
        ::kill(pid_t(sshPid), SIGKILL);
        r = waitForResult(finished);
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(r.error.contains(QLatin1String("stopped unexpectedly")), qPrintable(r.error));

        client.run(3, saxpy());
        verifySaxpy(waitForResult(finished));
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(client.startCount(), 2);
    }

    void aSweepOverThisComputerAndTheSshRunnerNamesBoth() {
        // Two runners on the same H100: this computer's and the one through ssh, listed as the
        // window's "every device of every runner" lists them.
        RunnerSpec ssh = m_ssh->spec(m_cli);
        ssh.name = QStringLiteral("loopback");
        QStringList problems;
        const QVector<PoolEntry> entries =
            RunnerSurvey::listDevices({RunnerSpec::local(), ssh}, &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        QVERIFY(entries.size() >= 2);
        QVector<PoolEntry> two;
        for (const PoolEntry& e : entries)
            if (e.device == 0)
                two.push_back(e); // device 0 of each runner: the same GPU twice
        QCOMPARE(two.size(), 2);
        QVERIFY(two[0].spec.isLocal());
        QCOMPARE(two[1].spec, ssh);

        std::unique_ptr<PoolSweepEvaluator> evaluator = PoolSweepEvaluator::over(two);
        QVERIFY(evaluator->pool()->runnerStreams(1)); // the ssh runner streams its buffers
        RunRequest base;
        base.project = test::loadExample(QStringLiteral("transpose_sweep.kpad"));
        base.projectDir = test::examplesDir();
        Sweep sweep(base, evaluator.get());
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QSignalSpy finished(&sweep, &Sweep::finished);
        QElapsedTimer wall;
        wall.start();
        sweep.start();
        QVERIFY(finished.wait(280000));
        const QString stopped = finished.first().at(0).toString();
        QVERIFY2(stopped.isEmpty(), qPrintable(stopped));
        const QVector<SweepRecord> records = sweep.records();
        QCOMPARE(records.size(), 66);
        QSet<QString> keys, devices;
        for (const SweepRecord& r : records) {
            QVERIFY2(r.passed(), qPrintable(r.key + QStringLiteral(": ") + r.error));
            keys.insert(r.key);
            devices.insert(r.device);
        }
        QCOMPARE(keys.size(), 66);
        const QString here =
            RunnerPool::deviceLabel(RunnerSpec::local(), two[0].deviceName, 0, true);
        const QString there = RunnerPool::deviceLabel(ssh, two[1].deviceName, 0, true);
        QVERIFY2(here.startsWith(QLatin1String("this computer: ")) &&
                     there.startsWith(QLatin1String("loopback: ")),
                 qPrintable(here + QLatin1String(" / ") + there));
        QVERIFY2(devices == (QSet<QString>{here, there}),
                 qPrintable(QStringList(devices.begin(), devices.end()).join(QLatin1String(", "))));
        qInfo("66 transpose shapes on this computer and over ssh, same GPU: %lld ms; this "
              "computer answered %d, the ssh runner %d",
              wall.elapsed(), evaluator->pool()->jobsAnswered(0),
              evaluator->pool()->jobsAnswered(1));
    }

    void theCliSweepsOverTwoRunners() {
        // kernelpad-cli sweep with --runner twice: this computer and a command runner (the same
        // kernelpad-cli, streamed like any runner elsewhere). The ssh runner's options (-F) are
        // not part of the CLI syntax, so the command stands in for it here.
        const QString cli = qEnvironmentVariableIsSet("KERNELPAD_CLI")
                                ? qEnvironmentVariable("KERNELPAD_CLI")
                                : m_cli;
        QTemporaryDir dir;
        QProcess p;
        p.start(cli, {QStringLiteral("sweep"),
                      test::examplesDir() + QStringLiteral("/transpose_sweep.kpad"),
                      QStringLiteral("--set"), QStringLiteral("bx=8,16,32,64"),
                      QStringLiteral("--set"), QStringLiteral("by=4,8"), QStringLiteral("--json"),
                      QStringLiteral("--results"), dir.filePath(QStringLiteral("r.jsonl")),
                      QStringLiteral("--runner"), QStringLiteral("local"),
                      QStringLiteral("--runner"), QStringLiteral("cmd:\"%1\" serve").arg(cli)});
        QVERIFY(p.waitForFinished(280000));
        const QByteArray out = p.readAllStandardOutput();
        QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromUtf8(out + p.readAllStandardError())));
        const QJsonObject json = QJsonDocument::fromJson(out).object();
        QCOMPARE(json.value(QStringLiteral("evaluated")).toInt(), 8);
        QCOMPARE(json.value(QStringLiteral("passed")).toInt(), 8);
        QSet<QString> runners;
        for (const QJsonValue& v : json.value(QStringLiteral("results")).toArray()) {
            const QString device = v.toObject().value(QStringLiteral("device")).toString();
            runners.insert(device.section(QStringLiteral(": "), 0, 0));
        }
        // The pool hands each idle runner a job at once, so both answer; each result names its
        // runner (the command runner after its program).
        QCOMPARE(runners.size(), 2);
        QVERIFY(runners.contains(QStringLiteral("this computer")));
        for (const QString& r : runners)
            QVERIFY2(r == QLatin1String("this computer") ||
                         r.endsWith(QLatin1String("kernelpad-cli")),
                     qPrintable(r));
        qInfo("CLI sweep over two runners: results from %s",
              qPrintable(QStringList(runners.begin(), runners.end()).join(", ")));
    }

    void a256MiBOutputOverSsh() {
        const qint64 n = qint64(64) << 20; // 256 MiB of float
        const RunRequest request = saxpyOver(n);

        // With the runner's keep limit above 256 MiB the output comes back with the run.
        RunnerSpec big = m_ssh->spec(m_cli);
        big.keepBeyondBytes = qint64(512) << 20;
        RunnerClient whole;
        QString error;
        QVERIFY2(whole.setSpec(big, &error), qPrintable(error));
        QVERIFY(whole.streamBuffers());
        QCOMPARE(whole.keepBeyondBytes(), qint64(512) << 20);
        QSignalSpy done(&whole, &RunnerClient::runFinished);
        whole.warmUp();
        whole.run(1, saxpy()); // connected and compiled: the timed run below is the transfer
        RunResult r = waitForResult(done);
        QVERIFY2(r.status == RunStatus::Ok, qPrintable(r.error));
        QElapsedTimer clock;
        clock.start();
        whole.run(2, request);
        r = waitForResult(done);
        const double withRunSeconds = double(clock.nsecsElapsed()) / 1e9;
        QVERIFY2(r.status == RunStatus::Ok && r.verified(), qPrintable(r.error));
        const OutputBuffer* out = findOutput(r, QStringLiteral("out"));
        QVERIFY(out);
        QVERIFY(!out->isKept());
        QString why;
        QVERIFY2(holdsSaxpy(out->data, n, &why), qPrintable(why));
        qInfo("256 MiB output back with the run over ssh: run %.3f s in all (buffers set up, "
              "3 launches, verified, streamed): %.0f MB/s for the whole run",
              withRunSeconds, double(n * 4) / 1e6 / withRunSeconds);

        // With the default keep limit it stays on the runner, and is fetched whole.
        RunnerClient kept;
        QVERIFY2(kept.setSpec(m_ssh->spec(m_cli), &error), qPrintable(error));
        QSignalSpy keptDone(&kept, &RunnerClient::runFinished);
        kept.run(11, request);
        r = waitForResult(keptDone);
        QVERIFY2(r.status == RunStatus::Ok && r.verified(), qPrintable(r.error));
        out = findOutput(r, QStringLiteral("out"));
        QVERIFY(out);
        QVERIFY(out->isKept());
        QSignalSpy fetched(&kept, &RunnerClient::fetched);
        clock.restart();
        kept.fetch(100, 11, QStringLiteral("out"), 0, n * 4);
        QVERIFY(fetched.wait(240000));
        const double fetchSeconds = double(clock.nsecsElapsed()) / 1e9;
        QVERIFY2(fetched.first().at(2).toString().isEmpty(),
                 qPrintable(fetched.first().at(2).toString()));
        QVERIFY2(holdsSaxpy(fetched.first().at(1).toByteArray(), n, &why), qPrintable(why));
        qInfo("fetched the whole 256 MiB kept output over ssh in %.3f s: %.0f MB/s", fetchSeconds,
              double(n * 4) / 1e6 / fetchSeconds);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuSshRunner)
} // namespace tst_gpusshrunner
#include "tst_gpusshrunner.moc"
