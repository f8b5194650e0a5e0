// The Versions tab in a window: runs become a timeline (newest first) with the median, the
// verdict, what changed and the marks; two selected versions show their source diff, settings
// and timings; Restore puts an old version into the editor as one undo step and keeps what
// the user had; the PTX/SASS diff compiles both versions into the Diff tab; the versions of a
// saved project survive a new window, Clear Timing History removes them, a corrupt file is
// ignored with a message.

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "../support/WindowParts.h"
#include "TestPaths.h"
#include "core/engine/Engine.h"
#include "core/run/Summary.h"
#include "core/run/Timing.h"
#include "core/run/VersionHistory.h"
#include "ui/CompileHistory.h"
#include "ui/ProjectDocument.h"
#include "ui/SettingsHistory.h"
#include "ui/Workbench.h"
#include "ui/models/VersionsModel.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileDiffView.h"
#include "ui/widgets/VersionsPanel.h"
#include "ui/widgets/VersionsPanelCompare.h"
#include "ui/windows/MainWindow.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <memory>

namespace tst_versionspanel {

using namespace kernelpad;
using kernelpad::test::fakeDevice;
using kernelpad::test::fillProject;
using kernelpad::test::part;

namespace {

constexpr int kCompileTimeoutMs = 60000;

RunResult measuredRun(double medianMs) {
    RunResult result;
    result.status = RunStatus::Ok;
    result.timing = computeStats({medianMs * 0.99, medianMs, medianMs * 1.01}, 0);
    result.device.name = QStringLiteral("Fake GPU");
    BufferVerification check;
    check.passed = true;
    result.verification = {check};
    return result;
}

QString sourceWith(const QString& value) {
    return QStringLiteral("extern \"C\" __global__ void fill(float* out, int n)\n{\n"
                          "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    if (i < n)\n        out[i] = %1;\n}\n")
        .arg(value);
}

QStringList tableColumn(const QTableWidget* table, int column) {
    QStringList cells;
    for (int r = 0; r < table->rowCount(); ++r)
        cells << (table->item(r, column) ? table->item(r, column)->text() : QString());
    return cells;
}

struct Fixture {
    Engine engine{nullptr, Engine::Isolation::InProcess};
    std::unique_ptr<MainWindow> window;

    /// A window on `project` (saved at `path` when given), a fake device and a compile.
    bool open(const Project& project, const QString& path = QString()) {
        window = std::make_unique<MainWindow>(&engine);
        window->setPromptsEnabled(false);
        window->setCompileWhileTyping(false);
        if (path.isEmpty()) {
            window->document()->replace(project);
        } else {
            QString error;
            if (!window->document()->open(path, &error)) {
                qWarning("%s", qPrintable(error));
                return false;
            }
        }
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        if (!window->workbench()->devicesKnown() && !devices.wait(kCompileTimeoutMs) &&
            devices.isEmpty())
            return false;
        emit engine.devicesChanged({fakeDevice()}, QString());
        QSignalSpy compiled(window->workbench(), &Workbench::compileShown);
        window->compile();
        return compiled.wait(kCompileTimeoutMs) || !compiled.isEmpty();
    }
    quint64 nextId() { return engine.compile(window->document()->project(), QString(), 0) + 1; }
    /// One run of the document as it is, answered with `result`.
    bool run(const RunResult& result, SanitizerTool tool = SanitizerTool::None) {
        const quint64 id = nextId();
        RunRequest request;
        request.sanitizer = tool;
        QString why;
        if (!workbench()->run(request, &why)) {
            qWarning("run refused: %s", qPrintable(why));
            return false;
        }
        RunResult answer = result;
        answer.sanitizerTool = tool;
        emit engine.runFinished(id, answer);
        return !workbench()->isRunning();
    }
    Workbench* workbench() const { return window->workbench(); }
    ProjectDocument* document() const { return window->document(); }
    VersionsPanel* panel() const { return part<VersionsPanel>(window.get(), "versions"); }
    VersionsModel* model() const { return panel()->model(); }
    CodeEditor* editor() const { return part<CodeEditor>(window.get(), "editor"); }
    /// The list with the keyboard focus, as a user who clicked into it has it.
    QTableView* focusedTable() const {
        window->show();
        part<QTabWidget>(window.get(), "resultTabs")->setCurrentWidget(panel());
        if (!QTest::qWaitForWindowActive(window.get()))
            qWarning("the window did not become active");
        auto* table = part<QTableView>(panel(), "versionsTable");
        table->setFocus();
        return table;
    }
    QString cell(int row, int column) const {
        return model()->index(row, column).data().toString();
    }
    /// Three versions: the fill project, then block 128, then the source edited.
    bool threeVersions() {
        if (!run(measuredRun(0.080)))
            return false;
        LaunchConfig launch = document()->project().launch;
        launch.block = {128, 1, 1};
        document()->setLaunch(launch);
        if (!run(measuredRun(0.060)))
            return false;
        editor()->setText(sourceWith(QStringLiteral("2.0f")));
        return run(measuredRun(0.070));
    }
};

} // namespace

class TestVersionsPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void timelineFillsNewestFirst();
    void selectingTwoShowsTheSourceDiff();
    void restoreIsOneUndoStep();
    void restoreOfUnkeptSourceAsksAndKeepsIt();
    void restoredSettingsAreOneSettingsStep();
    void compileDiffOpensTheDiffTab();
    void compareWithShowsTheVerdict();
    void compareWithAnswersWithoutBlocking();
    void versionsSurviveANewWindow();
    void clearTimingHistoryRemovesTheFile();
    void corruptFileIsIgnoredWithAMessage();
    void screenshot();

private:
    QString m_projectPath;
    std::unique_ptr<QTemporaryDir> m_projectDir;
};

