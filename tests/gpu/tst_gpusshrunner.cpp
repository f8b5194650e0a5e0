// The runner over ssh on a GPU: a throwaway OpenSSH server on a loopback port (tests/support/
// LoopbackSsh.h), then SAXPY through `ssh localhost kernelpad-cli serve`: the devices named,
// the run verified and timed, its output back; the connection killed and the next run
// reconnecting and passing again.

#include "../support/LoopbackSsh.h"
#include "GpuTestSupport.h"
#include "core/runner/RunnerClient.h"

#include <QElapsedTimer>
#include <QSignalSpy>

#include <csignal>

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
        QCOMPARE(client.startCount(), 2);
    }
};

QTEST_GUILESS_MAIN(TestGpuSshRunner)
#include "tst_gpusshrunner.moc"
