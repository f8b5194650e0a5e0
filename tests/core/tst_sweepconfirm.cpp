// A sweep confirms its winner by an interleaved A/B against the runner-up (core/sweep/Sweep.h,
// SweepConfirmation.h) over a stand-in evaluator that answers the A/B (no GPU): the A/B runs
// after the last configuration and after the re-timing of a fast sweep, A the runner-up and B the
// best, and only with nothing else in flight; its verdict is kept on the best's record, appended
// to the results file again, so a resumed sweep does not run it a second time; one
// configuration, no passing runner-up, or setConfirm(false) run none and claim nothing; an
// evaluator that cannot compare (the default) or an A/B that fails gives a line saying so and the
// sweep still finishes with every record; the texts of each verdict, and the record's JSON.

#include "core/project/Project.h"
#include "core/sweep/Sweep.h"
#include "core/sweep/SweepEvaluator.h"
#include "core/sweep/SweepJob.h"

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <functional>

namespace tst_sweepconfirm {

using namespace kernelpad;

namespace {

/// A fake time that is least at bx = 32, by = 8 (1 ms), then 2 ms at bx = 16 or 64 (by = 8)
/// and at by = 4 or 16 (bx = 32); bx = 64 "fails verification".
RunResult syntheticRun(const Project& p) {
    RunResult r;
    const int bx = p.launch.block[0], by = p.launch.block[1];
    const double lx = std::log2(bx) - 5, ly = std::log2(by) - 3;
    r.timing.medianMs = 1.0 + lx * lx + ly * ly;
    r.timing.minMs = r.timing.medianMs * 0.9;
    if (bx == 64) {
        r.status = RunStatus::VerificationFailed;
        r.error = QStringLiteral("out: 17 elements differ");
    }
    return r;
}

/// Answers configurations with syntheticRun() and an A/B with `ab` (the default: a verdict that
/// B, the best, is 3 % faster), each on the next turn of the event loop. Counts what it did in
/// `abs` (shared: a SweepJob makes its evaluator on its own thread).
class AbEvaluator : public SweepEvaluator {
public:
    explicit AbEvaluator(std::atomic<int>* abs = nullptr, bool answersAb = true)
        : m_abs(abs)
        , m_answersAb(answersAb) {}
    void start(quint64 tag, const RunRequest& request) override {
        ++inFlight;
        const RunResult r = syntheticRun(request.project);
        QTimer::singleShot(runDelayMs, this, [this, tag, r] {
            --inFlight;
            emit finished(tag, r, QStringLiteral("Fake GPU"));
        });
    }
    [[nodiscard]] int capacity() const override { return 3; }
    [[nodiscard]] bool comparesBesideRuns() const override { return besideRuns; }
    void cancel() override {}
    void compareAb(quint64 tag, const AbOrder& order) override {
        if (m_abs)
            ++*m_abs;
        orders.append(order);
        inFlightAtAb = inFlight;
        if (!m_answersAb)
            return SweepEvaluator::compareAb(tag, order);
        AbResult result = ab;
        result.a.label = order.labelA;
        result.b.label = order.labelB;
        QTimer::singleShot(0, this, [this, tag, result] { emit abFinished(tag, result); });
    }

    QVector<AbOrder> orders;
    int inFlight = 0;
    int inFlightAtAb = -1;
    AbResult ab = fasterBy3Percent();
    bool besideRuns = false; ///< comparesBesideRuns(): several devices
    int runDelayMs = 0;      ///< each run's answer comes this much later (the A/B's at once)

