// A sweep over a pool of two stand-in runners (shell scripts that speak the protocol) whose
// runner dies in the middle of a configuration: that configuration runs once more on the other
// runner and the sweep completes with every configuration recorded once; a configuration that
// takes down a runner each time it runs is tried on two runners, then recorded as failed with
// an error that names both runners and why each died. The best's A/B runs on the runners that
// have compiled both arms or can take them: from the disk cache, by compiling a quick one, or
// by taking another runner's program (RunnerPool::handOver) where compiling would be slow.

#include "../support/StandInRunner.h"
#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include "core/project/Project.h"
#include "core/run/Timing.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerPool.h"
#include "core/sweep/PoolSweepEvaluator.h"
#include "core/sweep/Sweep.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_sweeprerun {

using namespace kernelpad;

namespace {

/// A stand-in runner for a pool of two on one computer. A run whose block is 16 wide kills
/// its runner the first time any runner takes it (a marker file remembers), one 32 wide every
/// time; every other run is answered Ok after 0.1 s and its block width logged.
class DyingRunner {
public:
    DyingRunner() {
        RunResult ok;
        ok.status = RunStatus::Ok;
        ok.device.ordinal = 0;
        ok.device.name = QStringLiteral("Stand-in GPU");
        ok.timing.medianMs = 1;
        ok.timing.minMs = 1;
        m_runner.writeResult(QStringLiteral("ok.json"), ok);
        m_runner.setScript(
            QStringLiteral(
                "  case \"$line\" in *'\"type\":\"run\"'*) ;; *) continue ;; esac\n"
                "  bx=$(printf '%s' \"$line\" | sed -n 's/.*\"block\":\\[\\([0-9]*\\),.*/\\1/p')\n"
                "  if [ \"$bx\" = 32 ]; then rmdir \"$d\"; kill -9 $$; fi\n"
                "  if [ \"$bx\" = 16 ] && [ ! -e '%1/died' ]; then\n"
                "    : > '%1/died'; rmdir \"$d\"; kill -9 $$\n"
                "  fi\n"
                "  sleep 0.1\n"
                "  echo \"$bx\" >> '%1/log'\n"
                "  %2\n")
                .arg(m_runner.dir(), m_runner.answerWith(QStringLiteral("ok.json"))));
    }
    void apply(RunnerPool& pool) const { m_runner.apply(pool); }
    /// The block widths run to completion, sorted.
    [[nodiscard]] QStringList completed() const {
        QStringList widths = m_runner.log();
        widths.sort();
        return widths;
    }

private:
    test::ScriptedRunner m_runner;
};

/// The transpose example with `sweep` as its sweep section, or the example's own with
/// `edit` applied.
RunRequest transposeWith(const QJsonObject& sweep,
                         const std::function<void(QJsonObject&)>& edit = {}) {
    RunRequest base;
    base.project =
        test::exampleWithSweep(QStringLiteral("transpose_sweep.kpad"), [&](QJsonObject& section) {
            if (!sweep.isEmpty())
                section = sweep;
            if (edit)
                edit(section);
        });
    base.projectDir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
    return base;
}

/// The transpose example over block widths `widths` (by = 4).
RunRequest transposeOver(const QJsonArray& widths) {
    return transposeWith({}, [&widths](QJsonObject& sweep) {
        sweep.insert(QStringLiteral("block"), QJsonObject{{"x", widths}, {"y", QJsonArray{4}}});
    });
}

/// A stand-in runner for the sweep's follow-up: a run of the configuration WIDTH_Q=N (a
/// define) is answered with 12 samples of N ms, after 0.8 s for N = 4 (the tail) and 0.05 s
/// else; each run and each compile is logged as "run PID N" / "compile PID N", a request for its
/// program as "program PID N" and a compile that comes with another runner's program as
/// "take PID N". Each answer says its compile succeeded and took `compileMs`
/// (RunResult::compile, stagesMs). `programs`: how program requests are answered: "program"
/// (with one), "error" (the runner holds none) or "silent" (never: a hung donor).
class FollowUpRunner {
public:
    explicit FollowUpRunner(double compileMs = 0,
                            const QString& programs = QStringLiteral("program")) {
        for (int n = 1; n <= 4; ++n) {
            RunResult ok;
            ok.status = RunStatus::Ok;
            ok.device.ordinal = 0;
            ok.device.name = QStringLiteral("Stand-in GPU");
            ok.compile.ok = true;
            ok.timing = computeStats(QVector<double>(12, double(n)));
            ok.stagesMs.append(StageTime{QStringLiteral("compiling"), compileMs, false});
            m_runner.writeResult(QStringLiteral("ok-%1.json").arg(n), ok);
        }
        m_runner.setScript(
            QStringLiteral(
                "  n=$(printf '%s' \"$line\" | sed -n 's/.*\"WIDTH_Q=\\([0-9]*\\)\".*/\\1/p')\n"
                "  case \"$line\" in\n"
                "  *'\"program\":\"'*'\"type\":\"compile\"'*) echo \"take $$ $n\" >> '%1/log' ;;\n"
                "  *'\"type\":\"compile\"'*) echo \"compile $$ $n\" >> '%1/log' ;;\n"
                "  *'\"type\":\"program\"'*) echo \"program $$ $n\" >> '%1/log'\n"
                // its "arch" comes before its "id"
                "    id=$(printf '%s' \"$line\" | sed -n 's/.*\"id\":\\([0-9]*\\).*/\\1/p')\n"
                "    %3 ;;\n"
                "  *'\"type\":\"run\"'*)\n"
                "    if [ \"$n\" = 4 ]; then sleep 0.8; else sleep 0.05; fi\n"
                "    echo \"run $$ $n\" >> '%1/log'\n"
                "    %2 ;;\n"
                "  esac\n")
                .arg(m_runner.dir(), m_runner.answerWith(QStringLiteral("ok-'$n'.json")),
                     programAnswer(programs)));
    }
    void apply(RunnerPool& pool) const { m_runner.apply(pool); }
    /// Every run and compile, in order ("run 1234 2").
    [[nodiscard]] QStringList log() const { return m_runner.log(); }

private:
    /// The shell line that answers a program request $id, as `programs` says.
    static QString programAnswer(const QString& programs) {
        if (programs == QLatin1String("silent"))
            return QStringLiteral(":");
        return QStringLiteral("printf '{\"type\":\"program\",\"id\":%s,%1}\\n' \"$id\"")
            .arg(programs == QLatin1String("program") ? QStringLiteral("\"program\":\"AAAA\"")
                                                      : QStringLiteral("\"error\":\"none held\""));
    }

