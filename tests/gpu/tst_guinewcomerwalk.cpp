// A newcomer's first steps on a 1280x800 laptop, on a real GPU: the welcome page, lesson 1
// from its card, the starter run ("Not yet"), the solution pasted and run ("Lesson complete"),
// then "Next lesson" opens lesson 2. Each step keeps the window on the screen. With
// $KERNELPAD_WALK_SHOTS set to a folder, each step's picture is saved there (the docs' walk).
// gpu-labelled; without a driver every test skips.

#include "GpuTestSupport.h"
#include "GuiTestSupport.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include "core/project/Lesson.h"
#include "ui/LessonProgress.h"
#include "ui/Workbench.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/LessonPane.h"
#include "ui/widgets/WelcomeCard.h"
#include "ui/widgets/WelcomePage.h"
#include "ui/windows/MainWindow.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

namespace tst_guinewcomerwalk {

using namespace kernelpad;

namespace {

constexpr int kDevicesTimeoutMs = 60000;
constexpr int kRunTimeoutMs = 180000;
constexpr int kSettleMs = 500;
// A 1280x800 laptop less what its desktop keeps for a panel and the title bar.
const QSize kLaptopClient(1280, 760);

QString lessonsDir() {
    return qEnvironmentVariable("KERNELPAD_LESSONS", QStringLiteral(KERNELPAD_LESSONS_DIR));
}

/// The step's picture, when asked for; and the window still fits the laptop's screen.
void step(MainWindow& window, const QString& name) {
    QTest::qWait(kSettleMs);
    const QSize size = window.size();
    QVERIFY2(size.width() <= kLaptopClient.width() && size.height() <= kLaptopClient.height(),
             qPrintable(QStringLiteral("%1: the window grew to %2x%3")
                            .arg(name)
                            .arg(size.width())
                            .arg(size.height())));
    QVERIFY2(window.statusBar()->isVisible(), qPrintable(name));
    const QString folder = qEnvironmentVariable("KERNELPAD_WALK_SHOTS");
    if (folder.isEmpty())
        return;
    QDir().mkpath(folder);
    const QString file = QDir(folder).filePath(name + QStringLiteral(".png"));
    QVERIFY2(window.grab().save(file), qPrintable(file));
    qInfo().noquote() << "saved" << file;
}

} // namespace

class TestGuiNewcomerWalk : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void welcomeToTheNextLesson();
};

void TestGuiNewcomerWalk::initTestCase() {
    KERNELPAD_REQUIRE_DRIVER();
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("KernelPadTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_guinewcomerwalk"));
    QSettings().clear();
    qputenv("KERNELPAD_LESSONS", lessonsDir().toUtf8());
}

void TestGuiNewcomerWalk::welcomeToTheNextLesson() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.resize(kLaptopClient);
    window.show();
    QVERIFY(window.closeProject());
    QVERIFY(window.welcomeShown());
    step(window, QStringLiteral("1-welcome"));

    auto* page = window.findChild<WelcomePage*>(QStringLiteral("welcomePage"));
    QVERIFY(page);
    const QVector<WelcomeCardButton*> cards = page->cards(QStringLiteral("lessons"));
    QVERIFY(!cards.isEmpty());
    QCOMPARE(QFileInfo(cards.first()->card().path).fileName(), QStringLiteral("01-thread-indices"));
    cards.first()->click();
    QTRY_VERIFY(window.openLessonDirectory().endsWith(QStringLiteral("01-thread-indices")));
    QVERIFY(QTest::qWaitFor([&] { return window.workbench()->devicesKnown(); }, kDevicesTimeoutMs));
    auto* pane = window.findChild<LessonPane*>(QStringLiteral("lessonPane"));
    QVERIFY(pane);

    const RunRecord* starter = test::runInWindowAndWait(window, kRunTimeoutMs);
    QVERIFY(starter);
    QVERIFY2(pane->resultText().startsWith(QStringLiteral("Not yet")),
             qPrintable(pane->resultText()));
    step(window, QStringLiteral("2-lesson1-starter"));

    QString error;
    const std::optional<Lesson> lesson = Lesson::load(window.openLessonDirectory(), &error);
    QVERIFY2(lesson, qPrintable(error));
    auto* editor = window.findChild<CodeEditor*>();
    editor->selectAll();
    editor->replaceSelectedText(lesson->solutionSource);
    const RunRecord* solved = test::runInWindowAndWait(window, kRunTimeoutMs);
    QVERIFY(solved);
    // Right at its own size, the lesson's other sizes run next ("Checking the other sizes…");
    // the verdict follows them.
    QVERIFY(QTest::qWaitFor(
        [&] { return !pane->resultText().contains(QStringLiteral("Checking the other sizes")); },
        kRunTimeoutMs));
    QVERIFY2(pane->resultText().startsWith(QStringLiteral("Lesson complete")),
             qPrintable(pane->resultText()));
    qInfo().noquote() << "lesson 1:" << pane->resultText();
    auto* next = pane->findChild<QPushButton*>(QStringLiteral("lessonNext"));
    QVERIFY(next);
    QVERIFY(next->isVisibleTo(&window));
    step(window, QStringLiteral("3-lesson1-solved"));

    next->click();
    QTRY_VERIFY(window.openLessonDirectory().endsWith(QStringLiteral("02-saxpy-grid-stride")));
    auto* nextPane = window.findChild<LessonPane*>(QStringLiteral("lessonPane"));
    QVERIFY(nextPane);
    step(window, QStringLiteral("4-lesson2"));
}

KERNELPAD_TEST_MAIN(TestGuiNewcomerWalk)
} // namespace tst_guinewcomerwalk
#include "tst_guinewcomerwalk.moc"
