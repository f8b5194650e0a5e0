// A sweep over a pool of two stand-in runners (shell scripts that speak the protocol) whose
// runner dies in the middle of a configuration: that configuration runs once more on the other
// runner and the sweep completes with every configuration recorded once; a configuration that
// takes down a runner each time it runs is tried on two runners, then recorded as failed with
// an error that names both runners and why each died.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/project/Project.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerPool.h"
#include "core/sweep/PoolSweepEvaluator.h"
#include "core/sweep/Sweep.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
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
        write(QStringLiteral("ok.json"), QJsonDocument(ok.toJson()).toJson(QJsonDocument::Compact));
        const QString script =
            QStringLiteral(
                "d=$(mktemp -d /tmp/kernelpad-runner-XXXXXX)\n"
                "printf '{\"type\":\"hello\",\"version\":%1,\"pid\":%s,\"outputDir\":\"%s\"}\\n' "
                "$$ \"$d\"\n"
                "while IFS= read -r line; do\n"
                "  case \"$line\" in *'\"type\":\"run\"'*) ;; *) continue ;; esac\n"
                "  id=${line#'{\"id\":'}; id=${id%%,*}\n"
                "  bx=$(printf '%s' \"$line\" | sed -n 's/.*\"block\":\\[\\([0-9]*\\),.*/\\1/p')\n"
                "  if [ \"$bx\" = 32 ]; then rmdir \"$d\"; kill -9 $$; fi\n"
                "  if [ \"$bx\" = 16 ] && [ ! -e '%2/died' ]; then\n"
                "    : > '%2/died'; rmdir \"$d\"; kill -9 $$\n"
                "  fi\n"
                "  sleep 0.1\n"
                "  echo \"$bx\" >> '%2/log'\n"
                "  printf '{\"type\":\"result\",\"id\":%s,\"result\":%s,\"outputs\":[],"
                "\"poisoned\":false}\\n' \"$id\" \"$(cat '%2/ok.json')\"\n"
                "done\n"
                "rmdir \"$d\"\n")
                .arg(kRunnerProtocolVersion)
                .arg(m_dir.path());
        write(QStringLiteral("runner.sh"), script.toUtf8());
    }
    void apply(RunnerPool& pool) const {
        pool.setCommand(QStringLiteral("/bin/sh"), {m_dir.filePath(QStringLiteral("runner.sh"))});
    }
    /// The block widths run to completion, in order.
    [[nodiscard]] QStringList completed() const {
        QFile f(m_dir.filePath(QStringLiteral("log")));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        QStringList widths =
            QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        widths.sort();
        return widths;
    }

private:
    void write(const QString& name, const QByteArray& bytes) {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(f.fileName()));
    }
    QTemporaryDir m_dir;
};

/// The transpose example over block widths `widths` (by = 4).
RunRequest transposeOver(const QJsonArray& widths) {
    QFile f(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read the transpose example");
    QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
    QJsonObject sweep = json.value(QStringLiteral("sweep")).toObject();
    sweep.insert(QStringLiteral("block"), QJsonObject{{"x", widths}, {"y", QJsonArray{4}}});
    json.insert(QStringLiteral("sweep"), sweep);
    QString error;
    std::optional<Project> p = Project::fromJson(json, &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    RunRequest base;
    base.project = *p;
    base.projectDir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
    return base;
}

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
    void initTestCase() { qRegisterMetaType<kernelpad::RunResult>(); }

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
