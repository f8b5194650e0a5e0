// The Sweep dock on a real GPU: transpose_sweep.kpad opened in the window,
// its sweep run through Build ▸ Run Sweep on the window's device (a runner of the sweep's own,
// on its own thread), every one of its 66 block shapes compiled, run and verified; Apply best
// writes the best block and grid into the project as one settings step that Edit ▸ Undo
// Settings takes back and Redo re-applies, and a normal Run then launches with them.
// Every record carries the device's copy ceiling, which the chart draws; the project opened
// again shows its 66 results from the file at once, before any Run Sweep.
// gpu-labelled; without a driver it skips with the reason.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/models/SweepResultsModel.h"
#include "ui/widgets/SweepChart.h"
#include "ui/widgets/SweepPanel.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace tst_guisweep {

using namespace kernelpad;

namespace {

constexpr int kDevicesTimeoutMs = 60000;
constexpr int kRunTimeoutMs = 120000;
// 66 configurations at 10 repetitions each, NVRTC for each shape included.
constexpr int kSweepTimeoutMs = 300000;

bool waitForDevices(Engine& engine, MainWindow& window, QString* driverError) {
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    window.show();
    if (devices.isEmpty() && !devices.wait(kDevicesTimeoutMs))
        return false;
    *driverError = devices.last().at(1).toString();
    return driverError->isEmpty();
}

} // namespace

class TestGuiSweep : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { KERNELPAD_REQUIRE_DRIVER(); }
    void sweepsAppliesAndRunsTheBest();
};

void TestGuiSweep::sweepsAppliesAndRunsTheBest() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    QString driverError;
    if (!waitForDevices(engine, window, &driverError))
        QSKIP(qPrintable(QStringLiteral("the engine found no device: %1").arg(driverError)));
    // A copy, so that the results file is written beside it and not into the examples.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("transpose_sweep.kpad"));
    QVERIFY(QFile::copy(test::examplesDir() + QStringLiteral("/transpose_sweep.kpad"), path));
    QVERIFY2(window.openProject(path), qPrintable(window.lastError()));

    auto* panel = window.findChild<SweepPanel*>(QStringLiteral("sweepPanel"));
    auto* runSweep = window.findChild<QAction*>(QStringLiteral("runSweepAction"));
    QVERIFY(panel && runSweep);
    QVERIFY2(panel->countText().startsWith(QStringLiteral("66 configurations")),
             qPrintable(panel->countText()));
    panel->setResumeQuestion(
        [](int, const QString&) { return SweepPanel::ResumeChoice::StartOver; });

    QElapsedTimer clock;
    clock.start();
    runSweep->trigger();
    QVERIFY2(panel->isRunning(), qPrintable(panel->message()));
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), kSweepTimeoutMs);
    qInfo("66 transpose block shapes swept from the window in %lld ms: %s", clock.elapsed(),
          qPrintable(panel->message()));

    SweepResultsModel* model = panel->resultsModel();
    QCOMPARE(model->rowCount(), 66);
    for (const SweepRecord& record : model->records())
        QVERIFY2(record.passed() && !record.device.isEmpty(),
                 qPrintable(record.key + QStringLiteral(": ") + record.status +
                            QStringLiteral(" ") + record.error));
    QVERIFY(model->bestRow() >= 0);
    const SweepRecord best = model->records()[model->bestRow()];
    qInfo("best: %s, median %.4f ms on %s", qPrintable(best.key), best.medianMs,
          qPrintable(best.device));
    QVERIFY(QFile::exists(panel->resultsPath())); // in the cache folder, for a resume
    QCOMPARE(
        panel->resultsPath(),
        sweepResultsPath(
            window.document()->project(), path,
            sweepDeviceKey(
                {window.workbench()->devices().value(window.workbench()->deviceIndex()).name})));
    const double ceiling = best.ceilingGBs;
    QVERIFY2(ceiling > 0, "the records carry the device's copy ceiling");
    for (const SweepRecord& record : model->records())
        QCOMPARE(record.ceilingGBs, ceiling); // measured once for the device, not per shape
    qInfo("copy ceiling on every record: %.1f GB/s", ceiling);

    // Opened again: the file's 66 results are shown before any Run Sweep, the chart's
    // ceiling taken from them.
    QSignalSpy loaded(panel, &SweepPanel::resultsFileLoaded);
    QVERIFY2(window.openProject(path), qPrintable(window.lastError()));
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount() == 66, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 10000);
    QVERIFY2(panel->resultsFileText().startsWith(QStringLiteral("66 of 66 configurations from ")),
             qPrintable(panel->resultsFileText()));
    auto* chart = window.findChild<SweepChart*>(QStringLiteral("sweepChart"));
    QVERIFY(chart);
    QCOMPARE(chart->copyCeiling(), std::optional<double>(ceiling));

    // $KERNELPAD_SCREENSHOT_DIR: the Sweep dock with these results, large, for the docs.
    if (const QString shots = qEnvironmentVariable("KERNELPAD_SCREENSHOT_DIR"); !shots.isEmpty()) {
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("sweepDock"));
        QVERIFY(dock);
        dock->setFloating(true);
        dock->resize(1400, 1000);
        dock->show();
        QTest::qWait(300);
        QVERIFY(dock->grab().save(shots + QStringLiteral("/screenshot-sweep.png")));
    }

    const LaunchConfig original = window.document()->project().launch;
    QVERIFY2(panel->applyBest(), qPrintable(panel->message()));
    const LaunchConfig launch = window.document()->project().launch;
    QCOMPARE(launch.block[0], int(best.values[0]));
    QCOMPARE(launch.block[1], int(best.values[1]));
    QCOMPARE(launch.grid[0], (2048 + launch.block[0] - 1) / launch.block[0]);
    QCOMPARE(launch.grid[1], (2048 + launch.block[1] - 1) / launch.block[1]);
    if (!(launch == original)) {
        // One settings step: Edit ▸ Undo Settings puts the example's launch back, Redo the
        // best's again.
        auto* undo = window.findChild<QAction*>(QStringLiteral("undoSettingsAction"));
        auto* redo = window.findChild<QAction*>(QStringLiteral("redoSettingsAction"));
        QVERIFY(undo && redo && undo->isEnabled());
        QVERIFY2(undo->text().startsWith(QStringLiteral("Undo Apply sweep configuration bx=")),
                 qPrintable(undo->text()));
        qInfo("%s", qPrintable(undo->text()));
        undo->trigger();
        QVERIFY(window.document()->project().launch == original);
        redo->trigger();
        QVERIFY(window.document()->project().launch == launch);
    }

    // The next normal Run launches the best's block and verifies.
    QTRY_VERIFY2_WITH_TIMEOUT(window.workbench()->runBlockedReason().isEmpty(),
                              qPrintable(window.workbench()->runBlockedReason()), kRunTimeoutMs);
    QSignalSpy shown(window.workbench(), &Workbench::runShown);
    window.run();
    QVERIFY(shown.wait(kRunTimeoutMs));
    const RunRecord& run = window.workbench()->history().constLast();
    QVERIFY2(
        run.result.status == RunStatus::Ok,
        qPrintable(runStatusName(run.result.status) + QStringLiteral(": ") + run.result.error));
    QVERIFY(run.result.verified());
    QCOMPARE(run.project.launch.block[0], int(best.values[0]));
    QCOMPARE(run.project.launch.block[1], int(best.values[1]));
    qInfo("normal run with the best block: median %.4f ms", run.result.timing.medianMs);
}

KERNELPAD_TEST_MAIN(TestGuiSweep)
} // namespace tst_guisweep
#include "tst_guisweep.moc"
