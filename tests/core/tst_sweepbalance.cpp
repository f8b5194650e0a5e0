// A sweep balanced over several devices, without a GPU (a stand-in evaluator): a size sweep
// hands out its configurations longest first (the largest n first, by the bytes its buffers
// take), a sweep over a define the largest value first, a budget still evaluates the same
// configurations, a space whose costs cannot be told apart keeps its order, an earlier run's
// times order the next one, the order is the same every time, and each device's busy share is
// reported within [0, 100] with every record's time on its device, split into where its time
// went (the runner's stages, this side's steps).

#include "core/project/Project.h"
#include "core/sweep/Sweep.h"
#include "core/sweep/SweepCost.h"
#include "core/sweep/SweepEvaluator.h"

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

#include <cmath>

namespace tst_sweepbalance {

using namespace kernelpad;

namespace {

/// Answers each request `delayMs` later with an Ok result, up to `capacity` at once, on
/// "Stand-in GPU k" (k: which of `capacity` slots it took); keeps the order requests came in.
class OrderedEvaluator : public SweepEvaluator {
public:
    OrderedEvaluator(int capacity, int delayMs)
        : m_capacity(capacity)
        , m_delayMs(delayMs)
        , m_free(capacity, true) {}
    void start(quint64 tag, const RunRequest& request) override {
        keys.append(scalar(request.project, QStringLiteral("n")));
        const int slot = int(std::find(m_free.begin(), m_free.end(), true) - m_free.begin());
        if (slot >= m_capacity) {
            QTest::qFail("more requests in flight than the capacity", __FILE__, __LINE__);
            return;
        }
        m_free[slot] = false;
        RunResult ok;
        ok.status = RunStatus::Ok;
        ok.timing.medianMs = 1;
        ok.timing.minMs = 1;
        ok.stagesMs = stages;
        QTimer::singleShot(m_delayMs, this, [this, tag, ok, slot] {
            m_free[slot] = true;
            emit finished(tag, ok, QStringLiteral("Stand-in GPU %1").arg(slot));
        });
    }
    [[nodiscard]] int capacity() const override { return m_capacity; }
    void cancel() override {}

    /// The value of the scalar `n` of each request, else its define ITEMS ("ITEMS=4"), else its
    /// block size.
    QStringList keys;
    /// What every result says of its stages (RunResult::stagesMs).
    QVector<StageTime> stages;

private:
    static QString scalar(const Project& p, const QString& name) {
        for (const ArgumentSpec& a : p.arguments)
            if (a.isScalar() && a.name == name)
                return a.value;
        for (const QString& define : p.options.defines)
            if (define.startsWith(QLatin1String("ITEMS=")))
                return define;
        return QStringLiteral("%1x%2").arg(p.launch.block[0]).arg(p.launch.block[1]);
    }
    int m_capacity;
    int m_delayMs;
    QVector<bool> m_free;
};

Project example(const QString& file, const std::function<void(QJsonObject&)>& edit = {}) {
    return test::exampleWithSweep(file, edit);
}

struct Outcome {
    QString error = QStringLiteral("never finished");
    QStringList order; ///< the evaluator's requests in the order they came
    QVector<SweepRecord> records;
    SweepBalance balance;
    SweepCostEstimate::Basis basis = SweepCostEstimate::Basis::None;
};

/// Sweeps `project` to its end over an OrderedEvaluator, without the A/B.
Outcome sweep(const Project& project, int capacity, int delayMs,
              const QVector<SweepRecord>& previous = {}, const QVector<StageTime>& stages = {}) {
    Outcome outcome;
    OrderedEvaluator evaluator(capacity, delayMs);
    evaluator.stages = stages;
    RunRequest base;
    base.project = project;
    base.projectDir = QStringLiteral(KERNELPAD_EXAMPLES_DIR);
    Sweep s(base, &evaluator);
    s.setPrevious(previous);
    s.setConfirm(false);
    if (!s.prepare(&outcome.error))
        return outcome;
    outcome.basis = s.costBasis();
    QSignalSpy finished(&s, &Sweep::finished);
    s.start();
    if (!finished.wait(30000))
        return outcome;
    outcome.error = finished.first().at(0).toString();
    outcome.order = evaluator.keys;
    outcome.records = s.records();
    outcome.balance = s.balance();
    return outcome;
}

/// The powers of two from 2^`from` to 2^`to`, largest first, as the scalar n is written.
QStringList powersDown(int from, int to) {
    QStringList out;
    for (int e = to; e >= from; --e)
        out.append(QString::number(qint64(1) << e));
    return out;
}

} // namespace

class TestSweepBalance : public QObject {
    Q_OBJECT
private slots:
    void sizeSweepStartsLongestFirst() {
        const Outcome o = sweep(example(QStringLiteral("saxpy_sizes.kpad")), 1, 0);
        QCOMPARE(o.error, QString());
        QCOMPARE(o.basis, SweepCostEstimate::Basis::BufferBytes);
        // 2^28 first, 2^10 last: the old order was the space's, smallest first.
        QCOMPARE(o.order, powersDown(10, 28));
    }

