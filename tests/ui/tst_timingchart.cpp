// The timing charts: repetitions with the median line, histogram, session history, summary.

#include "ui/widgets/TimingChartView.h"

#include "../support/TestMain.h"
#include "core/run/Summary.h"
#include "core/run/Timing.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTableWidget>
#include <QTest>

namespace tst_timingchart {

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
    void tableShowsEverySummary_data();
    void tableShowsEverySummary();
    void axisUnitIsTheFormattersUnit();
    void emptyStateBeforeARun();
    void libraryRatioLabel();
    void telemetryNoteAndClockTrace();
    void noNvmlSaysSo();
};

void TestTimingChart::medianLineMatchesStats_data() {
    QTest::addColumn<QVector<double>>("timesMs");
    QTest::addColumn<QString>("unit");
    QTest::newRow("sub-microsecond-kernel")
        << QVector<double>{0.0004, 0.0005, 0.0006} << QStringLiteral("ns");
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
    const QString medianText = view.summaryText(QStringLiteral("time.median"));
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
    QCOMPARE(view.summaryText(QStringLiteral("bandwidth")), QStringLiteral("1000.0 GB/s"));
    QCOMPARE(view.summaryText(QStringLiteral("bandwidth.peakShare")), QString()); // no peak yet
    view.setPeakBandwidthGBs(4000);
    QCOMPARE(view.summaryText(QStringLiteral("bandwidth.peakShare")), QStringLiteral("25.0 %"));
    // The share follows the bandwidth in the table.
    const QVector<Summary>& rows = view.summaries();
    const Summary* bandwidth = findSummary(rows, QStringLiteral("bandwidth"));
    QVERIFY(bandwidth);
    QCOMPARE((bandwidth + 1)->key, QStringLiteral("bandwidth.peakShare"));
    QVERIFY2((bandwidth + 1)->description.contains(QStringLiteral("4000 GB/s")),
             qPrintable((bandwidth + 1)->description));
    QCOMPARE(view.summaryText(QStringLiteral("flops")), QString()); // no FLOP count given
    // No measured copy ceiling yet: no row; with one (2000 GB/s), half of it.
    QCOMPARE(view.summaryText(QStringLiteral("ceiling.share")), QString());
    RunResult withCeiling = runWith({1.0, 1.0, 1.0}, 1000000000);
    withCeiling.timing.ceilingGBs = 2000;
    view.showRun(withCeiling, {});
    QCOMPARE(view.summaryText(QStringLiteral("ceiling")), QStringLiteral("2000 GB/s"));
    QCOMPARE(view.summaryText(QStringLiteral("ceiling.share")), QStringLiteral("50 %"));
    // An unknown peak takes the row away again.
    view.setPeakBandwidthGBs(0);
    QCOMPARE(view.summaryText(QStringLiteral("bandwidth.peakShare")), QString());
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
    QCOMPARE(view.summaryText(QStringLiteral("timing.mode")), mode);
    QCOMPARE(view.summaryText(QStringLiteral("timing.stopReason")), stopReason);
    const QString note = view.throttleNote();
    if (throttledSamples > 0) {
        QVERIFY2(note.contains(QStringLiteral("GPU was throttling")), qPrintable(note));
        QVERIFY2(note.contains(QString::number(throttledSamples)), qPrintable(note));
        QVERIFY2(note.contains(QStringLiteral("(1200 MHz of 1980 MHz)")), qPrintable(note));
    } else {
        QVERIFY(note.isEmpty());
    }
    // The next run without throttling takes the note away again.
    view.showRun(runWith({2.0, 2.0}), {});
    QVERIFY(view.throttleNote().isEmpty());
    QCOMPARE(view.summaryText(QStringLiteral("timing.mode")), QStringLiteral("hot"));
    QCOMPARE(view.summaryText(QStringLiteral("timing.stopReason")), QString());
}

void TestTimingChart::blockingKernelShownWithTheMode() {
    TimingChartView view;
    RunResult run = runWith({0.003, 0.0031, 0.0029});
    run.timing.mode = QStringLiteral("hot");
    run.timing.blockingKernel = true;
    view.showRun(run, {});
    QCOMPARE(view.summaryText(QStringLiteral("timing.mode")), QStringLiteral("hot"));
    QCOMPARE(view.summaryText(QStringLiteral("timing.blockingKernel")), QStringLiteral("yes"));
    QVERIFY(view.throttleNote().isEmpty());

    // A blocking kernel that gave up waiting: the samples may hold host time, and it says so.
    run.timing.blockingTimeouts = 2;
    view.showRun(run, {});
    const QString note = view.throttleNote();
    QVERIFY2(note.contains(QStringLiteral("gave up waiting 2 time")), qPrintable(note));
    QVERIFY2(!note.contains(QStringLiteral("throttling")), qPrintable(note));
    QCOMPARE(view.summaryText(QStringLiteral("blocking.timeouts")), QStringLiteral("2"));

    run.timing.blockingKernel = false;
    run.timing.blockingTimeouts = 0;
    view.showRun(run, {});
    QCOMPARE(view.summaryText(QStringLiteral("timing.blockingKernel")), QStringLiteral("no"));
    QVERIFY(view.throttleNote().isEmpty());
}

