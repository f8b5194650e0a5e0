// The lessons on the welcome page and in Help ▸ Lessons: one card per lesson with its level,
// topic and kind, the done mark following LessonProgress, the recorded figure, problems shown;
// a card opens the student's writable copy, which keeps its "lesson" section and its edits
// through saving and reopening until Start Over restores it; and the newcomer's path from a
// window started with no arguments to the first lesson.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/project/Lesson.h"
#include "core/project/LessonWorkspace.h"
#include "ui/LessonProgress.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/widgets/WelcomePage.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_welcomelessons {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

const QString kLessons = QStringLiteral("lessons");

/// A window as `kernelpad` with no arguments starts it (app/gui/main.cpp): Close Project
/// shows the welcome page with nothing behind it.
std::unique_ptr<MainWindow> startWindow(Engine* engine) {
    auto window = std::make_unique<MainWindow>(engine);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    window->resize(1280, 800);
    window->show();
    QApplication::setActiveWindow(window.get());
    if (!QTest::qWaitForWindowActive(window.get()) || !window->closeProject())
        return nullptr;
    return window;
}

WelcomePage* page(const std::unique_ptr<MainWindow>& window) {
    return part<WelcomePage>(window, "welcomePage");
}

WelcomeCardButton* lessonCard(const std::unique_ptr<MainWindow>& window, const QString& id) {
    for (WelcomeCardButton* card : page(window)->cards(kLessons))
        if (QFileInfo(card->card().path).fileName() == id)
            return card;
    return nullptr;
}

QVector<QAction*> lessonEntries(const std::unique_ptr<MainWindow>& window) {
    QVector<QAction*> entries;
    for (QAction* action : part<QMenu>(window, "lessonsMenu")->actions())
        if (!action->data().toString().isEmpty())
            entries.append(action);
    return entries;
}

QJsonObject lessonSection(const QString& kpadPath) {
    QFile file(kpadPath);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll())
        .object()
        .value(QStringLiteral("lesson"))
        .toObject();
}

QString shipped(const QString& id) {
    return QDir(QStringLiteral(KERNELPAD_LESSONS_DIR)).filePath(id);
}

bool copyFolder(const QString& from, const QString& to) {
    if (!QDir().mkpath(to))
        return false;
    for (const QString& name : QDir(from).entryList(QDir::Files))
        if (!QFile::copy(from + QLatin1Char('/') + name, to + QLatin1Char('/') + name))
            return false;
    return true;
}

} // namespace