void TestVersionsPanel::initTestCase() {
    // The versions go to a test data folder, never the user's.
    QStandardPaths::setTestModeEnabled(true);
}

void TestVersionsPanel::init() {
    QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/versions"))
        .removeRecursively();
    m_projectDir = std::make_unique<QTemporaryDir>();
    m_projectPath = m_projectDir->filePath(QStringLiteral("fill.kpad"));
    Project project = fillProject(sourceWith(QStringLiteral("1.0f")));
    QString error;
    QVERIFY2(project.save(m_projectPath, &error), qPrintable(error));
}

void TestVersionsPanel::timelineFillsNewestFirst() {
    Fixture f;
    QVERIFY(f.open(fillProject(sourceWith(QStringLiteral("1.0f")))));
    QAbstractItemModelTester tester(f.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(f.threeVersions());
    QVERIFY(f.run(measuredRun(0.5), SanitizerTool::Memcheck));

    QCOMPARE(f.model()->rowCount(), 4);
    QCOMPARE(f.cell(0, VersionsModel::NumberColumn), QStringLiteral("4"));
    QCOMPARE(f.cell(3, VersionsModel::NumberColumn), QStringLiteral("1"));
    QCOMPARE(f.cell(0, VersionsModel::MarksColumn), QStringLiteral("memcheck: clean"));
    QCOMPARE(f.cell(0, VersionsModel::MedianColumn),
             QString()); // a sanitizer run's time is not shown
    QCOMPARE(f.cell(1, VersionsModel::MedianColumn), formatDurationMs(0.070));
    QCOMPARE(f.cell(2, VersionsModel::MedianColumn), formatDurationMs(0.060));
    QCOMPARE(f.cell(1, VersionsModel::ChangesColumn), QStringLiteral("source: 1 line"));
    QCOMPARE(f.cell(2, VersionsModel::ChangesColumn), QStringLiteral("block 256→128"));
    QCOMPARE(f.cell(3, VersionsModel::ChangesColumn), QStringLiteral("first run"));
    QCOMPARE(f.cell(3, VersionsModel::KernelColumn), QStringLiteral("fill"));
    QCOMPARE(f.cell(3, VersionsModel::VerdictColumn), QStringLiteral("passed"));

    RunResult failed = measuredRun(0.07);
    failed.status = RunStatus::VerificationFailed;
    failed.verification.first().passed = false;
    QVERIFY(f.run(failed));
    QCOMPARE(f.cell(0, VersionsModel::VerdictColumn), QStringLiteral("failed: 1 of 1 buffers"));
    RunResult fault = measuredRun(0.07);
    fault.status = RunStatus::CudaError;
    fault.faultCode = 700;
    fault.timing = TimingStats();
    QVERIFY(f.run(fault));
    QCOMPARE(f.cell(0, VersionsModel::VerdictColumn), QStringLiteral("fault"));
}

void TestVersionsPanel::selectingTwoShowsTheSourceDiff() {
    Fixture f;
    QVERIFY(f.open(fillProject(sourceWith(QStringLiteral("1.0f")))));
    QVERIFY(f.threeVersions());
    f.panel()->selectVersions({1, 3});
    QCOMPARE(f.panel()->comparedNumbers(), std::make_pair(1, 3));
    auto* before = part<QPlainTextEdit>(f.panel(), "versionSourceBefore");
    auto* after = part<QPlainTextEdit>(f.panel(), "versionSourceAfter");
    QVERIFY(before->toPlainText().contains(QStringLiteral("out[i] = 1.0f;")));
    QVERIFY(after->toPlainText().contains(QStringLiteral("out[i] = 2.0f;")));
    // Rows are aligned: the changed line faces its new text.
    const QStringList left = before->toPlainText().split(QLatin1Char('\n'));
    const QStringList right = after->toPlainText().split(QLatin1Char('\n'));
    QCOMPARE(left.size(), right.size());
    QCOMPARE(left.indexOf(QStringLiteral("        out[i] = 1.0f;")),
             right.indexOf(QStringLiteral("        out[i] = 2.0f;")));
    QCOMPARE(before->extraSelections().size(), 1);
    QVERIFY(f.panel()->compareView()->title().contains(QStringLiteral("1 changed")));

    auto* settings = part<QTableWidget>(f.panel(), "versionSettings");
    QCOMPARE(tableColumn(settings, 0), QStringList{QStringLiteral("launch.block")});
    QCOMPARE(tableColumn(settings, 1), QStringList{QStringLiteral("[256,1,1]")});
    QCOMPARE(tableColumn(settings, 2), QStringList{QStringLiteral("[128,1,1]")});
    auto* timings = part<QTableWidget>(f.panel(), "versionTimings");
    QCOMPARE(timings->item(0, 0)->text(), QStringLiteral("median"));
    QCOMPARE(timings->item(0, 1)->text(), formatDurationMs(0.080));
    QCOMPARE(timings->item(0, 2)->text(), formatDurationMs(0.070));
    QCOMPARE(timings->item(0, 3)->text(), QStringLiteral("-12.5 %"));

    // One version is compared with the one before it; restore needs exactly one.
    f.panel()->selectVersions({2});
    QCOMPARE(f.panel()->comparedNumbers(), std::make_pair(1, 2));
    QVERIFY(part<QPushButton>(f.panel(), "versionsRestore")->isEnabled());
    f.panel()->selectVersions({1, 2, 3});
    QCOMPARE(f.panel()->comparedNumbers(), std::make_pair(0, 0));
    QVERIFY(!part<QPushButton>(f.panel(), "versionsRestore")->isEnabled());
    QVERIFY(!part<QPushButton>(f.panel(), "versionsCompileDiff")->isEnabled());
}

void TestVersionsPanel::restoreIsOneUndoStep() {
    Fixture f;
    QVERIFY(f.open(fillProject(sourceWith(QStringLiteral("1.0f")))));
    QVERIFY(f.threeVersions());
    const QString newer = f.editor()->text();
    f.panel()->selectVersions({1});
    part<QPushButton>(f.panel(), "versionsRestore")->click();
    // The newer source is version 3: nothing to confirm.
    QVERIFY(!f.panel()->findChild<QMessageBox*>(QStringLiteral("versionsRestoreConfirm")));
    QCOMPARE(f.editor()->text(), sourceWith(QStringLiteral("1.0f")));
    QCOMPARE(f.document()->project().source, sourceWith(QStringLiteral("1.0f")));
    QCOMPARE(f.document()->project().launch.block, (std::array<int, 3>{256, 1, 1}));
    QVERIFY(f.panel()->message().contains(QStringLiteral("Restored version 1")));
    QCOMPARE(f.model()->rowCount(), 3); // the project before was version 3: nothing kept

    f.editor()->undo();
    QCOMPARE(f.editor()->text(), newer);
    QCOMPARE(f.document()->project().source, newer);

    // From the keyboard: arrows in the list, Return restores.
    QTableView* table = f.focusedTable();
    QVERIFY(table->hasFocus());
    f.panel()->selectVersions({3});
    QTest::keyClick(table, Qt::Key_Down); // version 2: block 128, the old source
    QCOMPARE(f.panel()->selectedNumbers(), QList<int>{2});
    QTest::keyClick(table, Qt::Key_Return);
    QCOMPARE(f.document()->project().source, sourceWith(QStringLiteral("1.0f")));
    QCOMPARE(f.document()->project().launch.block, (std::array<int, 3>{128, 1, 1}));
}

void TestVersionsPanel::restoreOfUnkeptSourceAsksAndKeepsIt() {
    Fixture f;
    QVERIFY(f.open(fillProject(sourceWith(QStringLiteral("1.0f")))));
    QVERIFY(f.threeVersions());
    // Typed after the last run: in no version.
    const QString typed = sourceWith(QStringLiteral("3.0f"));
    f.editor()->setText(typed);
    QCOMPARE(f.document()->project().source, typed);

    f.panel()->selectVersions({1});
    part<QPushButton>(f.panel(), "versionsRestore")->click();
    auto* box = f.panel()->findChild<QMessageBox*>(QStringLiteral("versionsRestoreConfirm"));
    QVERIFY(box);
    QVERIFY(box->text().contains(QStringLiteral("in no version")));
    QCOMPARE(f.editor()->text(), typed); // nothing happens before the answer
    QAbstractButton* restore = nullptr;
    for (QAbstractButton* b : box->buttons())
        if (box->buttonRole(b) == QMessageBox::AcceptRole)
            restore = b;
    QVERIFY(restore);
    restore->click();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete); // the closed box
    QCOMPARE(f.editor()->text(), sourceWith(QStringLiteral("1.0f")));
    QCOMPARE(f.model()->rowCount(), 4);
    const Version* kept = f.model()->at(0);
    QVERIFY(kept->kept);
    QCOMPARE(kept->project.source, typed);
    QCOMPARE(f.cell(0, VersionsModel::MarksColumn), QStringLiteral("kept before restore"));
    QVERIFY(f.panel()->message().contains(QStringLiteral("kept as version 4")));

    f.editor()->undo();
    QCOMPARE(f.editor()->text(), typed);
    // And the kept version restores like any other.
    f.editor()->setText(sourceWith(QStringLiteral("1.0f")));
    f.panel()->selectVersions({4});
    part<QPushButton>(f.panel(), "versionsRestore")->click();
    QCOMPARE(f.document()->project().source, typed);

    // Cancel leaves everything as it was.
    f.editor()->setText(sourceWith(QStringLiteral("4.0f")));
    f.panel()->selectVersions({2});
    part<QPushButton>(f.panel(), "versionsRestore")->click();
    box = f.panel()->findChild<QMessageBox*>(QStringLiteral("versionsRestoreConfirm"));
    QVERIFY(box);
    box->button(QMessageBox::Cancel)->click();
    QCOMPARE(f.editor()->text(), sourceWith(QStringLiteral("4.0f")));
    QCOMPARE(f.model()->rowCount(), 4);
}