namespace {

/// A run with every kind of figure, or a compile error with none of the timing ones.
RunResult scenario(bool timedRun) {
    if (!timedRun) {
        RunResult compileError;
        compileError.status = RunStatus::CompileError;
        compileError.compile.arch = QStringLiteral("sm_90");
        compileError.compile.compileMs = 3.25;
        compileError.totalMs = 4;
        return compileError;
    }
    RunResult timed = runWith({0.08, 0.09, 0.1, 0.085}, 250000000);
    timed.timing.mode = QStringLiteral("cold");
    timed.timing.stopReason = QStringLiteral("noise target reached");
    timed.timing.ceilingGBs = 3025;
    timed.timing.smClockMHz = 1755;
    timed.timing.smClockDefaultMHz = 1980;
    timed.timing.verifyMs = 0.5;
    timed.kernelLowered = QStringLiteral("saxpy");
    timed.resources.registers = 16;
    timed.resources.staticSharedBytes = 4096;
    timed.resources.occupancy = 0.75;
    timed.compile.ok = true;
    timed.compile.arch = QStringLiteral("sm_90");
    timed.compile.compileMs = 14.5;
    timed.totalMs = 250;
    BufferVerification y;
    y.buffer = QStringLiteral("y");
    y.passed = true;
    y.checked = 1 << 20;
    timed.verification.append(y);
    return timed;
}

} // namespace

// The table is summarize() formatted by formatSummaryValue(), row for row,
// so a new summary entry shows in the window without code here.
void TestTimingChart::tableShowsEverySummary_data() {
    QTest::addColumn<bool>("timed");
    QTest::newRow("timed, verified run") << true;
    QTest::newRow("compile error: no timing") << false;
}

void TestTimingChart::tableShowsEverySummary() {
    QFETCH(bool, timed);
    const RunResult run = scenario(timed);
    TimingChartView view;
    view.showRun(run, {});
    const QVector<Summary> expected = summarize(run);
    QVERIFY(!expected.isEmpty());
    auto* table = view.findChild<QTableWidget*>(QStringLiteral("timingSummary"));
    QVERIFY(table);
    QCOMPARE(table->rowCount(), int(expected.size()));
    for (int row = 0; row < table->rowCount(); ++row) {
        const Summary& s = expected.at(row);
        QCOMPARE(table->item(row, 0)->text(), s.name);
        QCOMPARE(table->item(row, 1)->text(), formatSummaryValue(s));
        QCOMPARE(table->item(row, 1)->toolTip(), s.description);
        QCOMPARE(table->item(row, 0)->font().bold(), s.column);
        QCOMPARE(view.summaryText(s.key), formatSummaryValue(s));
    }
    // The figures the CLI prints, in the CLI's words.
    if (run.timing.reps() > 0) {
        QCOMPARE(view.summaryText(QStringLiteral("time.median")), QStringLiteral("87.5 µs"));
        QCOMPARE(view.summaryText(QStringLiteral("compile.time")), QStringLiteral("14.5 ms"));
    } else {
        QCOMPARE(view.summaryText(QStringLiteral("compile.time")), QStringLiteral("3.250 ms"));
        QCOMPARE(view.summaryText(QStringLiteral("time.median")), QString());
    }
    // A run after it replaces the rows; it does not add to them.
    view.showRun(RunResult{}, {});
    QCOMPARE(table->rowCount(), int(summarize(RunResult{}).size()));
}

// The charts' axes use the unit formatDuration() picks for the median, so an axis in µs sits
// beside a table in µs.
void TestTimingChart::axisUnitIsTheFormattersUnit() {
    for (const double medianMs : {0.0005, 0.0125, 3.5, 1500.0}) {
        TimingChartView view;
        view.showRun(runWith({medianMs, medianMs, medianMs}), {});
        const DurationUnit unit = durationUnitFor(medianMs / 1e3);
        QCOMPARE(view.timeUnit(), durationUnitSymbol(unit));
        QVERIFY(qFuzzyCompare(view.unitMs(), durationUnitSeconds(unit) * 1e3));
        QVERIFY2(view.summaryText(QStringLiteral("time.median")).endsWith(view.timeUnit()),
                 qPrintable(view.summaryText(QStringLiteral("time.median"))));
    }
}

