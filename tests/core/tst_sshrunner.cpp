// Runners elsewhere: the real runner through a throwaway OpenSSH server on a loopback port
// (hello, devices, a compile-only run of saxpy, a killed connection and the reconnect, a
// missing remote binary), and stand-in runners for what a runner elsewhere may say instead of
// a proper hello (an old version, a shell's greeting, "not found", an unreachable host).

#include "../support/LoopbackSsh.h"
#include "core/engine/Engine.h"
#include "core/project/Project.h"
#include "core/project/RunnerSpec.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerClient.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include <csignal>

namespace tst_sshrunner {

using namespace kernelpad;

namespace {

RunResult waitForResult(QSignalSpy& spy, int timeoutMs = 60000) {
    if (spy.isEmpty() && !spy.wait(timeoutMs)) {
        RunResult none;
        none.error = QStringLiteral("no result within the wait");
        return none;
    }
    return spy.takeFirst().at(1).value<RunResult>();
}

/// The error of the devices answer, after `client` was asked.
QString devicesError(RunnerClient& client, QVector<DeviceInfo>* devices = nullptr) {
    QSignalSpy spy(&client, &RunnerClient::devicesChanged);
    client.requestDevices(1);
    if (!spy.wait(60000))
        return QStringLiteral("no devices answer within the wait");
    if (devices)
        *devices = spy.first().at(0).value<QVector<DeviceInfo>>();
    return spy.first().at(1).toString();
}

/// A Command runner: `/bin/sh FILE` with `script` in FILE.
RunnerSpec scriptRunner(const QString& name, const QString& script) {
    static QTemporaryDir dir;
    const QString file = dir.filePath(name + QStringLiteral(".sh"));
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(file));
    f.write(script.toUtf8() + '\n');
    RunnerSpec s;
    s.kind = RunnerSpec::Kind::Command;
    s.name = name;
    s.commandLine = QStringLiteral("/bin/sh \"%1\"").arg(file);
    return s;
}

} // namespace

class TestSshRunner : public QObject {
    Q_OBJECT
    std::unique_ptr<test::LoopbackSsh> m_ssh;
    QString m_sshSkip;

    /// The loopback server, or null after marking the test skipped with the reason: QSKIP here
    /// would return from this helper only, so the test must `if (!ssh) return;`.
    [[nodiscard]] const test::LoopbackSsh* requireSsh() {
        if (m_sshSkip.isEmpty() && m_ssh)
            return m_ssh.get();
        QTest::qSkip(
            qPrintable(m_sshSkip.isEmpty() ? QStringLiteral("no loopback sshd") : m_sshSkip),
            __FILE__, __LINE__);
        return nullptr;
    }

private slots:
    void initTestCase() {
        qRegisterMetaType<kernelpad::RunResult>();
        qRegisterMetaType<QVector<kernelpad::DeviceInfo>>();
        m_sshSkip = test::LoopbackSsh::unavailable();
        if (!m_sshSkip.isEmpty())
            return;
        m_ssh = std::make_unique<test::LoopbackSsh>();
        QString error;
        if (!m_ssh->start(&error))
            m_sshSkip = QStringLiteral("the loopback sshd could not be started: ") + error;
    }

    void helloDevicesAndACompileOnlyRunOverSsh() {
        const test::LoopbackSsh* ssh = requireSsh();
        if (!ssh)
            return;
        RunnerClient client;
        QString error;
        QVERIFY2(client.setSpec(ssh->spec(QStringLiteral(KERNELPAD_CLI_PATH)), &error),
                 qPrintable(error));
        QCOMPARE(client.spec().kind, RunnerSpec::Kind::Ssh);
        // Without a GPU the runner answers with no device and the driver's reason; with one,
        // its devices. Either way the answer came through ssh, hello accepted.
        QVector<DeviceInfo> devices;
        const QString why = devicesError(client, &devices);
        QVERIFY2(!why.contains(QLatin1String("hello")) && !why.contains(QLatin1String("wait")),
                 qPrintable(why));
        QVERIFY2(!devices.isEmpty() || !why.isEmpty(), "no devices and no reason");
        QCOMPARE(client.startCount(), 1);

        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(7, test::exampleRequest(QStringLiteral("saxpy.kpad")));
        const RunResult r = waitForResult(finished);
        QVERIFY2(r.compile.ok, qPrintable(r.error + r.compile.log));
        QVERIFY(r.compile.findKernel(QStringLiteral("saxpy")));
        QVERIFY2(r.status == RunStatus::DriverUnavailable || r.status == RunStatus::Ok,
                 qPrintable(r.error));
        QCOMPARE(client.startCount(), 1); // the same connection, kept warm
    }

