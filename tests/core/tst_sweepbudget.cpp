// A sweep's timing budget (core/project/SweepBudget.h): the section's "timingBudget" read and
// written with messages naming the field; each budget's timing; every record names the budget
// that timed it; a sweep timed "fast" or by milliseconds times its winner again with the
// project's own timing at the end (a stand-in evaluator, no GPU), records both times, appends
// the winner again to the results file (a later line of a key replaces the earlier one when
// read), and a resumed sweep whose winner was timed again does not time it a third time.

#include "core/project/Project.h"
#include "core/sweep/Sweep.h"
#include "core/sweep/SweepEvaluator.h"
#include "core/sweep/SweepJob.h"

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

namespace tst_sweepbudget {

using namespace kernelpad;

namespace {

/// What the accurate budget measures in place of the fast one: a different time, so a test
/// can tell which of the two a field holds.
constexpr double kAccurateFactor = 1.5;

/// Answers each request on the next turn of the event loop; keeps the timing each asked for.
/// An accurate request (timed as `accurate`, the project's timing) gets kAccurateFactor times
/// the time, or `accurateStatus` when that is not Ok.
class TimingEvaluator : public SweepEvaluator {
public:
    void start(quint64 tag, const RunRequest& request) override {
        timings.append(request.project.timing);
        RunResult r;
        const int bx = request.project.launch.block[0], by = request.project.launch.block[1];
        const double lx = std::log2(bx) - 5, ly = std::log2(by) - 3;
        r.timing.medianMs = 1.0 + lx * lx + ly * ly;
        r.timing.minMs = r.timing.medianMs * 0.9;
        if (request.project.timing == accurate) {
            r.status = accurateStatus;
            r.error = accurateStatus == RunStatus::Ok ? QString() : QStringLiteral("it faulted");
            r.timing.medianMs *= kAccurateFactor;
            r.timing.minMs *= kAccurateFactor;
        }
        QTimer::singleShot(0, this, [this, tag, r] { emit finished(tag, r, QStringLiteral("G")); });
    }
    [[nodiscard]] int capacity() const override { return 2; }
    void cancel() override {}

    QVector<TimingSpec> timings;
    TimingSpec accurate;
    RunStatus accurateStatus = RunStatus::Ok;
};

Project transpose(const QJsonValue& budget = QJsonValue(QJsonValue::Undefined)) {
    Project p = test::exampleWithSweep(QStringLiteral("transpose_sweep.kpad"),
                                       [&budget](QJsonObject& sweep) {
                                           if (!budget.isUndefined())
                                               sweep.insert(QStringLiteral("timingBudget"), budget);
                                       });
    // The example times a fixed count; a project's usual timing is the adaptive default.
    p.timing = TimingSpec{};
    return p;
}

RunRequest requestFor(const Project& p) {
    RunRequest r;
    r.project = p;
    r.projectDir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
    return r;
}

QString runToEnd(Sweep& sweep) {
    QSignalSpy finished(&sweep, &Sweep::finished);
    sweep.start();
    if (!finished.wait(20000))
        return QStringLiteral("never finished");
    return finished.first().at(0).toString();
}

/// The example's sweep section with "timingBudget" set to `value`, read.
std::optional<SweepSpec> specWith(const QJsonValue& value, QString* error) {
    const Project p = transpose();
    QJsonObject json = p.sweep.toJson();
    json.insert(QStringLiteral("timingBudget"), value);
    return SweepSpec::fromJson(json, p.arguments, error);
}

} // namespace

class TestSweepBudget : public QObject {
    Q_OBJECT
private slots:
    void sectionReadsTheBudget_data() {
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("name");
        QTest::newRow("fast") << QJsonValue(QStringLiteral("fast")) << "fast";
        QTest::newRow("accurate") << QJsonValue(QStringLiteral("accurate")) << "accurate";
        QTest::newRow("milliseconds") << QJsonValue(40) << "40 ms";
        QTest::newRow("the most milliseconds") << QJsonValue(60000) << "60000 ms";
    }
    void sectionReadsTheBudget() {
        QFETCH(QJsonValue, value);
        QFETCH(QString, name);
        QString error;
        const std::optional<SweepSpec> spec = specWith(value, &error);
        QVERIFY2(spec, qPrintable(error));
        QCOMPARE(spec->timingBudget.name(), name);
        // Written back as read, and "accurate", the default, not at all (older files and
        // their results files' hashes stay as they were).
        const QJsonObject json = spec->toJson();
        QCOMPARE(json.contains(QStringLiteral("timingBudget")), name != QLatin1String("accurate"));
        const std::optional<SweepSpec> back = SweepSpec::fromJson(json, {}, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->timingBudget, spec->timingBudget);
    }

