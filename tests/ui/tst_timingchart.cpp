// The timing charts: repetitions with the median line, histogram, session history, summary.

#include "ui/widgets/TimingChartView.h"

#include "core/run/Timing.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTest>

using namespace kernelpad;

namespace {

RunResult runWith(const QVector<double>& timesMs, qint64 bytes = 0) {
    RunResult r;
    r.timing = computeStats(timesMs, bytes);
    return r;
}

// The series belong to their QChart, a QGraphicsWidget in the chart view's scene, not to the
// view's QObject tree: look them up through the charts, as a reader of the window would.
template <typename Series>
Series* findSeries(const TimingChartView& view, const QString& objectName = {}) {
    const QList<QChartView*> charts = view.findChildren<QChartView*>();
    for (const QChartView* chartView : charts) {
        for (QAbstractSeries* series : chartView->chart()->series()) {
            auto* s = qobject_cast<Series*>(series);
            if (s && (objectName.isEmpty() || s->objectName() == objectName))
                return s;
        }
    }
    return nullptr;
}

QLineSeries* medianLine(const TimingChartView& view) {
    return findSeries<QLineSeries>(view, QStringLiteral("medianLine"));
}

} // namespace

class TestTimingChart : public QObject {
    Q_OBJECT
private slots:
    void medianLineMatchesStats_data();
    void medianLineMatchesStats();
    void historyGrowsPerRun();
    void histogramCountsEveryRepetition();
    void bandwidthShareOfPeak();
    void modeStopReasonAndThrottling_data();
    void modeStopReasonAndThrottling();
    void blockingKernelShownWithTheMode();
    void emptyStateBeforeARun();
};

void TestTimingChart::medianLineMatchesStats_data() {
    QTest::addColumn<QVector<double>>("timesMs");
    QTest::addColumn<QString>("unit");
    QTest::newRow("microsecond-kernel")
        << QVector<double>{0.012, 0.011, 0.013, 0.0125, 0.02} << QStringLiteral("µs");
    QTest::newRow("millisecond-kernel")
        << QVector<double>{3.5, 3.25, 3.75, 4.0} << QStringLiteral("ms");
    QTest::newRow("seconds-kernel")
        << QVector<double>{1500.0, 1400.0, 1450.0} << QStringLiteral("s");
}

void TestTimingChart::medianLineMatchesStats() {
    QFETCH(QVector<double>, timesMs);
    QFETCH(QString, unit);
    TimingChartView view;
    const RunResult run = runWith(timesMs);
    view.showRun(run, QStringLiteral("first run"));
    QCOMPARE(view.timeUnit(), unit);
    QLineSeries* line = medianLine(view);
    QVERIFY(line);
    QCOMPARE(line->count(), 2);
    QCOMPARE(line->at(0).y(), line->at(1).y()); // horizontal
    QVERIFY(qFuzzyCompare(line->at(0).y() * view.unitMs(), run.timing.medianMs));
    // Every repetition is a point, in the same unit.
    auto* points = findSeries<QScatterSeries>(view, QStringLiteral("repetitionPoints"));
    QVERIFY(points);
    QCOMPARE(points->count(), timesMs.size());
    QVERIFY(qFuzzyCompare(points->at(0).y() * view.unitMs(), timesMs.first()));
    const QString medianText = view.summaryText(QStringLiteral("median"));
    QVERIFY2(medianText.endsWith(unit), qPrintable(medianText));
}

void TestTimingChart::historyGrowsPerRun() {
    TimingChartView view;
    view.showRun(runWith({1.0, 1.2, 1.1}), QStringLiteral("first run"));
    view.showRun(runWith({0.8, 0.9, 0.85, 0.95}), QStringLiteral("block 256 -> 128"));
    QCOMPARE(view.history().size(), 2);
    QCOMPARE(view.history().at(1).whatChanged, QStringLiteral("block 256 -> 128"));
    QCOMPARE(view.history().at(1).medianMs, computeStats({0.8, 0.9, 0.85, 0.95}).medianMs);
    auto* points = findSeries<QScatterSeries>(view, QStringLiteral("historyPoints"));
    QVERIFY(points);
    QCOMPARE(points->count(), 2);
    // A compile error has no timings: it does not add a point.
    view.showRun(RunResult{}, QStringLiteral("typo"));
    QCOMPARE(view.history().size(), 2);
    view.clearHistory();
    QCOMPARE(points->count(), 0);
}

void TestTimingChart::histogramCountsEveryRepetition() {
    TimingChartView view;
    QVector<double> times;
    for (int i = 0; i < 100; ++i)
        times << 1.0 + (i % 10) * 0.01;
    view.showRun(runWith(times), {});
    auto* series = findSeries<QBarSeries>(view);
    QVERIFY(series);
    QCOMPARE(series->count(), 1);
    const QBarSet* set = series->barSets().first();
    QVERIFY(set->count() >= 10 && set->count() <= 20);
    QCOMPARE(qRound(set->sum()), 100);
}

