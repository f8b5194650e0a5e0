// RunnerSpec: the CLI syntax, the settings' JSON, the command each kind runs, and the messages a
// runner that cannot be used gets (no runner process needed).

#include "../support/TestMain.h"
#include "core/project/RunnerSpec.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerHello.h"

#include <QJsonDocument>
#include <QTest>

namespace tst_runnerspec {

using namespace kernelpad;

class TestRunnerSpec : public QObject {
    Q_OBJECT
private slots:
    void parsesLocal() {
        QString error;
        const std::optional<RunnerSpec> s = RunnerSpec::parse(QStringLiteral("local"), &error);
        QVERIFY2(s, qPrintable(error));
        QVERIFY(s->isLocal());
        QCOMPARE(s->displayName(), QStringLiteral("this computer"));
        QString program;
        QStringList arguments;
        QVERIFY(s->command(QStringLiteral("/opt/kp/kernelpad-cli"), &program, &arguments, &error));
        QCOMPARE(program, QStringLiteral("/opt/kp/kernelpad-cli"));
        QCOMPARE(arguments, QStringList{QStringLiteral("serve")});
    }

    void parsesSsh_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("path");
        QTest::newRow("host") << "ssh:gpu-box"
                              << ""
                              << "gpu-box" << 0 << "";
        QTest::newRow("user") << "ssh:ana@gpu-box"
                              << "ana"
                              << "gpu-box" << 0 << "";
        QTest::newRow("port") << "ssh:gpu-box:2222"
                              << ""
                              << "gpu-box" << 2222 << "";
        QTest::newRow("all") << "ssh:ana@10.0.0.7:22/opt/kp/bin/kernelpad-cli"
                             << "ana"
                             << "10.0.0.7" << 22 << "/opt/kp/bin/kernelpad-cli";
        QTest::newRow("path") << "ssh:gpu-box/home/ana/kernelpad-cli"
                              << ""
                              << "gpu-box" << 0 << "/home/ana/kernelpad-cli";
    }
    void parsesSsh() {
        QFETCH(QString, text);
        QFETCH(QString, user);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(QString, path);
        QString error;
        const std::optional<RunnerSpec> s = RunnerSpec::parse(text, &error);
        QVERIFY2(s, qPrintable(error));
        QCOMPARE(s->kind, RunnerSpec::Kind::Ssh);
        QCOMPARE(s->user, user);
        QCOMPARE(s->host, host);
        QCOMPARE(s->port, port);
        QCOMPARE(s->remotePath, path);
        QCOMPARE(s->toText(), text);
        QCOMPARE(RunnerSpec::parse(s->toText(), &error).value(), *s);
    }

    void sshCommandNeverPrompts() {
        RunnerSpec s;
        s.kind = RunnerSpec::Kind::Ssh;
        s.host = QStringLiteral("gpu-box");
        s.user = QStringLiteral("ana");
        s.port = 2222;
        s.sshOptions = {QStringLiteral("-F"), QStringLiteral("/tmp/config")};
        QString program, error;
        QStringList arguments;
        QVERIFY(s.command(QStringLiteral("/local/kernelpad-cli"), &program, &arguments, &error));
        QCOMPARE(program, QStringLiteral("ssh"));
        const QStringList expected{
            "-o",   "BatchMode=yes",         "-o",          "ServerAliveInterval=5",
            "-o",   "ServerAliveCountMax=3", "-p",          "2222",
            "-F",   "/tmp/config",           "ana@gpu-box", "kernelpad-cli",
            "serve"};
        QCOMPARE(arguments, expected);
        s.remotePath = QStringLiteral("/opt/kp/kernelpad-cli");
        QVERIFY(s.command(QString(), &program, &arguments, &error));
        QCOMPARE(arguments.at(arguments.size() - 2), QStringLiteral("/opt/kp/kernelpad-cli"));
        QCOMPARE(s.displayName(), QStringLiteral("gpu-box"));
        QCOMPARE(s.effectiveHelloLimitMs(), RunnerSpec::kSshHelloLimitMs);
    }

