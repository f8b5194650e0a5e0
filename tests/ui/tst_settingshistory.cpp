// The settings history: Apply Best / Apply Selected in the Sweep dock and a
// version's Restore are each one undo step of the document's settings, offscreen and over a
// stand-in evaluator (no GPU). Undo puts back every setting the apply wrote (block, grid,
// defines, a swept scalar, the template argument of the kernel's name expression, dynamic
// shared memory) exactly, and the document is clean again when that is what was opened; redo
// re-applies; two applies are two steps; the dock's Undo button and Edit ▸ Undo Settings name
// the configuration; another project clears the history, Save keeps it; a later edit of a
// setting that undo would overwrite clears it, an edit of another setting does not.

#include "../support/TestProjects.h"
#include "core/engine/Engine.h"
#include "core/sweep/SweepApply.h"
#include "core/sweep/SweepEvaluator.h"
#include "ui/ProjectDocument.h"
#include "ui/SettingsHistory.h"
#include "ui/Workbench.h"
#include "ui/models/SweepResultsModel.h"
#include "ui/widgets/SweepPanel.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QAction>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest>

#include <cmath>
#include <memory>

namespace tst_settingshistory {

using namespace kernelpad;

namespace {

/// transpose_sweep.kpad swept over every kind of tunable: block x and y, a define, the scalar
/// `rows`, and a parameter in the kernel's name expression; shared memory follows TILE.
Project richSweepProject() {
    QString error;
    std::optional<Project> project =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad"), &error);
    if (!project)
        qFatal("%s", qPrintable(error));
    QJsonObject sweep = project->sweep.toJson();
    sweep.insert(QStringLiteral("block"), QJsonObject{{QStringLiteral("x"), QJsonArray{8, 16, 32}},
                                                      {QStringLiteral("y"), QJsonArray{8, 32}}});
    sweep.insert(QStringLiteral("defines"),
                 QJsonObject{{QStringLiteral("TILE"), QJsonArray{8, 16}}});
    sweep.insert(QStringLiteral("scalars"),
                 QJsonObject{{QStringLiteral("rows"), QJsonArray{1024, 2048}}});
    sweep.insert(QStringLiteral("parameters"),
                 QJsonObject{{QStringLiteral("UNROLL"), QJsonArray{1, 2}}});
    sweep.insert(QStringLiteral("kernel"), QStringLiteral("transpose<{UNROLL}>"));
    sweep.insert(QStringLiteral("sharedMemBytes"), QStringLiteral("TILE * TILE * 4"));
    std::optional<SweepSpec> spec = SweepSpec::fromJson(sweep, project->arguments, &error);
    if (!spec)
        qFatal("%s", qPrintable(error));
    project->sweep = *spec;
    return *project;
}

const QString kBest = QStringLiteral("bx=8, by=32, TILE=16, rows=1024, UNROLL=2");

/// Least at bx=8, by=32, TILE=16, rows=1024, UNROLL=2.
RunResult synthetic(const Project& p) {
    RunResult r;
    r.status = RunStatus::Ok;
    double ms = 1.0 + std::abs(std::log2(p.launch.block[0]) - 3) +
                std::abs(std::log2(p.launch.block[1]) - 5);
    if (!p.options.defines.contains(QStringLiteral("TILE=16")))
        ms += 0.5;
    if (p.findArgument(QStringLiteral("rows"))->value != QLatin1String("1024"))
        ms += 0.25;
    if (p.kernel != QLatin1String("transpose<2>"))
        ms += 0.125;
    r.timing.medianMs = ms;
    r.timing.minMs = ms;
    return r;
}

class FakeEvaluator : public SweepEvaluator {
public:
    void start(quint64 tag, const RunRequest& request) override {
        const RunResult result = synthetic(request.project);
        QTimer::singleShot(0, this, [this, tag, result] {
            emit finished(tag, result, QStringLiteral("Fake GPU"));
        });
    }
    [[nodiscard]] int capacity() const override { return 1; }
    void cancel() override {}
};

void useFakeEvaluator(SweepPanel* panel) {
    panel->setDevice(0, QString());
    if (!panel->engine())
        panel->setEngine(new Engine(panel, Engine::Isolation::InProcess));
    panel->setEvaluatorFactory([] { return std::make_unique<FakeEvaluator>(); });
    panel->setResumeQuestion(
        [](int, const QString&) { return SweepPanel::ResumeChoice::StartOver; });
}

bool runToEnd(SweepPanel* panel) {
    return panel->runSweep() && QTest::qWaitFor([&] { return !panel->isRunning(); }, 20000);
}

int rowOf(const SweepResultsModel* model, const QString& text) {
    for (int row = 0; row < model->records().size(); ++row)
        if (sweepConfigurationText(model->records()[row]) == text)
            return row;
    return -1;
}

/// A document and a Sweep dock on a saved copy of richSweepProject(), swept to its end.
struct PanelFixture {
    QTemporaryDir dir;
    ProjectDocument document;
    SweepPanel panel;
    bool ok = false;

