// Warm runners kept between commands (kernelpad-cli runners, core/runner/WarmRunnerDaemon.h):
// a daemon in a temporary XDG_RUNTIME_DIR answers status, wait and stop; attach gets a spare
// (the hello's pid is the spare's) or, when the only spare is taken or its environment differs,
// becomes the cold runner itself (the hello's pid is its own); killing attach kills its spare;
// a spare's exit code becomes attach's; a private folder that is a link or of mode 0755 is
// refused with the sentence (and one of another user's, as root); the idle time and SIGTERM
// end the daemon and its spares; a RunnerClient through attach gets
// its answer as from a cold runner. Without a driver a spare still says hello and is ready.

#include "core/runner/RunnerClient.h"
#include "core/runner/WarmRunnerWire.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

#include <sys/stat.h>
#include <unistd.h>

namespace tst_warmrunners {

using namespace kernelpad;

namespace {

struct Cli {
    int exitCode = -1;
    QString out;
    QString err;
};

/// One hello line from `p`'s stdout, parsed; empty after `timeoutMs`.
QJsonObject readHello(QProcess& p, int timeoutMs = 20000) {
    while (!p.canReadLine())
        if (!p.waitForReadyRead(timeoutMs))
            return {};
    return QJsonDocument::fromJson(p.readLine()).object();
}

bool alive(qint64 pid) {
    return ::kill(pid_t(pid), 0) == 0;
}

} // namespace

class TestWarmRunners : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QProcessEnvironment m_env;

    [[nodiscard]] QString folder() const {
        return m_dir.path() + QStringLiteral("/kernelpad-runners");
    }

    Cli cli(const QStringList& args, const QProcessEnvironment& env) const {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(KERNELPAD_CLI_PATH), args);
        if (!p.waitForFinished(60000))
            qFatal("kernelpad-cli %s did not finish", qPrintable(args.join(' ')));
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }
    Cli cli(const QStringList& args) const { return cli(args, m_env); }

    /// The daemon's status, or an empty object when none answers.
    QJsonObject status() const {
        const Cli s =
            cli({QStringLiteral("runners"), QStringLiteral("status"), QStringLiteral("--json")});
        const QJsonObject o = QJsonDocument::fromJson(s.out.toUtf8()).object();
        return o.value(QStringLiteral("running")).toBool() ? o : QJsonObject();
    }

    /// Starts the daemon with `args` and waits for its spares; false (with the output) if not.
    bool startAndWait(const QStringList& args, const QProcessEnvironment& env) const {
        const Cli start =
            cli(QStringList{QStringLiteral("runners"), QStringLiteral("start")} + args, env);
        if (start.exitCode != 0) {
            qWarning("runners start: %s%s", qPrintable(start.out), qPrintable(start.err));
            return false;
        }
        const Cli wait = cli({QStringLiteral("runners"), QStringLiteral("wait"),
                              QStringLiteral("--timeout"), QStringLiteral("30")},
                             env);
        if (wait.exitCode != 0)
            qWarning("runners wait: %s", qPrintable(wait.err));
        return wait.exitCode == 0;
    }

    void startAttach(QProcess& p, const QProcessEnvironment& env) const {
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("attach")});
        QVERIFY(p.waitForStarted());
    }