void TestVersionsPanel::restoredSettingsAreOneSettingsStep() {
    Fixture f;
    QVERIFY(f.open(fillProject(sourceWith(QStringLiteral("1.0f")))));
    QVERIFY(f.threeVersions());
    // Settings edited by hand after the last run: kept as a version of their own at restore.
    ProgramOptions options = f.document()->project().options;
    options.defines << QStringLiteral("SCALE=3");
    f.document()->setOptions(options);
    TimingSpec timing = f.document()->project().timing;
    timing.repetitions += 7;
    f.document()->setTiming(timing);
    const Project before = f.document()->project();
    QUndoStack* stack = f.document()->settingsHistory()->stack();
    QCOMPARE(stack->count(), 0);

    f.panel()->selectVersions({1});
    part<QPushButton>(f.panel(), "versionsRestore")->click();
    const Project restored = f.document()->project();
    QCOMPARE(restored.launch.block, (std::array<int, 3>{256, 1, 1}));
    QVERIFY(!restored.options.defines.contains(QStringLiteral("SCALE=3")));
    QCOMPARE(restored.source, sourceWith(QStringLiteral("1.0f")));
    QCOMPARE(stack->count(), 1);
    auto* undo = f.window->findChild<QAction*>(QStringLiteral("undoSettingsAction"));
    QVERIFY(undo);
    QCOMPARE(undo->text(), QStringLiteral("Undo Restore version 1's settings"));
    QVERIFY2(f.panel()->message().contains(QStringLiteral("Undo Settings")),
             qPrintable(f.panel()->message()));

    // One step puts back every setting; the source is the editor's to take back.
    undo->trigger();
    QCOMPARE(f.document()->project().launch.block, (std::array<int, 3>{128, 1, 1}));
    QVERIFY(f.document()->project().options == before.options);
    QCOMPARE(f.document()->project().timing.repetitions, before.timing.repetitions);
    QCOMPARE(f.document()->project().source, sourceWith(QStringLiteral("1.0f")));
    f.editor()->undo();
    QVERIFY(f.document()->project() == before);
    auto* redo = f.window->findChild<QAction*>(QStringLiteral("redoSettingsAction"));
    QCOMPARE(redo->text(), QStringLiteral("Redo Restore version 1's settings"));
    redo->trigger();
    QCOMPARE(f.document()->project().launch.block, (std::array<int, 3>{256, 1, 1}));
    QCOMPARE(f.document()->project().timing.repetitions, restored.timing.repetitions);
}

