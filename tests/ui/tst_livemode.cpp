// Live mode and the baseline without a GPU: the real Engine compiles with NVRTC, fake devices
// let runs start, and the runs' answers are either the Engine's own (no driver here) or
// synthetic results emitted for the run's id.

#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/TimingChartView.h"

#include <QCandlestickSeries>
#include <QCandlestickSet>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include "../support/TestMain.h"
#include "../support/TestProjects.h"

namespace tst_livemode {

using namespace kernelpad;
using kernelpad::test::fakeDevice;

namespace {

constexpr int kCompileTimeoutMs = 60000;
/// Well inside live mode's 300 ms pause, even on a loaded machine.
constexpr int kTypingGapMs = 30;

QString scaleSource(const QString& factor) {
    return QStringLiteral("__global__ void scale(float* data, int n) {\n"
                          "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    if (i < n) data[i] *= %1;\n"
                          "}\n")
        .arg(factor);
}

Project scaleProject() {
    Project p;
    p.name = QStringLiteral("Live test");
    p.source = scaleSource(QStringLiteral("2.0f"));
    p.kernel = QStringLiteral("scale");
    p.launch.grid = {4, 1, 1};
    p.launch.block = {256, 1, 1};
    return p;
}

/// Counts the compiles asked for and the runs shown.
class CountingViewer : public QObject, public WorkbenchViewer {
public:
    int compiles = 0;
    int runs = 0;
    void compileStarted(const Workbench&) override { ++compiles; }
    void runFinished(const Workbench&, const RunRecord&) override { ++runs; }
};

/// A workbench whose project compiled and whose (fake) device lets Run start.
struct Fixture {
    Engine engine;
    ProjectDocument document;
    Workbench workbench{&engine, &document};

    bool ready() {
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        if (!workbench.devicesKnown() && !devices.wait(kCompileTimeoutMs) && devices.isEmpty())
            return false;
        emit engine.devicesChanged({fakeDevice()}, QString());
        QSignalSpy compiled(&workbench, &Workbench::compileShown);
        document.replace(scaleProject()); // compiles at once
        if (!compiled.wait(kCompileTimeoutMs) && compiled.isEmpty())
            return false;
        return workbench.runBlockedReason().isEmpty();
    }
};

/// `n` times around `medianMs`, a little spread so that the interval is not a point.
QVector<double> timesAround(double medianMs, int n = 30) {
    QVector<double> out;
    for (int i = 0; i < n; ++i)
        out.append(medianMs * (1.0 + 0.002 * ((i * 7) % 11 - 5)));
    return out;
}

/// A series of the chart's views by its object name (the series belong to the QCharts, which
/// are not QObject children of the view).
template <typename Series> Series* findSeries(const TimingChartView& view, const QString& name) {
    const QList<QChartView*> charts = view.findChildren<QChartView*>();
    for (const QChartView* chartView : charts)
        for (QAbstractSeries* series : chartView->chart()->series())
            if (auto* s = qobject_cast<Series*>(series); s && s->objectName() == name)
                return s;
    return nullptr;
}

RunResult resultWith(const QVector<double>& timesMs, RunStatus status = RunStatus::Ok) {
    RunResult r;
    r.status = status;
    r.timing = computeStats(timesMs);
    r.device.name = QStringLiteral("Test GPU");
    return r;
}

/// Starts a run and answers it with `result` at once, as the runner would.
bool runWith(Fixture& f, const RunResult& result) {
    QSignalSpy requested(&f.workbench, &Workbench::runRequested);
    QString why;
    if (!f.workbench.run(RunRequest(), &why) || requested.isEmpty())
        return false;
    emit f.engine.runFinished(requested.first().first().toULongLong(), result);
    return !f.workbench.isRunning();
}

} // namespace

class TestLiveMode : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void liveTimingIsShortAndKeepsTheRest();
    void burstOfEditsCompilesOnce();
    void editWhileARunIsPendingCancelsIt();
    void switchingOffStopsThePause();
    void comparisonAgainstThePreviousRun();
    void editVerdictNamesTheCauses();
    void sameMachineCodeIsVariationBetweenRuns();
    void baselineSpeedup();
    void failedRunIsNeverCompared();
    void baselineKernelFollowsEachRun();
    void chartShowsIntervalsAndTheBaseline();
};