void TestTimingChart::bandwidthShareOfPeak() {
    TimingChartView view;
    // 1 GB in 1 ms: 1000 GB/s.
    view.showRun(runWith({1.0, 1.0, 1.0}, 1000000000), {});
    QVERIFY(view.summaryText(QStringLiteral("bandwidth")).startsWith(QStringLiteral("1000")));
    QCOMPARE(view.summaryText(QStringLiteral("peak")), QStringLiteral("—"));
    view.setPeakBandwidthGBs(4000);
    QVERIFY2(view.summaryText(QStringLiteral("peak")).startsWith(QStringLiteral("25.0 %")),
             qPrintable(view.summaryText(QStringLiteral("peak"))));
    QCOMPARE(view.summaryText(QStringLiteral("gflops")), QStringLiteral("—"));
    // No measured copy ceiling yet: nothing; with one (2000 GB/s), half of it.
    QCOMPARE(view.summaryText(QStringLiteral("ceiling")), QStringLiteral("—"));
    RunResult withCeiling = runWith({1.0, 1.0, 1.0}, 1000000000);
    withCeiling.timing.ceilingGBs = 2000;
    view.showRun(withCeiling, {});
    QVERIFY2(view.summaryText(QStringLiteral("ceiling")).startsWith(QStringLiteral("50.0 %")),
             qPrintable(view.summaryText(QStringLiteral("ceiling"))));
}

void TestTimingChart::modeStopReasonAndThrottling_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("stopReason");
    QTest::addColumn<int>("throttledSamples");
    QTest::newRow("hot-fixed-count-steady-clock") << "hot"
                                                  << "fixed count" << 0;
    QTest::newRow("cold-noise-target-throttled") << "cold"
                                                 << "noise target reached" << 3;
    QTest::newRow("hot-time-budget-one-throttled") << "hot"
                                                   << "time budget" << 1;
}

void TestTimingChart::modeStopReasonAndThrottling() {
    QFETCH(QString, mode);
    QFETCH(QString, stopReason);
    QFETCH(int, throttledSamples);
    TimingChartView view;
    RunResult run = runWith({2.0, 2.1, 2.05});
    run.timing.mode = mode;
    run.timing.stopReason = stopReason;
    run.timing.throttledSamples = throttledSamples;
    run.timing.smClockMHz = 1200;
    run.timing.smClockDefaultMHz = 1980;
    view.showRun(run, {});
    QCOMPARE(view.summaryText(QStringLiteral("mode")), mode);
    QCOMPARE(view.summaryText(QStringLiteral("stop")), stopReason);
    const QString note = view.throttleNote();
    if (throttledSamples > 0) {
        QVERIFY2(note.contains(QStringLiteral("GPU was throttling")), qPrintable(note));
        QVERIFY2(note.contains(QString::number(throttledSamples)), qPrintable(note));
    } else {
        QVERIFY(note.isEmpty());
    }
    // The next run without throttling takes the note away again.
    view.showRun(runWith({2.0, 2.0}), {});
    QVERIFY(view.throttleNote().isEmpty());
    QCOMPARE(view.summaryText(QStringLiteral("mode")), QStringLiteral("—"));
}

void TestTimingChart::blockingKernelShownWithTheMode() {
    TimingChartView view;
    RunResult run = runWith({0.003, 0.0031, 0.0029});
    run.timing.mode = QStringLiteral("hot");
    run.timing.blockingKernel = true;
    view.showRun(run, {});
    QCOMPARE(view.summaryText(QStringLiteral("mode")), QStringLiteral("hot, blocking kernel"));
    QVERIFY(view.throttleNote().isEmpty());
    const auto modeTip = [&view] {
        const QList<QLabel*> labels = view.findChildren<QLabel*>();
        for (const QLabel* l : labels)
            if (l->text() == view.summaryText(QStringLiteral("mode")))
                return l->toolTip();
        return QString();
    };
    QVERIFY2(modeTip().contains(QStringLiteral("blocking kernel:")), qPrintable(modeTip()));
    QVERIFY2(modeTip().startsWith(QStringLiteral("hot: ")), qPrintable(modeTip()));

    // A blocking kernel that gave up waiting: the samples may hold host time, and it says so.
    run.timing.blockingTimeouts = 2;
    view.showRun(run, {});
    const QString note = view.throttleNote();
    QVERIFY2(note.contains(QStringLiteral("gave up waiting 2 time")), qPrintable(note));
    QVERIFY2(!note.contains(QStringLiteral("throttling")), qPrintable(note));

    run.timing.blockingKernel = false;
    run.timing.blockingTimeouts = 0;
    view.showRun(run, {});
    QCOMPARE(view.summaryText(QStringLiteral("mode")), QStringLiteral("hot"));
    QVERIFY(view.throttleNote().isEmpty());
    QVERIFY2(!modeTip().contains(QStringLiteral("blocking kernel:")), qPrintable(modeTip()));
    QVERIFY2(modeTip().startsWith(QStringLiteral("hot: ")), qPrintable(modeTip()));
}

// Issue 11, point 10: before any run the chart showed bare axes labelled "0 0 0 0 1".
void TestTimingChart::emptyStateBeforeARun() {
    TimingChartView view;
    view.show();
    auto* empty = view.findChild<QLabel*>(QStringLiteral("timingEmptyState"));
    QVERIFY(empty);
    QVERIFY(!view.showsCharts());
    QVERIFY(empty->isVisible());
    QVERIFY(empty->text().contains(QStringLiteral("After a run")));
    for (const QChartView* chart : view.findChildren<QChartView*>())
        QVERIFY(!chart->isVisible()); // no axes without data

    // A run that never launched (a compile error) has nothing to chart either.
    view.showRun(RunResult{}, QString());
    QVERIFY(!view.showsCharts());
    view.showRun(runWith({1.0, 1.5, 1.25}), QString());
    QVERIFY(view.showsCharts());
    QVERIFY(!empty->isVisible());
    // The session keeps its history through a failed run.
    view.showRun(RunResult{}, QString());
    QVERIFY(view.showsCharts());
}

QTEST_MAIN(TestTimingChart)
#include "tst_timingchart.moc"