    static AbResult fasterBy3Percent() {
        AbResult r;
        r.status = AbResult::Status::Verdict;
        r.verdict.kind = AbVerdict::Kind::Faster;
        r.verdict.ratio = 0.969;
        r.verdict.low = 0.966;
        r.verdict.high = 0.972;
        r.blocks = 12;
        r.device = QStringLiteral("Fake GPU");
        return r;
    }

private:
    std::atomic<int>* m_abs;
    bool m_answersAb;
};

/// The transpose example with its block x over the powers of two from xFrom to xTo, y alike.
Project transpose(int xFrom, int xTo, int yFrom, int yTo, const QString& budget = {}) {
    const auto range = [](int from, int to) {
        return QJsonObject{{"from", from}, {"to", to}, {"powersOf", 2}};
    };
    return test::exampleWithSweep(QStringLiteral("transpose_sweep.kpad"), [&](QJsonObject& sweep) {
        sweep.insert(QStringLiteral("block"),
                     QJsonObject{{"x", range(xFrom, xTo)}, {"y", range(yFrom, yTo)}});
        if (!budget.isEmpty())
            sweep.insert(QStringLiteral("timingBudget"), budget);
    });
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

/// The SAXPY size sweep over n from 2^10 to 2^12: each size its own inputs.
Project saxpySizes(const QString& budget) {
    return test::exampleWithSweep(QStringLiteral("saxpy_sizes.kpad"), [&](QJsonObject& sweep) {
        sweep.insert(
            QStringLiteral("scalars"),
            QJsonObject{{"n", QJsonObject{{"from", 1024}, {"to", 4096}, {"powersOf", 2}}}});
        // The stand-in's runs carry times, not bandwidths.
        sweep.insert(QStringLiteral("objective"), QStringLiteral("time"));
        if (!budget.isEmpty())
            sweep.insert(QStringLiteral("timingBudget"), budget);
    });
}

/// An A/B pooled over two devices (0.968 and 0.970, each ±0.003) to 0.969 [0.967, 0.971].
AbResult onTwoDevices() {
    AbResult r = AbEvaluator::fasterBy3Percent();
    r.verdict.ratio = 0.969;
    r.verdict.low = 0.967;
    r.verdict.high = 0.971;
    r.blocks = 16;
    r.device = QStringLiteral("GPU (device 0)");
    for (int d = 0; d < 2; ++d) {
        AbDeviceEstimate e;
        e.device = QStringLiteral("GPU (device %1)").arg(d);
        e.verdict = QStringLiteral("faster");
        e.ratio = d == 0 ? 0.968 : 0.970;
        e.low = e.ratio - 0.003;
        e.high = e.ratio + 0.003;
        e.blocks = 8;
        r.devices.append(e);
    }
    return r;
}

/// Runs a SweepJob over AbEvaluators to its end; returns the finished() error.
QString runJob(const RunRequest& base, const QString& path, std::atomic<int>* abs,
               QVector<SweepRecord>* confirmed) {
    SweepJob job([abs] { return std::unique_ptr<SweepEvaluator>(new AbEvaluator(abs)); });
    QSignalSpy finished(&job, &SweepJob::finished);
    QObject::connect(&job, &SweepJob::confirmed, &job,
                     [confirmed](const SweepRecord& r) { confirmed->append(r); });
    job.start(base, path, true);
    if (!finished.wait(20000))
        return QStringLiteral("never finished");
    return finished.first().at(0).toString();
}

} // namespace

class TestSweepConfirm : public QObject {
    Q_OBJECT
private slots:
    void confirmsTheBestAgainstTheRunnerUp_data() {
        QTest::addColumn<QString>("budget");
        QTest::newRow("accurate") << QString();
        QTest::newRow("fast, after the re-timing") << QStringLiteral("fast");
    }
    void confirmsTheBestAgainstTheRunnerUp() {
        QFETCH(QString, budget);
        AbEvaluator evaluator;
        RunRequest base = requestFor(transpose(8, 64, 4, 16, budget));
        base.device = 1;
        Sweep sweep(base, &evaluator);
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QSignalSpy retimed(&sweep, &Sweep::retimed);
        QSignalSpy confirming(&sweep, &Sweep::confirming);
        QSignalSpy confirmed(&sweep, &Sweep::confirmed);
        int retimedBeforeConfirming = -1;
        connect(&sweep, &Sweep::confirming, &sweep,
                [&] { retimedBeforeConfirming = int(retimed.size()); });
        QCOMPARE(runToEnd(sweep), QString());

        QCOMPARE(evaluator.orders.size(), 1);
        QCOMPARE(evaluator.inFlightAtAb, 0); // nothing else in flight
        QCOMPARE(retimedBeforeConfirming, budget.isEmpty() ? 0 : 1);
        const AbOrder& order = evaluator.orders.first();
        // B the best (1 ms), A the runner-up: of the 2 ms ties the first key, bx=64 failed.
        QCOMPARE(order.labelB, QStringLiteral("bx=32,by=8"));
        QCOMPARE(order.labelA, QStringLiteral("bx=16,by=8"));
        QCOMPARE(order.b.project.launch.block[0], 32);
        QCOMPARE(order.a.project.launch.block[0], 16);
        QCOMPARE(order.a.device, 1);
        QVERIFY(order.a.project.sweep.isEmpty());
        // The project's own timing, as the re-timing: not the fast budget.
        QCOMPARE(order.a.project.timing, base.project.timing);
        QCOMPARE(confirming.size(), 1);
        QCOMPARE(confirming.first().at(1).value<SweepRecord>().key, QStringLiteral("bx=16,by=8"));

        QCOMPARE(confirmed.size(), 1);
        const SweepRecord best = confirmed.first().at(0).value<SweepRecord>();
        QCOMPARE(best.key, QStringLiteral("bx=32,by=8"));
        QVERIFY(best.confirmation);
        QCOMPARE(best.confirmation->verdict, SweepConfirmation::kFaster);
        QCOMPARE(best.confirmation->against, QStringLiteral("bx=16,by=8"));
        QCOMPARE(best.confirmation->text(best.key),
                 QStringLiteral("confirmed: bx=32,by=8 is 3.1 % faster than bx=16,by=8 (95 % "
                                "interval 2.8\u20133.4 %)"));
        QVERIFY(sweep.best()->confirmation);
        QCOMPARE(sweep.records().size(), 12); // bx 8..64 by 4..16
    }

