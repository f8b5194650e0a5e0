// KernelPad's runner through a real Slurm: scripts/slurm-local starts munged, slurmctld and
// slurmd in a temporary folder on localhost, and the runner is the README's
// `cmd:srun -N1 -n1 kernelpad-cli serve`: hello and devices (none without a GPU, with the
// reason), a compile-only run and a compile in the runner, a job cancelled by scancel mid-run
// (reported as ended by Slurm, with srun's own lines), and scancel of a pool's runner (a sweep
// without a GPU fails at its device survey, so the pool a sweep runs on is tested). Where Slurm
// is not installed those skip, unless $KERNELPAD_REQUIRE_SLURM=1 (.ci/run) makes that a failure.
// tst_batchsystemend reads Slurm's lines without a Slurm.

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "core/project/Project.h"
#include "core/project/RunnerSpec.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/RunnerPool.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QMap>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "TestPaths.h"

#include <memory>

namespace tst_slurmrunner {

using namespace kernelpad;

namespace {

// The whole file stays within a minute (ctest's limit, tests/CMakeLists.txt), about 15 s when
// all goes well on a loaded 2-core machine.
/// How long scripts/slurm-local may take to start the cluster (the node idle within 20 s).
constexpr int kStartLimitMs = 25000;
constexpr const char* kNodeIdleWaitS = "20";
/// How long stopping it may take (its jobs cancelled, then the daemons).
constexpr int kStopLimitMs = 20000;
/// A Slurm command (squeue, scancel) or a runner's answer.
constexpr int kAnswerLimitMs = 15000;
/// The exit code of scripts/slurm-local when a program is missing.
constexpr int kSlurmMissing = 3;

QString slurmScript() {
    return QStringLiteral(KERNELPAD_SOURCE_DIR "/scripts/slurm-local");
}

/// The single-node Slurm of scripts/slurm-local in a temporary folder; the destructor cancels
/// its jobs and stops everything it started, also when a test failed.
class LocalSlurm {
public:
    ~LocalSlurm() { stop(); }

    /// Starts it: empty when it runs, else why not (`missing` says a program is not installed).
    QString start(bool* missing) {
        *missing = false;
        if (!m_dir.isValid())
            return QStringLiteral("no temporary folder");
        QProcess p;
        // If this process dies before its destructor runs (ctest's time limit), the script's
        // watcher stops the cluster.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KERNELPAD_SLURM_OWNER_PID"),
                   QString::number(QCoreApplication::applicationPid()));
        env.insert(QStringLiteral("KERNELPAD_SLURM_START_WAIT_S"),
                   QString::fromLatin1(kNodeIdleWaitS));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral("bash"), {slurmScript(), QStringLiteral("start"), m_dir.path()});
        m_started = true; // whatever came up is stopped by the destructor
        if (!p.waitForFinished(kStartLimitMs)) {
            p.kill();
            p.waitForFinished(1000);
            return QStringLiteral("scripts/slurm-local start took over %1 s")
                .arg(kStartLimitMs / 1000);
        }
        *missing = p.exitCode() == kSlurmMissing;
        if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
            return QString::fromLocal8Bit(p.readAllStandardError()).trimmed();
        for (const char* name : {"slurmctld", "slurmd", "munge/munged"}) {
            QFile f(m_dir.filePath(QString::fromLatin1(name) + QStringLiteral(".pid")));
            if (f.open(QIODevice::ReadOnly))
                m_daemons.insert(QString::fromLatin1(name), f.readAll().trimmed());
        }
        return {};
    }

    /// Cancels every job, stops the daemons; true once none of them runs any more.
    bool stop() {
        if (!std::exchange(m_started, false))
            return true;
        QProcess p;
        p.start(QStringLiteral("bash"), {slurmScript(), QStringLiteral("stop"), m_dir.path()});
        if (!p.waitForFinished(kStopLimitMs))
            p.kill();
        p.waitForFinished(1000);
        return daemonsRunning().isEmpty();
    }

    /// The daemons start() saw that still run ("slurmd 1234").
    [[nodiscard]] QStringList daemonsRunning() const {
        QStringList running;
        for (auto d = m_daemons.cbegin(); d != m_daemons.cend(); ++d) {
            // A zombie has ended: its parent, init, may reap it a little later.
            QFile stat(QStringLiteral("/proc/%1/stat").arg(QString::fromLatin1(d.value())));
            if (d.value().isEmpty() || !stat.open(QIODevice::ReadOnly))
                continue;
            const QByteArray fields = stat.readAll();
            if (!fields.mid(fields.lastIndexOf(')') + 2).startsWith('Z'))
                running << d.key() + QLatin1Char(' ') + QString::fromLatin1(d.value());
        }
        return running;
    }
    /// How many daemons start() saw (munged, slurmctld, slurmd).
    [[nodiscard]] int daemonCount() const { return int(m_daemons.size()); }