    void sectionRefusesABadBudget_data() {
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("got");
        QTest::newRow("unknown word") << QJsonValue(QStringLiteral("quick")) << "got 'quick'";
        QTest::newRow("zero") << QJsonValue(0) << "got 0";
        QTest::newRow("a fraction") << QJsonValue(2.5) << "got 2.5";
        QTest::newRow("too long") << QJsonValue(60001) << "got 60001";
        QTest::newRow("a boolean") << QJsonValue(true) << "got a boolean";
    }
    void sectionRefusesABadBudget() {
        QFETCH(QJsonValue, value);
        QFETCH(QString, got);
        QString error;
        QVERIFY(!specWith(value, &error));
        QCOMPARE(error, QStringLiteral("sweep.timingBudget: expected \"fast\", \"accurate\" or a "
                                       "whole number of milliseconds from 1 to 60000, ") +
                            got);
    }

    void eachBudgetTimesAsItSays() {
        TimingSpec project; // the defaults: adaptive, 250 ms at least, 1 s at most
        project.mode = TimingSpec::Mode::Cold;
        QCOMPARE(SweepTimingBudget{}.apply(project), project);

        const TimingSpec fast = SweepTimingBudget::fast().apply(project);
        QVERIFY(!fast.adaptive);
        QCOMPARE(fast.repetitions, 10);
        QCOMPARE(fast.warmupLaunches, 2);
        QCOMPARE(fast.mode, TimingSpec::Mode::Cold); // how it is timed stays the project's
        QCOMPARE(fast.validate(), QString());

        const TimingSpec short40 = SweepTimingBudget::milliseconds(40).apply(project);
        QVERIFY(short40.adaptive);
        QCOMPARE(short40.maxTimeMs, 40);
        QCOMPARE(short40.minTimeMs, 40);
        QCOMPARE(short40.timeLimitMs, project.timeLimitMs);
        QCOMPARE(short40.validate(), QString());

        // Longer than the watchdog allowed: it keeps its headroom over the timing.
        const TimingSpec long30s = SweepTimingBudget::milliseconds(30000).apply(project);
        QCOMPARE(long30s.maxTimeMs, 30000);
        QCOMPARE(long30s.minTimeMs, project.minTimeMs);
        QCOMPARE(long30s.timeLimitMs, project.timeLimitMs - project.maxTimeMs + 30000);
        QCOMPARE(long30s.validate(), QString());
    }

    void recordsNameTheirBudget() {
        SweepRecord r;
        r.key = QStringLiteral("bx=32");
        r.names = QStringList{QStringLiteral("bx")};
        r.values = {32};
        r.status = QStringLiteral("ok");
        r.medianMs = 0.02;
        r.minMs = 0.019;
        r.timingBudget = QStringLiteral("fast");
        r.accurateMedianMs = 0.021;
        r.accurateMinMs = 0.0205;
        QString error;
        std::optional<SweepRecord> back = SweepRecord::fromJson(r.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->timingBudget, QStringLiteral("fast"));
        QVERIFY(back->isRetimed());
        QCOMPARE(back->accurateMedianMs, 0.021);
        QCOMPARE(back->accurateMinMs, 0.0205);
        QCOMPARE(back->toJson(), r.toJson());

        // A record of a file written before budgets: what timed it was the project's timing.
        QJsonObject old = r.toJson();
        for (const char* field : {"timingBudget", "accurateMedianMs", "accurateMinMs"})
            old.remove(QLatin1String(field));
        back = SweepRecord::fromJson(old, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->timingBudget, QStringLiteral("accurate"));
        QVERIFY(!back->isRetimed());

        // A later line of a key replaces the earlier one, in its place.
        SweepRecord other = r;
        other.key = QStringLiteral("bx=64");
        other.values = {64};
        SweepRecord first = r;
        first.accurateMedianMs = first.accurateMinMs = std::nan("");
        QByteArray data = "{\"kernelpad\":\"sweep-results\",\"version\":1}\n";
        for (const SweepRecord& line : {first, other, r})
            data += QJsonDocument(line.toJson()).toJson(QJsonDocument::Compact) + '\n';
        const std::optional<QVector<SweepRecord>> records =
            parseSweepResults(data, QStringLiteral("r.jsonl"), &error);
        QVERIFY2(records, qPrintable(error));
        QCOMPARE(records->size(), 2);
        QCOMPARE(records->at(0).key, r.key);
        QVERIFY(records->at(0).isRetimed());
        QCOMPARE(records->at(1).key, other.key);
    }