    void noAbWithoutARunnerUp_data() {
        QTest::addColumn<int>("xTo");
        QTest::addColumn<bool>("confirm");
        QTest::newRow("one configuration") << 32 << true;
        QTest::newRow("the runner-up failed") << 64 << true; // bx=32 and bx=64, which fails
        QTest::newRow("setConfirm(false)") << 16 << false;
    }
    void noAbWithoutARunnerUp() {
        QFETCH(int, xTo);
        QFETCH(bool, confirm);
        AbEvaluator evaluator;
        Sweep sweep(requestFor(transpose(xTo == 16 ? 8 : 32, xTo, 8, 8)), &evaluator);
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        sweep.setConfirm(confirm);
        QSignalSpy confirming(&sweep, &Sweep::confirming);
        QCOMPARE(runToEnd(sweep), QString());
        QCOMPARE(evaluator.orders.size(), 0);
        QCOMPARE(confirming.size(), 0);
        QVERIFY(sweep.best());
        QVERIFY(!sweep.best()->confirmation);
    }

    /// The default compareAb (an evaluator that cannot compare) and an A/B that failed: the line
    /// says so, and the sweep ends without an error, every record kept.
    void aFailedAbIsSaidAndTheSweepFinishes_data() {
        QTest::addColumn<bool>("answersAb");
        QTest::addColumn<QString>("why");
        QTest::newRow("cannot compare") << false << "this sweep's evaluator runs no A/B";
        QTest::newRow("the A/B failed") << true << "A (bx=16,by=8): cuda-error (lost)";
    }
    void aFailedAbIsSaidAndTheSweepFinishes() {
        QFETCH(bool, answersAb);
        QFETCH(QString, why);
        AbEvaluator evaluator(nullptr, answersAb);
        evaluator.ab = AbResult();
        evaluator.ab.status = AbResult::Status::Error;
        evaluator.ab.error = why;
        Sweep sweep(requestFor(transpose(8, 32, 8, 8)), &evaluator);
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QCOMPARE(runToEnd(sweep), QString());
        QCOMPARE(sweep.records().size(), 3);
        const std::optional<SweepRecord> best = sweep.best();
        QVERIFY(best && best->confirmation);
        QCOMPARE(best->confirmation->verdict, SweepConfirmation::kError);
        QCOMPARE(best->confirmation->text(best->key),
                 QStringLiteral("not confirmed: the A/B against bx=16,by=8 failed: ") + why);
    }

