// The sweep driver and its results over a stand-in evaluator (no
// GPU): every configuration of the space is evaluated once, failures are recorded with their
// reason and never chosen as best, configurations that cannot launch never reach the
// evaluator, no device ends the sweep with an error and no record; the results file is
// appended as results arrive, a sweep killed after k results resumes from it and evaluates
// only the rest; the table's CSV and JSON export.

#include "core/project/Project.h"
#include "core/sweep/Sweep.h"
#include "core/sweep/SweepEvaluator.h"

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <cmath>
#include <functional>

namespace tst_sweepdriver {

using namespace kernelpad;

namespace {

/// Answers each request on the next turn of the event loop with `outcome(project)`, up to
/// `capacity` at once (a pool of several runners, as far as the sweep can tell).
class FakeEvaluator : public SweepEvaluator {
public:
    FakeEvaluator(int capacity, std::function<RunResult(const Project&)> outcome)
        : m_capacity(capacity)
        , m_outcome(std::move(outcome)) {}
    void start(quint64 tag, const RunRequest& request) override {
        ++started;
        ++inFlight;
        maxInFlight = std::max(maxInFlight, inFlight);
        kernels.append(request.project.kernel);
        // Recorded as the test's failure, and the job still finishes: a QVERIFY here would
        // return from start() only, and the sweep would wait for an answer that never comes.
        if (request.keepOutputs)
            QTest::qFail("a sweep's job asked to keep its outputs", __FILE__, __LINE__);
        if (!request.project.sweep.isEmpty())
            QTest::qFail("a sweep's job still holds the sweep section", __FILE__, __LINE__);
        const RunResult result = m_outcome(request.project);
        QTimer::singleShot(0, this, [this, tag, result] {
            --inFlight;
            emit finished(tag, result, QStringLiteral("Fake GPU %1").arg(tag % m_capacity));
        });
    }
    [[nodiscard]] int capacity() const override { return m_capacity; }
    void cancel() override { ++cancels; }

    int started = 0;
    int inFlight = 0;
    int maxInFlight = 0;
    int cancels = 0;
    QStringList kernels;

private:
    int m_capacity;
    std::function<RunResult(const Project&)> m_outcome;
};

Project transpose(const std::function<void(QJsonObject&)>& edit = {}) {
    return test::exampleWithSweep(QStringLiteral("transpose_sweep.kpad"), edit);
}

/// A fake time that is least at bx = 32, by = 8; bx = 64 "fails verification" and bx = 128
/// "does not compile", each with a fake time below every passing one.
RunResult synthetic(const Project& p) {
    RunResult r;
    const int bx = p.launch.block[0], by = p.launch.block[1];
    const double lx = std::log2(bx) - 5, ly = std::log2(by) - 3;
    r.timing.medianMs = 1.0 + lx * lx + ly * ly;
    r.timing.minMs = r.timing.medianMs * 0.9;
    r.timing.bandwidthGBs = 100.0 / r.timing.medianMs;
    if (bx == 64) {
        r.status = RunStatus::VerificationFailed;
        r.error = QStringLiteral("out: 17 of 4194304 elements differ");
        r.timing.medianMs = 0.01;
    } else if (bx == 128) {
        r.status = RunStatus::CompileError;
        r.error = QStringLiteral("compilation failed");
        r.timing.medianMs = 0.001;
    }
    return r;
}

RunRequest requestFor(const Project& p) {
    RunRequest r;
    r.project = p;
    r.projectDir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
    return r;
}

/// Runs `sweep` to its end; returns the finished() error.
QString runToEnd(Sweep& sweep) {
    QSignalSpy finished(&sweep, &Sweep::finished);
    sweep.start();
    if (!finished.wait(20000))
        return QStringLiteral("never finished");
    return finished.first().at(0).toString();
}

} // namespace

class TestSweepDriver : public QObject {
    Q_OBJECT
private slots:
    void evaluatesEveryConfigurationOnce() {
        FakeEvaluator evaluator(3, synthetic);
        Sweep sweep(requestFor(transpose()), &evaluator);
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QCOMPARE(sweep.total(), 66);
        QSignalSpy progress(&sweep, &Sweep::progress);
        QCOMPARE(runToEnd(sweep), QString());
        QCOMPARE(evaluator.started, 66);
        QCOMPARE(evaluator.maxInFlight, 3);
        QCOMPARE(sweep.records().size(), 66);
        QCOMPARE(progress.size(), 66);
        QCOMPARE(progress.last().at(0).toInt(), 66);
        QSet<QString> keys;
        for (const SweepRecord& r : sweep.records())
            keys.insert(r.key);
        QCOMPARE(keys.size(), 66);
    }