    void fastSweepTimesItsWinnerAgain_data() {
        QTest::addColumn<QJsonValue>("budget");
        QTest::addColumn<QString>("name");
        QTest::newRow("fast") << QJsonValue(QStringLiteral("fast")) << "fast";
        QTest::newRow("40 ms") << QJsonValue(40) << "40 ms";
    }
    void fastSweepTimesItsWinnerAgain() {
        QFETCH(QJsonValue, budget);
        QFETCH(QString, name);
        const Project project = transpose(budget);
        TimingEvaluator evaluator;
        evaluator.accurate = project.timing;
        Sweep sweep(requestFor(project), &evaluator);
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QSignalSpy retiming(&sweep, &Sweep::retiming);
        QSignalSpy retimed(&sweep, &Sweep::retimed);
        bool retimedBeforeTheEnd = false;
        connect(&sweep, &Sweep::finished, &sweep,
                [&] { retimedBeforeTheEnd = retimed.size() == 1; });
        QCOMPARE(runToEnd(sweep), QString());
        QVERIFY(retimedBeforeTheEnd);

        // Every configuration with the budget's timing, then the winner with the project's.
        QCOMPARE(evaluator.timings.size(), 66 + 1);
        const TimingSpec budgeted = project.sweep.timingBudget.apply(project.timing);
        for (int i = 0; i < 66; ++i)
            QCOMPARE(evaluator.timings[i], budgeted);
        QCOMPARE(evaluator.timings.last(), project.timing);

        QCOMPARE(retiming.size(), 1);
        const SweepRecord winner = retimed.first().at(0).value<SweepRecord>();
        QCOMPARE(winner.key, QStringLiteral("bx=32,by=8"));
        QCOMPARE(winner.timingBudget, name);
        QCOMPARE(winner.medianMs, 1.0);
        QCOMPARE(winner.accurateMedianMs, 1.0 * kAccurateFactor);
        QCOMPARE(winner.accurateMinMs, 0.9 * kAccurateFactor);
        QCOMPARE(sweep.best()->accurateMedianMs, winner.accurateMedianMs);
        for (const SweepRecord& r : sweep.records())
            QCOMPARE(r.timingBudget, name);
    }

    void accurateSweepTimesEachOnce() {
        TimingEvaluator evaluator;
        evaluator.accurate = transpose().timing;
        Sweep sweep(requestFor(transpose()), &evaluator);
        QString error;
        QVERIFY(sweep.prepare(&error));
        QSignalSpy retiming(&sweep, &Sweep::retiming);
        QCOMPARE(runToEnd(sweep), QString());
        QCOMPARE(evaluator.timings.size(), 66);
        QCOMPARE(retiming.size(), 0);
        QVERIFY(!sweep.best()->isRetimed());
        QCOMPARE(sweep.best()->timingBudget, QStringLiteral("accurate"));
    }

    void aFailedRetimeIsRecorded() {
        TimingEvaluator evaluator;
        evaluator.accurateStatus = RunStatus::CudaError;
        evaluator.accurate = transpose().timing;
        Sweep sweep(requestFor(transpose(QStringLiteral("fast"))), &evaluator);
        QString error;
        QVERIFY(sweep.prepare(&error));
        QCOMPARE(runToEnd(sweep), QString());
        const SweepRecord winner = *sweep.best();
        QVERIFY(!winner.isRetimed());
        QCOMPARE(winner.accurateError, QStringLiteral("it faulted"));
        QCOMPARE(winner.medianMs, 1.0); // the fast time still ranks it
    }

    /// Through the job and its results file: the winner's second line replaces its first, and
    /// the sweep resumed from the file times nothing again.
    void resumedAfterTheRetimeTimesNothing() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("r.jsonl"));
        const RunRequest base = requestFor(transpose(QStringLiteral("fast")));
        int evaluated = 0;
        const auto factory = [&evaluated, &base] {
            auto evaluator = std::make_unique<TimingEvaluator>();
            evaluator->accurate = base.project.timing;
            QObject::connect(evaluator.get(), &SweepEvaluator::finished, evaluator.get(),
                             [&evaluated] { ++evaluated; });
            return std::unique_ptr<SweepEvaluator>(std::move(evaluator));
        };
        for (int round = 0; round < 2; ++round) {
            SweepJob job(factory);
            QSignalSpy finished(&job, &SweepJob::finished);
            QSignalSpy retimed(&job, &SweepJob::retimed);
            QVERIFY(job.start(base, path, true));
            QVERIFY(finished.wait(20000));
            QCOMPARE(finished.first().at(0).toString(), QString());
            QCOMPARE(retimed.size(), round == 0 ? 1 : 0);
            QCOMPARE(evaluated, 67);
        }
        QString error;
        const std::optional<QVector<SweepRecord>> records = readSweepResults(path, &error);
        QVERIFY2(records, qPrintable(error));
        QCOMPARE(records->size(), 66);
        const std::optional<SweepRecord> best = bestRecord(*records, SweepObjective::Time);
        QVERIFY(best && best->isRetimed());
        QCOMPARE(best->accurateMedianMs, kAccurateFactor);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepBudget)
} // namespace tst_sweepbudget
#include "tst_sweepbudget.moc"