    /// The verdict is appended to the results file with the best's record: a resumed sweep
    /// reads it and runs no second A/B.
    void aResumedSweepDoesNotConfirmAgain() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("results.jsonl"));
        const RunRequest base = requestFor(transpose(32, 64, 8, 16)); // bx=64 fails
        std::atomic<int> abs{0};
        QVector<SweepRecord> confirmed;
        QCOMPARE(runJob(base, path, &abs, &confirmed), QString());
        QCOMPARE(abs.load(), 1);
        QCOMPARE(confirmed.size(), 1);

        QString error;
        const std::optional<QVector<SweepRecord>> records = readSweepResults(path, &error);
        QVERIFY2(records, qPrintable(error));
        const std::optional<SweepRecord> best = bestRecord(*records, SweepObjective::Time);
        QVERIFY(best && best->confirmation);
        QCOMPARE(best->confirmation->against, QStringLiteral("bx=32,by=16"));
        QCOMPARE(best->confirmation->verdict, SweepConfirmation::kFaster);

        confirmed.clear();
        QCOMPARE(runJob(base, path, &abs, &confirmed), QString());
        QCOMPARE(abs.load(), 1);
        QCOMPARE(confirmed.size(), 0);

        // A new configuration that is the runner-up now: the verdict no longer holds.
        const RunRequest wider = requestFor(transpose(16, 64, 8, 16));
        QCOMPARE(runJob(wider, path, &abs, &confirmed), QString());
        QCOMPARE(abs.load(), 2);
        QCOMPARE(confirmed.size(), 1);
        QCOMPARE(confirmed.first().confirmation->against, QStringLiteral("bx=16,by=8"));
    }