void TestLiveMode::liveTimingIsShortAndKeepsTheRest() {
    TimingSpec project;
    project.mode = TimingSpec::Mode::Cold;
    project.adaptive = false;
    project.repetitions = 500;
    project.maxTimeMs = 5000;
    project.timeLimitMs = 20000;
    project.bytesOverride = 1234;
    const TimingSpec live = Workbench::liveTiming(project);
    QVERIFY(live.adaptive);
    QCOMPARE(live.maxTimeMs, 10);
    QCOMPARE(live.targetNoise, 0.02);
    QVERIFY(live.repetitions >= kMinSamples);
    QCOMPARE(live.mode, TimingSpec::Mode::Cold);
    QCOMPARE(live.timeLimitMs, 20000);
    QCOMPARE(live.bytesOverride, std::optional<qint64>(1234));
    QVERIFY2(live.validate().isEmpty(), qPrintable(live.validate()));
    // A kernel that took 20 ms last time gets 12 of its launches; one of 10 s is capped.
    QCOMPARE(Workbench::liveTiming(project, 20.0).maxTimeMs, 240);
    QCOMPARE(Workbench::liveTiming(project, 10000.0).maxTimeMs, 2000);
    QCOMPARE(Workbench::liveTiming(project, 0.005).maxTimeMs, 10);
    // A project asking for less noise than live mode gets live mode's; more stays its own.
    project.targetNoise = 0.1;
    QCOMPARE(Workbench::liveTiming(project).targetNoise, 0.1);
}

void TestLiveMode::burstOfEditsCompilesOnce() {
    Fixture f;
    QVERIFY(f.ready());
    CountingViewer viewer;
    f.workbench.addViewer(&viewer);
    f.workbench.setLiveMode(true);
    // Switching on measures what is there after the pause; let it come and go first.
    QSignalSpy shown(&f.workbench, &Workbench::compileShown);
    QVERIFY(shown.wait(kCompileTimeoutMs));
    QTRY_VERIFY_WITH_TIMEOUT(!f.workbench.isRunning(), kCompileTimeoutMs);
    viewer.compiles = 0;
    shown.clear();

    const QStringList factors{QStringLiteral("3.0f"), QStringLiteral("4.0f"),
                              QStringLiteral("5.0f"), QStringLiteral("6.0f")};
    for (const QString& factor : factors) {
        f.document.setSource(scaleSource(factor));
        QTest::qWait(kTypingGapMs);
    }
    QCOMPARE(viewer.compiles, 0); // still inside the pause
    QVERIFY(shown.wait(kCompileTimeoutMs));
    QCOMPARE(viewer.compiles, 1);
    QCOMPARE(f.workbench.lastCompiledSource(), scaleSource(QStringLiteral("6.0f")));
    // Compile-while-typing's own, longer timer did not add a second compile: none is shown
    // (the wait ends early, failing, if one is) nor started within its delay.
    shown.clear();
    QVERIFY(!shown.wait(Workbench::kCompileWhileTypingDelayMs + 100));
    QCOMPARE(viewer.compiles, 1);
}

void TestLiveMode::editWhileARunIsPendingCancelsIt() {
    Fixture f;
    QVERIFY(f.ready());
    CountingViewer viewer;
    f.workbench.addViewer(&viewer);
    QSignalSpy requested(&f.workbench, &Workbench::runRequested);
    const QString edited = scaleSource(QStringLiteral("0.5f"));
    // The moment the first live run is handed to the Engine, the author types again.
    bool typed = false;
    connect(&f.workbench, &Workbench::runRequested, this, [&] {
        if (typed)
            return;
        typed = true;
        QVERIFY(f.workbench.isLiveRunning());
        f.document.setSource(edited);
    });
    f.workbench.setLiveMode(true);
    QVERIFY(requested.wait(kCompileTimeoutMs));
    QCOMPARE(requested.first().at(1).value<RunRequest>().project.source,
             scaleSource(QStringLiteral("2.0f")));
    // The first run's answer (no driver here) comes back and is dropped; after the pause the
    // edited source compiles and runs.
    QTRY_VERIFY_WITH_TIMEOUT(requested.size() == 2, kCompileTimeoutMs);
    const RunRequest second = requested.at(1).at(1).value<RunRequest>();
    QCOMPARE(second.project.source, edited);
    QCOMPARE(second.project.timing, Workbench::liveTiming(f.document.project().timing));
    QTRY_VERIFY_WITH_TIMEOUT(!f.workbench.isRunning(), kCompileTimeoutMs);
    // Only the run of the edited source was recorded and shown, as a live run whose project
    // keeps the document's own timing.
    QCOMPARE(f.workbench.history().size(), 1);
    QCOMPARE(viewer.runs, 1);
    QCOMPARE(f.workbench.history().first().project.source, edited);
    QVERIFY(f.workbench.history().first().live);
    QCOMPARE(f.workbench.history().first().project.timing, f.document.project().timing);
}