    void compilesInTheRunnerOverSsh() {
        const test::LoopbackSsh* ssh = requireSsh();
        if (!ssh)
            return;
        RunRequest request = test::exampleRequest(QStringLiteral("saxpy.kpad"));
        request.project.options.arch = QStringLiteral("sm_80");
        const CompileResult r =
            RunnerClient::compileIn(ssh->spec(QStringLiteral(KERNELPAD_CLI_PATH)), request);
        QVERIFY2(r.ok, qPrintable(r.log));
        QCOMPARE(r.arch, QStringLiteral("sm_80"));
        QVERIFY(r.findKernel(QStringLiteral("saxpy")));
        QVERIFY(r.ptx.contains(QLatin1String(".entry")));
        // A compile error comes back with its diagnostics.
        request.project.source += QStringLiteral("\nthis is not C++;\n");
        const CompileResult bad =
            RunnerClient::compileIn(ssh->spec(QStringLiteral(KERNELPAD_CLI_PATH)), request);
        QVERIFY(!bad.ok);
        QVERIFY(!bad.diagnostics.isEmpty());
    }

    void theEngineCompilesInTheRunnerWithoutNvrtcHere() {
        const test::LoopbackSsh* ssh = requireSsh();
        if (!ssh)
            return;
        qputenv("KERNELPAD_NO_NVRTC", "1");
        Engine engine;
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        engine.setRunner(ssh->spec(QStringLiteral(KERNELPAD_CLI_PATH)));
        QCOMPARE(engine.runner().kind, RunnerSpec::Kind::Ssh);
        QVERIFY(devices.wait(60000)); // the runner's list (empty without a GPU, with why)
        QSignalSpy compiled(&engine, &Engine::compiled);
        const RunRequest saxpy = test::exampleRequest(QStringLiteral("saxpy.kpad"));
        const quint64 id = engine.compile(saxpy.project, saxpy.projectDir, 0);
        QVERIFY(compiled.wait(60000));
        qunsetenv("KERNELPAD_NO_NVRTC");
        QCOMPARE(compiled.first().at(0).toULongLong(), id);
        const CompileResult r = compiled.first().at(1).value<CompileResult>();
        QVERIFY2(r.ok, qPrintable(r.log));
        QVERIFY(r.findKernel(QStringLiteral("saxpy")));
    }