    void aBudgetEvaluatesTheSameConfigurationsLongestFirst() {
        const Outcome o =
            sweep(example(QStringLiteral("saxpy_sizes.kpad"),
                          [](QJsonObject& s) {
                              s.insert(QStringLiteral("strategy"),
                                       QJsonObject{{"kind", "exhaustive"}, {"budget", 5}});
                          }),
                  2, 0);
        QCOMPARE(o.error, QString());
        // The first five of the space (2^10 .. 2^14), the largest of them first.
        QCOMPARE(o.order, powersDown(10, 14));
    }

    void theOrderIsTheSameEveryTime() {
        const Project project = example(QStringLiteral("saxpy_sizes.kpad"));
        const Outcome a = sweep(project, 2, 1);
        const Outcome b = sweep(project, 2, 1);
        QCOMPARE(a.error, QString());
        QCOMPARE(b.error, QString());
        QCOMPARE(a.order.size(), 19);
        QCOMPARE(a.order, b.order);
        // A random sample keeps its configurations (the seed's) and orders them the same way.
        const auto random = [](QJsonObject& s) {
            s.insert(QStringLiteral("strategy"),
                     QJsonObject{{"kind", "random"}, {"budget", 7}, {"seed", 3}});
        };
        const Outcome r1 = sweep(example(QStringLiteral("saxpy_sizes.kpad"), random), 2, 0);
        const Outcome r2 = sweep(example(QStringLiteral("saxpy_sizes.kpad"), random), 2, 0);
        QCOMPARE(r1.order.size(), 7);
        QCOMPARE(r1.order, r2.order);
        for (int i = 1; i < r1.order.size(); ++i)
            QVERIFY2(r1.order[i - 1].toLongLong() > r1.order[i].toLongLong(),
                     qPrintable(r1.order.join(QLatin1Char(' '))));
    }

    void costsThatCannotBeToldApartKeepTheSpacesOrder() {
        // Every block shape of the transpose allocates the same buffers: nothing to order by.
        const Project project = example(QStringLiteral("transpose_sweep.kpad"), [](QJsonObject& s) {
            s.insert(QStringLiteral("block"),
                     QJsonObject{{"x", QJsonArray{8, 16, 32}}, {"y", QJsonArray{4, 8}}});
        });
        const Outcome o = sweep(project, 1, 0);
        QCOMPARE(o.error, QString());
        QCOMPARE(o.basis, SweepCostEstimate::Basis::None);
        QCOMPARE(o.order, (QStringList{"8x4", "8x8", "16x4", "16x8", "32x4", "32x8"}));
    }

    void sweptDefinesOrderTheLargestFirst() {
        // A compile-heavy sweep: one source, ITEMS a define that unrolls; nothing else differs.
        const Project project = example(QStringLiteral("transpose_sweep.kpad"), [](QJsonObject& s) {
            s.remove(QStringLiteral("block"));
            s.remove(QStringLiteral("grid"));
            s.remove(QStringLiteral("restrictions"));
            s.insert(QStringLiteral("defines"), QJsonObject{{"ITEMS", QJsonArray{1, 2, 4, 8}}});
        });
        const Outcome o = sweep(project, 2, 0);
        QCOMPARE(o.error, QString());
        QCOMPARE(o.basis, SweepCostEstimate::Basis::DefineProduct);
        QCOMPARE(o.balance.orderedBy, QStringLiteral("the swept defines"));
        QCOMPARE(o.order, (QStringList{"ITEMS=8", "ITEMS=4", "ITEMS=2", "ITEMS=1"}));
    }