    void failuresAreRecordedAndNeverBest() {
        FakeEvaluator evaluator(1, synthetic);
        Sweep sweep(requestFor(transpose()), &evaluator);
        QString error;
        QVERIFY(sweep.prepare(&error));
        QCOMPARE(runToEnd(sweep), QString());
        const std::optional<SweepRecord> best = sweep.best();
        QVERIFY(best);
        QCOMPARE(best->key, QStringLiteral("bx=32,by=8"));
        QCOMPARE(best->medianMs, 1.0);
        QVERIFY(best->device.startsWith(QStringLiteral("Fake GPU")));
        int verification = 0, compile = 0;
        for (const SweepRecord& r : sweep.records()) {
            if (r.values[0] == 64) {
                QCOMPARE(r.status, QStringLiteral("verification-failed"));
                QCOMPARE(r.error, QStringLiteral("out: 17 of 4194304 elements differ"));
                QVERIFY(std::isnan(r.medianMs)); // a failed run's time means nothing
                ++verification;
            } else if (r.values[0] == 128) {
                QCOMPARE(r.status, QStringLiteral("compile-error"));
                ++compile;
            } else {
                QVERIFY(r.passed());
            }
        }
        QCOMPARE(verification, 5); // by = 1 .. 16
        QCOMPARE(compile, 4);      // by = 1 .. 8
        const QVector<SweepRecord> sorted = sortedRecords(sweep.records(), SweepObjective::Time);
        QCOMPARE(sorted.first().key, best->key);
        for (int i = 0; i < 57; ++i)
            QVERIFY(sorted[i].passed());
        for (int i = 57; i < 66; ++i)
            QVERIFY(!sorted[i].passed());
        // By bandwidth, the best is the same configuration here (100 / time).
        QCOMPARE(bestRecord(sweep.records(), SweepObjective::Bandwidth)->key, best->key);
    }

    void unlaunchableConfigurationsNeverReachTheEvaluator() {
        FakeEvaluator evaluator(2, synthetic);
        Sweep sweep(requestFor(transpose([](QJsonObject& s) { s.remove("restrictions"); })),
                    &evaluator);
        QString error;
        QVERIFY(sweep.prepare(&error));
        QCOMPARE(runToEnd(sweep), QString());
        QCOMPARE(sweep.records().size(), 121);
        QCOMPARE(evaluator.started, 66);
        int invalid = 0;
        for (const SweepRecord& r : sweep.records()) {
            if (r.status == SweepRecord::kInvalid) {
                ++invalid;
                QVERIFY2(r.error.startsWith(QStringLiteral("block:")), qPrintable(r.error));
                QVERIFY(r.device.isEmpty());
            }
        }
        QCOMPARE(invalid, 55);
        QCOMPARE(sweep.best()->key, QStringLiteral("bx=32,by=8"));
    }