void TestLiveMode::switchingOffStopsThePause() {
    Fixture f;
    QVERIFY(f.ready());
    CountingViewer viewer;
    f.workbench.addViewer(&viewer);
    f.workbench.setLiveMode(true);
    f.document.setSource(scaleSource(QStringLiteral("7.0f")));
    f.workbench.setLiveMode(false);
    f.workbench.setCompileWhileTyping(false);
    // Nothing is shown (the wait ends early, failing, if a compile is) nor started after the
    // pause would have ended.
    QSignalSpy shown(&f.workbench, &Workbench::compileShown);
    QVERIFY(!shown.wait(Workbench::kLiveDelayMs + 200));
    QCOMPARE(viewer.compiles, 0);
    QVERIFY(!f.workbench.isRunning());
}

void TestLiveMode::comparisonAgainstThePreviousRun() {
    Fixture f;
    QVERIFY(f.ready());
    QVERIFY(runWith(f, resultWith(timesAround(1.0))));
    QCOMPARE(f.workbench.comparisonText(f.workbench.history().last()), QString()); // the first
    QVERIFY(runWith(f, resultWith(timesAround(0.877))));
    const QString faster = f.workbench.comparisonText(f.workbench.history().last());
    QVERIFY2(faster.startsWith(QStringLiteral("this edit: \u221212.3 % (\u00b1")),
             qPrintable(faster));
    QVERIFY2(faster.endsWith(QStringLiteral("a real change")), qPrintable(faster));
    QVERIFY(runWith(f, resultWith(timesAround(0.878))));
    const QString same = f.workbench.comparisonText(f.workbench.history().last());
    QVERIFY2(same.startsWith(QStringLiteral("this edit: +0.1 % (\u00b1")), qPrintable(same));
    QVERIFY2(same.endsWith(QStringLiteral("within noise")), qPrintable(same));
}

void TestLiveMode::editVerdictNamesTheCauses() {
    Fixture f;
    QVERIFY(f.ready());
    const auto withResources = [](double medianMs, int registers, double occupancy) {
        RunResult r = resultWith(timesAround(medianMs));
        r.resources.registers = registers;
        r.resources.occupancy = occupancy;
        return r;
    };
    QVERIFY(runWith(f, withResources(1.0, 30, 0.75)));
    QCOMPARE(f.workbench.editVerdictText(f.workbench.history().last()), QString()); // the first
    QVERIFY(runWith(f, withResources(1.2, 32, 0.62)));
    QCOMPARE(f.workbench.editVerdictText(f.workbench.history().last()),
             QStringLiteral("this edit: 20 % slower (significant): 2 more registers → occupancy "
                            "75 % → 62 %"));
    // A failed run is never compared: no verdict for it, and the next is compared with the
    // last run that passed.
    QVERIFY(runWith(f, resultWith(timesAround(0.5), RunStatus::VerificationFailed)));
    QCOMPARE(f.workbench.editVerdictText(f.workbench.history().last()), QString());
    QVERIFY(runWith(f, withResources(1.2012, 32, 0.62)));
    QCOMPARE(f.workbench.editVerdictText(f.workbench.history().last()),
             QStringLiteral("this edit: 0.1 % slower (within noise)"));
}

void TestLiveMode::sameMachineCodeIsVariationBetweenRuns() {
    Fixture f;
    QVERIFY(f.ready());
    const auto withCode = [](const QVector<double>& times, const QString& hash) {
        RunResult r = resultWith(times);
        r.compile.codeHash = hash;
        return r;
    };
    QVERIFY(runWith(f, withCode(timesAround(1.0), QStringLiteral("c0de"))));
    // 12 % apart with the same code: the difference is between runs, not the edit.
    QVERIFY(runWith(f, withCode(timesAround(0.88), QStringLiteral("c0de"))));
    const QString variation = f.workbench.comparisonText(f.workbench.history().last());
    QVERIFY2(variation.startsWith(QStringLiteral("this edit: \u221212.0 % (\u00b1")),
             qPrintable(variation));
    QVERIFY2(variation.endsWith(QStringLiteral("variation between runs, not the edit")),
             qPrintable(variation));
    QVERIFY(runWith(f, withCode(timesAround(0.881), QStringLiteral("c0de"))));
    const QString noise = f.workbench.comparisonText(f.workbench.history().last());
    QVERIFY2(noise.endsWith(QStringLiteral("within noise (the same machine code as the previous "
                                           "run)")),
             qPrintable(noise));
    // Other code: a real change again.
    QVERIFY(runWith(f, withCode(timesAround(0.5), QStringLiteral("beef"))));
    const QString changed = f.workbench.comparisonText(f.workbench.history().last());
    QVERIFY2(changed.endsWith(QStringLiteral("a real change")), qPrintable(changed));
    // A code hash on one side only says nothing of the other: compared as before.
    QVERIFY(runWith(f, withCode(timesAround(0.25), QString())));
    QVERIFY(f.workbench.comparisonText(f.workbench.history().last())
                .endsWith(QStringLiteral("a real change")));
}

