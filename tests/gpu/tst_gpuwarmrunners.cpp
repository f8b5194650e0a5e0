// Warm runners on a GPU (kernelpad-cli runners, core/runner/WarmRunnerDaemon.h): with a daemon
// warming device 0, `kernelpad-cli run` of saxpy and a sweep of two transpose shapes pass
// through warm spares (the daemon counts the attaches, none cold), the command line's trace
// shows no driver start-up in its own process, and the sweep's devices come from the daemon.
// The walls of a warm and a cold run are printed (no threshold: a benchmark, not a test).

#include "GpuTestSupport.h"

#include "../support/TestMain.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_gpuwarmrunners {

using namespace kernelpad;

namespace {

struct Cli {
    int exitCode = -1;
    QString out;
    QString err;
    qint64 pid = 0;
    qint64 wallMs = 0;
};

/// The CLI: $KERNELPAD_CLI on the GPU machine's bundle, else the build's.
QString cliPath() {
    return qEnvironmentVariableIsSet("KERNELPAD_CLI") ? qEnvironmentVariable("KERNELPAD_CLI")
                                                      : QStringLiteral(KERNELPAD_CLI_PATH);
}

Cli cli(const QStringList& args, const QProcessEnvironment& env) {
    QProcess p;
    p.setProcessEnvironment(env);
    QElapsedTimer wall;
    wall.start();
    p.start(cliPath(), args);
    Cli r;
    // Read while it runs: QProcess answers 0 once the process has ended.
    if (p.waitForStarted())
        r.pid = p.processId();
    if (r.pid == 0 || !p.waitForFinished(120000)) {
        r.err = QStringLiteral("kernelpad-cli %1 did not finish").arg(args.join(' '));
        return r;
    }
    r.wallMs = wall.elapsed();
    r.exitCode = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

/// The trace lines of process `pid` in `file` (core/io/Trace.h: "kernelpad-trace PID ...").
QStringList traceOf(const QString& file, qint64 pid) {
    QFile f(file);
    QStringList lines;
    if (!f.open(QIODevice::ReadOnly))
        return lines;
    const QString prefix = QStringLiteral("kernelpad-trace %1 ").arg(pid);
    for (const QString& line : QString::fromUtf8(f.readAll()).split(QLatin1Char('\n')))
        if (line.startsWith(prefix))
            lines << line;
    return lines;
}

} // namespace

class TestGpuWarmRunners : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QProcessEnvironment m_env;

    [[nodiscard]] QString trace() const { return m_dir.filePath(QStringLiteral("trace")); }

    QJsonObject status() const {
        const Cli s = cli({"runners", "status", "--json"}, m_env);
        return QJsonDocument::fromJson(s.out.toUtf8()).object();
    }

private slots:
    void initTestCase() {
        KERNELPAD_REQUIRE_DRIVER();
        QVERIFY(m_dir.isValid());
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert(QStringLiteral("XDG_RUNTIME_DIR"), m_dir.path());
        m_env.insert(QStringLiteral("XDG_CACHE_HOME"), m_dir.path());
        m_env.remove(QStringLiteral("KERNELPAD_WARM_RUNNERS"));
        // The same trace file for the daemon's spares and the commands: the environment a
        // spare is handed to must be the one it was started with.
        m_env.insert(QStringLiteral("KERNELPAD_TRACE"), trace());
        const Cli start = cli({"runners", "start", "--devices", "0", "--spares", "2"}, m_env);
        QVERIFY2(start.exitCode == 0, qPrintable(start.out + start.err));
        const Cli wait = cli({"runners", "wait", "--timeout", "60"}, m_env);
        QVERIFY2(wait.exitCode == 0, qPrintable(wait.err));
        const QJsonObject s = status();
        qInfo("daemon: %s", QJsonDocument(s).toJson(QJsonDocument::Compact).constData());
        QVERIFY2(!s.value(QStringLiteral("devices")).toArray().isEmpty(),
                 "the spares listed no device");
        QVERIFY2(!s.contains(QStringLiteral("devicesError")),
                 qPrintable(s.value(QStringLiteral("devicesError")).toString()));
    }

