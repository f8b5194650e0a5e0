// The timing charts: repetitions with the median line, histogram, session history, summary.

#include "ui/widgets/TimingChartView.h"

#include "core/run/Timing.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTest>

using namespace kernelpad;

namespace {

RunResult runWith(const QVector<double>& timesMs, qint64 bytes = 0)
{
    RunResult r;
    r.timing = computeStats(timesMs, bytes);
    return r;
}

QLineSeries* medianLine(const TimingChartView& view)
{
    return view.findChild<QLineSeries*>(QStringLiteral("medianLine"));
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
};

void TestTimingChart::medianLineMatchesStats_data()
{
    QTest::addColumn<QVector<double>>("timesMs");
    QTest::addColumn<QString>("unit");
    QTest::newRow("microsecond-kernel") << QVector<double>{0.012, 0.011, 0.013, 0.0125, 0.02}
                                        << QStringLiteral("µs");
    QTest::newRow("millisecond-kernel") << QVector<double>{3.5, 3.25, 3.75, 4.0} << QStringLiteral("ms");
    QTest::newRow("seconds-kernel") << QVector<double>{1500.0, 1400.0, 1450.0} << QStringLiteral("s");
}

void TestTimingChart::medianLineMatchesStats()
{
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
    auto* points = view.findChildren<QScatterSeries*>().first();
    QVERIFY(points);
    const QString medianText = view.summaryText(QStringLiteral("median"));
    QVERIFY2(medianText.endsWith(unit), qPrintable(medianText));
}

void TestTimingChart::historyGrowsPerRun()
{
    TimingChartView view;
    view.showRun(runWith({1.0, 1.2, 1.1}), QStringLiteral("first run"));
    view.showRun(runWith({0.8, 0.9, 0.85, 0.95}), QStringLiteral("block 256 -> 128"));
    QCOMPARE(view.history().size(), 2);
    QCOMPARE(view.history().at(1).whatChanged, QStringLiteral("block 256 -> 128"));
    QCOMPARE(view.history().at(1).medianMs, computeStats({0.8, 0.9, 0.85, 0.95}).medianMs);
    auto* points = view.findChild<QScatterSeries*>(QStringLiteral("historyPoints"));
    QVERIFY(points);
    QCOMPARE(points->count(), 2);
    // A compile error has no timings: it does not add a point.
    view.showRun(RunResult{}, QStringLiteral("typo"));
    QCOMPARE(view.history().size(), 2);
    view.clearHistory();
    QCOMPARE(points->count(), 0);
}

void TestTimingChart::histogramCountsEveryRepetition()
{
    TimingChartView view;
    QVector<double> times;
    for (int i = 0; i < 100; ++i)
        times << 1.0 + (i % 10) * 0.01;
    view.showRun(runWith(times), {});
    auto* series = view.findChild<QBarSeries*>();
    QVERIFY(series);
    QCOMPARE(series->count(), 1);
    const QBarSet* set = series->barSets().first();
    QVERIFY(set->count() >= 10 && set->count() <= 20);
    QCOMPARE(qRound(set->sum()), 100);
}

void TestTimingChart::bandwidthShareOfPeak()
{
    TimingChartView view;
    // 1 GB in 1 ms: 1000 GB/s.
    view.showRun(runWith({1.0, 1.0, 1.0}, 1000000000), {});
    QVERIFY(view.summaryText(QStringLiteral("bandwidth")).startsWith(QStringLiteral("1000")));
    QCOMPARE(view.summaryText(QStringLiteral("peak")), QStringLiteral("—"));
    view.setPeakBandwidthGBs(4000);
    QVERIFY2(view.summaryText(QStringLiteral("peak")).startsWith(QStringLiteral("25.0 %")),
             qPrintable(view.summaryText(QStringLiteral("peak"))));
    QCOMPARE(view.summaryText(QStringLiteral("gflops")), QStringLiteral("—"));
}

QTEST_MAIN(TestTimingChart)
#include "tst_timingchart.moc"