    [[nodiscard]] QString conf() const { return m_dir.filePath(QStringLiteral("slurm.conf")); }
    [[nodiscard]] QString path() const { return m_dir.path(); }

    /// Runs a Slurm client command against this cluster; its standard output, or empty with
    /// `*error` set.
    QString client(const QString& program, const QStringList& arguments, QString* error) const {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SLURM_CONF"), conf());
        p.setProcessEnvironment(env);
        p.start(program, arguments);
        if (!p.waitForFinished(kAnswerLimitMs) || p.exitCode() != 0) {
            p.kill();
            *error = QStringLiteral("%1 %2 failed: %3")
                         .arg(program, arguments.join(QLatin1Char(' ')),
                              QString::fromLocal8Bit(p.readAllStandardError()));
            return {};
        }
        return QString::fromLocal8Bit(p.readAllStandardOutput());
    }

    /// The ids of the jobs in the queue (squeue).
    [[nodiscard]] QStringList jobs(QString* error) const {
        return client(QStringLiteral("squeue"),
                      {QStringLiteral("-h"), QStringLiteral("-o"), QStringLiteral("%i")}, error)
            .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

private:
    QTemporaryDir m_dir{QDir::tempPath() + QStringLiteral("/kp-slurm-XXXXXX")};
    bool m_started = false;
    QMap<QString, QByteArray> m_daemons; ///< name → pid, as the pid files said after start()
};

/// The README's Slurm runner: `srun -N1 -n1 <this build's kernelpad-cli> serve`, with
/// `--gres=gpu:1` where scripts/slurm-local gave the node GPUs (nvidia-smi listed some).
RunnerSpec srunRunner(const LocalSlurm& slurm) {
    QFile conf(slurm.conf());
    const bool gpus = conf.open(QIODevice::ReadOnly) && conf.readAll().contains(" Gres=gpu:");
    QString error;
    const std::optional<RunnerSpec> spec =
        RunnerSpec::parse(QStringLiteral("cmd:srun -N1 -n1 %1" KERNELPAD_CLI_PATH " serve")
                              .arg(gpus ? QStringLiteral("--gres=gpu:1 ") : QString()),
                          &error);
    if (!spec)
        qFatal("%s", qPrintable(error));
    return *spec;
}

/// saxpy with 256 unrolled sinf steps: NVRTC needs seconds of CPU for it, so the runner is
/// busy compiling it (a GPU-less runner compiles before it looks for the driver) while Slurm
/// cancels its job. A fresh token each time keeps the compile caches out of it.
RunRequest slowRequest() {
    RunRequest r = test::saxpyRequest();
    r.project.source =
        QStringLiteral("// %1\n"
                       "#define STEP acc = acc * x[(k++) & 7] + sinf(acc);\n"
                       "#define R4(s) s s s s\n"
                       "extern \"C\" __global__\n"
                       "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"
                       "{\n"
                       "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "    float acc = a;\n"
                       "    unsigned k = threadIdx.x;\n"
                       "    R4(R4(R4(R4(STEP))))\n"
                       "    if (tid < n)\n"
                       "        out[tid] = acc * x[tid] + y[tid];\n"
                       "}\n")
            .arg(QRandomGenerator::global()->generate64());
    return r;
}

RunResult waitForResult(QSignalSpy& spy) {
    if (spy.isEmpty() && !spy.wait(kAnswerLimitMs)) {
        RunResult none;
        none.error = QStringLiteral("no result within %1 s").arg(kAnswerLimitMs / 1000);
        return none;
    }
    return spy.takeFirst().at(1).value<RunResult>();
}

/// The error of the devices answer, after `client` was asked.
QString devicesError(RunnerClient& client, QVector<DeviceInfo>* devices) {
    QSignalSpy spy(&client, &RunnerClient::devicesChanged);
    client.requestDevices(1);
    if (!spy.wait(kAnswerLimitMs))
        return QStringLiteral("no devices answer within the wait");
    *devices = spy.first().at(0).value<QVector<DeviceInfo>>();
    return spy.first().at(1).toString();
}

/// Whether `message` gives Slurm's account of scancel ending job `job`'s step 0, in either of
/// the forms srun prints: slurmstepd's "*** STEP 5.0 ON localhost CANCELLED AT ..." line when it
/// reached srun in time, else srun's own "Job step aborted" with the task's signal (seen in CI),
/// then named with the step the runner's hello gave.
bool slurmNamedTheCancelledStep(const QString& message, const QString& job) {
    const bool stepd =
        message.contains(QStringLiteral("its job step %1.0 was cancelled (scancel").arg(job)) &&
        message.contains(QStringLiteral("*** STEP %1.0 ON localhost CANCELLED AT").arg(job));
    const bool srunAlone =
        message.contains(QStringLiteral("its job step %1.0 was aborted by Slurm").arg(job)) &&
        message.contains(QLatin1String("srun: Job step aborted")) &&
        message.contains(QLatin1String("srun: error: localhost: task 0: "));
    return stepd || srunAlone;
}

} // namespace