    void parsesCommand() {
        QString error;
        const std::optional<RunnerSpec> s = RunnerSpec::parse(
            QStringLiteral("cmd:srun --gpus=1 --time=00:30:00 \"my dir/kernelpad-cli\" serve"),
            &error);
        QVERIFY2(s, qPrintable(error));
        QCOMPARE(s->kind, RunnerSpec::Kind::Command);
        QString program;
        QStringList arguments;
        QVERIFY(s->command(QString(), &program, &arguments, &error));
        QCOMPARE(program, QStringLiteral("srun"));
        QCOMPARE(arguments,
                 (QStringList{"--gpus=1", "--time=00:30:00", "my dir/kernelpad-cli", "serve"}));
        QCOMPARE(s->displayName(), QStringLiteral("srun"));
        // A batch queue may take minutes before the runner starts.
        QCOMPARE(s->effectiveHelloLimitMs(), RunnerSpec::kCommandHelloLimitMs);
        QVERIFY(s->effectiveHelloLimitMs() > RunnerSpec::kSshHelloLimitMs);
    }

    void parseErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("kind") << "gpu-box"
                              << "unknown kind of runner";
        QTest::newRow("empty") << ""
                               << "unknown kind of runner";
        QTest::newRow("no host") << "ssh:"
                                 << "the host is empty";
        QTest::newRow("no host, user") << "ssh:ana@"
                                       << "the host is empty";
        QTest::newRow("no user") << "ssh:@gpu-box"
                                 << "the user before '@' is empty";
        QTest::newRow("port text") << "ssh:gpu-box:ssh"
                                   << "the port 'ssh' is not a number";
        QTest::newRow("port 0") << "ssh:gpu-box:0"
                                << "the port '0' is not a number";
        QTest::newRow("port big") << "ssh:gpu-box:70000"
                                  << "the port '70000' is not a number";
        QTest::newRow("option host") << "ssh:-oProxyCommand=x"
                                     << "is not a host name";
        QTest::newRow("two users") << "ssh:a@b@c"
                                   << "is not a host name";
        QTest::newRow("empty command") << "cmd:   "
                                       << "the command line is empty";
    }
    void parseErrors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!RunnerSpec::parse(text, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY2(error.startsWith(QStringLiteral("--runner '%1'").arg(text)), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("ssh:[user@]host[:port]")), qPrintable(error));
    }

    void jsonRoundTrips() {
        QString error;
        QVector<RunnerSpec> specs{RunnerSpec::local()};
        RunnerSpec ssh;
        ssh.kind = RunnerSpec::Kind::Ssh;
        ssh.name = QStringLiteral("lab");
        ssh.host = QStringLiteral("gpu-box");
        ssh.user = QStringLiteral("ana");
        ssh.port = 2200;
        ssh.sshOptions = {QStringLiteral("-J"), QStringLiteral("bastion")};
        ssh.remotePath = QStringLiteral("/opt/kp/kernelpad-cli");
        ssh.helloLimitMs = 45000;
        ssh.keepBeyondBytes = qint64(300) << 20;
        specs << ssh;
        RunnerSpec cmd;
        cmd.kind = RunnerSpec::Kind::Command;
        cmd.commandLine = QStringLiteral("srun --gpus=1 kernelpad-cli serve");
        specs << cmd;
        for (const RunnerSpec& s : specs) {
            const QByteArray text = QJsonDocument(s.toJson()).toJson();
            const std::optional<RunnerSpec> back =
                RunnerSpec::fromJson(QJsonDocument::fromJson(text).object(), &error);
            QVERIFY2(back, qPrintable(error));
            QCOMPARE(*back, s);
        }
        QCOMPARE(ssh.displayName(), QStringLiteral("lab"));
        QCOMPARE(ssh.effectiveHelloLimitMs(), 45000);
        QCOMPARE(ssh.toJson().value(QStringLiteral("keepBeyondBytes")).toDouble(),
                 double(qint64(300) << 20));
        // A zero keep limit (every output stays on the runner) is kept, not taken as the default.
        RunnerSpec none = ssh;
        none.keepBeyondBytes = 0;
        const std::optional<RunnerSpec> back = RunnerSpec::fromJson(none.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->keepBeyondBytes, qint64(0));
    }

    void settingsWithoutTheLimitsStillLoad() {
        if (qEnvironmentVariableIsSet("KERNELPAD_STREAM_KEEP_BYTES"))
            QSKIP("$KERNELPAD_STREAM_KEEP_BYTES overrides the keep limit");
        // As saved before the limits were fields of a runner.
        const QByteArray old = R"({"kind":"ssh","name":"lab","host":"gpu-box"})";
        QString error;
        const std::optional<RunnerSpec> s =
            RunnerSpec::fromJson(QJsonDocument::fromJson(old).object(), &error);
        QVERIFY2(s, qPrintable(error));
        QCOMPARE(s->helloLimitMs, 0);
        QCOMPARE(s->keepBeyondBytes, qint64(-1));
        QCOMPARE(s->effectiveHelloLimitMs(), RunnerSpec::kSshHelloLimitMs);
        QCOMPARE(s->effectiveKeepBeyondBytes(), kDefaultKeepBeyondBytes);
        QVERIFY(!s->toJson().contains(QStringLiteral("keepBeyondBytes")));
        QVERIFY(!s->toJson().contains(QStringLiteral("helloLimitMs")));
        QCOMPARE(s->helloLimitText(), QString());
        QCOMPARE(s->keepLimitText(), QString());
    }

    void theEnvironmentOverridesTheKeepLimit() {
        RunnerSpec s;
        s.keepBeyondBytes = qint64(1) << 30;
        qputenv("KERNELPAD_STREAM_KEEP_BYTES", "1234");
        const qint64 overridden = s.effectiveKeepBeyondBytes();
        qunsetenv("KERNELPAD_STREAM_KEEP_BYTES");
        QCOMPARE(overridden, qint64(1234));
        QCOMPARE(s.effectiveKeepBeyondBytes(), qint64(1) << 30);
    }

    void limitFieldsReadTheirText_data() {
        QTest::addColumn<QString>("hello");
        QTest::addColumn<QString>("keep");
        QTest::addColumn<int>("helloMs");
        QTest::addColumn<qint64>("keepBytes");
        QTest::addColumn<QString>("message");
        QTest::newRow("defaults") << ""
                                  << "" << 0 << qint64(-1) << "";
        QTest::newRow("slurm queue") << "900"
                                     << "512" << 900000 << (qint64(512) << 20) << "";
        QTest::newRow("fractions") << " 2.5 "
                                   << "0.5" << 2500 << (qint64(1) << 19) << "";
        QTest::newRow("keep nothing") << "0"
                                      << "0" << 0 << qint64(0) << "";
        QTest::newRow("hello not a number") << "soon"
                                            << "" << 0 << qint64(-1) << "Hello time limit: 'soon'";
        QTest::newRow("hello negative") << "-5"
                                        << "" << 0 << qint64(-1) << "Hello time limit";
        QTest::newRow("hello over a day") << "90000"
                                          << "" << 0 << qint64(-1) << "and 86400";
        QTest::newRow("keep not a number")
            << ""
            << "lots" << 0 << qint64(-1) << "Keep outputs larger than: 'lots'";
        QTest::newRow("keep negative") << ""
                                       << "-1" << 0 << qint64(-1) << "Keep outputs larger";
        QTest::newRow("keep beyond 1 TiB") << ""
                                           << "2000000" << 0 << qint64(-1) << "between 0";
    }
    void limitFieldsReadTheirText() {
        QFETCH(QString, hello);
        QFETCH(QString, keep);
        QFETCH(int, helloMs);
        QFETCH(qint64, keepBytes);
        QFETCH(QString, message);
        RunnerSpec s;
        s.kind = RunnerSpec::Kind::Command;
        s.commandLine = QStringLiteral("srun kernelpad-cli serve");
        QString error;
        const bool ok = s.setHelloLimitText(hello, &error) && s.setKeepLimitText(keep, &error);
        QCOMPARE(ok, message.isEmpty());
        if (!ok) {
            QVERIFY2(error.contains(message), qPrintable(error));
            return;
        }
        QCOMPARE(s.helloLimitMs, helloMs);
        QCOMPARE(s.keepBeyondBytes, keepBytes);
        QVERIFY(s.validate().isEmpty());
        // The fields show what they read, and read it back the same.
        RunnerSpec again = s;
        QVERIFY(again.setHelloLimitText(s.helloLimitText(), &error));
        QVERIFY(again.setKeepLimitText(s.keepLimitText(), &error));
        QCOMPARE(again, s);
    }

    void jsonErrors_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("no kind") << QByteArray(R"({"host":"x"})") << "runner.kind";
        QTest::newRow("bad kind") << QByteArray(R"({"kind":"telnet"})") << "runner.kind";
        QTest::newRow("no host") << QByteArray(R"({"kind":"ssh"})") << "runner.host";
        QTest::newRow("empty host")
            << QByteArray(R"({"kind":"ssh","host":""})") << "the ssh host is empty";
        QTest::newRow("port") << QByteArray(R"({"kind":"ssh","host":"h","port":99999})")
                              << "runner.port";
        QTest::newRow("options") << QByteArray(R"({"kind":"ssh","host":"h","sshOptions":[1]})")
                                 << "runner.sshOptions";
        QTest::newRow("no command") << QByteArray(R"({"kind":"command"})") << "runner.command";
        QTest::newRow("empty command")
            << QByteArray(R"({"kind":"command","command":" "})") << "the command line is empty";
        QTest::newRow("hello limit")
            << QByteArray(R"({"kind":"local","helloLimitMs":-1})") << "runner.helloLimitMs";
        QTest::newRow("hello limit over a day")
            << QByteArray(R"({"kind":"local","helloLimitMs":90000000})") << "runner.helloLimitMs";
        QTest::newRow("keep limit negative")
            << QByteArray(R"({"kind":"ssh","host":"h","keepBeyondBytes":-2})")
            << "runner.keepBeyondBytes";
        QTest::newRow("keep limit not a number")
            << QByteArray(R"({"kind":"ssh","host":"h","keepBeyondBytes":"64M"})")
            << "runner.keepBeyondBytes";
        QTest::newRow("keep limit fractional")
            << QByteArray(R"({"kind":"ssh","host":"h","keepBeyondBytes":1.5})")
            << "runner.keepBeyondBytes";
    }
    void jsonErrors() {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!RunnerSpec::fromJson(QJsonDocument::fromJson(json).object(), &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void environment() {
        QString error;
        qunsetenv("KERNELPAD_RUNNER_SPEC");
        QVERIFY(!RunnerSpec::fromEnvironment(&error));
        QVERIFY(error.isEmpty());
        qputenv("KERNELPAD_RUNNER_SPEC", "ssh:gpu-box:2222");
        const std::optional<RunnerSpec> s = RunnerSpec::fromEnvironment(&error);
        QVERIFY2(s, qPrintable(error));
        QCOMPARE(s->port, 2222);
        qputenv("KERNELPAD_RUNNER_SPEC", "gpu-box");
        QVERIFY(!RunnerSpec::fromEnvironment(&error));
        QVERIFY2(error.startsWith(QLatin1String("$KERNELPAD_RUNNER_SPEC: --runner 'gpu-box'")),
                 qPrintable(error));
        qunsetenv("KERNELPAD_RUNNER_SPEC");
    }

    void versionMismatchSaysWhichSideToUpdate() {
        RunnerSpec s;
        s.kind = RunnerSpec::Kind::Ssh;
        s.host = QStringLiteral("gpu-box");
        QVERIFY(describeVersionMismatch(s, kRunnerProtocolVersion, kernelpadVersion()).isEmpty());
        const QString older =
            describeVersionMismatch(s, kRunnerProtocolVersion - 1, QStringLiteral("0.0.1"));
        QCOMPARE(older, QStringLiteral("the runner on gpu-box is KernelPad 0.0.1 (protocol %1); "
                                       "this KernelPad is %2 (protocol %3): update kernelpad-cli "
                                       "on gpu-box")
                            .arg(kRunnerProtocolVersion - 1)
                            .arg(kernelpadVersion())
                            .arg(kRunnerProtocolVersion));
        const QString newer =
            describeVersionMismatch(s, kRunnerProtocolVersion + 1, QStringLiteral("99.0"));
        QVERIFY2(newer.endsWith(QLatin1String(": update this KernelPad")), qPrintable(newer));
        // Same protocol, another release: the release decides.
        QVERIFY(describeVersionMismatch(s, kRunnerProtocolVersion, QStringLiteral("99.0"))
                    .endsWith(QLatin1String("update this KernelPad")));
        QVERIFY(describeVersionMismatch(s, kRunnerProtocolVersion, QStringLiteral("0.0.1"))
                    .endsWith(QLatin1String("update kernelpad-cli on gpu-box")));
        // A runner from before the release was sent.
        const QString unknown = describeVersionMismatch(s, kRunnerProtocolVersion, QString());
        QVERIFY2(unknown.contains(QLatin1String("is an older KernelPad")), qPrintable(unknown));
        QVERIFY(unknown.endsWith(QLatin1String("update kernelpad-cli on gpu-box")));
    }

    void startFailuresSayWhatToTry() {
        RunnerSpec s;
        s.kind = RunnerSpec::Kind::Ssh;
        s.host = QStringLiteral("gpu-box");
        s.user = QStringLiteral("ana");
        QString m = describeRunnerStartFailure(s, QStringLiteral("it exited with code 255"),
                                               QStringLiteral("ana@gpu-box: Permission denied "
                                                              "(publickey)."),
                                               QString());
        QVERIFY2(m.contains(QLatin1String("ended before its hello (it exited with code 255)")),
                 qPrintable(m));
        QVERIFY2(m.contains(QLatin1String("Permission denied (publickey)")), qPrintable(m));
        QVERIFY2(m.contains(QLatin1String("check that `ssh -o BatchMode=yes ana@gpu-box true` "
                                          "works in a terminal; add your key with ssh-copy-id "
                                          "ana@gpu-box")),
                 qPrintable(m));
        m = describeRunnerStartFailure(
            s, QStringLiteral("it exited with code 255"),
            QStringLiteral("ssh: Could not resolve hostname gpu-box: Name or service not known"),
            QString());
        QVERIFY2(m.contains(QLatin1String("ssh-copy-id")), qPrintable(m));
        m = describeRunnerStartFailure(s, QStringLiteral("it exited with code 127"),
                                       QStringLiteral("bash: line 1: kernelpad-cli: command not "
                                                      "found"),
                                       QString());
        QVERIFY2(m.contains(QLatin1String("kernelpad-cli was not found on gpu-box: install "
                                          "KernelPad on gpu-box or give the path")),
                 qPrintable(m));
        // What it printed instead of a hello is quoted.
        m = describeRunnerStartFailure(s, QString(), QString(),
                                       QStringLiteral("Welcome to gpu-box!"));
        QVERIFY2(m.contains(QLatin1String("printed \"Welcome to gpu-box!\" instead of its hello")),
                 qPrintable(m));
        // Its standard error is bounded.
        m = describeRunnerStartFailure(s, QStringLiteral("it crashed"),
                                       QString(100000, QLatin1Char('x')), QString());
        QVERIFY(m.size() < 3000);
        RunnerSpec cmd;
        cmd.kind = RunnerSpec::Kind::Command;
        cmd.commandLine = QStringLiteral("srun --gpus=1 kernelpad-cli serve");
        m = describeRunnerStartFailure(cmd, QStringLiteral("it exited with code 1"),
                                       QStringLiteral("srun: error: invalid partition"), QString());
        QVERIFY2(m.contains(QLatin1String("check that `srun --gpus=1 kernelpad-cli serve` prints "
                                          "a hello line")),
                 qPrintable(m));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestRunnerSpec)
} // namespace tst_runnerspec
#include "tst_runnerspec.moc"
