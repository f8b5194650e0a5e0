// The lesson pane and exercise mode: every shipped lesson opens in the window with
// its text beside the editor and compiles without a GPU; hints open one at a time; the
// solution is shown as a diff and used as one undoable edit; runs are judged from their own
// verification (and, for a speed lesson, the starter's time), then at the lesson's other
// sizes (its "tests" cases), and completions recorded.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/engine/TestRun.h"
#include "core/project/Lesson.h"
#include "core/project/LessonWorkspace.h"
#include "core/run/LessonCheck.h"
#include "ui/LessonExercise.h"
#include "ui/LessonProgress.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/LessonPane.h"
#include "ui/windows/MainWindow.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QtTest>

namespace tst_lessonpane {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

// NVRTC on a loaded machine can take several seconds for a compile.
constexpr int kCompileTimeoutMs = 60000;

QString lessonsDir() {
    return QStringLiteral(KERNELPAD_LESSONS_DIR);
}

Lesson loadLesson(const QString& folder) {
    QString error;
    std::optional<Lesson> lesson = Lesson::load(lessonsDir() + QLatin1Char('/') + folder, &error);
    if (!lesson)
        qFatal("cannot load lesson %s: %s", qPrintable(folder), qPrintable(error));
    return *lesson;
}

/// A run that checked one buffer: passed, or with `mismatches` of 1000 elements wrong.
RunResult syntheticRun(double medianMs, qint64 mismatches = 0) {
    RunResult r;
    r.device.name = QStringLiteral("Test GPU");
    r.device.ordinal = 0;
    r.timing.timesMs = {medianMs, medianMs, medianMs};
    r.timing.minMs = r.timing.medianMs = r.timing.meanMs = r.timing.maxMs = medianMs;
    BufferVerification v;
    v.buffer = QStringLiteral("out");
    v.method = QStringLiteral("expression");
    v.checked = 1000;
    v.mismatches = mismatches;
    v.passed = mismatches == 0;
    r.verification = {v};
    r.status = mismatches == 0 ? RunStatus::Ok : RunStatus::VerificationFailed;
    return r;
}

/// A test run of the lesson's cases: all passed, or "n = 33" with element 32 never written.
TestReport casesReport(bool passed) {
    TestReport report;
    TestCaseResult one;
    one.name = QStringLiteral("n = 1");
    one.checks = {TestCheck{QStringLiteral("verify"), CheckOutcome::Passed, {}, {}}};
    report.cases = {one};
    if (passed)
        return report;
    TestCaseResult tail;
    tail.name = QStringLiteral("n = 33");
    tail.run = syntheticRun(0.01, 1);
    tail.run.verification[0].checked = 33;
    tail.run.verification[0].unwritten = 1;
    tail.run.verification[0].firstMismatches = {Mismatch{32, 0, 1.5}};
    tail.checks = caseChecks(tail.run, nullptr, QStringLiteral("not asked"));
    report.cases << tail;
    return report;
}

struct Window {
    Engine engine;
    MainWindow window{&engine};
    Window() {
        window.setPromptsEnabled(false);
        window.setCompileWhileTyping(false);
    }
    LessonPane* pane() const { return part<LessonPane>(&window, "lessonPane"); }
    QDockWidget* dock() const { return part<QDockWidget>(&window, "lessonDock"); }
    CodeEditor* editor() const { return window.findChild<CodeEditor*>(); }
};

} // namespace

class TestLessonPane : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void everyLessonOpensWithItsTextAndCompiles_data();
    void everyLessonOpensWithItsTextAndCompiles();
    void paneIsHiddenForOrdinaryProjects();
    void lessonForProjectNeedsALessonFile();
    void nextLessonFollowsTheCourse();
    void hintsOpenOneAtATime();
    void solutionDiffNamesTheChangedLines();
    void usingTheSolutionIsOneUndoableEdit();
    void correctnessLessonIsJudgedByVerification();
    void failingSizeNamesTheCase();
    void speedLessonNeedsTheRequiredSpeedup();
    void speedLessonTimesTheStarterWhenItHasNoBaseline();
    void completionInTheWindowOffersTheNextLesson();
    void recordedFiguresAreLabelled();
};

void TestLessonPane::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("KernelPadTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_lessonpane"));
    qputenv("KERNELPAD_LESSONS", lessonsDir().toUtf8());
}

void TestLessonPane::init() {
    QSettings().clear();
}