    void cleanupTestCase() {
        if (!m_env.isEmpty())
            (void)cli({"runners", "stop"}, m_env);
    }

    void runAndSweepThroughWarmRunners() {
        const QString saxpy = test::examplesDir() + QStringLiteral("/saxpy.kpad");
        QFile::remove(trace());
        const Cli warm = cli({"run", saxpy, "--json"}, m_env);
        QVERIFY2(warm.exitCode == 0, qPrintable(warm.out + warm.err));
        QJsonObject s = status();
        QVERIFY2(s.value(QStringLiteral("attaches")).toInt() == 1 &&
                     s.value(QStringLiteral("coldFallbacks")).toInt() == 0,
                 QJsonDocument(s).toJson(QJsonDocument::Compact).constData());
        const QStringList own = traceOf(trace(), warm.pid);
        qInfo("warm run's own trace:\n%s", qPrintable(own.join('\n')));
        QVERIFY2(!own.isEmpty(), "the warm run traced nothing of its own");
        for (const QString& line : own)
            QVERIFY2(!line.contains(QStringLiteral("driver loaded (cuInit)")), qPrintable(line));
        // attach's own line (its pid is the runner process the command started).
        QFile all(trace());
        QVERIFY(all.open(QIODevice::ReadOnly));
        QVERIFY2(all.readAll().contains("attach: warm runner"), "no attach took a warm runner");

        // A sweep of two shapes: its devices come from the daemon, its runner is a spare (the
        // one the run used is replaced once it ended: waited for, so none falls back cold).
        QVERIFY(cli({"runners", "wait", "--timeout", "60"}, m_env).exitCode == 0);
        QFile::remove(trace());
        const QString transpose = test::examplesDir() + QStringLiteral("/transpose_sweep.kpad");
        const Cli sweep = cli({"sweep", transpose, "--set", "bx=16,32", "--set", "by=8",
                               "--devices", "0", "--no-confirm", "--fresh", "--results",
                               m_dir.filePath(QStringLiteral("r.jsonl")), "--json"},
                              m_env);
        QVERIFY2(sweep.exitCode == 0, qPrintable(sweep.out + sweep.err));
        const QJsonObject json = QJsonDocument::fromJson(sweep.out.toUtf8()).object();
        QCOMPARE(json.value(QStringLiteral("passed")).toInt(), 2);
        const QStringList sweepTrace = traceOf(trace(), sweep.pid);
        qInfo("sweep's own trace:\n%s", qPrintable(sweepTrace.join('\n')));
        QVERIFY2(
            !sweepTrace.filter(QStringLiteral("devices: listed by the warm runners")).isEmpty(),
            "the sweep listed the devices itself");
        s = status();
        QVERIFY2(s.value(QStringLiteral("attaches")).toInt() >= 2 &&
                     s.value(QStringLiteral("coldFallbacks")).toInt() == 0,
                 QJsonDocument(s).toJson(QJsonDocument::Compact).constData());
    }

    void warmAndColdWalls() {
        const QString saxpy = test::examplesDir() + QStringLiteral("/saxpy.kpad");
        QVERIFY(cli({"runners", "wait", "--timeout", "60"}, m_env).exitCode == 0);
        const Cli warm = cli({"run", saxpy}, m_env);
        QVERIFY2(warm.exitCode == 0, qPrintable(warm.err));
        QProcessEnvironment coldEnv = m_env;
        coldEnv.insert(QStringLiteral("KERNELPAD_WARM_RUNNERS"), QStringLiteral("off"));
        const Cli cold = cli({"run", saxpy}, coldEnv);
        QVERIFY2(cold.exitCode == 0, qPrintable(cold.err));
        qInfo("kernelpad-cli run saxpy.kpad: warm %lld ms, cold %lld ms", warm.wallMs, cold.wallMs);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestGpuWarmRunners)

} // namespace tst_gpuwarmrunners

#include "tst_gpuwarmrunners.moc"