void TestVersionsPanel::compileDiffOpensTheDiffTab() {
    Fixture f;
    QVERIFY(f.open(fillProject(sourceWith(QStringLiteral("1.0f")))));
    QVERIFY(f.threeVersions());
    f.panel()->selectVersions({1, 3});
    QTableView* table = f.focusedTable();
    QVERIFY(table->hasFocus());
    QTest::keyClick(table, Qt::Key_D, Qt::ControlModifier);
    auto* tabs = part<QTabWidget>(f.window.get(), "resultTabs");
    auto* diff = part<CompileDiffView>(f.window.get(), "compileDiff");
    QCOMPARE(tabs->currentWidget(), diff);
    auto* history = diff->findChild<CompileHistory*>(QStringLiteral("compileHistory"));
    QVERIFY(history);
    QVERIFY(history->pinned() && history->current());
    QVERIFY(history->pinned()->label().startsWith(QStringLiteral("version 1")));
    QVERIFY(history->current()->label().startsWith(QStringLiteral("version 3")));
    QCOMPARE(history->pinned()->project.source, sourceWith(QStringLiteral("1.0f")));
    QCOMPARE(history->current()->project.source, sourceWith(QStringLiteral("2.0f")));
    // Both compiled again through NVRTC (no driver needed): the PTX differs in the constant.
    QTRY_VERIFY_WITH_TIMEOUT(history->comparison().has_value() && history->reportsReady(),
                             kCompileTimeoutMs);
    QVERIFY(!history->comparison()->ptx.identical());
    QVERIFY(diff->message().contains(QStringLiteral("version 1")));
}