    PanelFixture() {
        const QString path = dir.filePath(QStringLiteral("rich_sweep.kpad"));
        QString error;
        if (!richSweepProject().save(path, &error) || !document.open(path, &error)) {
            qWarning("%s", qPrintable(error));
            return;
        }
        panel.setDocument(&document);
        useFakeEvaluator(&panel);
        ok = runToEnd(&panel);
    }
    QUndoStack* stack() const { return document.settingsHistory()->stack(); }
    QString path() const { return dir.filePath(QStringLiteral("rich_sweep.kpad")); }
};

QString projectJson(const Project& p) {
    return QString::fromUtf8(QJsonDocument(p.toJson()).toJson(QJsonDocument::Compact));
}

} // namespace

class TestSettingsHistory : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void applyBestUndoesInOneStep() {
        PanelFixture f;
        QVERIFY(f.ok);
        QCOMPARE(f.panel.resultsModel()->rowCount(), 48);
        const Project before = f.document.project();
        QVERIFY(!f.document.isDirty());

        QSignalSpy launches(&f.document, &ProjectDocument::launchChanged);
        QVERIFY(f.panel.applyBest());
        QCOMPARE(f.stack()->count(), 1);
        QCOMPARE(f.stack()->undoText(), QStringLiteral("Apply sweep configuration ") + kBest);
        const Project applied = f.document.project();
        QCOMPARE(applied.launch.block, (std::array<int, 3>{8, 32, 1}));
        QCOMPARE(applied.launch.grid, (std::array<int, 3>{256, 32, 1})); // cols 2048, rows 1024
        QCOMPARE(applied.launch.sharedMemBytes, 16 * 16 * 4);
        QVERIFY(applied.options.defines.contains(QStringLiteral("TILE=16")));
        QCOMPARE(applied.findArgument(QStringLiteral("rows"))->value, QStringLiteral("1024"));
        QCOMPARE(applied.kernel, QStringLiteral("transpose<2>"));
        QVERIFY(applied.sweep == before.sweep);
        QCOMPARE(applied.source, before.source);
        QVERIFY(f.document.isDirty());
        QCOMPARE(launches.size(), 1); // one apply, one launch change, not one per field
        QVERIFY2(f.panel.message().startsWith(QStringLiteral("Applied ") + kBest),
                 qPrintable(f.panel.message()));
        // The project held none of the swept configurations: the message says what changed.
        QVERIFY2(f.panel.message().contains(QStringLiteral("block 32×32→8×32")),
                 qPrintable(f.panel.message()));

        QVERIFY(f.document.settingsHistory()->undo());
        QCOMPARE(projectJson(f.document.project()), projectJson(before));
        QVERIFY(!f.document.isDirty());
        QVERIFY(!f.document.hasRecoveryFile());

        QVERIFY(f.document.settingsHistory()->redo());
        QCOMPARE(projectJson(f.document.project()), projectJson(applied));
        QVERIFY(f.document.isDirty());
    }