    test::ScriptedRunner m_runner;
};

struct Outcome {
    QString error = QStringLiteral("never finished");
    QVector<SweepRecord> records;
    int lost = 0;
};

Outcome sweepOverTwo(const DyingRunner& runner, const QJsonArray& widths) {
    Outcome outcome;
    RunnerPool pool({0, 0});
    runner.apply(pool);
    QSignalSpy lost(&pool, &RunnerPool::runnerLost);
    PoolSweepEvaluator evaluator(&pool);
    Sweep sweep(transposeOver(widths), &evaluator);
    sweep.setConfirm(false);
    if (!sweep.prepare(&outcome.error))
        return outcome;
    QSignalSpy finished(&sweep, &Sweep::finished);
    sweep.start();
    if (!finished.wait(60000))
        return outcome;
    outcome.error = finished.first().at(0).toString();
    outcome.records = sweep.records();
    outcome.lost = int(lost.count());
    return outcome;
}

const SweepRecord* recordOf(const Outcome& o, const QString& key) {
    for (const SweepRecord& r : o.records)
        if (r.key == key)
            return &r;
    return nullptr;
}

} // namespace

class TestSweepRerun : public QObject {
    Q_OBJECT
private slots:
    void theAbRunsWhereBothArmsAreCompiled_data() {
        QTest::addColumn<double>("compileMs");
        QTest::addColumn<bool>("diskCache");
        QTest::addColumn<QVector<int>>("ordinals"); // of the pool's runners
        QTest::addColumn<int>("devices");
        QTest::addColumn<QString>("programs"); // how runners answer program requests
        QTest::addColumn<QString>("ahead");    // how the other device gets the arms: "compile",
                                               // "take" (another runner's program) or "" (none)
        QTest::newRow("quick compiles: both devices, compiling")
            << 5.0 << false << QVector<int>{0, 1} << 2 << "program"
            << "compile";
        QTest::newRow("full compiles, no disk cache: both devices, taking the programs")
            << 900.0 << false << QVector<int>{0, 1} << 2 << "program"
            << "take";
        QTest::newRow("full compiles, no disk cache, no program handed out: compiling")
            << 900.0 << false << QVector<int>{0, 1} << 2 << "error"
            << "compile";
        // RunnerPool::kHandOverWaitMs later the other runner compiles them itself.
        QTest::newRow("full compiles, no disk cache, the donor never answers: compiling")
            << 900.0 << false << QVector<int>{0, 1} << 2 << "silent"
            << "compile";
        QTest::newRow("full compiles, the disk cache has them: both devices, compiling")
            << 900.0 << true << QVector<int>{0, 1} << 2 << "program"
            << "compile";
        // Two runners of one GPU would time each other's kernels.
        QTest::newRow("two runners of one device: one")
            << 5.0 << false << QVector<int>{0, 0} << 1 << "program"
            << "";
    }
    void theAbRunsWhereBothArmsAreCompiled() {
        // Four configurations over two runners, the longest first (4, the long tail, on one;
        // 3, 2 and 1 on the other): the best is 1, the runner-up 2, both compiled on one runner
        // only. The A/B runs on both runners (one model), the other first compiling both arms
        // where that is cheap (quick compiles, or the disk cache has them), else taking them
        // from the runner that compiled them (or compiling them when it hands none out). No
        // arm of it runs on a runner that had not compiled or taken it before.
        QFETCH(double, compileMs);
        QFETCH(bool, diskCache);
        QFETCH(QVector<int>, ordinals);
        QFETCH(int, devices);
        QFETCH(QString, programs);
        QFETCH(QString, ahead);
        // The evaluator reads whether this computer's runners share a disk cache when made.
        QTemporaryDir cache;
        const QByteArray was = qgetenv("KERNELPAD_CACHE_DIR");
        qputenv("KERNELPAD_CACHE_DIR", diskCache ? cache.path().toUtf8() : QByteArray("off"));
        const auto restore = qScopeGuard([was] {
            if (was.isNull())
                qunsetenv("KERNELPAD_CACHE_DIR");
            else
                qputenv("KERNELPAD_CACHE_DIR", was);
        });
        const RunRequest base = transposeWith(QJsonObject{
            {"defines", QJsonObject{{"WIDTH_Q", QJsonObject{{"from", 1}, {"to", 4}, {"step", 1}}}}},
            {"strategy", QJsonObject{{"kind", "exhaustive"}}},
            {"objective", "time"}});
        QString error;
        FollowUpRunner runner(compileMs, programs);
        RunnerPool pool(ordinals);
        runner.apply(pool);
        pool.warmUp();
        PoolSweepEvaluator evaluator(&pool);
        Sweep sweep(base, &evaluator);
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QSignalSpy finished(&sweep, &Sweep::finished);
        QSignalSpy confirmed(&sweep, &Sweep::confirmed);
        sweep.start();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).toString(), QString());
        QCOMPARE(confirmed.count(), 1);
        const QStringList log = runner.log();
        const QString shown = log.join(QStringLiteral("; "));
        QHash<QString, QSet<QString>> has; // pid -> the configurations it compiled or ran
        int configurations = 0;
        int abRuns = 0;
        QSet<QString> abPids;
        QSet<QString> compiledAhead;
        QSet<QString> taken;
        QSet<QString> askedOf; // pids asked for a program
        for (const QString& line : log) {
            const QStringList f = line.split(QLatin1Char(' '));
            QCOMPARE(f.size(), 3);
            if (f[0] == QLatin1String("program")) {
                askedOf.insert(f[1]);
                QVERIFY2(has.value(f[1]).contains(f[2]), qPrintable(shown)); // it compiled it
                continue;
            }
            if (f[0] == QLatin1String("compile")) {
                compiledAhead.insert(f[2]);
            } else if (f[0] == QLatin1String("take")) {
                taken.insert(f[2]);
            } else if (configurations < 4) {
                ++configurations;
            } else {
                ++abRuns;
                abPids.insert(f[1]);
                QVERIFY2(f[2] == QLatin1String("1") || f[2] == QLatin1String("2"),
                         qPrintable(shown));
                QVERIFY2(has.value(f[1]).contains(f[2]), qPrintable(shown));
            }
            has[f[1]].insert(f[2]);
        }
        QCOMPARE(configurations, 4);
        QVERIFY2(abRuns >= 8, qPrintable(shown));
        QCOMPARE(abPids.size(), devices);
        QCOMPARE(!compiledAhead.isEmpty(), ahead == QLatin1String("compile"));
        QCOMPARE(!taken.isEmpty(), ahead == QLatin1String("take"));
        if (!compiledAhead.isEmpty() || !taken.isEmpty())
            QCOMPARE(compiledAhead + taken, (QSet<QString>{"1", "2"}));
        // Asked of the runner that compiled both, never of the one that takes them.
        QCOMPARE(askedOf.size(),
                 ahead == QLatin1String("take") || programs != QLatin1String("program") ? 1 : 0);
        const SweepRecord best = confirmed.first().at(0).value<SweepRecord>();
        QVERIFY(best.confirmation);
        QCOMPARE(best.confirmation->devices.size(), devices == 1 ? 0 : devices);
        const QString text = best.confirmation->text(best.key);
        if (ordinals[0] == ordinals[1])
            QVERIFY2(best.confirmation->oneDeviceReason.isEmpty(), qPrintable(text));
        else
            QVERIFY2(text.startsWith(QStringLiteral("confirmed on 2 devices: WIDTH_Q=1 is")),
                     qPrintable(text));
    }

    void initTestCase() { qRegisterMetaType<kernelpad::RunResult>(); }

    /// Two stand-in runners whose devices are `gpuA` and `gpuB`: one model, the A/B runs on
    /// both, each its own blocks, and starts while the best is timed again; two models, on one,
    /// the line saying why.
    void theAbRunsOnEveryDeviceOfOneModel_data() {
        QTest::addColumn<QString>("gpuB");
        QTest::newRow("one model") << QStringLiteral("Stand-in GPU");
        QTest::newRow("two models") << QStringLiteral("Stand-in Other");
    }
    void theAbRunsOnEveryDeviceOfOneModel() {
        QFETCH(QString, gpuB);
        const bool oneModel = gpuB == QLatin1String("Stand-in GPU");
        test::StandInRunner a(QStringLiteral("a"), QStringLiteral("Stand-in GPU"), 1.0);
        test::StandInRunner b(QStringLiteral("b"), gpuB, 1.0);
        const std::unique_ptr<PoolSweepEvaluator> evaluator = PoolSweepEvaluator::over(
            {PoolEntry{a.spec(), 0, QStringLiteral("Stand-in GPU")}, PoolEntry{b.spec(), 0, gpuB}});
        RunRequest base = transposeOver(QJsonArray{8, 16});
        base.project.sweep.timingBudget = SweepTimingBudget::fast();
        Sweep sweep(base, evaluator.get());
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QStringList order;
        connect(&sweep, &Sweep::confirming, &sweep, [&] { order << QStringLiteral("confirming"); });
        connect(&sweep, &Sweep::retimed, &sweep, [&] { order << QStringLiteral("retimed"); });
        QSignalSpy finished(&sweep, &Sweep::finished);
        sweep.start();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).toString(), QString());
        const std::optional<SweepRecord> best = sweep.best();
        QVERIFY(best && best->confirmation && best->isRetimed());
        const SweepConfirmation& c = *best->confirmation;
        const QString text = c.text(best->key);
        const QString runs = QStringLiteral("%1 runs on a, %2 on b; %3")
                                 .arg(a.completed().size())
                                 .arg(b.completed().size())
                                 .arg(text);
        // Two configurations and the re-timing, then 4 blocks a device (one device: 2 verified
        // runs and 8 blocks); the sweep's own runs of one model size the blocks, so the devices
        // of one model run no verified runs of their own.
        if (oneModel) {
            QCOMPARE(order.first(), QStringLiteral("confirming")); // beside the re-timing
            QCOMPARE(c.devices.size(), 2);
            QVERIFY2(c.devices[0].device != c.devices[1].device, qPrintable(c.devices[0].device));
            for (const AbDeviceEstimate& e : c.devices)
                QCOMPARE(e.blocks, 4);
            QVERIFY2(a.completed().size() >= 4 && b.completed().size() >= 4 &&
                         a.completed().size() + b.completed().size() == 2 + 1 + 8,
                     qPrintable(runs));
            QVERIFY2(text.startsWith(QStringLiteral("no detectable difference on 2 devices from")),
                     qPrintable(text));
        } else {
            QVERIFY(c.devices.isEmpty());
            QCOMPARE(c.oneDeviceReason,
                     QStringLiteral("the sweep's devices are different models (Stand-in GPU "
                                    "(sm_90, 0 SMs), Stand-in Other (sm_90, 0 SMs))"));
            QVERIFY2(std::min(a.completed().size(), b.completed().size()) <= 3 &&
                         std::max(a.completed().size(), b.completed().size()) >= 10,
                     qPrintable(runs));
            QVERIFY2(text.contains(QStringLiteral("; on one device: the sweep's devices are "
                                                  "different models")),
                     qPrintable(text));
        }
    }

    void aConfigurationWhoseRunnerDiesRunsOnceMoreElsewhere() {
        DyingRunner runner;
        const Outcome o = sweepOverTwo(runner, QJsonArray{8, 16, 64, 128});
        QCOMPARE(o.error, QString());
        QCOMPARE(o.lost, 1);
        QCOMPARE(o.records.size(), 4);
        for (const SweepRecord& r : o.records)
            QVERIFY2(r.passed(), qPrintable(r.key + ": " + r.status + ": " + r.error));
        // Run to completion once each, 16 too (on the runner that did not die).
        QCOMPARE(runner.completed(), (QStringList{"128", "16", "64", "8"}));
    }

    void aConfigurationThatKillsTwoRunnersIsAFailedRecordNamingBoth() {
        DyingRunner runner;
        const Outcome o = sweepOverTwo(runner, QJsonArray{8, 32, 64});
        QCOMPARE(o.error, QString());
        QCOMPARE(o.lost, 2);
        QCOMPARE(o.records.size(), 3);
        const SweepRecord* poison = recordOf(o, QStringLiteral("bx=32,by=4"));
        QVERIFY(poison);
        QVERIFY(!poison->passed());
        // Both runners, by number and device, and why each stopped.
        QVERIFY2(poison->error.contains(QStringLiteral("runner 0 (device 0)")) &&
                     poison->error.contains(QStringLiteral("runner 1 (device 0)")) &&
                     poison->error.contains(QStringLiteral("not run a third time")),
                 qPrintable(poison->error));
        QCOMPARE(poison->error.count(QStringLiteral("stopped unexpectedly")), 2);
        QVERIFY(recordOf(o, QStringLiteral("bx=8,by=4"))->passed());
        QVERIFY(recordOf(o, QStringLiteral("bx=64,by=4"))->passed());
        QCOMPARE(runner.completed(), (QStringList{"64", "8"}));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepRerun)

} // namespace tst_sweeprerun

#include "tst_sweeprerun.moc"