class TestSlurmRunner : public QObject {
    Q_OBJECT
    std::unique_ptr<LocalSlurm> m_slurm;
    QString m_skip;         ///< why there is no cluster
    bool m_missing = false; ///< because a program is not installed
    QTemporaryDir m_cache;

    /// The running cluster, or null after marking the test skipped with the reason (or failed,
    /// where $KERNELPAD_REQUIRE_SLURM=1): the test must `if (!slurm) return;`.
    [[nodiscard]] LocalSlurm* requireSlurm() {
        if (m_skip.isEmpty() && m_slurm)
            return m_slurm.get();
        // ctest shows "Slurm is not installed" as skipped (tests/CMakeLists.txt): only a skip
        // may say it.
        if (qEnvironmentVariableIntValue("KERNELPAD_REQUIRE_SLURM") == 1)
            QTest::qFail(qPrintable(QStringLiteral("$KERNELPAD_REQUIRE_SLURM=1, but the local "
                                                   "Slurm is unavailable: ") +
                                    m_skip),
                         __FILE__, __LINE__);
        else if (m_missing)
            QTest::qSkip(qPrintable(QStringLiteral("Slurm is not installed: ") + m_skip), __FILE__,
                         __LINE__);
        else
            QTest::qSkip(
                qPrintable(QStringLiteral("the local Slurm could not be started: ") + m_skip),
                __FILE__, __LINE__);
        return nullptr;
    }

private slots:
    void initTestCase() {
        qRegisterMetaType<kernelpad::RunResult>();
        qRegisterMetaType<QVector<kernelpad::DeviceInfo>>();
        // The runners' compile cache stays out of the user's (and slowRequest() out of it).
        qputenv("KERNELPAD_CACHE_DIR", m_cache.path().toUtf8());
        m_slurm = std::make_unique<LocalSlurm>();
        bool missing = false;
        const QString why = m_slurm->start(&missing);
        if (why.isEmpty()) {
            // srun, squeue and scancel, also those the runners start, find this cluster.
            qputenv("SLURM_CONF", m_slurm->conf().toUtf8());
            return;
        }
        m_skip = why;
        m_missing = missing;
        m_slurm.reset();
    }

    void cleanupTestCase() {
        if (!m_slurm)
            return;
        QCOMPARE(m_slurm->daemonCount(), 3);
        QVERIFY2(m_slurm->stop(), qPrintable(m_slurm->daemonsRunning().join(QStringLiteral(", "))));
        m_slurm.reset();
    }

    void helloDevicesAndACompileOnlyRunThroughSrun() {
        LocalSlurm* slurm = requireSlurm();
        if (!slurm)
            return;
        RunnerClient client;
        QString error;
        QVERIFY2(client.setSpec(srunRunner(*slurm), &error), qPrintable(error));
        // Without a GPU the runner answers with no device and the driver's reason; with one,
        // its devices. Either way the hello came through srun.
        QVector<DeviceInfo> devices;
        const QString why = devicesError(client, &devices);
        QVERIFY2(!why.contains(QLatin1String("hello")) && !why.contains(QLatin1String("wait")),
                 qPrintable(why));
        QVERIFY2(!devices.isEmpty() || !why.isEmpty(), "no devices and no reason");
        qInfo(
            "devices through srun: %d%s", int(devices.size()),
            qPrintable(why.isEmpty() ? QString() : QStringLiteral(" (") + why + QLatin1Char(')')));
        // The warm runner is a Slurm job.
        QCOMPARE(slurm->jobs(&error).size(), 1);
        QVERIFY2(error.isEmpty(), qPrintable(error));

        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(7, test::saxpyRequest());
        const RunResult r = waitForResult(finished);
        QVERIFY2(r.compile.ok, qPrintable(r.error + r.compile.log));
        QVERIFY(r.compile.findKernel(QStringLiteral("saxpy")));
        QVERIFY2(r.status == RunStatus::DriverUnavailable || r.status == RunStatus::Ok,
                 qPrintable(r.error));
        QCOMPARE(client.startCount(), 1); // the same job, kept warm
    }