void TestVersionsPanel::compareWithShowsTheVerdict() {
    Fixture f;
    QVERIFY(f.open(fillProject(sourceWith(QStringLiteral("1.0f")))));
    QVERIFY(f.threeVersions());
    auto* button = part<QPushButton>(f.panel(), "versionsAbCompare");
    f.panel()->selectVersions({1, 2});
    QVERIFY(!button->isEnabled()); // one version against the editor
    f.panel()->selectVersions({1});
    QVERIFY(button->isEnabled());
    const quint64 id = f.nextId(); // the comparison's id at the Engine
    button->click();
    QCOMPARE(button->text(), QStringLiteral("Stop Comparing"));
    QVERIFY2(f.panel()->message().startsWith(
                 QStringLiteral("Comparing version 1 (A) with the editor (B)")),
             qPrintable(f.panel()->message()));
    AbResult result;
    result.status = AbResult::Status::Verdict;
    result.verdict.kind = AbVerdict::Kind::Slower;
    result.verdict.ratio = 1.031;
    result.verdict.low = 1.02;
    result.verdict.high = 1.04;
    result.a.label = QStringLiteral("version 1");
    result.a.medianMs = 0.08;
    result.a.launches = 4000;
    result.a.conditions.smClockMHz = 1980;
    result.b.label = QStringLiteral("the editor");
    result.b.medianMs = 0.0825;
    result.b.launches = 4000;
    result.b.conditions.smClockMHz = 1980;
    result.blocks = 20;
    result.launchesPerBlock = 400;
    KernelResources a;
    a.registers = 30;
    a.occupancy = 0.75;
    result.a.resources = a;
    KernelResources b = a;
    b.registers = 32;
    b.occupancy = 0.62;
    result.b.resources = b;
    emit f.engine.abFinished(id, result);
    QCOMPARE(button->text(), QStringLiteral("Compare with…"));
    const QString message = f.panel()->message();
    QVERIFY2(
        message.startsWith(QStringLiteral("A/B: B is 3.1 % slower (95 % interval 2.0 to 4.0 %)\n")),
        qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("A version 1: median 0.08000 ms over 4000 launches, "
                                             "SM 1980 MHz")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("B the editor: median 0.08250 ms")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("20 blocks of 400 launches, B/A 1.0310 (1.0200 to "
                                             "1.0400)\n")),
             qPrintable(message));
    // The edit's verdict: the A/B's time with each arm's registers and occupancy.
    QVERIFY2(message.endsWith(QStringLiteral("Verdict: 3.1 % slower (significant): 2 more "
                                             "registers → occupancy 75 % → 62 %")),
             qPrintable(message));
}

