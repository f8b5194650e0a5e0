// LessonProgress: completions survive a new instance (they live in QSettings), a reset forgets
// them, and every instance hears of a change made through another.
#include "../support/TestMain.h"
#include "core/project/Lesson.h"
#include "ui/LessonProgress.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

namespace tst_lessonprogress {

using namespace kernelpad;

class TestLessonProgress : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KernelPadTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_lessonprogress"));
    }
    void init() { LessonProgress().resetAll(); }

    void idIsTheFolderName() {
        QCOMPARE(LessonProgress::lessonId(QStringLiteral("/x/lessons/04-coalescing/")),
                 QStringLiteral("04-coalescing"));
        Lesson lesson;
        lesson.directory = QStringLiteral("/usr/share/kernelpad/lessons/12-tiled-matmul");
        QCOMPARE(LessonProgress::lessonId(lesson), QStringLiteral("12-tiled-matmul"));
    }

    void completionSurvivesANewInstance() {
        QVERIFY(!LessonProgress().isDone(QStringLiteral("02-saxpy-grid-stride")));
        LessonProgress().markDone(QStringLiteral("02-saxpy-grid-stride"),
                                  QStringLiteral("0.0393 ms"));
        const LessonProgress later;
        QVERIFY(later.isDone(QStringLiteral("02-saxpy-grid-stride")));
        const auto done = later.completion(QStringLiteral("02-saxpy-grid-stride"));
        QVERIFY(done.has_value());
        QCOMPARE(done->summary, QStringLiteral("0.0393 ms"));
        QVERIFY(done->when.isValid());
        QVERIFY(qAbs(done->when.secsTo(QDateTime::currentDateTimeUtc())) < 60);
        QVERIFY(!later.isDone(QStringLiteral("03-image-2d")));
    }

    void resetForgetsOneOrAll() {
        LessonProgress progress;
        progress.markDone(QStringLiteral("b"), {});
        progress.markDone(QStringLiteral("a"), {});
        progress.markDone(QStringLiteral("c"), {});
        QCOMPARE(progress.doneIds(), (QStringList{"a", "b", "c"}));
        progress.reset(QStringLiteral("b"));
        QCOMPARE(progress.doneIds(), (QStringList{"a", "c"}));
        progress.resetAll();
        QVERIFY(progress.doneIds().isEmpty());
    }

    void brokenEntryIsNotDone() {
        QSettings().setValue(QStringLiteral("lessons/done/05-x/when"), QStringLiteral("yesterday"));
        QVERIFY(!LessonProgress().isDone(QStringLiteral("05-x")));
    }

    void everyInstanceHearsOfAChange() {
        LessonProgress welcome;
        LessonProgress pane;
        QSignalSpy spy(&welcome, &LessonProgress::changed);
        pane.markDone(QStringLiteral("01-thread-indices"), {});
        QCOMPARE(spy.count(), 1);
        pane.reset(QStringLiteral("01-thread-indices"));
        QCOMPARE(spy.count(), 2);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestLessonProgress)
} // namespace tst_lessonprogress
#include "tst_lessonprogress.moc"