    void cliCompilesInTheRunnerWithoutNvrtcHere() {
        const test::LoopbackSsh* ssh = requireSsh();
        if (!ssh)
            return;
        // KERNELPAD_NO_NVRTC=1 plays a laptop without the toolkit: compile goes to --runner.
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KERNELPAD_NO_NVRTC"), QStringLiteral("1"));
        env.remove(QStringLiteral("KERNELPAD_RUNNER_SPEC"));
        cli.setProcessEnvironment(env);
        const QString examples = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
        // The CLI syntax has no ssh options: the loopback host's config comes through a
        // command runner that calls ssh with it.
        const RunnerSpec s = ssh->spec(QStringLiteral(KERNELPAD_CLI_PATH));
        QString program, error;
        QStringList arguments;
        QVERIFY(s.command(QString(), &program, &arguments, &error));
        const QString runner =
            QStringLiteral("cmd:") + program + QLatin1Char(' ') + arguments.join(QLatin1Char(' '));
        cli.start(QStringLiteral(KERNELPAD_CLI_PATH),
                  {QStringLiteral("compile"), examples + QStringLiteral("/saxpy.kpad"),
                   QStringLiteral("--json"), QStringLiteral("--runner"), runner});
        QVERIFY(cli.waitForFinished(60000));
        const QByteArray out = cli.readAllStandardOutput();
        QVERIFY2(cli.exitCode() == 0, out.constData());
        QVERIFY2(out.contains("\"saxpy\""), out.constData());
        // Without a runner elsewhere it says what is missing.
        cli.start(QStringLiteral(KERNELPAD_CLI_PATH),
                  {QStringLiteral("compile"), examples + QStringLiteral("/saxpy.kpad")});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 4);
        QVERIFY(cli.readAllStandardError().contains("no --runner elsewhere"));
    }

    void aKilledConnectionEndsTheRunAndTheNextReconnects() {
        const test::LoopbackSsh* ssh = requireSsh();
        if (!ssh)
            return;
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(ssh->spec(QStringLiteral(KERNELPAD_CLI_PATH)), &error));
        (void)devicesError(client); // connected, hello seen
        const qint64 sshPid = client.runnerPid();
        QVERIFY(sshPid > 0);
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        QSignalSpy restarted(&client, &RunnerClient::runnerRestarted);
        client.run(1, test::exampleRequest(QStringLiteral("saxpy.kpad")));
        // The network goes: ssh dies while the runner compiles.
        ::kill(pid_t(sshPid), SIGKILL);
        const RunResult r = waitForResult(finished);
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(r.error.contains(QLatin1String("stopped unexpectedly while running 'saxpy'")),
                 qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String("A fresh runner will serve the next run")),
                 qPrintable(r.error));
        QCOMPARE(restarted.size(), 1);

        client.run(2, test::exampleRequest(QStringLiteral("saxpy.kpad")));
        const RunResult again = waitForResult(finished);
        QVERIFY2(again.compile.ok, qPrintable(again.error));
        QCOMPARE(client.startCount(), 2);
        QVERIFY(client.runnerPid() != sshPid);
    }

    void aMissingRemoteBinarySaysInstallOrGiveThePath() {
        const test::LoopbackSsh* ssh = requireSsh();
        if (!ssh)
            return;
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(ssh->spec(QStringLiteral("/nonexistent/kernelpad-cli")), &error));
        const QString why = devicesError(client);
        QVERIFY2(why.contains(QLatin1String("ended before its hello")), qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("/nonexistent/kernelpad-cli")), qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("install KernelPad on kp-loopback or give the path")),
                 qPrintable(why));
        // A run gets the same message, as a failed run.
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(3, test::exampleRequest(QStringLiteral("saxpy.kpad")));
        const RunResult r = waitForResult(finished);
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(r.error.contains(QLatin1String("give the path")), qPrintable(r.error));
    }

    void anOldRunnerSaysWhichSideToUpdate() {
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(
            scriptRunner(QStringLiteral("old-box"),
                         // The versions are checked before the folder is looked at.
                         QStringLiteral("printf '{\"type\":\"hello\",\"version\":%1,"
                                        "\"kernelpad\":\"0.0.1\",\"pid\":1,"
                                        "\"outputDir\":\"/tmp/kernelpad-runner-old\"}\\n'\n"
                                        "exec cat >/dev/null")
                             .arg(kRunnerProtocolVersion)),
            &error));
        const QString why = devicesError(client);
        QVERIFY2(why.contains(QStringLiteral("the runner of old-box is KernelPad 0.0.1 (protocol "
                                             "%1); this KernelPad is %2 (protocol %1): update "
                                             "kernelpad-cli on old-box")
                                  .arg(kRunnerProtocolVersion)
                                  .arg(kernelpadVersion())),
                 qPrintable(why));
    }

    void aGreetingInsteadOfAHelloIsQuoted() {
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(scriptRunner(QStringLiteral("cluster"),
                                            QStringLiteral("echo Welcome to the cluster; exec cat "
                                                           ">/dev/null")),
                               &error));
        const QString why = devicesError(client);
        QVERIFY2(why.contains(QLatin1String("printed \"Welcome to the cluster\" instead of its "
                                            "hello")),
                 qPrintable(why));
    }

    void aMissingCommandSaysSo() {
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(scriptRunner(QStringLiteral("lab"),
                                            QStringLiteral("kernelpad-cli-not-installed serve")),
                               &error));
        const QString why = devicesError(client);
        QVERIFY2(why.contains(QLatin1String("ended before its hello (it exited with code 127)")),
                 qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("not found")), qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("give the full path of kernelpad-cli")),
                 qPrintable(why));
    }

    void anUnreachableHostSaysWhatToTry() {
        if (!QFileInfo::exists(QStringLiteral("/usr/bin/ssh")))
            QSKIP("ssh is missing (Debian: apt-get install openssh-client)");
        RunnerSpec s;
        s.kind = RunnerSpec::Kind::Ssh;
        s.host = QStringLiteral("127.0.0.1");
        s.port = 1; // nothing listens there
        s.sshOptions = {QStringLiteral("-F"), QStringLiteral("/dev/null")};
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(s, &error));
        const QString why = devicesError(client);
        QVERIFY2(why.contains(QLatin1String("Connection refused")), qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("check that `ssh -o BatchMode=yes 127.0.0.1 true` "
                                            "works in a terminal; add your key with ssh-copy-id")),
                 qPrintable(why));
    }

    void aSilentRunnerMeetsItsHelloLimit() {
        RunnerSpec s = scriptRunner(QStringLiteral("queue"), QStringLiteral("exec sleep 30"));
        s.helloLimitMs = 300;
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(s, &error));
        const QString why = devicesError(client);
        QVERIFY2(why.contains(QLatin1String("did not say hello within 0.3 s")), qPrintable(why));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSshRunner)
} // namespace tst_sshrunner
#include "tst_sshrunner.moc"