    void compilesInTheRunnerThroughSrun() {
        const LocalSlurm* slurm = requireSlurm();
        if (!slurm)
            return;
        RunRequest request = test::saxpyRequest();
        request.project.options.arch = QStringLiteral("sm_90");
        const CompileResult r = RunnerClient::compileIn(srunRunner(*slurm), request);
        QVERIFY2(r.ok, qPrintable(r.log));
        QCOMPARE(r.arch, QStringLiteral("sm_90"));
        QVERIFY(r.ptx.contains(QLatin1String(".entry saxpy")));
        // A compile error comes back with its diagnostics, through srun too.
        request.project.source += QStringLiteral("\nthis is not C++;\n");
        const CompileResult bad = RunnerClient::compileIn(srunRunner(*slurm), request);
        QVERIFY(!bad.ok);
        QVERIFY(!bad.diagnostics.isEmpty());
    }

    void aJobCancelledMidRunIsReportedAsEndedBySlurm() {
        LocalSlurm* slurm = requireSlurm();
        if (!slurm)
            return;
        RunnerClient client;
        QString error;
        QVERIFY(client.setSpec(srunRunner(*slurm), &error));
        QVector<DeviceInfo> devices;
        (void)devicesError(client, &devices); // hello seen: the runner is a running job
        const QStringList jobs = slurm->jobs(&error);
        QVERIFY2(jobs.size() == 1, qPrintable(error + jobs.join(QLatin1Char(' '))));
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        client.run(1, slowRequest()); // the runner compiles it for seconds
        (void)slurm->client(QStringLiteral("scancel"), {jobs.first()}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const RunResult r = waitForResult(finished);
        QCOMPARE(r.status, RunStatus::CudaError);
        QVERIFY2(slurmNamedTheCancelledStep(r.error, jobs.first()), qPrintable(r.error));
        QVERIFY2(r.error.startsWith(QStringLiteral("KernelPad's runner was stopped by Slurm "
                                                   "while running 'saxpy': its job step %1.0 ")
                                        .arg(jobs.first())),
                 qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String("srun: error: localhost: task 0:")),
                 qPrintable(r.error));

        // The next run is a new job.
        client.run(2, test::saxpyRequest());
        const RunResult again = waitForResult(finished);
        QVERIFY2(again.compile.ok, qPrintable(again.error));
        QCOMPARE(client.startCount(), 2);
        QVERIFY(!slurm->jobs(&error).contains(jobs.first()));
    }

    void scancelOfAPoolsRunnerEndsItsJobsWithSlurmsReason() {
        LocalSlurm* slurm = requireSlurm();
        if (!slurm)
            return;
        RunnerPool pool(QVector<PoolEntry>{PoolEntry{srunRunner(*slurm), 0, QString()}});
        pool.setMaxRestarts(0); // a runner Slurm took away stays out: the sweep ends
        QSignalSpy lost(&pool, &RunnerPool::runnerLost);
        QSignalSpy finished(&pool, &RunnerPool::finished);
        QSignalSpy drained(&pool, &RunnerPool::drained);
        // A first configuration answered proves the runner warm (its hello seen).
        pool.submit(1, test::saxpyRequest());
        QVERIFY(finished.wait(kAnswerLimitMs));
        pool.submit(2, slowRequest());
        pool.submit(3, slowRequest());
        QTRY_VERIFY_WITH_TIMEOUT(pool.runnerBusy(0), kAnswerLimitMs);
        QString error;
        const QStringList jobs = slurm->jobs(&error);
        QVERIFY2(jobs.size() == 1, qPrintable(error + jobs.join(QLatin1Char(' '))));
        (void)slurm->client(QStringLiteral("scancel"), {jobs.first()}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, kAnswerLimitMs);
        QVERIFY(!drained.isEmpty() || drained.wait(kAnswerLimitMs));
        QCOMPARE(lost.size(), 1);
        const QString loss = lost.first().at(1).toString();
        QVERIFY2(loss.contains(QStringLiteral("stopped by Slurm while running 'saxpy': its job "
                                              "step %1.0 was ")
                                   .arg(jobs.first())),
                 qPrintable(loss));
        QVERIFY2(slurmNamedTheCancelledStep(loss, jobs.first()), qPrintable(loss));
        for (int i = 1; i < 3; ++i) {
            const RunResult r = finished.at(i).at(1).value<RunResult>();
            QCOMPARE(r.status, RunStatus::CudaError);
            QVERIFY2(r.error.contains(QLatin1String("stopped by Slurm")), qPrintable(r.error));
            QVERIFY2(slurmNamedTheCancelledStep(r.error, jobs.first()), qPrintable(r.error));
        }
        QCOMPARE(pool.liveRunners(), 0);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSlurmRunner)
} // namespace tst_slurmrunner
#include "tst_slurmrunner.moc"
