// The runner pool without a GPU: stand-in runners (shell scripts that speak the protocol and
// answer with a canned result) prove the work queue, a runner killed mid-job, a job that kills
// or hangs every runner it touches, a pool with every runner gone, cancelAll and a kernel fault
// that is the job's answer, not a loss. Stand-ins started as runners of two specs (commands, as
// a Slurm or any other runner elsewhere is) make a pool over two "runners" whose results name
// both, listed by RunnerSurvey, which reports and leaves out a runner it cannot reach.

#include "../support/StandInRunner.h"
#include "../support/TestMain.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerPool.h"
#include "core/runner/RunnerSurvey.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

namespace tst_runnerpool {

using namespace kernelpad;

namespace {

struct Answer {
    quint64 tag = 0;
    RunResult result;
    int runner = -1;
    int device = -1;
    QString deviceName;
};

/// Collects a pool's answers in order.
struct Answers {
    explicit Answers(RunnerPool& pool) {
        QObject::connect(&pool, &RunnerPool::finished, &pool,
                         [this](quint64 tag, const RunResult& result, int runner, int device,
                                const QString& name) {
                             list.push_back({tag, result, runner, device, name});
                         });
    }
    bool waitFor(int count, int timeoutMs = 20000) {
        QElapsedTimer clock;
        clock.start();
        while (list.size() < count && clock.elapsed() < timeoutMs)
            QTest::qWait(20);
        return list.size() >= count;
    }
    [[nodiscard]] const Answer* of(quint64 tag) const {
        for (const Answer& a : list)
            if (a.tag == tag)
                return &a;
        return nullptr;
    }
    QVector<Answer> list;
};

/// A stand-in runner. It says hello like the real one, and for each "run" takes the job's
/// name from the project ("job-…"): `job-poison` kills the runner at once, `job-hang` sleeps
/// past the watchdog, `job-fault`
/// answers as a kernel fault with a sticky error (poisoned) and exits, leaving its folder to
/// the client as the real runner does, every other job sleeps
/// `delay` seconds, writes its name to the log (run to completion) and answers Ok.
class FakeRunner {
public:
    explicit FakeRunner(const QString& delay) {
        RunResult ok;
        ok.status = RunStatus::Ok;
        ok.device.ordinal = 0;
        ok.device.name = QStringLiteral("Fake GPU");
        RunResult fault = ok;
        fault.status = RunStatus::CudaError;
        fault.faultCode = 700;
        fault.error = QStringLiteral("an illegal memory access");
        write(QStringLiteral("ok.json"), QJsonDocument(ok.toJson()).toJson(QJsonDocument::Compact));
        write(QStringLiteral("fault.json"),
              QJsonDocument(fault.toJson()).toJson(QJsonDocument::Compact));
        const QString script =
            QStringLiteral(
                "d=$(mktemp -d /tmp/kernelpad-runner-XXXXXX)\n"
                "printf '{\"type\":\"hello\",\"version\":%1,\"pid\":%s,\"outputDir\":\"%s\"}\\n' "
                "$$ \"$d\"\n"
                "while IFS= read -r line; do\n"
                "  case \"$line\" in *'\"type\":\"run\"'*) ;;\n"
                "  *'\"type\":\"compile\"'*) printf '%s\\n' \"$line\" | sed -n "
                "'s/.*\"name\":\"\\(job-[a-z0-9]*\\)\".*/\\1/p' >> '%2/compiles'; continue ;;\n"
                "  *) continue ;; esac\n"
                "  id=${line#'{\"id\":'}; id=${id%%,*}\n"
                "  job=$(printf '%s' \"$line\" | sed -n "
                "'s/.*\"name\":\"\\(job-[a-z0-9]*\\)\".*/\\1/p')\n"
                "  if [ \"$job\" = job-poison ]; then kill -9 $$; fi\n"
                "  if [ \"$job\" = job-hang ]; then sleep 5; fi\n"
                "  if [ \"$job\" = job-fault ]; then\n"
                "    printf '{\"type\":\"result\",\"id\":%s,\"result\":%s,\"outputs\":[],"
                "\"poisoned\":true}\\n' \"$id\" \"$(cat '%2/fault.json')\"\n"
                "    exit 0\n"
                "  fi\n"
                "  sleep %3\n"
                "  echo \"$job\" >> '%2/log'\n"
                "  printf '{\"type\":\"result\",\"id\":%s,\"result\":%s,\"outputs\":[],"
                "\"poisoned\":false}\\n' \"$id\" \"$(cat '%2/ok.json')\"\n"
                "done\n"
                "rmdir \"$d\"\n")
                .arg(kRunnerProtocolVersion)
                .arg(m_dir.path(), delay);
        write(QStringLiteral("runner.sh"), script.toUtf8());
    }
    void apply(RunnerPool& pool) const {
        pool.setCommand(QStringLiteral("/bin/sh"), {m_dir.filePath(QStringLiteral("runner.sh"))});
    }
    /// The jobs compiled without a run (RunnerPool::precompile), in order; never answered.
    [[nodiscard]] QStringList compiled() const { return lines(QStringLiteral("compiles")); }
    /// The jobs run to completion, in order.
    [[nodiscard]] QStringList completed() const { return lines(QStringLiteral("log")); }

private:
    [[nodiscard]] QStringList lines(const QString& name) const {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
    void write(const QString& name, const QByteArray& bytes) {
        QFile f(m_dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    }
    QTemporaryDir m_dir;
};

RunRequest job(const QString& name) {
    RunRequest r;
    r.project.name = QStringLiteral("job-") + name;
    r.project.kernel = QStringLiteral("k");
    r.project.timing.timeLimitMs = 10000;
    r.device = 99; // the runner's device replaces it
    return r;
}

/// Waits until `pool` has `busy` runners holding a job, each with a process.
bool waitBusy(const RunnerPool& pool, int busy) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 10000) {
        bool started = pool.busyRunners() >= busy;
        for (int i = 0; started && i < pool.runnerCount(); ++i)
            started = pool.runnerPid(i) > 0;
        if (started)
            return true;
        QTest::qWait(20);
    }
    return false;
}

} // namespace

class TestRunnerPool : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<kernelpad::RunResult>(); }

    void allDevicesAndLabels() {
        QVector<DeviceInfo> devices(2);
        devices[0].ordinal = 0;
        devices[1].ordinal = 1;
        QCOMPARE(RunnerPool::allDevices(devices), (QVector<int>{0, 1}));
        QCOMPARE(RunnerPool::allDevices({}), QVector<int>{});
        QCOMPARE(RunnerPool::deviceLabel(QStringLiteral("NVIDIA H100"), 1),
                 QStringLiteral("NVIDIA H100 (device 1)"));
        QCOMPARE(RunnerPool::deviceLabel(QString(), 3), QStringLiteral("device 3"));
        RunnerPool pool({0, 0, 1});
        QCOMPARE(pool.runnerCount(), 3);
        QCOMPARE(pool.runnerDevice(2), 1);
        QCOMPARE(pool.busyRunners(), 0);
        QCOMPARE(pool.pending(), 0);
    }

    void jobsSpreadOverTwoRunners() {
        FakeRunner fake(QStringLiteral("0.2"));
        RunnerPool pool({0, 0});
        fake.apply(pool);
        Answers answers(pool);
        QSignalSpy drained(&pool, &RunnerPool::drained);
        for (quint64 t = 1; t <= 8; ++t)
            pool.submit(t, job(QString::number(t)));
        QCOMPARE(pool.busyRunners(), 2); // a work queue: both take one at once
        QCOMPARE(pool.pending(), 6);
        QVERIFY(answers.waitFor(8));
        QVERIFY(drained.count() == 1 || drained.wait(2000));
        QCOMPARE(drained.count(), 1);
        QSet<quint64> tags;
        for (const Answer& a : answers.list) {
            QCOMPARE(a.result.status, RunStatus::Ok);
            QCOMPARE(a.device, 0);
            QCOMPARE(a.deviceName, QStringLiteral("Fake GPU (device 0)"));
            QVERIFY(a.runner == 0 || a.runner == 1);
            tags.insert(a.tag);
        }
        QCOMPARE(tags.size(), 8);
        QVERIFY2(
            pool.jobsAnswered(0) >= 2 && pool.jobsAnswered(1) >= 2,
            qPrintable(
                QStringLiteral("%1 and %2").arg(pool.jobsAnswered(0)).arg(pool.jobsAnswered(1))));
        QCOMPARE(pool.jobsAnswered(0) + pool.jobsAnswered(1), 8);
        QCOMPARE(fake.completed().size(), 8);
        QCOMPARE(pool.busyRunners(), 0);
        QCOMPARE(pool.pending(), 0);
    }

    void aJobForOneRunnerWaitsForItAndSaysHowLong() {
        FakeRunner fake(QStringLiteral("0.3"));
        RunnerPool pool({0, 0});
        fake.apply(pool);
        pool.warmUp();
        Answers answers(pool);
        pool.submit(1, job(QStringLiteral("first")));
        QVERIFY(waitBusy(pool, 1));
        QVERIFY(pool.runnerBusy(0));
        // Runner 1 idles, yet the job for runner 0 waits for it (where its program is compiled).
        pool.submit(2, job(QStringLiteral("second")), 0);
        QCOMPARE(pool.pending(), 1);
        QVERIFY(!pool.runnerBusy(1));
        QVERIFY(answers.waitFor(2));
        const Answer* second = answers.of(2);
        QVERIFY(second);
        QCOMPARE(second->runner, 0);
        QCOMPARE(fake.completed(), (QStringList{"job-first", "job-second"}));
        // This side's steps travel with the answer: its wait in the queue was the first job.
        QStringList steps;
        double waited = -1;
        for (const StageTime& s : second->result.stagesMs) {
            QVERIFY2(s.client && s.ms >= 0, qPrintable(s.stage));
            steps << s.stage;
            if (s.stage == QLatin1String("waiting in the pool"))
                waited = s.ms;
        }
        QCOMPARE(steps, (QStringList{"waiting in the pool", "settling the answer"}));
        QVERIFY2(waited >= 150, qPrintable(QString::number(waited)));
    }

    void aJobForARunnerThatIsOutGoesToTheOthers() {
        FakeRunner fake(QStringLiteral("0.05"));
        RunnerSpec unusable; // an ssh runner without a host stays out from the start
        unusable.kind = RunnerSpec::Kind::Ssh;
        RunnerPool pool(QVector<PoolEntry>{PoolEntry{RunnerSpec::local(), 0, QString()},
                                           PoolEntry{unusable, 0, QString()}});
        fake.apply(pool);
        QCOMPARE(pool.liveRunners(), 1);
        Answers answers(pool);
        pool.submit(1, job(QStringLiteral("pinned")), 1);
        QVERIFY(answers.waitFor(1));
        QCOMPARE(answers.list.first().result.status, RunStatus::Ok);
        QCOMPARE(answers.list.first().runner, 0);
    }

    void aRunnerCompilesAheadWithoutRunning() {
        FakeRunner fake(QStringLiteral("0.1"));
        RunnerPool pool({0, 0});
        fake.apply(pool);
        pool.warmUp();
        pool.precompile(1, job(QStringLiteral("ahead")));
        pool.precompile(7, job(QStringLiteral("nowhere"))); // no such runner: nothing
        QElapsedTimer clock;
        clock.start();
        while (fake.compiled().isEmpty() && clock.elapsed() < 10000)
            QTest::qWait(20);
        QCOMPARE(fake.compiled(), QStringList{"job-ahead"});
        QCOMPARE(fake.completed(), QStringList());
        QCOMPARE(pool.busyRunners(), 0); // a compile is no job: the runner takes the next one
    }

    void killedRunnersJobFinishesOnTheOther() {
        FakeRunner fake(QStringLiteral("0.6"));
        RunnerPool pool({0, 0});
        fake.apply(pool);
        Answers answers(pool);
        QSignalSpy lost(&pool, &RunnerPool::runnerLost);
        for (quint64 t = 1; t <= 6; ++t)
            pool.submit(t, job(QString::number(t)));
        QVERIFY(waitBusy(pool, 2));
        QTest::qWait(200);
        const qint64 pid = pool.runnerPid(0);
        QVERIFY(pid > 0);
        QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);
        QVERIFY(answers.waitFor(6, 30000));
        QTest::qWait(100); // nothing more arrives
        QCOMPARE(answers.list.size(), 6);
        QCOMPARE(lost.count(), 1);
        QCOMPARE(lost.first().at(0).toInt(), 0);
        const QString reason = lost.first().at(1).toString();
        QVERIFY2(reason.contains("started again") && reason.contains("stopped unexpectedly"),
                 qPrintable(reason));
        // The job runner 0 held (the first, tag 1) was answered by runner 1.
        const Answer* first = answers.of(1);
        QVERIFY(first);
        QCOMPARE(first->result.status, RunStatus::Ok);
        QCOMPARE(first->runner, 1);
        for (const Answer& a : answers.list)
            QCOMPARE(a.result.status, RunStatus::Ok);
        // Nothing lost and nothing run twice to completion.
        QStringList done = fake.completed();
        QCOMPARE(done.size(), 6);
        done.sort();
        QCOMPARE(done, (QStringList{"job-1", "job-2", "job-3", "job-4", "job-5", "job-6"}));
        QCOMPARE(pool.liveRunners(), 2); // restarted for later jobs
    }

    void aJobThatKillsTwoRunnersIsAnsweredFailed() {
        FakeRunner fake(QStringLiteral("0.1"));
        RunnerPool pool({0, 0});
        fake.apply(pool);
        Answers answers(pool);
        QSignalSpy lost(&pool, &RunnerPool::runnerLost);
        pool.submit(1, job(QStringLiteral("poison")));
        for (quint64 t = 2; t <= 5; ++t)
            pool.submit(t, job(QString::number(t)));
        QVERIFY(answers.waitFor(5, 30000));
        QTest::qWait(100);
        QCOMPARE(answers.list.size(), 5);
        const Answer* poison = answers.of(1);
        QVERIFY(poison);
        QCOMPARE(poison->result.status, RunStatus::CudaError);
        QVERIFY2(poison->result.error.contains("stopped two runners"),
                 qPrintable(poison->result.error));
        QCOMPARE(lost.count(), 2);
        QVERIFY(lost.at(0).at(0).toInt() != lost.at(1).at(0).toInt()); // two different runners
        for (quint64 t = 2; t <= 5; ++t)
            QCOMPARE(answers.of(t)->result.status, RunStatus::Ok);
        QCOMPARE(fake.completed().size(), 4);
        QCOMPARE(pool.liveRunners(), 2);
    }

    void aJobThatHangsIsStoppedByTheWatchdogAndCountsAsALoss() {
        FakeRunner fake(QStringLiteral("0.1"));
        RunnerPool pool({0, 0});
        fake.apply(pool);
        pool.setPreparationLimitMs(300);
        Answers answers(pool);
        QSignalSpy lost(&pool, &RunnerPool::runnerLost);
        RunRequest hang = job(QStringLiteral("hang"));
        hang.project.timing.timeLimitMs = 100;
        pool.submit(1, hang);
        for (quint64 t = 2; t <= 4; ++t)
            pool.submit(t, job(QString::number(t)));
        QVERIFY(answers.waitFor(4, 20000));
        const Answer* stuck = answers.of(1);
        QCOMPARE(stuck->result.status, RunStatus::CudaError);
        QVERIFY2(stuck->result.error.contains("stopped two runners") &&
                     stuck->result.error.contains("time limit"),
                 qPrintable(stuck->result.error));
        QCOMPARE(lost.count(), 2);
        for (quint64 t = 2; t <= 4; ++t)
            QCOMPARE(answers.of(t)->result.status, RunStatus::Ok);
        QCOMPARE(fake.completed().size(), 3);
    }

    void everyRunnerGoneAnswersEveryJob() {
        FakeRunner fake(QStringLiteral("0.1"));
        RunnerPool pool({0, 0});
        fake.apply(pool);
        pool.setMaxRestarts(1);
        Answers answers(pool);
        QSignalSpy lost(&pool, &RunnerPool::runnerLost);
        QSignalSpy drained(&pool, &RunnerPool::drained);
        // Two poisoned jobs take two runners each: with one restart each, both are out.
        pool.submit(1, job(QStringLiteral("poison")));
        pool.submit(2, job(QStringLiteral("poison")));
        for (quint64 t = 3; t <= 7; ++t)
            pool.submit(t, job(QString::number(t)));
        QVERIFY(answers.waitFor(7, 30000));
        QVERIFY(drained.count() == 1 || drained.wait(2000));
        QCOMPARE(lost.count(), 4);
        QVERIFY2(lost.last().at(1).toString().contains("stays out"),
                 qPrintable(lost.last().at(1).toString()));
        QCOMPARE(pool.liveRunners(), 0);
        QCOMPARE(pool.pending(), 0);
        QCOMPARE(answers.of(1)->result.status, RunStatus::CudaError);
        QCOMPARE(answers.of(2)->result.status, RunStatus::CudaError);
        int neverRun = 0;
        for (quint64 t = 3; t <= 7; ++t) {
            const Answer* a = answers.of(t);
            QVERIFY(a);
            if (a->result.status == RunStatus::Ok)
                continue; // ran before the last runner went
            QCOMPARE(a->result.status, RunStatus::CudaError);
            QVERIFY2(a->result.error.contains("Every runner of the pool") &&
                         a->result.error.contains("was not run"),
                     qPrintable(a->result.error));
            QCOMPARE(a->runner, -1);
            ++neverRun;
        }
        QVERIFY(neverRun > 0);
        // A job submitted now is answered the same way, on the next turn of the event loop.
        pool.submit(8, job(QStringLiteral("8")));
        QVERIFY(answers.waitFor(8, 2000));
        QVERIFY(answers.of(8)->result.error.contains("Every runner of the pool"));
    }

    void cancelAllAnswersEveryJob() {
        FakeRunner fake(QStringLiteral("5"));
        RunnerPool pool({0, 0});
        fake.apply(pool);
        Answers answers(pool);
        QSignalSpy lost(&pool, &RunnerPool::runnerLost);
        QSignalSpy drained(&pool, &RunnerPool::drained);
        for (quint64 t = 1; t <= 6; ++t)
            pool.submit(t, job(QString::number(t)));
        QVERIFY(waitBusy(pool, 2));
        pool.cancelAll();
        QCOMPARE(pool.pending(), 0);
        QCOMPARE(answers.list.size(), 4); // the queued ones, at once
        for (const Answer& a : answers.list) {
            QCOMPARE(a.result.status, RunStatus::Cancelled);
            QCOMPARE(a.runner, -1);
        }
        QVERIFY(answers.waitFor(6, 10000)); // the running ones, once their runners stop
        QVERIFY(drained.count() == 1 || drained.wait(2000));
        for (const Answer& a : answers.list)
            QCOMPARE(a.result.status, RunStatus::Cancelled);
        QCOMPARE(lost.count(), 0); // cancelling is not a loss
        QVERIFY(fake.completed().isEmpty());
        QCOMPARE(pool.busyRunners(), 0);
    }

    void kernelFaultIsTheJobsAnswerNotALoss() {
        FakeRunner fake(QStringLiteral("0.1"));
        RunnerPool pool(QVector<int>{0});
        fake.apply(pool);
        Answers answers(pool);
        QSignalSpy lost(&pool, &RunnerPool::runnerLost);
        pool.submit(1, job(QStringLiteral("fault")));
        pool.submit(2, job(QStringLiteral("2")));
        QVERIFY(answers.waitFor(2, 20000));
        QCOMPARE(answers.of(1)->result.faultCode, 700);
        QCOMPARE(answers.of(1)->result.status, RunStatus::CudaError);
        QCOMPARE(answers.of(1)->runner, 0);
        QCOMPARE(answers.of(2)->result.status, RunStatus::Ok); // on a fresh runner
        QCOMPARE(lost.count(), 0);
        QCOMPARE(fake.completed(), QStringList{"job-2"});
    }

    void labelsNameTheRunnerWhenThePoolHoldsSeveral() {
        RunnerSpec box;
        box.kind = RunnerSpec::Kind::Ssh;
        box.host = QStringLiteral("gpu-box");
        const PoolEntry local{RunnerSpec::local(), 0, QStringLiteral("A")};
        const PoolEntry remote{box, 1, QStringLiteral("B")};
        QVERIFY(!RunnerPool::namesRunners({local, local}));
        QVERIFY(!RunnerPool::namesRunners({}));
        QVERIFY(RunnerPool::namesRunners({local, remote}));
        QVERIFY(RunnerPool::namesRunners({remote})); // a runner elsewhere is always named
        QCOMPARE(RunnerPool::deviceLabel(box, QStringLiteral("NVIDIA H100"), 1, true),
                 QStringLiteral("gpu-box: NVIDIA H100 (device 1)"));
        QCOMPARE(RunnerPool::deviceLabel(box, QStringLiteral("NVIDIA H100"), 1, false),
                 QStringLiteral("NVIDIA H100 (device 1)"));
        const QVector<PoolEntry> entries = RunnerPool::entriesOf(box, [] {
            QVector<DeviceInfo> list(2);
            list[0].ordinal = 0;
            list[0].name = QStringLiteral("X");
            list[1].ordinal = 1;
            list[1].name = QStringLiteral("Y");
            return list;
        }());
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries[1], (PoolEntry{box, 1, QStringLiteral("Y")}));
        RunnerPool pool({local, remote});
        QCOMPARE(pool.runnerCount(), 2);
        QCOMPARE(pool.runnerEntry(1).spec, box);
        QCOMPARE(pool.runnerDevice(1), 1);
        // A runner elsewhere shares no folder with this computer: its buffers are streamed.
        QVERIFY(!pool.runnerStreams(0));
        QVERIFY(pool.runnerStreams(1));
    }

    void aRunnersOwnKeepLimitIsUsed() {
        if (qEnvironmentVariableIsSet("KERNELPAD_STREAM_KEEP_BYTES"))
            QSKIP("$KERNELPAD_STREAM_KEEP_BYTES overrides every runner's keep limit");
        RunnerSpec box;
        box.kind = RunnerSpec::Kind::Ssh;
        box.host = QStringLiteral("gpu-box");
        RunnerSpec big = box;
        big.name = QStringLiteral("big");
        big.keepBeyondBytes = qint64(512) << 20;
        RunnerPool pool({PoolEntry{box, 0, {}}, PoolEntry{big, 0, {}}});
        QCOMPARE(pool.runnerKeepBeyondBytes(0), kDefaultKeepBeyondBytes);
        QCOMPARE(pool.runnerKeepBeyondBytes(1), qint64(512) << 20);
        qputenv("KERNELPAD_STREAM_KEEP_BYTES", "4096"); // the environment still overrides
        RunnerPool overridden({PoolEntry{big, 0, {}}});
        qunsetenv("KERNELPAD_STREAM_KEEP_BYTES");
        QCOMPARE(overridden.runnerKeepBeyondBytes(0), qint64(4096));
    }

    void aPoolOverTwoRunnersNamesBoth() {
        test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake A100"));
        test::StandInRunner beta(QStringLiteral("beta"), QStringLiteral("Fake H100"));
        // Listed as the CLI and the window list them: every device of every runner.
        QStringList problems;
        const QVector<PoolEntry> entries =
            RunnerSurvey::listDevices({alpha.spec(), beta.spec()}, &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries[0], (PoolEntry{alpha.spec(), 0, QStringLiteral("Fake A100")}));
        QCOMPARE(entries[1], (PoolEntry{beta.spec(), 0, QStringLiteral("Fake H100")}));

        RunnerPool pool(entries);
        Answers answers(pool);
        for (quint64 t = 1; t <= 8; ++t)
            pool.submit(t, job(QString::number(t)));
        QCOMPARE(pool.busyRunners(), 2);
        QVERIFY(answers.waitFor(8));
        QSet<QString> names;
        QSet<quint64> tags;
        for (const Answer& a : answers.list) {
            QVERIFY2(a.result.status == RunStatus::Ok, qPrintable(a.result.error));
            QCOMPARE(a.device, 0);
            QCOMPARE(a.deviceName, a.runner == 0 ? QStringLiteral("alpha: Fake A100 (device 0)")
                                                 : QStringLiteral("beta: Fake H100 (device 0)"));
            names.insert(a.deviceName);
            tags.insert(a.tag);
        }
        QCOMPARE(tags.size(), 8);
        QCOMPARE(names.size(), 2); // both runners answered jobs
        QCOMPARE(alpha.completed().size() + beta.completed().size(), 8);
        QCOMPARE(alpha.completed().size(), pool.jobsAnswered(0));
    }

    void anUnreachableRunnerIsReportedAndLeftOut() {
        test::StandInRunner alpha(QStringLiteral("alpha"), QStringLiteral("Fake A100"));
        RunnerSpec gone;
        gone.kind = RunnerSpec::Kind::Command;
        gone.name = QStringLiteral("gone");
        gone.commandLine = QStringLiteral("/bin/sh -c \"echo 'ssh: connect to host gone port 22: "
                                          "Connection refused' >&2; exit 255\"");
        RunnerSpec empty;
        empty.kind = RunnerSpec::Kind::Ssh; // no host: refused before it starts
        empty.name = QStringLiteral("empty");
        RunnerSurvey survey;
        QSignalSpy finished(&survey, &RunnerSurvey::finished);
        survey.start({gone, alpha.spec(), empty});
        QVERIFY(survey.isRunning());
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.count(), 1);
        QVERIFY(!survey.isRunning());
        QCOMPARE(survey.entries().size(), 1);
        QCOMPARE(survey.entries().first().spec, alpha.spec());
        QCOMPARE(survey.runnersWithDevices(), 1);
        const QStringList problems = survey.problems();
        QCOMPARE(problems.size(), 2);
        QVERIFY2(problems[0].startsWith(QLatin1String("gone: ")) &&
                     problems[0].contains(QLatin1String("Connection refused")),
                 qPrintable(problems[0]));
        QVERIFY2(problems[1].startsWith(QLatin1String("empty: ")) &&
                     problems[1].contains(QLatin1String("host is empty")),
                 qPrintable(problems[1]));
        // An empty list answers too, on the next turn of the event loop.
        survey.start({});
        QVERIFY(finished.wait(2000));
        QVERIFY(survey.entries().isEmpty());
    }

    void emptyPoolAnswersWithAMessage() {
        RunnerPool pool(QVector<PoolEntry>{});
        Answers answers(pool);
        pool.submit(1, job(QStringLiteral("1")));
        QVERIFY(answers.waitFor(1, 2000));
        QVERIFY2(answers.list[0].result.error.contains("no runners"),
                 qPrintable(answers.list[0].result.error));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestRunnerPool)
} // namespace tst_runnerpool
#include "tst_runnerpool.moc"