    void anEarlierRunsTimesOrderTheNext() {
        const Project project = example(QStringLiteral("transpose_sweep.kpad"), [](QJsonObject& s) {
            s.insert(QStringLiteral("block"),
                     QJsonObject{{"x", QJsonArray{8, 16, 32}}, {"y", QJsonArray{4, 8}}});
        });
        const Outcome first = sweep(project, 1, 0);
        QCOMPARE(first.records.size(), 6);
        // As if 16x8 had taken longest, then 32x4, ...: the times a results file kept.
        const QHash<QString, double> took{{"bx=8,by=4", 10},  {"bx=8,by=8", 20},
                                          {"bx=16,by=4", 30}, {"bx=16,by=8", 60},
                                          {"bx=32,by=4", 50}, {"bx=32,by=8", 40}};
        QVector<SweepRecord> previous = first.records;
        for (SweepRecord& r : previous) {
            QVERIFY2(took.contains(r.key), qPrintable(r.key));
            r.wallMs = took.value(r.key);
        }
        const Outcome o = sweep(project, 1, 0, previous);
        QCOMPARE(o.basis, SweepCostEstimate::Basis::PreviousTimes);
        QCOMPARE(o.order, (QStringList{"16x8", "32x4", "32x8", "16x4", "8x8", "8x4"}));
        // Times for some configurations only: those first, the rest in the space's order.
        previous.resize(2); // 8x4 and 8x8 in the first run's order
        const Outcome some = sweep(project, 1, 0, previous);
        QCOMPARE(some.basis, SweepCostEstimate::Basis::SomePreviousTimes);
        QCOMPARE(some.order.mid(0, 2), (QStringList{"8x8", "8x4"}));
        QCOMPARE(some.order.mid(2), (QStringList{"16x4", "16x8", "32x4", "32x8"}));
    }

    void busySharesArePerDeviceAndWithinTheWall() {
        const Outcome o = sweep(example(QStringLiteral("saxpy_sizes.kpad")), 2, 20);
        QCOMPARE(o.error, QString());
        QCOMPARE(o.records.size(), 19);
        QCOMPARE(o.balance.devices.size(), 2);
        QVERIFY(o.balance.wallMs > 0);
        int configurations = 0;
        for (const DeviceBusy& d : o.balance.devices) {
            configurations += d.configurations;
            const double share = o.balance.sharePercent(d);
            QVERIFY2(share > 0 && share <= 100,
                     qPrintable(QStringLiteral("%1: %2 %").arg(d.device).arg(share)));
            QVERIFY2(d.busyMs <= o.balance.wallMs * 1.01 + 1,
                     qPrintable(QStringLiteral("%1 ms of %2").arg(d.busyMs).arg(o.balance.wallMs)));
        }
        QCOMPARE(configurations, 19);
        double sum = 0;
        for (const SweepRecord& r : o.records) {
            QVERIFY2(std::isfinite(r.wallMs) && r.wallMs >= 15, qPrintable(r.key));
            sum += r.wallMs;
        }
        QVERIFY(std::abs(o.balance.devices[0].busyMs + o.balance.devices[1].busyMs - sum) < 1e-6);
        const QString text = o.balance.text();
        QVERIFY2(text.contains(QStringLiteral("Stand-in GPU 0 busy ")) &&
                     text.contains(QStringLiteral("Stand-in GPU 1 busy ")) &&
                     text.contains(QStringLiteral(" %")),
                 qPrintable(text));
        const QJsonObject json = o.balance.toJson();
        QCOMPARE(json.value(QStringLiteral("devices")).toArray().size(), 2);
        QCOMPARE(json.value(QStringLiteral("orderedBy")).toString(),
                 QStringLiteral("buffer bytes"));
        // The record's time on its device is kept in the results file's line.
        QString error;
        const std::optional<SweepRecord> back =
            SweepRecord::fromJson(o.records.first().toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->wallMs, o.records.first().wallMs);
    }