void TestVersionsPanel::compareWithAnswersWithoutBlocking() {
    // Through the Engine for real: without a driver both arms fail at once with the reason;
    // on a GPU machine the comparison runs. Either way the window stays responsive and the
    // button comes back.
    Fixture f;
    QVERIFY(f.open(fillProject(sourceWith(QStringLiteral("1.0f")))));
    QVERIFY(f.run(measuredRun(0.080)));
    f.panel()->selectVersions({1});
    auto* button = part<QPushButton>(f.panel(), "versionsAbCompare");
    QSignalSpy finished(&f.engine, &Engine::abFinished);
    button->click();
    QCOMPARE(button->text(), QStringLiteral("Stop Comparing"));
    QVERIFY(finished.wait(120000));
    QCOMPARE(button->text(), QStringLiteral("Compare with…"));
    const AbResult r = finished.first().at(1).value<AbResult>();
    const QString message = f.panel()->message();
    if (r.status == AbResult::Status::Error)
        QVERIFY2(message.startsWith(QStringLiteral("A/B with version 1: A (version 1): ")),
                 qPrintable(message));
    else
        QVERIFY2(message.startsWith(QStringLiteral("A/B: ")), qPrintable(message));
}

void TestVersionsPanel::versionsSurviveANewWindow() {
    {
        Fixture f;
        QVERIFY(f.open(Project(), m_projectPath));
        QVERIFY(f.threeVersions());
        const QString file = VersionStore(m_projectPath).filePath();
        QVERIFY(QFile::exists(file));
        // Never beside the project.
        QVERIFY(!file.startsWith(m_projectDir->path()));
        QCOMPARE(QDir(m_projectDir->path()).entryList(QDir::Files),
                 QStringList{QStringLiteral("fill.kpad")});
    }
    Fixture again;
    QVERIFY(again.open(Project(), m_projectPath));
    QCOMPARE(again.model()->rowCount(), 3);
    QCOMPARE(again.cell(0, VersionsModel::MedianColumn), formatDurationMs(0.070));
    QCOMPARE(again.cell(1, VersionsModel::ChangesColumn), QStringLiteral("block 256→128"));
    QCOMPARE(again.cell(2, VersionsModel::VerdictColumn), QStringLiteral("passed"));
    QCOMPARE(again.model()->find(3)->project.source, sourceWith(QStringLiteral("2.0f")));
    QVERIFY(again.model()->find(3)->timing.timesMs.size() == 3);
    QCOMPARE(again.model()->find(1)->project.launch.block, (std::array<int, 3>{256, 1, 1}));
    // Numbering goes on from the kept versions, and what changed is against the newest (the
    // file still holds the first source and block).
    QVERIFY(again.run(measuredRun(0.05)));
    QCOMPARE(again.cell(0, VersionsModel::NumberColumn), QStringLiteral("4"));
    QCOMPARE(again.cell(0, VersionsModel::ChangesColumn),
             QStringLiteral("source: 1 line, block 128→256"));
    // A restored old version compares with the new ones.
    again.panel()->selectVersions({1, 4});
    QCOMPARE(again.panel()->comparedNumbers(), std::make_pair(1, 4));
}