    void noDeviceEndsTheSweep() {
        FakeEvaluator evaluator(1, [](const Project&) {
            RunResult r;
            r.status = RunStatus::DriverUnavailable;
            r.error = QStringLiteral("libcuda.so.1: cannot open shared object file");
            return r;
        });
        Sweep sweep(requestFor(transpose()), &evaluator);
        QString error;
        QVERIFY(sweep.prepare(&error));
        QSignalSpy added(&sweep, &Sweep::recordAdded);
        const QString stopped = runToEnd(sweep);
        QVERIFY2(stopped.startsWith(QStringLiteral("no CUDA device: libcuda.so.1")),
                 qPrintable(stopped));
        QCOMPARE(evaluator.started, 1);
        QCOMPARE(added.size(), 0);
        QVERIFY(!sweep.best());
    }

    void resumesFromTheResultsFile_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("killAfter");
        QTest::newRow("exhaustive, killed after 10")
            << int(SweepStrategySpec::Kind::Exhaustive) << 10;
        QTest::newRow("exhaustive, killed after 1")
            << int(SweepStrategySpec::Kind::Exhaustive) << 1;
        QTest::newRow("random, killed after 25") << int(SweepStrategySpec::Kind::Random) << 25;
    }
    void resumesFromTheResultsFile() {
        QFETCH(int, kind);
        QFETCH(int, killAfter);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("results.jsonl"));
        Project project = transpose();
        project.sweep.strategy.kind = SweepStrategySpec::Kind(kind);
        project.sweep.strategy.seed = 5;