void TestLiveMode::baselineSpeedup() {
    Fixture f;
    QVERIFY(f.ready());
    QSignalSpy changed(&f.workbench, &Workbench::baselineChanged);
    QVERIFY(runWith(f, resultWith(timesAround(1.0))));
    const quint64 naive = f.workbench.history().last().serial;
    QVERIFY(f.workbench.setBaseline(naive));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(f.workbench.comparisonText(f.workbench.history().last()), QString()); // itself
    QVERIFY(runWith(f, resultWith(timesAround(0.8))));
    QVERIFY(runWith(f, resultWith(timesAround(0.4))));
    const QString text = f.workbench.comparisonText(f.workbench.history().last());
    QVERIFY2(text.startsWith(QStringLiteral("2.50\u00d7 faster than baseline (\u00b1")),
             qPrintable(text));
    // Slower than the baseline.
    QVERIFY(runWith(f, resultWith(timesAround(2.0))));
    const QString slower = f.workbench.comparisonText(f.workbench.history().last());
    QVERIFY2(slower.startsWith(QStringLiteral("2.00\u00d7 slower than baseline")),
             qPrintable(slower));
    f.workbench.clearBaseline();
    QVERIFY(!f.workbench.baselineRun());
    QCOMPARE(changed.size(), 2);
    QVERIFY(f.workbench.comparisonText(f.workbench.history().last())
                .startsWith(QStringLiteral("this edit: +400.0 %")));
    // A failed run cannot be pinned; clearing the history drops the baseline.
    QVERIFY(runWith(f, resultWith(timesAround(1.0), RunStatus::VerificationFailed)));
    QVERIFY(!f.workbench.setBaseline(f.workbench.history().last().serial));
    QVERIFY(f.workbench.setBaseline(naive));
    f.workbench.clearHistory();
    QVERIFY(!f.workbench.baselineRun());
    QCOMPARE(changed.size(), 4);
}

void TestLiveMode::failedRunIsNeverCompared() {
    Fixture f;
    QVERIFY(f.ready());
    QVERIFY(runWith(f, resultWith(timesAround(1.0))));
    // Faster, but wrong: shown as a failure, never as "faster".
    QVERIFY(runWith(f, resultWith(timesAround(0.5), RunStatus::VerificationFailed)));
    QCOMPARE(f.workbench.comparisonText(f.workbench.history().last()), QString());
    QVERIFY(runWith(f, resultWith({}, RunStatus::CudaError)));
    QCOMPARE(f.workbench.comparisonText(f.workbench.history().last()), QString());
    // The next good run is compared with the last good one, not with the failures.
    QVERIFY(runWith(f, resultWith(timesAround(1.0))));
    QVERIFY(f.workbench.comparisonText(f.workbench.history().last())
                .endsWith(QStringLiteral("within noise")));
}