// Before any run the chart showed bare axes labelled "0 0 0 0 1".
void TestTimingChart::libraryRatioLabel() {
    TimingChartView view;
    view.show();
    auto* label = view.findChild<QLabel*>(QStringLiteral("libraryRatio"));
    QVERIFY(label);
    view.showRun(runWith({2.0, 2.0, 2.0}), QString());
    QVERIFY(!label->isVisible()); // no baseline, no label
    RunResult r = runWith({2.0, 2.0, 2.0});
    r.baseline.library = QStringLiteral("cuBLAS");
    r.baseline.timing = computeStats({1.64, 1.64, 1.64});
    view.showRun(r, QString());
    QVERIFY(label->isVisible());
    // The library's time over the kernel's: under 1, the kernel is slower.
    QVERIFY2(label->text().contains(QStringLiteral("0.82× cuBLAS")), qPrintable(label->text()));
    r.baseline.error = QStringLiteral("cuBLAS not found: looked in /x/libcublas.so.13");
    view.showRun(r, QString());
    QVERIFY2(label->text().contains(QStringLiteral("looked in /x/libcublas.so.13")),
             qPrintable(label->text()));
    view.showRun(runWith({2.0}), QString());
    QVERIFY(!label->isVisible());
}

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

void TestTimingChart::telemetryNoteAndClockTrace() {
    TimingChartView view;
    RunResult run = runWith({0.1, 0.1, 0.1, 0.11, 0.1}, 1000000);
    Telemetry& t = run.timing.telemetry;
    t.available = true;
    t.chunks = {ChunkTelemetry{3, 1980, 2619, 500000, 60, quint64(0)},
                ChunkTelemetry{2, 1800, 2619, 690000, 71, clockEvent::SwPowerCap}};
    t.smClockMaxMHz = 1980;
    t.smClockDefaultMHz = 1755;
    t.memClockMaxMHz = 2619;
    t.energyMj = 100.0;
    t.energyIntervalMs = 40.0; // too short
    t.energyLaunches = 5;
    view.showRun(run, {});
    // The clock under the times: each chunk a step over its samples, on its own axis.
    auto* trace = findSeries<QLineSeries>(view, QStringLiteral("smClockTrace"));
    QVERIFY(trace);
    QVERIFY(trace->isVisible());
    QCOMPARE(trace->points(), (QList<QPointF>{{1, 1980}, {3, 1980}, {4, 1800}, {5, 1800}}));
    const QString marks = view.throttleNote();
    QVERIFY2(marks.contains(QStringLiteral("Unstable timing: SM clock moved 9.1 % (1800-1980 "
                                           "MHz); throttled: sw power cap")),
             qPrintable(marks));
    const QString note = view.telemetryNote();
    QVERIFY2(note.contains(QStringLiteral("Clocks not locked")), qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("sudo nvidia-smi --lock-gpu-clocks=1755,1755 "
                                          "--lock-memory-clocks=2619,2619")),
             qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("supports up to 1980 MHz")), qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("Power up to 690.0 W, temperature up to 71 °C")),
             qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("too short to measure energy")), qPrintable(note));

    // Locked, steady and long enough: no mark, the energy per launch instead of the hint.
    for (ChunkTelemetry& c : t.chunks) {
        c.smClockMHz = 1755;
        c.clockEventReasons = clockEvent::ApplicationsClocksSetting;
    }
    t.energyIntervalMs = 500.0;
    view.showRun(run, {});
    QVERIFY(view.throttleNote().isEmpty());
    const QString locked = view.telemetryNote();
    QVERIFY2(locked.contains(QStringLiteral("Clocks locked.")), qPrintable(locked));
    QVERIFY2(!locked.contains(QStringLiteral("nvidia-smi")), qPrintable(locked));
    QVERIFY2(locked.contains(QStringLiteral("Energy: 20.0 mJ per launch, 0.2 W average")),
             qPrintable(locked));
    QCOMPARE(view.summaryText(QStringLiteral("energy.perLaunch")), QStringLiteral("20.0 mJ"));
}

void TestTimingChart::noNvmlSaysSo() {
    TimingChartView view;
    view.showRun(runWith({0.1, 0.2}), {}); // no telemetry: NVML was not there
    QVERIFY2(view.telemetryNote().startsWith(QStringLiteral("No NVML")),
             qPrintable(view.telemetryNote()));
    QCOMPARE(view.summaryText(QStringLiteral("telemetry")), QStringLiteral("no NVML"));
    QCOMPARE(view.summaryText(QStringLiteral("power.max")), QString()); // no zero as a value
    auto* trace = findSeries<QLineSeries>(view, QStringLiteral("smClockTrace"));
    QVERIFY(trace);
    QVERIFY(!trace->isVisible());
    QVERIFY(trace->points().isEmpty());
}

KERNELPAD_TEST_MAIN(TestTimingChart)
} // namespace tst_timingchart
#include "tst_timingchart.moc"