        int firstEvaluated = 0;
        {
            FakeEvaluator evaluator(1, synthetic);
            Sweep sweep(requestFor(project), &evaluator);
            QString error;
            QVERIFY(sweep.prepare(&error));
            SweepResultsFile file;
            QVERIFY2(file.open(path, &error), qPrintable(error));
            QVERIFY(file.existing().isEmpty());
            connect(&sweep, &Sweep::recordAdded, &sweep, [&](const SweepRecord& r) {
                QVERIFY(file.append(r, &error));
                if (sweep.done() == killAfter)
                    sweep.cancel(); // as if the process were killed here
            });
            QCOMPARE(runToEnd(sweep), QStringLiteral("cancelled"));
            firstEvaluated = evaluator.started;
            QCOMPARE(sweep.records().size(), killAfter);
        }
        // A kill while writing leaves half a line: the resumed sweep drops it.
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::Append));
            f.write("{\"key\": \"bx=1,by=");
        }
        FakeEvaluator evaluator(1, synthetic);
        Sweep sweep(requestFor(project), &evaluator);
        QString error;
        QVERIFY(sweep.prepare(&error));
        SweepResultsFile file;
        QVERIFY2(file.open(path, &error), qPrintable(error));
        QCOMPARE(file.existing().size(), killAfter);
        sweep.setDone(file.existing());
        connect(&sweep, &Sweep::recordAdded, &sweep,
                [&](const SweepRecord& r) { QVERIFY(file.append(r, &error)); });
        QCOMPARE(runToEnd(sweep), QString());
        QCOMPARE(evaluator.started, 66 - killAfter);
        QCOMPARE(firstEvaluated - 1 <= killAfter, true); // at most the one in flight lost
        QCOMPARE(sweep.records().size(), 66);
        QCOMPARE(sweep.best()->key, QStringLiteral("bx=32,by=8"));

        SweepResultsFile reread;
        QVERIFY(reread.open(path, &error));
        QCOMPARE(reread.existing().size(), 66);
        QSet<QString> keys;
        for (const SweepRecord& r : reread.existing())
            keys.insert(r.key);
        QCOMPARE(keys.size(), 66);
    }

    void resultsFileRefusesABadLine() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"kernelpad\":\"sweep-results\",\"version\":1}\n");
        f.write(
            "{\"key\":\"bx=1\",\"names\":[\"bx\"],\"parameters\":{\"bx\":1},\"status\":\"ok\"}\n");
        f.write("{\"key\":\"bx=2\",\"names\":[\"bx\"],\"parameters\":{},\"status\":\"ok\"}\n");
        f.write("[1]\n");
        f.close();
        SweepResultsFile file;
        QString error;
        QVERIFY(!file.open(path, &error));
        QVERIFY2(error.contains(QStringLiteral("line 3: parameters.bx: missing")),
                 qPrintable(error));
    }

    void recordRoundTripsAndExports() {
        SweepRecord ok;
        ok.key = QStringLiteral("bx=32,TILE=16");
        ok.names = {QStringLiteral("bx"), QStringLiteral("TILE")};
        ok.values = {32, 16};
        ok.status = QStringLiteral("ok");
        ok.medianMs = 0.25;
        ok.minMs = 0.2;
        ok.bandwidthGBs = 1500;
        ok.device = QStringLiteral("NVIDIA H100 80GB HBM3");
        ok.ceilingGBs = 2973.5;
        SweepRecord failed = ok;
        failed.key = QStringLiteral("bx=64,TILE=16");
        failed.values = {64, 16};
        failed.status = QStringLiteral("cuda-error");
        failed.error = QStringLiteral("an illegal memory access, \"out\" at 0x10\nline two");
        failed.medianMs = failed.minMs = failed.bandwidthGBs = std::nan("");

        QString error;
        for (const SweepRecord& r : {ok, failed}) {
            const std::optional<SweepRecord> back = SweepRecord::fromJson(r.toJson(), &error);
            QVERIFY2(back, qPrintable(error));
            QCOMPARE(back->toJson(), r.toJson());
            QCOMPARE(back->values, r.values);
            QCOMPARE(back->names, r.names);
            QCOMPARE(back->ceilingGBs, 2973.5);
        }
        const QVector<SweepRecord> sorted = sortedRecords({failed, ok}, SweepObjective::Time);
        QCOMPARE(sorted[0].key, ok.key);
        const QString csv = recordsToCsv(sorted, ok.names);
        const QStringList lines = csv.split(QLatin1Char('\n'));
        QCOMPARE(lines[0],
                 QStringLiteral("bx,TILE,status,median_ms,min_ms,gbps,ceiling_gbps,device,error,"
                                "timing_budget,accurate_median_ms"));
        QCOMPARE(lines[1],
                 QStringLiteral("32,16,ok,0.25,0.2,1500,2973.5,NVIDIA H100 80GB HBM3,,accurate,"));
        QCOMPARE(lines[2], QStringLiteral("64,16,cuda-error,,,,2973.5,NVIDIA H100 80GB HBM3,"
                                          "\"an illegal memory access, \"\"out\"\" at 0x10"));
        QCOMPARE(lines[3], QStringLiteral("line two\",accurate,"));
        const QJsonArray json = recordsToJson(sorted);
        QCOMPARE(json.size(), 2);
        QCOMPARE(json[0].toObject().value(QStringLiteral("medianMs")).toDouble(), 0.25);
        QVERIFY(json[1].toObject().value(QStringLiteral("medianMs")).isNull());
        QCOMPARE(json[1].toObject().value(QStringLiteral("error")).toString(), failed.error);
        QCOMPARE(json[0].toObject().value(QStringLiteral("ceilingGBs")).toDouble(), 2973.5);
        // Unknown: absent, and read back as unknown.
        SweepRecord unknown = ok;
        unknown.ceilingGBs = std::nan("");
        QVERIFY(!unknown.toJson().contains(QStringLiteral("ceilingGBs")));
        QVERIFY(std::isnan(SweepRecord::fromJson(unknown.toJson(), &error)->ceilingGBs));
        QCOMPARE(recordsCeilingGBs({unknown}), std::nullopt);
        QCOMPARE(recordsCeilingGBs({unknown, ok}), std::optional<double>(2973.5));
    }

    // Records written before they carried the ceiling: every line still reads, the ceiling
    // unknown, and the file resumes (appending a record that has one).
    // Equal times are told apart by key, whatever order they arrived in: a resumed sweep (records
    // in the space's order) names the same best as the run that found it in arrival order.
    void equalScoresAreToldApartByKey() {
        SweepRecord a;
        a.key = QStringLiteral("bx=16,by=4");
        a.status = QStringLiteral("ok");
        a.medianMs = a.minMs = 0.5;
        SweepRecord b = a;
        b.key = QStringLiteral("bx=8,by=8");
        SweepRecord slow = a;
        slow.key = QStringLiteral("bx=1,by=1");
        slow.medianMs = 0.75;
        for (const QVector<SweepRecord>& order :
             {QVector<SweepRecord>{a, b, slow}, QVector<SweepRecord>{slow, b, a}}) {
            QCOMPARE(bestRecord(order, SweepObjective::Time)->key, a.key);
            const QVector<SweepRecord> sorted = sortedRecords(order, SweepObjective::Time);
            QCOMPARE(sorted[0].key, a.key);
            QCOMPARE(sorted[1].key, b.key);
            QCOMPARE(sorted[2].key, slow.key);
        }
    }

    void recordsWithoutTheCeilingLoad() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("old.sweep-1a2b3c4d.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"kernelpad\":\"sweep-results\",\"version\":1}\n");
        f.write("{\"device\":\"NVIDIA H100 80GB HBM3\",\"gbps\":1200.5,\"key\":\"bx=32,by=8\","
                "\"medianMs\":0.05,\"minMs\":0.049,\"names\":[\"bx\",\"by\"],"
                "\"parameters\":{\"bx\":32,\"by\":8},\"status\":\"ok\"}\n");
        f.write("{\"device\":\"\",\"gbps\":null,\"key\":\"bx=64,by=32\",\"medianMs\":null,"
                "\"minMs\":null,\"names\":[\"bx\",\"by\"],\"parameters\":{\"bx\":64,\"by\":32},"
                "\"status\":\"invalid\",\"error\":\"block: 2048 threads\"}\n");
        f.close();
        QString error;
        const std::optional<QVector<SweepRecord>> read = readSweepResults(path, &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(read->size(), 2);
        QCOMPARE((*read)[0].bandwidthGBs, 1200.5);
        QVERIFY(std::isnan((*read)[0].ceilingGBs));
        QCOMPARE(recordsCeilingGBs(*read), std::nullopt);
        SweepResultsFile file;
        QVERIFY2(file.open(path, &error), qPrintable(error));
        QCOMPARE(file.existing().size(), 2);
        SweepRecord next = (*read)[0];
        next.key = QStringLiteral("bx=16,by=8");
        next.values = {16, 8};
        next.ceilingGBs = 3000;
        QVERIFY(file.append(next, &error));
        const std::optional<QVector<SweepRecord>> again = readSweepResults(path, &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->size(), 3);
        QCOMPARE(recordsCeilingGBs(*again), std::optional<double>(3000));
    }

    // The ceiling a run reports rides on its configuration's record, failures included (it is
    // the device's, not the configuration's).
    void recordsCarryTheRunsCeiling() {
        FakeEvaluator evaluator(2, [](const Project& p) {
            RunResult r = synthetic(p);
            r.timing.ceilingGBs = 2973;
            return r;
        });
        Sweep sweep(requestFor(transpose()), &evaluator);
        QString error;
        QVERIFY(sweep.prepare(&error));
        QCOMPARE(runToEnd(sweep), QString());
        int withCeiling = 0;
        for (const SweepRecord& r : sweep.records()) {
            if (r.status == SweepRecord::kInvalid)
                QVERIFY(std::isnan(r.ceilingGBs)); // never reached a device
            else if (r.ceilingGBs == 2973)
                ++withCeiling;
        }
        QCOMPARE(withCeiling, evaluator.started);
        QCOMPARE(recordsCeilingGBs(sweep.records()), std::optional<double>(2973));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepDriver)
} // namespace tst_sweepdriver
#include "tst_sweepdriver.moc"
