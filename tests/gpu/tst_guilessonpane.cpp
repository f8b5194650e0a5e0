// Exercise mode on a real GPU: lesson 02 (correctness) is not complete after the starter's
// run and is complete, and recorded in the progress, after the solution is pasted into the
// editor and run; lesson 04 (speed) completes with the solution, the starter timed on the same
// device in the background as the baseline, and the pane shows the measured speedup.
// gpu-labelled; without a driver every test skips.

#include "GpuTestSupport.h"
#include "GuiTestSupport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/project/Lesson.h"
#include "ui/LessonProgress.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/LessonPane.h"
#include "ui/windows/MainWindow.h"

#include <QCoreApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

namespace tst_guilessonpane {

using namespace kernelpad;

namespace {

constexpr int kDevicesTimeoutMs = 60000;
constexpr int kRunTimeoutMs = 180000;

/// The lessons folder: $KERNELPAD_LESSONS (set on the GPU machine, where the tree lives
/// elsewhere), else the source tree's.
QString lessonsDir() {
    return qEnvironmentVariable("KERNELPAD_LESSONS", QStringLiteral(KERNELPAD_LESSONS_DIR));
}

Lesson loadLesson(const QString& folder) {
    QString error;
    std::optional<Lesson> lesson = Lesson::load(lessonsDir() + QLatin1Char('/') + folder, &error);
    if (!lesson)
        qFatal("cannot load lesson %s: %s", qPrintable(folder), qPrintable(error));
    return *lesson;
}

void paste(MainWindow& window, const QString& source) {
    auto* editor = window.findChild<CodeEditor*>();
    editor->selectAll();
    editor->replaceSelectedText(source);
}

} // namespace

class TestGuiLessonPane : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void correctnessLessonCompletesWithTheSolution();
    void speedLessonCompletesWithTheMeasuredSpeedup();
};

void TestGuiLessonPane::initTestCase() {
    KERNELPAD_REQUIRE_DRIVER();
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("KernelPadTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_guilessonpane"));
    QSettings().clear();
    qputenv("KERNELPAD_LESSONS", lessonsDir().toUtf8());
}

void TestGuiLessonPane::correctnessLessonCompletesWithTheSolution() {
    const Lesson lesson = loadLesson(QStringLiteral("02-saxpy-grid-stride"));
    const QString id = LessonProgress::lessonId(lesson);
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    QVERIFY2(window.openProject(lesson.projectPath()), qPrintable(window.lastError()));
    QVERIFY(QTest::qWaitFor([&] { return window.workbench()->devicesKnown(); }, kDevicesTimeoutMs));
    auto* pane = window.findChild<LessonPane*>(QStringLiteral("lessonPane"));
    QVERIFY(pane);

    const RunRecord* starter = test::runInWindowAndWait(window, kRunTimeoutMs);
    QVERIFY(starter);
    QCOMPARE(starter->result.status, RunStatus::VerificationFailed);
    QVERIFY2(pane->resultText().startsWith(QStringLiteral("Not yet: Verification failed")),
             qPrintable(pane->resultText()));
    QVERIFY(!LessonProgress().isDone(id));
    qInfo().noquote() << "starter:" << pane->resultText();

    paste(window, lesson.solutionSource);
    QCOMPARE(window.document()->project().source, lesson.solutionSource);
    const RunRecord* solution = test::runInWindowAndWait(window, kRunTimeoutMs);
    QVERIFY(solution);
    QVERIFY2(solution->result.status == RunStatus::Ok, qPrintable(solution->result.error));
    // Right at its own size, the lesson's other sizes run next ("Checking the other sizes…");
    // the verdict follows them.
    QVERIFY(QTest::qWaitFor(
        [&] { return !pane->resultText().contains(QStringLiteral("Checking the other sizes")); },
        kRunTimeoutMs));
    QVERIFY2(pane->resultText().startsWith(QStringLiteral("Lesson complete: ")),
             qPrintable(pane->resultText()));
    QVERIFY(LessonProgress().isDone(id));
    qInfo().noquote() << "solution:" << pane->resultText();
}

void TestGuiLessonPane::speedLessonCompletesWithTheMeasuredSpeedup() {
    const Lesson lesson = loadLesson(QStringLiteral("04-coalescing"));
    QCOMPARE(lesson.kind, LessonKind::Speed);
    const QString id = LessonProgress::lessonId(lesson);
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    QVERIFY2(window.openProject(lesson.projectPath()), qPrintable(window.lastError()));
    QVERIFY(QTest::qWaitFor([&] { return window.workbench()->devicesKnown(); }, kDevicesTimeoutMs));
    auto* pane = window.findChild<LessonPane*>(QStringLiteral("lessonPane"));

    paste(window, lesson.solutionSource);
    const RunRecord* solution = test::runInWindowAndWait(window, kRunTimeoutMs);
    QVERIFY(solution);
    QVERIFY2(solution->result.status == RunStatus::Ok, qPrintable(solution->result.error));
    // The starter is timed next, in the background; the verdict follows its run.
    QVERIFY(QTest::qWaitFor(
        [&] {
            return pane->resultText().startsWith(QStringLiteral("Lesson complete")) ||
                   pane->resultText().startsWith(QStringLiteral("Not yet"));
        },
        kRunTimeoutMs));
    qInfo().noquote() << "solution:" << pane->resultText();
    QVERIFY2(pane->resultText().startsWith(QStringLiteral("Lesson complete: ")),
             qPrintable(pane->resultText()));
    QVERIFY2(pane->resultText().contains(QStringLiteral("faster than the starter")),
             qPrintable(pane->resultText()));
    QVERIFY2(pane->resultText().contains(QStringLiteral("GB/s")), qPrintable(pane->resultText()));
    QVERIFY(LessonProgress().isDone(id));
    QVERIFY(LessonProgress().completion(id)->summary.contains(QStringLiteral("×")));
    // The workbench's history holds the student's run only: the baseline is not one of theirs.
    QCOMPARE(window.workbench()->history().size(), 1);

    // The starter itself, pasted back, is judged against the kept baseline: not complete.
    paste(window, lesson.project.source);
    QVERIFY(test::runInWindowAndWait(window, kRunTimeoutMs));
    QVERIFY(QTest::qWaitFor(
        [&] { return pane->resultText().startsWith(QStringLiteral("Not yet")); }, kRunTimeoutMs));
    QVERIFY2(pane->resultText().contains(QStringLiteral("1.5× needed")),
             qPrintable(pane->resultText()));
    qInfo().noquote() << "starter:" << pane->resultText();
}

KERNELPAD_TEST_MAIN(TestGuiLessonPane)
} // namespace tst_guilessonpane
#include "tst_guilessonpane.moc"