void TestLessonPane::everyLessonOpensWithItsTextAndCompiles_data() {
    QTest::addColumn<QString>("directory");
    QStringList problems;
    const QVector<Lesson> lessons = listLessons(lessonsDir(), &problems);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    QVERIFY(lessons.size() >= 12);
    for (const Lesson& lesson : lessons)
        QTest::newRow(qPrintable(QFileInfo(lesson.directory).fileName())) << lesson.directory;
}

void TestLessonPane::everyLessonOpensWithItsTextAndCompiles() {
    QFETCH(QString, directory);
    const Lesson lesson = loadLesson(QFileInfo(directory).fileName());
    Window w;
    QVERIFY2(w.window.openProject(lesson.projectPath()), qPrintable(w.window.lastError()));
    QVERIFY(!w.dock()->isHidden());
    QVERIFY(w.dock()->toggleViewAction()->isEnabled());
    QCOMPARE(part<QLabel>(&w.window, "lessonTitle")->text(), lesson.title);
    const QString meta = part<QLabel>(&w.window, "lessonMeta")->text();
    QVERIFY2(meta.contains(lesson.topic) && meta.contains(lessonLevelName(lesson.level)) &&
                 meta.contains(lessonKindName(lesson.kind)),
             qPrintable(meta));
    // The Markdown is rendered: the headings are there without their "##".
    const QString shown = part<QTextBrowser>(&w.window, "lessonText")->toPlainText();
    for (const QString& heading : Lesson::requiredHeadings())
        QVERIFY2(shown.contains(heading), qPrintable(heading));
    QVERIFY(!shown.contains(QStringLiteral("## ")));

    QSignalSpy shownCompile(w.window.workbench(), &Workbench::compileShown);
    w.window.compile();
    QVERIFY(shownCompile.wait(kCompileTimeoutMs) || shownCompile.count() > 0);
    const std::optional<CompileResult>& compile = w.window.workbench()->lastCompile();
    QVERIFY(compile);
    QVERIFY2(compile->ok, qPrintable(compile->log + compile->error));
}