    void applySelectedThenBestAreTwoSteps() {
        PanelFixture f;
        QVERIFY(f.ok);
        const Project original = f.document.project();
        const QString other = QStringLiteral("bx=16, by=8, TILE=8, rows=2048, UNROLL=1");
        const int row = rowOf(f.panel.resultsModel(), other);
        QVERIFY(row >= 0);
        QVERIFY(f.panel.applyRecord(row));
        const Project selected = f.document.project();
        QCOMPARE(selected.launch.block, (std::array<int, 3>{16, 8, 1}));
        QVERIFY(f.panel.applyBest());
        QCOMPARE(f.stack()->count(), 2);
        // The project held a recorded configuration: the message names it.
        QVERIFY2(f.panel.message().contains(QStringLiteral("(was ") + other + QLatin1Char(')')),
                 qPrintable(f.panel.message()));
        // Applying what the project already holds is no step.
        QVERIFY(f.panel.applyBest());
        QCOMPARE(f.stack()->count(), 2);
        QVERIFY(f.panel.message().contains(QStringLiteral("already holds")));

        QVERIFY(f.document.settingsHistory()->undo());
        QCOMPARE(projectJson(f.document.project()), projectJson(selected));
        QVERIFY(f.document.isDirty());
        QVERIFY(f.document.settingsHistory()->undo());
        QCOMPARE(projectJson(f.document.project()), projectJson(original));
        QVERIFY(!f.document.isDirty());
        QVERIFY(!f.document.settingsHistory()->undo());
    }

    void undoButtonInTheDock() {
        PanelFixture f;
        QVERIFY(f.ok);
        f.panel.show();
        const Project before = f.document.project();
        QToolButton* undo = f.panel.undoApplyButton();
        QVERIFY(undo->isHidden());
        QVERIFY(f.panel.applyBest());
        QVERIFY(!undo->isHidden());
        QCOMPARE(undo->toolTip(), QStringLiteral("Apply sweep configuration ") + kBest);
        undo->click();
        QCOMPARE(projectJson(f.document.project()), projectJson(before));
        QVERIFY(undo->isHidden());
        QVERIFY2(f.panel.message().startsWith(QStringLiteral("Undone")),
                 qPrintable(f.panel.message()));
        // Redo from elsewhere (Edit ▸ Redo Settings) re-applies without bringing the button
        // back for an apply the dock no longer reports.
        QVERIFY(f.document.settingsHistory()->redo());
        QCOMPARE(f.document.project().launch.block, (std::array<int, 3>{8, 32, 1}));
        QVERIFY(undo->isHidden());
        // Another step on top hides it; undoing that step shows it again.
        QVERIFY(f.document.settingsHistory()->undo());
        QVERIFY(f.panel.applyBest());
        QVERIFY(!undo->isHidden());
        TimingSpec timing = f.document.project().timing;
        timing.repetitions += 1;
        Project restored = f.document.project();
        restored.timing = timing;
        QVERIFY(f.document.settingsHistory()->apply(restored, QStringLiteral("Other step")));
        QVERIFY(undo->isHidden());
        QVERIFY(f.document.settingsHistory()->undo());
        QVERIFY(!undo->isHidden());
    }

    void saveKeepsAndOpenClears() {
        PanelFixture f;
        QVERIFY(f.ok);
        const Project before = f.document.project();
        QVERIFY(f.panel.applyBest());
        QString error;
        QVERIFY2(f.document.save(f.path(), &error), qPrintable(error));
        QVERIFY(!f.document.isDirty());
        QCOMPARE(f.stack()->count(), 1);
        // Undo after a save changes the saved project: modified again.
        QVERIFY(f.document.settingsHistory()->undo());
        QCOMPARE(projectJson(f.document.project()), projectJson(before));
        QVERIFY(f.document.isDirty());
        QVERIFY(f.document.settingsHistory()->redo());
        QVERIFY(!f.document.isDirty()); // back to what was saved

        const QString other = f.dir.filePath(QStringLiteral("other.kpad"));
        QVERIFY(richSweepProject().save(other, &error));
        QVERIFY(f.document.open(other, &error));
        QCOMPARE(f.stack()->count(), 0);
        QVERIFY(!f.panel.undoApplyButton()->isVisible());
    }