private slots:
    void init() {
        QVERIFY(m_dir.isValid());
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert(QStringLiteral("XDG_RUNTIME_DIR"), m_dir.path());
        m_env.remove(QStringLiteral("KERNELPAD_WARM_RUNNERS")); // the suite's "off"
        m_env.remove(QStringLiteral("KERNELPAD_TRACE"));
    }

    void cleanup() {
        (void)cli({QStringLiteral("runners"), QStringLiteral("stop")});
        QFile::remove(folder()); // a link left by a test
        QDir(folder()).removeRecursively();
    }

    void statusWaitStop() {
        QCOMPARE(cli({QStringLiteral("runners"), QStringLiteral("status")}).exitCode, 1);
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0"),
                              QStringLiteral("--spares"), QStringLiteral("2")},
                             m_env));
        const QJsonObject s = status();
        QVERIFY2(!s.isEmpty(), "the daemon does not answer status");
        QCOMPARE(s.value(QStringLiteral("ready")).toInt(), 2);
        QCOMPARE(s.value(QStringLiteral("warming")).toInt(), 0);
        QCOMPARE(s.value(QStringLiteral("warmDevices")).toString(), QStringLiteral("0"));
        QCOMPARE(s.value(QStringLiteral("socket")).toString(),
                 folder() + QStringLiteral("/socket"));
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(folder()).constData(), &st), 0);
        QCOMPARE(int(st.st_mode & 07777), 0700);
        const Cli text = cli({QStringLiteral("runners"), QStringLiteral("status")});
        QVERIFY2(text.out.contains(QStringLiteral("2 ready, 0 warming, 0 in use")),
                 qPrintable(text.out));
        QVERIFY(text.out.contains(QStringLiteral("about 0.5 GB of device memory")));
        const auto pid = qint64(s.value(QStringLiteral("pid")).toDouble());
        QCOMPARE(cli({QStringLiteral("runners"), QStringLiteral("stop")}).exitCode, 0);
        QVERIFY(!alive(pid));
        QCOMPARE(cli({QStringLiteral("runners"), QStringLiteral("status")}).exitCode, 1);
    }

    void aLargeLogIsMovedAsideAtTheNextStart() {
        // The log is appended at every start; one over warm::kLogRotateBytes becomes
        // daemon.log.1 (replacing the one before), a smaller one goes on.
        QVERIFY(QDir().mkpath(folder()));
        QVERIFY(QFile::setPermissions(folder(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                    QFileDevice::ExeOwner));
        const QString log = folder() + QStringLiteral("/daemon.log");
        const QByteArray old = QByteArray(int(warm::kLogRotateBytes), 'x') + "old session\n";
        for (const QString& path : {log, log + QStringLiteral(".1")}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.write(path == log ? old : QByteArray("the one before\n")) > 0);
        }
        const QStringList start{QStringLiteral("--devices"), QStringLiteral("0"),
                                QStringLiteral("--spares"), QStringLiteral("1")};
        QVERIFY(startAndWait(start, m_env));
        QCOMPARE(cli({QStringLiteral("runners"), QStringLiteral("stop")}).exitCode, 0);
        QFile moved(log + QStringLiteral(".1"));
        QVERIFY(moved.open(QIODevice::ReadOnly));
        QCOMPARE(moved.readAll(), old);
        const qint64 small = QFileInfo(log).size();
        QVERIFY2(small < 64 * 1024, qPrintable(QString::number(small)));
        // Under the limit: the next start appends.
        QVERIFY(startAndWait(start, m_env));
        QCOMPARE(cli({QStringLiteral("runners"), QStringLiteral("stop")}).exitCode, 0);
        QVERIFY(QFileInfo(log).size() >= small);
        moved.close();
        QVERIFY(moved.open(QIODevice::ReadOnly));
        QCOMPARE(moved.readAll(), old);
    }

    void attachTakesTheSpareThenFallsBackCold() {
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0"),
                              QStringLiteral("--spares"), QStringLiteral("1")},
                             m_env));
        QProcess first;
        startAttach(first, m_env);
        const QJsonObject hello = readHello(first);
        QCOMPARE(hello.value(QStringLiteral("type")).toString(), QStringLiteral("hello"));
        const auto spare = qint64(hello.value(QStringLiteral("pid")).toDouble());
        QVERIFY(spare > 0);
        QVERIFY2(spare != first.processId(), "the first attach was not given the spare");
        // The only spare is taken (and not replaced while it runs): the second starts cold.
        QProcess second;
        startAttach(second, m_env);
        const QJsonObject cold = readHello(second);
        QCOMPARE(qint64(cold.value(QStringLiteral("pid")).toDouble()), second.processId());
        QJsonObject s = status();
        QCOMPARE(s.value(QStringLiteral("attaches")).toInt(), 1);
        QCOMPARE(s.value(QStringLiteral("coldFallbacks")).toInt(), 1);
        QCOMPARE(s.value(QStringLiteral("inUse")).toInt(), 1);
        // The client closes its side: the spare ends, attach ends with its code, and only then
        // is a replacement started.
        first.closeWriteChannel();
        second.closeWriteChannel();
        QVERIFY(first.waitForFinished(20000));
        QCOMPARE(first.exitStatus(), QProcess::NormalExit);
        QCOMPARE(first.exitCode(), 0);
        QVERIFY(second.waitForFinished(20000));
        QVERIFY(cli({QStringLiteral("runners"), QStringLiteral("wait"), QStringLiteral("--timeout"),
                     QStringLiteral("30")})
                    .exitCode == 0);
        s = status();
        QCOMPARE(s.value(QStringLiteral("ready")).toInt(), 1);
        QCOMPARE(s.value(QStringLiteral("inUse")).toInt(), 0);
    }

    void anotherEnvironmentFallsBackCold() {
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0")}, m_env));
        QProcessEnvironment other = m_env;
        other.insert(QStringLiteral("KERNELPAD_STREAM_BUFFERS"), QStringLiteral("1"));
        QProcess p;
        startAttach(p, other);
        const QJsonObject hello = readHello(p);
        QCOMPARE(qint64(hello.value(QStringLiteral("pid")).toDouble()), p.processId());
        const QJsonObject s = status();
        QCOMPARE(s.value(QStringLiteral("coldFallbacks")).toInt(), 1);
        QVERIFY2(s.value(QStringLiteral("lastColdReason"))
                     .toString()
                     .contains(QStringLiteral("KERNELPAD_STREAM_BUFFERS")),
                 qPrintable(s.value(QStringLiteral("lastColdReason")).toString()));
        QCOMPARE(s.value(QStringLiteral("ready")).toInt(), 1); // the spare stays
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(20000));
    }

    void workingFolderMattersOnlyThroughRelativePaths() {
        // Requests name their project folder absolutely: another working folder still gets a
        // spare, unless a variable the runner reads is a path relative to it.
        const QString other = m_dir.path() + QStringLiteral("/other");
        QVERIFY(QDir().mkpath(other));
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0"),
                              QStringLiteral("--spares"), QStringLiteral("1")},
                             m_env));
        QProcess elsewhere;
        elsewhere.setWorkingDirectory(other);
        startAttach(elsewhere, m_env);
        QVERIFY(qint64(readHello(elsewhere).value(QStringLiteral("pid")).toDouble()) !=
                elsewhere.processId());
        elsewhere.closeWriteChannel();
        QVERIFY(elsewhere.waitForFinished(20000));
        QCOMPARE(cli({QStringLiteral("runners"), QStringLiteral("stop")}).exitCode, 0);

        QProcessEnvironment relative = m_env;
        relative.insert(QStringLiteral("KERNELPAD_CACHE_DIR"), QStringLiteral("cache/kp"));
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0")}, relative));
        QProcess p;
        p.setWorkingDirectory(other);
        startAttach(p, relative);
        QCOMPARE(qint64(readHello(p).value(QStringLiteral("pid")).toDouble()), p.processId());
        const QString why = status().value(QStringLiteral("lastColdReason")).toString();
        QVERIFY2(why.contains(QStringLiteral("KERNELPAD_CACHE_DIR is a relative path")),
                 qPrintable(why));
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(20000));
    }

    void killingAttachKillsItsSpare() {
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0")}, m_env));
        QProcess p;
        startAttach(p, m_env);
        const auto spare = qint64(readHello(p).value(QStringLiteral("pid")).toDouble());
        QVERIFY(spare > 0 && spare != p.processId());
        QVERIFY(alive(spare));
        p.kill(); // what RunnerConnection does on a cancel or its watchdog
        QVERIFY(p.waitForFinished(5000));
        QTRY_VERIFY_WITH_TIMEOUT(!alive(spare), 10000);
    }

    void spareExitCodeAndSignalBecomeAttachs() {
        // A stand-in spare: ready, hello, then it exits 3 after one line of input.
        const QString script = m_dir.path() + QStringLiteral("/spare.sh");
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\n"
                "echo 'kernelpad-warm: ready {\"devices\":[]}' >&2\n"
                "echo \"{\\\"type\\\":\\\"hello\\\",\\\"pid\\\":$$}\"\n"
                "read line\n"
                "echo \"ending: $line\" >&2\n"
                "exit 3\n");
        f.close();
        QVERIFY(QFile::setPermissions(script, QFile::ReadOwner | QFile::ExeOwner));
        QProcessEnvironment env = m_env;
        env.insert(QStringLiteral("KERNELPAD_WARM_SPARE_COMMAND"), script);
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0"),
                              QStringLiteral("--spares"), QStringLiteral("1")},
                             env));
        QProcess p;
        startAttach(p, m_env);
        const auto spare = qint64(readHello(p).value(QStringLiteral("pid")).toDouble());
        QVERIFY(spare > 0 && spare != p.processId());
        p.write("bye\n");
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 3);
        QVERIFY(
            QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("ending: bye")));
        // A spare killed by a signal: attach dies of the same signal.
        QVERIFY(cli({QStringLiteral("runners"), QStringLiteral("wait"), QStringLiteral("--timeout"),
                     QStringLiteral("30")})
                    .exitCode == 0);
        QProcess q;
        startAttach(q, m_env);
        const auto next = qint64(readHello(q).value(QStringLiteral("pid")).toDouble());
        QVERIFY(next > 0 && next != q.processId());
        QCOMPARE(::kill(pid_t(next), SIGTERM), 0);
        QVERIFY(q.waitForFinished(20000));
        QCOMPARE(q.exitStatus(), QProcess::CrashExit);
    }

    void refusedFolder_data() {
        QTest::addColumn<bool>("link");
        QTest::addColumn<QString>("sentence");
        QTest::newRow("a symbolic link") << true << QStringLiteral("it is a symbolic link");
        QTest::newRow("mode 0755") << false << QStringLiteral("its mode is 0755, not 0700");
    }

    void folderOfAnotherUserRefused() {
        // Only root can give a folder away; elsewhere the two rows above cover the check.
        if (::geteuid() != 0)
            QSKIP("chown to another user needs root");
        QVERIFY(::mkdir(QFile::encodeName(folder()).constData(), 0700) == 0);
        QCOMPARE(::chown(QFile::encodeName(folder()).constData(), 65534, 65534), 0);
        const Cli start = cli({QStringLiteral("runners"), QStringLiteral("start")});
        QCOMPARE(start.exitCode, 1);
        QVERIFY2(start.err.contains(QStringLiteral("is refused: it belongs to user id 65534")),
                 qPrintable(start.err));
        QVERIFY(!QFile::exists(folder() + QStringLiteral("/socket")));
    }

    void terminateEndsTheDaemonAndItsSpares() {
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0")}, m_env));
        QProcess p;
        startAttach(p, m_env);
        const auto spare = qint64(readHello(p).value(QStringLiteral("pid")).toDouble());
        QVERIFY(spare > 0 && spare != p.processId());
        const auto daemon = qint64(status().value(QStringLiteral("pid")).toDouble());
        QVERIFY(daemon > 0);
        QCOMPARE(::kill(pid_t(daemon), SIGTERM), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!alive(daemon), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!alive(spare), 10000);
        // Its runner ended: so does attach (the waits above may have seen it end already).
        QVERIFY(p.state() == QProcess::NotRunning || p.waitForFinished(10000));
        QVERIFY(!QFile::exists(folder() + QStringLiteral("/socket")));
    }

    void refusedFolder() {
        QFETCH(bool, link);
        QFETCH(QString, sentence);
        const QString target = m_dir.path() + QStringLiteral("/elsewhere");
        QVERIFY(QDir().mkpath(target));
        QVERIFY(::chmod(QFile::encodeName(target).constData(), 0700) == 0);
        if (link)
            QVERIFY(QFile::link(target, folder()));
        else
            QVERIFY(::mkdir(QFile::encodeName(folder()).constData(), 0755) == 0 &&
                    ::chmod(QFile::encodeName(folder()).constData(), 0755) == 0);
        const Cli start = cli({QStringLiteral("runners"), QStringLiteral("start")});
        QCOMPARE(start.exitCode, 1);
        QVERIFY2(start.err.contains(QStringLiteral("is refused: ") + sentence),
                 qPrintable(start.err));
        QVERIFY(!QFile::exists(target + QStringLiteral("/socket")));
        const Cli state = cli({QStringLiteral("runners"), QStringLiteral("status")});
        QCOMPARE(state.exitCode, 1);
        QVERIFY2(state.out.contains(sentence), qPrintable(state.out));
        // A local runner is then the cold one, as without warm runners.
        QProcess p;
        startAttach(p, m_env);
        QCOMPARE(qint64(readHello(p).value(QStringLiteral("pid")).toDouble()), p.processId());
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(20000));
    }

    void idleTimeEndsTheDaemon() {
        QProcessEnvironment env = m_env;
        env.insert(QStringLiteral("KERNELPAD_WARM_IDLE_SECONDS"), QStringLiteral("2"));
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0")}, env));
        const QJsonObject s = status();
        QVERIFY(!s.isEmpty());
        QVERIFY(s.value(QStringLiteral("idleSecondsLeft")).toDouble() <= 2.0);
        const auto pid = qint64(s.value(QStringLiteral("pid")).toDouble());
        QTRY_VERIFY_WITH_TIMEOUT(!alive(pid), 15000);
        QVERIFY(!QFile::exists(folder() + QStringLiteral("/socket")));
    }

    void runnerClientThroughAttach() {
        // This process's local runner is attach once the daemon's socket is there.
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_dir.path()));
        const QByteArray off = qgetenv("KERNELPAD_WARM_RUNNERS");
        qunsetenv("KERNELPAD_WARM_RUNNERS");
        QVERIFY(startAndWait({QStringLiteral("--devices"), QStringLiteral("0")}, m_env));
        {
            RunnerClient client;
            QSignalSpy finished(&client, &RunnerClient::runFinished);
            QString error;
            const QString dir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
            std::optional<Project> project =
                Project::load(dir + QStringLiteral("/saxpy.kpad"), &error);
            QVERIFY2(project, qPrintable(error));
            RunRequest request;
            request.project = *project;
            request.projectDir = dir;
            client.run(1, request);
            QVERIFY(finished.wait(60000));
            const RunResult r = finished.takeFirst().at(1).value<RunResult>();
            QVERIFY2(r.compile.ok, qPrintable(r.error));
            // As a cold runner answers: compile-only without a driver, a run with one.
            QVERIFY2(r.status == RunStatus::DriverUnavailable || r.status == RunStatus::Ok,
                     qPrintable(r.error));
            const QJsonObject s = status();
            QCOMPARE(s.value(QStringLiteral("attaches")).toInt(), 1);
            QCOMPARE(s.value(QStringLiteral("coldFallbacks")).toInt(), 0);
        }
        qputenv("KERNELPAD_WARM_RUNNERS", off);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestWarmRunners)

} // namespace tst_warmrunners

#include "tst_warmrunners.moc"