    void texts_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("objective");
        QTest::addColumn<QString>("text");
        QTest::newRow("no difference")
            << int(AbVerdict::Kind::NoDifference) << int(SweepObjective::Time)
            << "no detectable difference from bx=8,by=8 at \u00b10.4 %: either will do";
        QTest::newRow("slower") << int(AbVerdict::Kind::Slower) << int(SweepObjective::Time)
                                << "not confirmed: bx=16,by=8 is 1.0 % slower than bx=8,by=8 (95 "
                                   "% interval 0.6\u20131.4 %) in an interleaved A/B: the "
                                   "runner-up may be the better one";
        QTest::newRow("refused") << int(AbVerdict::Kind::Refused) << int(SweepObjective::Time)
                                 << "not confirmed: the A/B against bx=8,by=8 gives no verdict: "
                                    "A ran at 1980 MHz, B at 1755 MHz";
        QTest::newRow("energy objective")
            << int(AbVerdict::Kind::NoDifference) << int(SweepObjective::Energy)
            << "no detectable difference from bx=8,by=8 at \u00b10.4 %: either will do (the A/B "
               "compares times; the sweep's objective is energy)";
    }
    void texts() {
        QFETCH(int, kind);
        QFETCH(int, objective);
        QFETCH(QString, text);
        AbResult ab;
        ab.status = AbVerdict::Kind(kind) == AbVerdict::Kind::Refused ? AbResult::Status::Refused
                                                                      : AbResult::Status::Verdict;
        ab.verdict.kind = AbVerdict::Kind(kind);
        const bool slower = ab.verdict.kind == AbVerdict::Kind::Slower;
        ab.verdict.ratio = slower ? 1.010 : 1.001;
        ab.verdict.low = slower ? 1.006 : 0.997;
        ab.verdict.high = slower ? 1.014 : 1.005;
        if (ab.status == AbResult::Status::Refused)
            ab.verdict.reason = QStringLiteral("A ran at 1980 MHz, B at 1755 MHz");
        const SweepConfirmation c =
            SweepConfirmation::fromAb(ab, QStringLiteral("bx=8,by=8"), SweepObjective(objective));
        QCOMPARE(c.text(QStringLiteral("bx=16,by=8")), text);

        // The record's line keeps it as it was.
        SweepRecord record;
        record.key = QStringLiteral("bx=16,by=8");
        record.names = QStringList{QStringLiteral("bx"), QStringLiteral("by")};
        record.values = {16, 8};
        record.status = QStringLiteral("ok");
        record.confirmation = c;
        QString error;
        const std::optional<SweepRecord> back = SweepRecord::fromJson(record.toJson(), &error);
        QVERIFY2(back && back->confirmation, qPrintable(error));
        QCOMPARE(back->confirmation->text(record.key), text);
    }

    /// A size sweep's best and runner-up run on different inputs: no A/B is started (it would
    /// fail on B's verified run), the line says why, and the re-timing of a fast sweep still runs.
    void aSizeSweepRunsNoAb_data() {
        QTest::addColumn<QString>("budget");
        QTest::newRow("accurate") << QString();
        QTest::newRow("fast: the re-timing still runs") << QStringLiteral("fast");
    }
    void aSizeSweepRunsNoAb() {
        QFETCH(QString, budget);
        AbEvaluator evaluator;
        Sweep sweep(requestFor(saxpySizes(budget)), &evaluator);
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QSignalSpy retimed(&sweep, &Sweep::retimed);
        QSignalSpy confirming(&sweep, &Sweep::confirming);
        QSignalSpy confirmed(&sweep, &Sweep::confirmed);
        QCOMPARE(runToEnd(sweep), QString());
        QCOMPARE(sweep.records().size(), 3);
        QCOMPARE(evaluator.orders.size(), 0);
        QCOMPARE(confirming.size(), 0);
        QCOMPARE(retimed.size(), budget.isEmpty() ? 0 : 1);
        QCOMPARE(confirmed.size(), 1);
        const std::optional<SweepRecord> best = sweep.best();
        QVERIFY(best && best->confirmation);
        QCOMPARE(best->confirmation->verdict, SweepConfirmation::kNotApplicable);
        QCOMPARE(best->confirmation->text(best->key),
                 QStringLiteral("not confirmed: an A/B does not apply (the configurations differ "
                                "in n, so their inputs differ)"));
        if (!budget.isEmpty())
            QVERIFY(best->isRetimed());
        // Kept in the results file as it is shown.
        QString why;
        const std::optional<SweepRecord> back = SweepRecord::fromJson(best->toJson(), &why);
        QVERIFY2(back && back->confirmation, qPrintable(why));
        QCOMPARE(back->confirmation->text(best->key), best->confirmation->text(best->key));
    }

    /// Over several devices (comparesBesideRuns()) the A/B starts while the best is timed
    /// again, not after; the sweep ends once both have, in either order, and the best's record
    /// holds both answers.
    void theAbStartsBesideTheRetiming_data() {
        QTest::addColumn<int>("runDelayMs");
        QTest::newRow("the re-timing ends first") << 0;
        QTest::newRow("the A/B ends first") << 30;
    }
    void theAbStartsBesideTheRetiming() {
        QFETCH(int, runDelayMs);
        AbEvaluator evaluator;
        evaluator.besideRuns = true;
        evaluator.runDelayMs = runDelayMs;
        Sweep sweep(requestFor(transpose(8, 32, 8, 8, QStringLiteral("fast"))), &evaluator);
        QString error;
        QVERIFY2(sweep.prepare(&error), qPrintable(error));
        QStringList order;
        connect(&sweep, &Sweep::retiming, &sweep, [&] { order << QStringLiteral("retiming"); });
        connect(&sweep, &Sweep::confirming, &sweep, [&] { order << QStringLiteral("confirming"); });
        connect(&sweep, &Sweep::retimed, &sweep, [&] { order << QStringLiteral("retimed"); });
        connect(&sweep, &Sweep::confirmed, &sweep, [&] { order << QStringLiteral("confirmed"); });
        QSignalSpy finished(&sweep, &Sweep::finished);
        QCOMPARE(runToEnd(sweep), QString());
        QCOMPARE(finished.size(), 1);
        QCOMPARE(evaluator.inFlightAtAb, 1); // the re-timing
        QCOMPARE(order.mid(0, 2), (QStringList{"retiming", "confirming"}));
        QCOMPARE(order.size(), 4);
        QCOMPARE(order.indexOf(QStringLiteral("retimed")) < order.indexOf("confirmed"),
                 runDelayMs == 0);
        const std::optional<SweepRecord> best = sweep.best();
        QVERIFY(best && best->isRetimed() && best->confirmation);
        QCOMPARE(best->confirmation->verdict, SweepConfirmation::kFaster);
    }

    /// An A/B pooled over two devices says so, and keeps each device's ratio in the record.
    void severalDevicesAreNamed_data() {
        QTest::addColumn<bool>("twoDevices");
        QTest::addColumn<QString>("text");
        QTest::newRow("two devices")
            << true
            << "confirmed on 2 devices: bx=16,by=8 is 3.1 % faster than bx=8,by=8 (95 % interval "
               "2.9–3.3 %)";
        QTest::newRow("different models")
            << false
            << "confirmed: bx=16,by=8 is 3.1 % faster than bx=8,by=8 (95 % interval "
               "2.8–3.4 %); on one device: the sweep's devices are different models (A, B)";
    }
    void severalDevicesAreNamed() {
        QFETCH(bool, twoDevices);
        QFETCH(QString, text);
        AbResult ab = twoDevices ? onTwoDevices() : AbEvaluator::fasterBy3Percent();
        if (!twoDevices)
            ab.oneDeviceReason = QStringLiteral("the sweep's devices are different models (A, B)");
        const SweepConfirmation c =
            SweepConfirmation::fromAb(ab, QStringLiteral("bx=8,by=8"), SweepObjective::Time);
        QCOMPARE(c.text(QStringLiteral("bx=16,by=8")), text);
        const QJsonObject json = c.toJson();
        QCOMPARE(json.value(QStringLiteral("devices")).toArray().size(), twoDevices ? 2 : 0);
        if (twoDevices) {
            const QJsonObject second =
                json.value(QStringLiteral("devices")).toArray().at(1).toObject();
            QCOMPARE(second.value(QStringLiteral("device")).toString(),
                     QStringLiteral("GPU (device 1)"));
            QCOMPARE(second.value(QStringLiteral("ratio")).toDouble(), 0.970);
            QCOMPARE(second.value(QStringLiteral("blocks")).toInt(), 8);
        }
        QString error;
        const std::optional<SweepConfirmation> back =
            SweepConfirmation::fromJson(json, QStringLiteral("confirmation"), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->text(QStringLiteral("bx=16,by=8")), text);
        QCOMPARE(back->devices.size(), twoDevices ? 2 : 0);
        if (twoDevices) {
            QCOMPARE(back->devices[1].ratio, 0.970);
            QCOMPARE(back->devices[1].high, 0.973);
        }
        // A device entry that is not an object is refused, naming it.
        QJsonObject bad = json;
        bad.insert(QStringLiteral("devices"), QJsonArray{1});
        QVERIFY(!SweepConfirmation::fromJson(bad, QStringLiteral("confirmation"), &error));
        QVERIFY2(error.contains(QStringLiteral("confirmation.devices[0]")), qPrintable(error));
    }

    void aBadConfirmationIsRefusedNamingTheField() {
        SweepRecord record;
        record.key = QStringLiteral("bx=16");
        record.names = QStringList{QStringLiteral("bx")};
        record.values = {16};
        record.status = QStringLiteral("ok");
        QJsonObject json = record.toJson();
        json.insert(QStringLiteral("confirmation"),
                    QJsonObject{{"against", "bx=8"}, {"verdict", "faster"}});
        QString error;
        QVERIFY(!SweepRecord::fromJson(json, &error));
        QVERIFY2(error.contains(QStringLiteral("confirmation.verdict")), qPrintable(error));
        json.insert(QStringLiteral("confirmation"),
                    QJsonObject{{"against", "bx=8"}, {"verdict", "probably"}});
        QVERIFY(!SweepRecord::fromJson(json, &error));
        QVERIFY2(error.contains(QStringLiteral("confirmation.verdict")), qPrintable(error));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepConfirm)
} // namespace tst_sweepconfirm
#include "tst_sweepconfirm.moc"