    void laterEditsOfAWrittenSettingClear() {
        PanelFixture f;
        QVERIFY(f.ok);
        QVERIFY(f.panel.applyBest());
        // The repetitions are not written by the apply: undo cannot overwrite them.
        TimingSpec timing = f.document.project().timing;
        timing.repetitions += 5;
        f.document.setTiming(timing);
        QCOMPARE(f.stack()->count(), 1);
        QVERIFY(f.document.settingsHistory()->undo());
        QCOMPARE(f.document.project().timing.repetitions, timing.repetitions);
        QCOMPARE(f.document.project().launch.block, (std::array<int, 3>{32, 32, 1}));
        QVERIFY(f.document.isDirty()); // the repetitions still differ from the file
        QVERIFY(f.document.settingsHistory()->redo());

        // The block is: undo would silently put an older one over this edit.
        LaunchConfig launch = f.document.project().launch;
        launch.block = {64, 4, 1};
        f.document.setLaunch(launch);
        QCOMPARE(f.stack()->count(), 0);
        QCOMPARE(f.document.project().launch.block, (std::array<int, 3>{64, 4, 1}));
    }

    void editMenuNamesTheConfiguration() {
        Engine engine(nullptr, Engine::Isolation::InProcess);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rich_sweep.kpad"));
        QString error;
        QVERIFY(richSweepProject().save(path, &error));
        MainWindow window(&engine);
        window.setPromptsEnabled(false);
        window.setCompileWhileTyping(false);
        QVERIFY(window.openProject(path));
        // The Sweep dock follows the workbench's devices: a stand-in device lets it run.
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        if (!window.workbench()->devicesKnown())
            QVERIFY(devices.wait(60000) || !devices.isEmpty());
        emit engine.devicesChanged({kernelpad::test::fakeDevice()}, QString());
        auto* panel = window.findChild<SweepPanel*>(QStringLiteral("sweepPanel"));
        auto* undo = window.findChild<QAction*>(QStringLiteral("undoSettingsAction"));
        auto* redo = window.findChild<QAction*>(QStringLiteral("redoSettingsAction"));
        QVERIFY(panel && undo && redo);
        QVERIFY(!undo->isEnabled());
        QVERIFY(!redo->isEnabled());
        QCOMPARE(undo->shortcut(), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Z));
        useFakeEvaluator(panel);
        QVERIFY(runToEnd(panel));
        const Project before = window.document()->project();

        QVERIFY(panel->applyBest());
        QVERIFY(undo->isEnabled());
        QCOMPARE(undo->text(), QStringLiteral("Undo Apply sweep configuration ") + kBest);
        undo->trigger();
        QCOMPARE(projectJson(window.document()->project()), projectJson(before));
        QVERIFY(!window.document()->isDirty());
        QVERIFY(!window.isWindowModified());
        QVERIFY(!undo->isEnabled());
        QCOMPARE(redo->text(), QStringLiteral("Redo Apply sweep configuration ") + kBest);
        redo->trigger();
        QCOMPARE(window.document()->project().launch.block, (std::array<int, 3>{8, 32, 1}));
        QVERIFY(window.document()->isDirty());

        // Another project clears the history and the menu says so.
        const QString other = dir.filePath(QStringLiteral("other.kpad"));
        QVERIFY(richSweepProject().save(other, &error));
        window.setUnsavedChoice(MainWindow::UnsavedChoice::Discard);
        QVERIFY(window.openProject(other));
        QVERIFY(!undo->isEnabled());
        QVERIFY(!redo->isEnabled());
        QCOMPARE(window.document()->settingsHistory()->stack()->count(), 0);
    }
};

KERNELPAD_TEST_MAIN(TestSettingsHistory)
} // namespace tst_settingshistory
#include "tst_settingshistory.moc"