void TestVersionsPanel::clearTimingHistoryRemovesTheFile() {
    Fixture f;
    QVERIFY(f.open(Project(), m_projectPath));
    QVERIFY(f.run(measuredRun(0.08)));
    const QString file = VersionStore(m_projectPath).filePath();
    QVERIFY(QFile::exists(file));
    f.workbench()->clearHistory();
    QCOMPARE(f.model()->rowCount(), 0);
    QVERIFY(!QFile::exists(file));
}

void TestVersionsPanel::corruptFileIsIgnoredWithAMessage() {
    const QString file = VersionStore(m_projectPath).filePath();
    QVERIFY(QDir().mkpath(QFileInfo(file).absolutePath()));
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write("{\"version\":1,\"versions\":[{\"number\":\"one\"}");
    out.close();
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("ignored")));
    Fixture f;
    QVERIFY(f.open(Project(), m_projectPath));
    QCOMPARE(f.model()->rowCount(), 0);
    QVERIFY(f.panel()->message().contains(QStringLiteral("ignored")));
    // Runs go on, and the next save replaces the corrupt file with a good one.
    QVERIFY(f.run(measuredRun(0.08)));
    QString error;
    QCOMPARE(VersionStore(m_projectPath).load(&error).size(), 1);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestVersionsPanel::screenshot() {
    // The docs' picture (docs/screenshot-versions.png) is taken here, offscreen, when
    // KERNELPAD_SCREENSHOT_DIR names a folder: synthetic timings on a fake device.
    Fixture f;
    QVERIFY(f.open(fillProject(sourceWith(QStringLiteral("1.0f")))));
    QVERIFY(f.threeVersions());
    QVERIFY(f.run(measuredRun(0.5), SanitizerTool::Memcheck));
    f.window->resize(1600, 1000);
    f.window->show();
    part<QTabWidget>(f.window.get(), "resultTabs")->setCurrentWidget(f.panel());
    f.panel()->selectVersions({1, 3});
    QVERIFY(QTest::qWaitForWindowExposed(f.window.get()));
    const QImage image = f.window->grab().toImage();
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), f.window->size() * f.window->devicePixelRatio());
    const QString folder = qEnvironmentVariable("KERNELPAD_SCREENSHOT_DIR");
    if (!folder.isEmpty())
        QVERIFY(image.save(QDir(folder).filePath(QStringLiteral("screenshot-versions.png"))));
}

KERNELPAD_TEST_MAIN(TestVersionsPanel)
} // namespace tst_versionspanel
#include "tst_versionspanel.moc"