void TestLiveMode::baselineKernelFollowsEachRun() {
    Fixture f;
    QVERIFY(f.ready());
    const QString naive = QStringLiteral("__global__ void scale_naive(float* data, int n) {\n"
                                         "    for (int i = 0; i < n; ++i) data[i] *= 2.0f;\n"
                                         "}\n");
    QSignalSpy compiled(&f.workbench, &Workbench::compileShown);
    f.document.setSource(f.document.project().source + naive);
    f.workbench.compile();
    QVERIFY(compiled.wait(kCompileTimeoutMs));
    QCOMPARE(f.document.project().kernel, QStringLiteral("scale"));
    f.workbench.setBaselineKernel(QStringLiteral("scale_naive"));
    QVERIFY(!f.workbench.isRunning()); // nothing ran yet to follow

    QSignalSpy requested(&f.workbench, &Workbench::runRequested);
    QVERIFY(f.workbench.run(RunRequest()));
    emit f.engine.runFinished(requested.at(0).at(0).toULongLong(), resultWith(timesAround(0.25)));
    // The baseline kernel follows at once, with the same project but its own kernel.
    QCOMPARE(requested.size(), 2);
    const RunRequest follow = requested.at(1).at(1).value<RunRequest>();
    QCOMPARE(follow.project.kernel, QStringLiteral("scale_naive"));
    QCOMPARE(follow.project.arguments.size(), f.document.project().arguments.size());
    QCOMPARE(follow.project.source, f.document.project().source);
    QCOMPARE(f.workbench.comparisonText(f.workbench.history().last()), QString()); // not yet
    emit f.engine.runFinished(requested.at(1).at(0).toULongLong(), resultWith(timesAround(1.0)));
    QVERIFY(!f.workbench.isRunning());
    QCOMPARE(f.workbench.history().size(), 1); // the baseline kernel's run is kept apart
    QVERIFY(f.workbench.baselineKernelRun());
    const QString text = f.workbench.comparisonText(f.workbench.history().last());
    QVERIFY2(text.startsWith(QStringLiteral("4.00\u00d7 faster than baseline (\u00b1")) &&
                 text.endsWith(QStringLiteral("baseline kernel scale_naive")),
             qPrintable(text));

    // The same project again: the kept result answers, nothing follows.
    QVERIFY(f.workbench.run(RunRequest()));
    emit f.engine.runFinished(requested.at(2).at(0).toULongLong(), resultWith(timesAround(0.5)));
    QCOMPARE(requested.size(), 3);
    QVERIFY(f.workbench.comparisonText(f.workbench.history().last())
                .startsWith(QStringLiteral("2.00\u00d7 faster than baseline")));
    // An edit changes the project: the kept result no longer answers, and it runs again.
    f.document.setSource(f.document.project().source + QStringLiteral("// edited\n"));
    QVERIFY(f.workbench.run(RunRequest()));
    emit f.engine.runFinished(requested.at(3).at(0).toULongLong(), resultWith(timesAround(0.5)));
    QCOMPARE(requested.size(), 5);
    QCOMPARE(f.workbench.comparisonText(f.workbench.history().last()), QString());
    // Pinning a run replaces the baseline kernel.
    emit f.engine.runFinished(requested.at(4).at(0).toULongLong(), resultWith(timesAround(1.0)));
    QVERIFY(f.workbench.setBaseline(f.workbench.history().first().serial));
    QVERIFY(f.workbench.baselineKernel().isEmpty());
    QVERIFY(!f.workbench.baselineKernelRun());
}

void TestLiveMode::chartShowsIntervalsAndTheBaseline() {
    TimingChartView chart;
    chart.showRun(resultWith(timesAround(1.0)), QString(), 11);
    chart.showRun(resultWith(timesAround(0.5)), QString(), 12);
    chart.showRun(resultWith({0.4, 0.41, 0.42}), QString(), 13); // too few for an interval
    QCOMPARE(chart.history().size(), 3);
    const MedianInterval& first = chart.history().first().interval;
    QVERIFY(first.valid);
    QVERIFY(first.lowMs < first.medianMs && first.medianMs < first.highMs);
    QVERIFY(!chart.history().last().interval.valid);

    auto* boxes = findSeries<QCandlestickSeries>(chart, QStringLiteral("historyIntervals"));
    QVERIFY(boxes);
    QCOMPARE(boxes->count(), 3);
    // The history axis is in ms here (1 ms is the largest median): the box is the interval.
    QCOMPARE(boxes->sets().first()->open(), first.lowMs);
    QCOMPARE(boxes->sets().first()->close(), first.highMs);
    QCOMPARE(boxes->sets().last()->open(), boxes->sets().last()->close());

    auto* baseline = findSeries<QLineSeries>(chart, QStringLiteral("baselineLine"));
    QVERIFY(baseline);
    QCOMPARE(baseline->count(), 0);
    QSignalSpy requested(&chart, &TimingChartView::baselineRequested);
    std::unique_ptr<QMenu> menu(chart.historyMenu(1.2, nullptr));
    auto* pin = menu->findChild<QAction*>(QStringLiteral("setBaselineAction"));
    QVERIFY(pin);
    QVERIFY(!menu->findChild<QAction*>(QStringLiteral("clearBaselineAction")));
    pin->trigger();
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.first().first().toULongLong(), quint64(11));
    chart.setBaseline(11);
    QCOMPARE(baseline->count(), 2);
    QCOMPARE(baseline->at(0).y(), chart.history().first().medianMs);
    std::unique_ptr<QMenu> again(chart.historyMenu(2, nullptr));
    QVERIFY(again->findChild<QAction*>(QStringLiteral("clearBaselineAction")));
    chart.clearHistory();
    QCOMPARE(chart.baseline(), quint64(0));
    QCOMPARE(baseline->count(), 0);
}

KERNELPAD_TEST_MAIN(TestLiveMode)
} // namespace tst_livemode
#include "tst_livemode.moc"