    void eachConfigurationsWallIsSplitIntoStages() {
        const QVector<StageTime> stages{{QStringLiteral("compiling"), 4, false},
                                        {QStringLiteral("timing"), 6, false},
                                        {QStringLiteral("compiling"), 1, false},
                                        {QStringLiteral("waiting in the pool"), 2, true}};
        const Outcome o = sweep(example(QStringLiteral("saxpy_sizes.kpad")), 2, 30, {}, stages);
        QCOMPARE(o.error, QString());
        QCOMPARE(o.balance.configurations.size(), 19);
        for (const ConfigurationTime& c : o.balance.configurations) {
            const auto it = std::find_if(o.records.begin(), o.records.end(),
                                         [&c](const SweepRecord& r) { return r.key == c.key; });
            QVERIFY2(it != o.records.end(), qPrintable(c.key));
            QCOMPARE(c.wallMs, it->wallMs);
            QCOMPARE(c.device, it->device);
            QCOMPARE(c.runner.size(), 3);
            // The pool's step, the rest of the way (the wall less 13 ms named), the recording.
            QCOMPARE(c.client.size(), 3);
            QCOMPARE(c.client[1].stage, QStringLiteral("the way there and back"));
            QVERIFY2(std::abs(c.client[1].ms - (c.wallMs - 13)) < 1e-9,
                     qPrintable(QStringLiteral("%1 of %2").arg(c.client[1].ms).arg(c.wallMs)));
            QCOMPARE(c.client[2].stage, QStringLiteral("recording"));
            QVERIFY(c.client[2].ms >= 0 && c.client[2].ms < 1000);
        }
        const QJsonObject json = o.balance.toJson();
        const QJsonArray list = json.value(QStringLiteral("configurations")).toArray();
        QCOMPARE(list.size(), 19);
        // A stage reported twice adds up; the medians and totals are over the configurations.
        const QJsonObject first = list.first().toObject();
        QCOMPARE(first.value(QStringLiteral("runnerMs")).toObject().value("compiling").toDouble(),
                 5.0);
        const QJsonObject summary = json.value(QStringLiteral("stagesMs")).toObject();
        const QJsonObject timing =
            summary.value(QStringLiteral("runner")).toObject().value("timing").toObject();
        QCOMPARE(timing.value(QStringLiteral("median")).toDouble(), 6.0);
        QCOMPARE(timing.value(QStringLiteral("total")).toDouble(), 6.0 * 19);
        QVERIFY(summary.value(QStringLiteral("client")).toObject().contains("recording"));
        QVERIFY(summary.value(QStringLiteral("wall")).toObject().value("median").toDouble() >= 25);
        const QString text = o.balance.stagesText();
        QVERIFY2(text.startsWith(QStringLiteral("per configuration, median: ")) &&
                     text.contains(QStringLiteral("; runner: compiling 5.0, timing 6.0; this side: "
                                                  "waiting in the pool 2.0, the way there and "
                                                  "back ")) &&
                     text.endsWith(QStringLiteral(" ms")),
                 qPrintable(text));
        QCOMPARE(SweepBalance().stagesText(), QString());
    }

    void stageMediansCountAMissingStageAsZero() {
        SweepBalance balance;
        const auto one = [](double wall, const QVector<StageTime>& stages) {
            return ConfigurationTime::of(QStringLiteral("k"), QStringLiteral("d"), wall, stages);
        };
        // The copy ceiling is measured by the first configuration of a device only.
        balance.configurations = {one(10, {{QStringLiteral("measuring"), 8, false}}), one(4, {}),
                                  one(6, {}), one(8, {{QStringLiteral("measuring"), 1, false}})};
        const QJsonObject summary = balance.toJson().value(QStringLiteral("stagesMs")).toObject();
        const QJsonObject measuring =
            summary.value(QStringLiteral("runner")).toObject().value("measuring").toObject();
        QCOMPARE(measuring.value(QStringLiteral("median")).toDouble(), 0.5); // 0, 0, 1, 8
        QCOMPARE(measuring.value(QStringLiteral("total")).toDouble(), 9.0);
        const QJsonObject wall = summary.value(QStringLiteral("wall")).toObject();
        QCOMPARE(wall.value(QStringLiteral("median")).toDouble(), 7.0); // 4, 6, 8, 10
        const QJsonObject rest = summary.value(QStringLiteral("client"))
                                     .toObject()
                                     .value("the way there and back")
                                     .toObject();
        QCOMPARE(rest.value(QStringLiteral("total")).toDouble(), 2.0 + 4 + 6 + 7);
        // A wall shorter than its named stages (clocks of two processes) leaves nothing, not less.
        QCOMPARE(one(1, {{QStringLiteral("timing"), 3, false}}).client.first().ms, 0.0);
    }

    void sharesAreClampedAndEmptyWithoutRecords() {
        SweepBalance balance;
        QVERIFY(balance.isEmpty());
        QCOMPARE(balance.text(), QString());
        balance.wallMs = 100;
        balance.devices = {DeviceBusy{QStringLiteral("a"), 130, 2},
                           DeviceBusy{QStringLiteral("b"), -5, 1}};
        QCOMPARE(balance.sharePercent(balance.devices[0]), 100.0);
        QCOMPARE(balance.sharePercent(balance.devices[1]), 0.0);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepBalance)

} // namespace tst_sweepbalance

#include "tst_sweepbalance.moc"