void TestLessonPane::paneIsHiddenForOrdinaryProjects() {
    Window w;
    QVERIFY(w.dock()->isHidden()); // the untitled project a window starts with
    QVERIFY(!w.dock()->toggleViewAction()->isEnabled());
    QVERIFY(w.window.openProject(loadLesson("01-thread-indices").projectPath()));
    QVERIFY(!w.dock()->isHidden());
    QVERIFY(w.window.openProject(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")));
    QVERIFY(w.dock()->isHidden());
    QVERIFY(!w.dock()->toggleViewAction()->isEnabled());
    w.window.resetLayout(); // shows every dock but this one
    QVERIFY(w.dock()->isHidden());
    // Back to a lesson: shown again, with that lesson's text.
    QVERIFY(w.window.openProject(loadLesson("03-image-2d").projectPath()));
    QCoreApplication::processEvents();
    QVERIFY(!w.dock()->isHidden());
    QCOMPARE(w.pane()->lesson().title, loadLesson("03-image-2d").title);
}

void TestLessonPane::lessonForProjectNeedsALessonFile() {
    QVERIFY(lessonForProject(loadLesson("02-saxpy-grid-stride").projectPath()));
    QVERIFY(!lessonForProject(QString()));
    QVERIFY(!lessonForProject(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")));
    // A lesson.kpad whose folder is not a lesson (no lesson.md) is an ordinary project.
    QTemporaryDir dir;
    QVERIFY(QFile::copy(loadLesson("02-saxpy-grid-stride").projectPath(),
                        dir.filePath(QStringLiteral("lesson.kpad"))));
    QVERIFY(!lessonForProject(dir.filePath(QStringLiteral("lesson.kpad"))));
}

void TestLessonPane::nextLessonFollowsTheCourse() {
    const QVector<Lesson> lessons = listLessons(lessonsDir());
    QCOMPARE(nextLessonDirectory(lessons, lessons.at(0)), lessons.at(1).directory);
    QCOMPARE(nextLessonDirectory(lessons, lessons.constLast()), QString());
}

void TestLessonPane::hintsOpenOneAtATime() {
    const Lesson lesson = loadLesson("04-coalescing");
    QVERIFY(lesson.hints.size() >= 2);
    const int total = int(lesson.hints.size());
    Window w;
    QVERIFY(w.window.openProject(lesson.projectPath()));
    auto* button = part<QPushButton>(&w.window, "lessonHintButton");
    QCOMPARE(button->text(), QStringLiteral("Show hint 1 of %1").arg(total));
    QVERIFY(!part<QLabel>(&w.window, "lessonHint1"));
    button->click();
    QCOMPARE(w.pane()->hintsShown(), 1);
    QVERIFY(part<QLabel>(&w.window, "lessonHint1")->text().contains(lesson.hints.at(0)));
    QVERIFY(!part<QLabel>(&w.window, "lessonHint2"));
    QCOMPARE(button->text(), QStringLiteral("Show hint 2 of %1").arg(total));

    // Another lesson starts with none; coming back, the revealed hint is still there.
    QVERIFY(w.window.openProject(loadLesson("05-shared-memory-transpose").projectPath()));
    QCOMPARE(w.pane()->hintsShown(), 0);
    QVERIFY(!part<QLabel>(&w.window, "lessonHint1"));
    QVERIFY(w.window.openProject(lesson.projectPath()));
    QCOMPARE(w.pane()->hintsShown(), 1);
    QVERIFY(part<QLabel>(&w.window, "lessonHint1"));

    for (int i = 1; i < total; ++i)
        button->click();
    QCOMPARE(w.pane()->hintsShown(), total);
    QVERIFY(!button->isEnabled());
    QVERIFY(!w.pane()->showNextHint());
    QCOMPARE(w.pane()->hintsShown(), total);
}

void TestLessonPane::solutionDiffNamesTheChangedLines() {
    const Lesson lesson = loadLesson("04-coalescing");
    Window w;
    QVERIFY(w.window.openProject(lesson.projectPath()));
    part<QPushButton>(&w.window, "lessonDiffButton")->click();
    QVERIFY(w.pane()->solutionDiffShown());
    const QString diff = w.pane()->diffText();
    QVERIFY2(diff.contains(QStringLiteral("-     const int row = t % rows;")), qPrintable(diff));
    QVERIFY2(diff.contains(QStringLiteral("+     const int row = t / cols;")), qPrintable(diff));
    // Lines both share are context, not changes.
    QVERIFY(diff.contains(QStringLiteral("  extern \"C\" __global__ void copy_matrix")));
    QVERIFY(!diff.contains(QStringLiteral("- extern \"C\"")));
    QVERIFY2(w.pane()->diffSummary().contains(QStringLiteral("changed")),
             qPrintable(w.pane()->diffSummary()));

    // The diff follows the student's edits while shown.
    w.editor()->selectAll();
    w.editor()->replaceSelectedText(lesson.solutionSource);
    QCOMPARE(w.pane()->diffSummary(), QStringLiteral("Your source is the solution."));
    part<QPushButton>(&w.window, "lessonDiffButton")->click();
    QVERIFY(!w.pane()->solutionDiffShown());
}

void TestLessonPane::usingTheSolutionIsOneUndoableEdit() {
    const Lesson lesson = loadLesson("02-saxpy-grid-stride");
    Window w;
    QVERIFY(w.window.openProject(lesson.projectPath()));
    CodeEditor* editor = w.editor();
    editor->setCursorPosition(0, 0);
    editor->insert(QStringLiteral("// my attempt\n"));
    const QString mine = editor->text();
    QVERIFY(mine.startsWith(QStringLiteral("// my attempt")));
    QCOMPARE(w.window.document()->project().source, mine);

    part<QPushButton>(&w.window, "lessonUseSolution")->click();
    QCOMPARE(editor->text(), lesson.solutionSource);
    QCOMPARE(w.window.document()->project().source, lesson.solutionSource);

    editor->undo();
    QCOMPARE(editor->text(), mine);
    QCOMPARE(w.window.document()->project().source, mine);
    editor->redo();
    QCOMPARE(editor->text(), lesson.solutionSource);
}

void TestLessonPane::correctnessLessonIsJudgedByVerification() {
    const Lesson lesson = loadLesson("02-saxpy-grid-stride");
    const QString id = LessonProgress::lessonId(lesson);
    LessonProgress progress;
    LessonExercise exercise(&progress);
    exercise.setLesson(lesson);
    QSignalSpy judged(&exercise, &LessonExercise::judged);

    exercise.runFinished(syntheticRun(0.5, 63), lesson.project);
    QCOMPARE(judged.count(), 1);
    auto verdict = judged.takeFirst().at(0).value<LessonVerdict>();
    QCOMPARE(int(verdict.state), int(LessonVerdict::State::Failed));
    QVERIFY2(verdict.failure.contains(QStringLiteral("out: 63 of 1000 elements")),
             qPrintable(verdict.failure));
    QVERIFY(!progress.isDone(id));

    // A sanitizer run says nothing about the exercise.
    RunResult sanitized = syntheticRun(0.5);
    sanitized.sanitizerTool = SanitizerTool::Memcheck;
    exercise.runFinished(sanitized, lesson.solutionProject());
    QCOMPARE(judged.count(), 0);

    // Right at its own size: the lesson's other sizes are run before it is complete.
    QSignalSpy tests(&exercise, &LessonExercise::testsNeeded);
    exercise.runFinished(syntheticRun(0.5), lesson.solutionProject());
    QCOMPARE(judged.count(), 0);
    QCOMPARE(tests.count(), 1);
    const auto tested = tests.takeFirst().at(0).value<Project>();
    QCOMPARE(tested.source, lesson.solutionSource);
    QVERIFY(tested.tests == lesson.project.tests);
    QVERIFY(exercise.waitingForTests());
    exercise.testsFinished(casesReport(true));
    QCOMPARE(judged.count(), 1);
    verdict = judged.takeFirst().at(0).value<LessonVerdict>();
    QCOMPARE(int(verdict.state), int(LessonVerdict::State::Complete));
    QVERIFY(progress.isDone(id));
    QVERIFY2(progress.completion(id)->summary.contains(QStringLiteral("verified")) &&
                 progress.completion(id)->summary.contains(QStringLiteral("of its tests")),
             qPrintable(progress.completion(id)->summary));
}

void TestLessonPane::failingSizeNamesTheCase() {
    const Lesson lesson = loadLesson("01-thread-indices");
    const QString id = LessonProgress::lessonId(lesson);
    LessonProgress progress;
    LessonExercise exercise(&progress);
    exercise.setLesson(lesson);
    QSignalSpy judged(&exercise, &LessonExercise::judged);
    QSignalSpy tests(&exercise, &LessonExercise::testsNeeded);

    exercise.runFinished(syntheticRun(0.5), lesson.solutionProject());
    QCOMPARE(tests.count(), 1);
    // A cancelled test run (a newer run replaced it) decides nothing.
    TestReport cancelled;
    cancelled.status = RunStatus::Cancelled;
    exercise.testsFinished(cancelled);
    QCOMPARE(judged.count(), 0);
    QVERIFY(exercise.waitingForTests());

    exercise.testsFinished(casesReport(false));
    QCOMPARE(judged.count(), 1);
    const auto verdict = judged.takeFirst().at(0).value<LessonVerdict>();
    QCOMPARE(int(verdict.state), int(LessonVerdict::State::Failed));
    QVERIFY2(verdict.failure.contains(QStringLiteral("n = 33: element 32 never written")),
             qPrintable(verdict.failure));
    QVERIFY(!progress.isDone(id));
    QVERIFY(!exercise.waitingForTests());
    // A report with nothing waiting for it is not a second verdict.
    exercise.testsFinished(casesReport(true));
    QCOMPARE(judged.count(), 0);

    // The pane shows it as it shows any failure.
    LessonPane pane;
    pane.setLesson(lesson);
    pane.showVerdict(verdict);
    QVERIFY2(pane.resultText().startsWith(QStringLiteral("Not yet: Right at its own size, but "
                                                         "not at every size: n = 33: element 32 "
                                                         "never written")),
             qPrintable(pane.resultText()));
}

void TestLessonPane::speedLessonNeedsTheRequiredSpeedup() {
    const Lesson lesson = loadLesson("04-coalescing");
    QCOMPARE(lesson.kind, LessonKind::Speed);
    const QString id = LessonProgress::lessonId(lesson);
    LessonProgress progress;
    LessonExercise exercise(&progress);
    exercise.setLesson(lesson);
    QSignalSpy judged(&exercise, &LessonExercise::judged);
    QSignalSpy baseline(&exercise, &LessonExercise::baselineNeeded);

    // The starter itself: verified, its time becomes the baseline, and it is not fast enough.
    exercise.runFinished(syntheticRun(2.0), lesson.project);
    QCOMPARE(baseline.count(), 0);
    QCOMPARE(exercise.starterMedianMs(QStringLiteral("Test GPU")), std::optional<double>(2.0));
    QCOMPARE(judged.count(), 1);
    auto verdict = judged.takeFirst().at(0).value<LessonVerdict>();
    QCOMPARE(int(verdict.state), int(LessonVerdict::State::Failed));
    QVERIFY2(verdict.failure.contains(QStringLiteral("1× faster than the starter, 1.5× needed")),
             qPrintable(verdict.failure));

    // Faster but not enough: 2.0 / 1.6 = 1.25.
    exercise.runFinished(syntheticRun(1.6), lesson.solutionProject());
    verdict = judged.takeFirst().at(0).value<LessonVerdict>();
    QCOMPARE(int(verdict.state), int(LessonVerdict::State::Failed));
    QVERIFY2(verdict.failure.contains(QStringLiteral("1.3× faster than the starter, 1.5× needed")),
             qPrintable(verdict.failure));
    QVERIFY(!progress.isDone(id));

    // Fast but wrong is not complete either.
    exercise.runFinished(syntheticRun(0.5, 7), lesson.solutionProject());
    verdict = judged.takeFirst().at(0).value<LessonVerdict>();
    QCOMPARE(int(verdict.state), int(LessonVerdict::State::Failed));
    QVERIFY(!progress.isDone(id));

    exercise.runFinished(syntheticRun(0.5), lesson.solutionProject());
    QVERIFY(exercise.waitingForTests());
    exercise.testsFinished(casesReport(true));
    verdict = judged.takeFirst().at(0).value<LessonVerdict>();
    QCOMPARE(int(verdict.state), int(LessonVerdict::State::Complete));
    QVERIFY(verdict.speedup && qFuzzyCompare(*verdict.speedup, 4.0));
    QVERIFY(progress.isDone(id));
    QVERIFY2(
        progress.completion(id)->summary.contains(QStringLiteral("4× faster than the starter")),
        qPrintable(progress.completion(id)->summary));
    QCOMPARE(baseline.count(), 0);
}

void TestLessonPane::speedLessonTimesTheStarterWhenItHasNoBaseline() {
    const Lesson lesson = loadLesson("04-coalescing");
    const QString id = LessonProgress::lessonId(lesson);
    LessonProgress progress;
    LessonExercise exercise(&progress);
    exercise.setLesson(lesson);
    QSignalSpy judged(&exercise, &LessonExercise::judged);
    QSignalSpy baseline(&exercise, &LessonExercise::baselineNeeded);

    exercise.runFinished(syntheticRun(1.0), lesson.solutionProject());
    QCOMPARE(judged.count(), 0);
    QCOMPARE(baseline.count(), 1);
    QCOMPARE(baseline.first().at(0).value<Project>().source, lesson.project.source);
    QVERIFY(exercise.waitingForBaseline());
    // Another run while the starter is timed takes the waiting one's place; the starter is
    // not timed twice.
    exercise.runFinished(syntheticRun(1.0), lesson.solutionProject());
    QCOMPARE(baseline.count(), 1);
    QCOMPARE(judged.count(), 0);
    exercise.baselineFinished(syntheticRun(1.2));
    QCOMPARE(judged.count(), 1);
    auto verdict = judged.takeFirst().at(0).value<LessonVerdict>();
    QVERIFY2(verdict.failure.contains(QStringLiteral("1.2× faster than the starter, 1.5× needed")),
             qPrintable(verdict.failure));
    QVERIFY(!progress.isDone(id));

    // The baseline is kept: the next run is judged at once (then at the other sizes).
    exercise.runFinished(syntheticRun(0.6), lesson.solutionProject());
    QCOMPARE(baseline.count(), 1);
    QVERIFY(exercise.waitingForTests());
    exercise.testsFinished(casesReport(true));
    verdict = judged.takeFirst().at(0).value<LessonVerdict>();
    QCOMPARE(int(verdict.state), int(LessonVerdict::State::Complete));
    QVERIFY(progress.isDone(id));

    // A starter that cannot be timed says so, and completes nothing.
    progress.reset(id);
    LessonExercise fresh(&progress);
    fresh.setLesson(lesson);
    QSignalSpy freshJudged(&fresh, &LessonExercise::judged);
    fresh.runFinished(syntheticRun(0.6), lesson.solutionProject());
    RunResult failed;
    failed.status = RunStatus::CudaError;
    failed.error = QStringLiteral("out of memory");
    fresh.baselineFinished(failed);
    QCOMPARE(freshJudged.count(), 1);
    verdict = freshJudged.takeFirst().at(0).value<LessonVerdict>();
    QCOMPARE(int(verdict.state), int(LessonVerdict::State::Failed));
    QVERIFY2(verdict.failure.contains(QStringLiteral("out of memory")),
             qPrintable(verdict.failure));
    QVERIFY(!progress.isDone(id));
}

void TestLessonPane::completionInTheWindowOffersTheNextLesson() {
    const Lesson lesson = loadLesson("02-saxpy-grid-stride");
    // The window opens the student's copy, which outlives a test run: a fresh one has the
    // shipped lesson's tests section.
    QString error;
    QVERIFY2(restoreLessonCopy(lesson.directory, &error), qPrintable(error));
    Window w;
    QVERIFY(w.window.openProject(lesson.projectPath()));
    auto* exercise = part<LessonExercise>(&w.window, "lessonExercise");
    QVERIFY(exercise);
    exercise->runFinished(syntheticRun(0.5, 10), lesson.project);
    QVERIFY2(w.pane()->resultText().startsWith(QStringLiteral("Not yet: Verification failed")),
             qPrintable(w.pane()->resultText()));
    QVERIFY(part<QPushButton>(&w.window, "lessonNext")->isHidden());

    exercise->runFinished(syntheticRun(0.5), lesson.solutionProject());
    QVERIFY2(w.pane()->resultText().startsWith(QStringLiteral("Verified at its own size. "
                                                              "Checking the other sizes")),
             qPrintable(w.pane()->resultText()));
    // The window's own test run has no GPU here; the report stands for the one a GPU gives.
    exercise->testsFinished(casesReport(true));
    QVERIFY2(w.pane()->resultText().startsWith(QStringLiteral("Lesson complete: ")),
             qPrintable(w.pane()->resultText()));
    QVERIFY(LessonProgress().isDone(QStringLiteral("02-saxpy-grid-stride")));
    auto* next = part<QPushButton>(&w.window, "lessonNext");
    QVERIFY(!next->isHidden());
    QSignalSpy requested(&w.window, &MainWindow::nextLessonRequested);
    next->click();
    QCOMPARE(requested.count(), 1);
    QCOMPARE(QFileInfo(requested.first().at(0).toString()).fileName(),
             QStringLiteral("03-image-2d"));
}

void TestLessonPane::recordedFiguresAreLabelled() {
    Lesson lesson = loadLesson("04-coalescing");
    LessonPane pane;
    lesson.recorded.reset();
    pane.setLesson(lesson);
    QCOMPARE(pane.recordedText(), QString()); // nothing recorded, a GPU: nothing said
    pane.setDeviceAvailable(false);
    QVERIFY(pane.recordedText().contains(QStringLiteral("compile")));
    QVERIFY(!pane.recordedText().contains(QStringLiteral("figures")));

    LessonRecord record;
    record.device = QStringLiteral("NVIDIA H100 80GB HBM3");
    record.date = QStringLiteral("2026-11-24");
    record.solution.medianMs = 0.0653;
    record.speedup = 6.2;
    lesson.recorded = record;
    pane.setLesson(lesson);
    const QString text = pane.recordedText();
    QVERIFY2(text.startsWith(QStringLiteral("Recorded on NVIDIA H100 80GB HBM3, 2026-11-24: "
                                            "solution ")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("(6.2× the starter)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("No CUDA GPU here")) &&
                 text.contains(QStringLiteral("measured on NVIDIA H100 80GB HBM3")),
             qPrintable(text));
    pane.setDeviceAvailable(true);
    QVERIFY(!pane.recordedText().contains(QStringLiteral("No CUDA GPU")));

    // The window says there is no GPU once the Engine has found none.
    Window w;
    QVERIFY(w.window.openProject(lesson.projectPath()));
    QTRY_VERIFY_WITH_TIMEOUT(w.window.workbench()->devicesKnown(), kCompileTimeoutMs);
    if (w.window.workbench()->driverError().isEmpty() && w.window.workbench()->currentDevice())
        QSKIP("a CUDA device is present; the no-GPU note is not shown");
    QVERIFY(w.pane()->recordedText().contains(QStringLiteral("No CUDA GPU here")));
}

KERNELPAD_TEST_MAIN(TestLessonPane)
} // namespace tst_lessonpane
#include "tst_lessonpane.moc"