class TestWelcomeLessons : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        qputenv("KERNELPAD_LESSONS", KERNELPAD_LESSONS_DIR);
        qputenv("KERNELPAD_TEMPLATES", KERNELPAD_SOURCE_DIR "/resources/templates");
        qputenv("KERNELPAD_EXAMPLES", KERNELPAD_EXAMPLES_DIR);
        m_lessons = listLessons(QStringLiteral(KERNELPAD_LESSONS_DIR));
        // Every lesson folder shipped loads.
        const int folders = int(QDir(QStringLiteral(KERNELPAD_LESSONS_DIR))
                                    .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                                    .size());
        QVERIFY(folders >= 15);
        QCOMPARE(m_lessons.size(), folders);
    }
    void init() {
        RecentFiles().clear();
        LessonProgress().resetAll();
        QDir(ProjectDocument::recoveryDirectory()).removeRecursively();
        QDir(lessonWorkspaceDirectory()).removeRecursively();
        qputenv("KERNELPAD_LESSONS", KERNELPAD_LESSONS_DIR);
    }
    void cleanupTestCase() { QDir(lessonWorkspaceDirectory()).removeRecursively(); }

    void sectionShowsOneCardPerLesson() {
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        const QVector<WelcomeCardButton*> cards = page(window)->cards(kLessons);
        QCOMPARE(cards.size(), m_lessons.size());
        // In course order, so grouped by topic with the topics in course order.
        for (int i = 0; i < m_lessons.size(); ++i) {
            const Lesson& lesson = m_lessons.at(i);
            const WelcomeCard& card = cards.at(i)->card();
            QCOMPARE(card.path, lesson.directory);
            QVERIFY2(card.title.contains(lesson.title), qPrintable(card.title));
            QCOMPARE(card.topic, lesson.topic);
            QCOMPARE(card.level, lessonLevelName(lesson.level));
            QVERIFY2(card.subtitle.startsWith(lesson.kind == LessonKind::Speed
                                                  ? QStringLiteral("Speed")
                                                  : QStringLiteral("Correctness")),
                     qPrintable(card.subtitle));
            QVERIFY(!card.subtitle.contains(QStringLiteral("done")));
            QVERIFY(!card.unusable());
        }
        QCOMPARE(cards.at(3)->card().level, QStringLiteral("intermediate"));
        QCOMPARE(cards.at(3)->card().topic, QStringLiteral("Memory coalescing"));
    }

    void levelFilterShowsOneLevel() {
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        auto* filter = part<QComboBox>(window, "lessonLevelFilter");
        QVERIFY(filter);
        filter->setCurrentIndex(filter->findText(QStringLiteral("advanced")));
        const QVector<WelcomeCardButton*> cards = page(window)->cards(kLessons);
        const auto advanced =
            std::count_if(m_lessons.cbegin(), m_lessons.cend(),
                          [](const Lesson& l) { return l.level == LessonLevel::Advanced; });
        QVERIFY(advanced > 0);
        QCOMPARE(cards.size(), int(advanced));
        for (const WelcomeCardButton* card : cards)
            QCOMPARE(card->card().level, QStringLiteral("advanced"));
        filter->setCurrentIndex(0);
        QCOMPARE(page(window)->cards(kLessons).size(), m_lessons.size());
    }

    void doneMarkFollowsProgress() {
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        const QString id = QStringLiteral("03-image-2d");
        LessonProgress().markDone(id, QStringLiteral("0.01 ms"));
        QVERIFY2(lessonCard(window, id)->card().subtitle.contains(QStringLiteral("✓ done")),
                 qPrintable(lessonCard(window, id)->card().subtitle));
        const QString today = QLocale().toString(QDate::currentDate(), QLocale::ShortFormat);
        QVERIFY(lessonCard(window, id)->card().subtitle.contains(today));
        QVERIFY(!lessonCard(window, QStringLiteral("02-saxpy-grid-stride"))
                     ->card()
                     .subtitle.contains(QStringLiteral("done")));
        LessonProgress().reset(id);
        QVERIFY(!lessonCard(window, id)->card().subtitle.contains(QStringLiteral("done")));
    }

    void recordedFigureAndProblemsAreShown() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // A measured lesson, and one whose level is misspelt.
        const QString measured = dir.filePath(QStringLiteral("04-coalescing"));
        QVERIFY(copyFolder(shipped(QStringLiteral("04-coalescing")), measured));
        QJsonObject json =
            QJsonDocument::fromJson([&] {
                QFile file(measured + QStringLiteral("/lesson.kpad"));
                return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
            }())
                .object();
        QJsonObject section = json.value(QStringLiteral("lesson")).toObject();
        section.insert(
            QStringLiteral("recorded"),
            QJsonObject{
                {QStringLiteral("device"), QStringLiteral("NVIDIA H100 80GB HBM3")},
                {QStringLiteral("date"), QStringLiteral("2026-11-24")},
                {QStringLiteral("solution"), QJsonObject{{QStringLiteral("medianMs"), 0.0653}}},
                {QStringLiteral("speedup"), 6.2}});
        json.insert(QStringLiteral("lesson"), section);
        const auto write = [](const QString& path, const QJsonObject& object) {
            QFile file(path);
            return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
                   file.write(QJsonDocument(object).toJson()) > 0;
        };
        QVERIFY(write(measured + QStringLiteral("/lesson.kpad"), json));
        const QString broken = dir.filePath(QStringLiteral("05-broken"));
        QVERIFY(copyFolder(shipped(QStringLiteral("01-thread-indices")), broken));
        section.insert(QStringLiteral("level"), QStringLiteral("expert"));
        section.insert(QStringLiteral("order"), 5);
        section.remove(QStringLiteral("requiredSpeedup"));
        json.insert(QStringLiteral("lesson"), section);
        QVERIFY(write(broken + QStringLiteral("/lesson.kpad"), json));
        qputenv("KERNELPAD_LESSONS", dir.path().toUtf8());

        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        const QVector<WelcomeCardButton*> cards = page(window)->cards(kLessons);
        QCOMPARE(cards.size(), 2);
        QVERIFY2(cards.at(0)->card().subtitle.endsWith(QStringLiteral("H100: 0.0653 ms, 6.2×")),
                 qPrintable(cards.at(0)->card().subtitle));
        QVERIFY(cards.at(1)->card().unusable());
        QVERIFY2(cards.at(1)->card().problem.contains(QStringLiteral("05-broken/lesson.kpad")) &&
                     cards.at(1)->card().problem.contains(QStringLiteral("lesson.level")),
                 qPrintable(cards.at(1)->card().problem));
    }

    void newcomerStartsOnTheLessons() {
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        QVERIFY(window->welcomeShown());
        QCOMPARE(page(window)->sectionOrder().value(0), kLessons);
        // The keyboard starts on the first lesson; Space opens it.
        WelcomeCardButton* first = page(window)->cards(kLessons).value(0);
        QVERIFY(first);
        QCOMPARE(first->card().path, m_lessons.first().directory);
        QTRY_COMPARE(QApplication::focusWidget(), first);
        // Lessons first only while there are no recent projects: the page is then for them.
        QVERIFY(first->y() + first->mapTo(page(window)->widget(), QPoint()).y() <
                page(window)
                    ->cards(QStringLiteral("templates"))
                    .value(0)
                    ->mapTo(page(window)->widget(), QPoint())
                    .y());
        QTest::keyClick(first, Qt::Key_Space);

        QVERIFY(!window->welcomeShown());
        const QString copy = lessonWorkspaceDirectory() + QStringLiteral("/01-thread-indices");
        QCOMPARE(window->document()->path(), copy + QStringLiteral("/lesson.kpad"));
        QVERIFY(QFileInfo::exists(window->document()->path()));
        QVERIFY(!window->document()->path().startsWith(QStringLiteral(KERNELPAD_SOURCE_DIR)));
        QCOMPARE(window->document()->project().name, m_lessons.first().project.name);
        QVERIFY2(window->windowTitle().startsWith(m_lessons.first().title),
                 qPrintable(window->windowTitle()));
        QCOMPARE(window->openLessonDirectory(), m_lessons.first().directory);
        QVERIFY(part<QAction>(window, "startOverLessonAction")->isEnabled());
        QString error;
        QVERIFY2(Lesson::load(copy, &error), qPrintable(error));
        // Opening a lesson is not a recent project of the user's.
        QVERIFY(RecentFiles().allFiles().isEmpty());

        // Someone with recent projects sees them and the templates first.
        RecentFiles().add(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"));
        auto other = startWindow(&engine);
        QVERIFY(other);
        QCOMPARE(page(other)->sectionOrder().value(0), QStringLiteral("templates"));
    }

    void editsSurviveSavingAndReopeningUntilStartOver() {
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        const QString id = QStringLiteral("04-coalescing");
        lessonCard(window, id)->click();
        const QString kpad =
            lessonWorkspaceDirectory() + QLatin1Char('/') + id + QStringLiteral("/lesson.kpad");
        QCOMPARE(window->document()->path(), kpad);
        const QString pristine = window->document()->project().source;
        const QJsonObject section = lessonSection(shipped(id) + QStringLiteral("/lesson.kpad"));
        QVERIFY(!section.isEmpty());

        const QString edited = QStringLiteral("// my attempt\n") + pristine;
        window->document()->setSource(edited);
        QVERIFY(window->save());
        QCOMPARE(lessonSection(kpad), section);
        QString error;
        const std::optional<Lesson> saved = Lesson::load(QFileInfo(kpad).absolutePath(), &error);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(saved->project.source, edited);
        // The shipped lesson is untouched.
        QCOMPARE(Lesson::load(shipped(id), &error)->project.source, pristine);

        QVERIFY(window->closeProject());
        lessonCard(window, id)->click();
        QCOMPARE(window->document()->path(), kpad);
        QCOMPARE(window->document()->project().source, edited);

        // Start over from the card's menu: the copy and the open project are the lesson again.
        LessonProgress().markDone(id, {});
        window->document()->setSource(QStringLiteral("// unsaved\n") + edited);
        const WelcomeCard card = [&] {
            window->showWelcome();
            return lessonCard(window, id)->card();
        }();
        QCOMPARE(card.menu.size(), 1);
        card.menu.first().second();
        QCOMPARE(window->document()->project().source, pristine);
        QVERIFY(!window->document()->isDirty());
        QCOMPARE(Project::load(kpad, &error)->source, pristine);
        QVERIFY(!LessonProgress().isDone(id));

        // And from Help ▸ Lessons, with the lesson open.
        window->document()->setSource(edited);
        QVERIFY(window->save());
        QVERIFY(window->startOverLesson(window->openLessonDirectory()));
        QCOMPARE(window->document()->project().source, pristine);
    }

    void openingAsksAboutUnsavedWork() {
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        QVERIFY(window->openLesson(m_lessons.at(1).directory));
        window->document()->setSource(QStringLiteral("// unsaved\n"));
        window->setUnsavedChoice(MainWindow::UnsavedChoice::Cancel);
        QVERIFY(!window->openLesson(m_lessons.at(2).directory));
        QCOMPARE(window->openLessonDirectory(), m_lessons.at(1).directory);
        QCOMPARE(window->document()->project().source, QStringLiteral("// unsaved\n"));
        // Cancelled before anything was copied.
        QVERIFY(!QFileInfo::exists(lessonWorkspaceDirectory() + QLatin1Char('/') +
                                   QFileInfo(m_lessons.at(2).directory).fileName()));
        window->setUnsavedChoice(MainWindow::UnsavedChoice::Save);
        QVERIFY(window->openLesson(m_lessons.at(2).directory));
        QCOMPARE(window->openLessonDirectory(), m_lessons.at(2).directory);
        QString error;
        const std::optional<Lesson> saved =
            Lesson::load(lessonWorkspaceDirectory() + QLatin1Char('/') +
                             QFileInfo(m_lessons.at(1).directory).fileName(),
                         &error);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(saved->project.source, QStringLiteral("// unsaved\n"));
    }

    void helpLessonsListsEveryLessonWithItsMark() {
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        QVector<QAction*> entries = lessonEntries(window);
        QCOMPARE(entries.size(), m_lessons.size());
        for (int i = 0; i < entries.size(); ++i) {
            QCOMPARE(entries.at(i)->data().toString(), m_lessons.at(i).directory);
            QVERIFY(entries.at(i)->isCheckable());
            QVERIFY(!entries.at(i)->isChecked());
        }
        // Grouped by topic: a section heading per topic.
        QSet<QString> topics;
        for (const Lesson& lesson : m_lessons)
            topics.insert(lesson.topic);
        int headings = 0;
        for (QAction* action : part<QMenu>(window, "lessonsMenu")->actions())
            headings += action->isSeparator() && !action->text().isEmpty() ? 1 : 0;
        QCOMPARE(headings, topics.size());

        LessonProgress().markDone(QStringLiteral("05-shared-memory-transpose"), {});
        entries = lessonEntries(window);
        for (QAction* action : entries)
            QCOMPARE(action->isChecked(), action->data().toString().endsWith(
                                              QStringLiteral("05-shared-memory-transpose")));

        // Choosing one opens it; its mark stays what the progress says.
        entries.at(4)->trigger();
        QCOMPARE(window->openLessonDirectory(), m_lessons.at(4).directory);
        QVERIFY(lessonEntries(window).at(4)->isChecked());
        entries.at(1)->trigger();
        QCOMPARE(window->openLessonDirectory(), m_lessons.at(1).directory);
        QVERIFY(!lessonEntries(window).at(1)->isChecked());

        part<QAction>(window, "showLessonsAction")->trigger();
        QVERIFY(window->welcomeShown());
        QTRY_COMPARE(QApplication::focusWidget(), page(window)->cards(kLessons).value(0));

        part<QAction>(window, "resetLessonProgressAction")->trigger();
        QVERIFY(LessonProgress().doneIds().isEmpty());
        for (QAction* action : lessonEntries(window))
            QVERIFY(!action->isChecked());
    }

private:
    QVector<Lesson> m_lessons;
};

KERNELPAD_TEST_MAIN(TestWelcomeLessons)
} // namespace tst_welcomelessons
#include "tst_welcomelessons.moc"
