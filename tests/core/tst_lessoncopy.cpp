// A lesson's project keeps its "lesson" section through Project's load and save, so a
// student's saved copy is still a lesson; and the student's copies of lessons: made on first
// use in the writable workspace, kept with their edits, restored on "start over".

#include "core/project/Lesson.h"
#include "core/project/LessonWorkspace.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_lessoncopy {

using namespace kernelpad;

namespace {

QString shippedLesson(const QString& id) {
    return QStringLiteral(KERNELPAD_LESSONS_DIR "/") + id;
}

QJsonObject lessonSectionOf(const QString& kpadPath) {
    QFile file(kpadPath);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll())
        .object()
        .value(QStringLiteral("lesson"))
        .toObject();
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

class TestLessonCopy : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(QStringLiteral("kernelpad-tst-lessoncopy"));
    }
    void init() { QDir(lessonWorkspaceDirectory()).removeRecursively(); }
    void cleanupTestCase() { QDir(lessonWorkspaceDirectory()).removeRecursively(); }

    void projectKeepsTheLessonSection_data() {
        QTest::addColumn<QString>("id");
        for (const Lesson& lesson : listLessons(QStringLiteral(KERNELPAD_LESSONS_DIR)))
            QTest::newRow(qPrintable(QFileInfo(lesson.directory).fileName()))
                << QFileInfo(lesson.directory).fileName();
    }
    void projectKeepsTheLessonSection() {
        QFETCH(QString, id);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString folder = dir.filePath(id);
        QVERIFY(copyFolder(shippedLesson(id), folder));
        const QString kpad = folder + QStringLiteral("/lesson.kpad");
        const QJsonObject shipped = lessonSectionOf(kpad);
        QVERIFY(!shipped.isEmpty());

        QString error;
        std::optional<Project> project = Project::load(kpad, &error);
        QVERIFY2(project, qPrintable(error));
        QCOMPARE(project->lesson, shipped);
        // The student's edit, saved as the editor saves.
        project->source += QStringLiteral("\n// the student's note\n");
        QVERIFY2(project->save(kpad, &error), qPrintable(error));
        QCOMPARE(lessonSectionOf(kpad), shipped);

        const std::optional<Lesson> lesson = Lesson::load(folder, &error);
        QVERIFY2(lesson, qPrintable(error));
        QVERIFY(lesson->project.source.endsWith(QStringLiteral("// the student's note\n")));
        QCOMPARE(lesson->project.lesson, shipped);
    }

    void plainProjectsHaveNoLessonSection() {
        Project project;
        project.source = QStringLiteral("__global__ void k() {}");
        project.kernel = QStringLiteral("k");
        QVERIFY(!project.toJson().contains(QStringLiteral("lesson")));
        QString error;
        const std::optional<Project> back = Project::fromJson(project.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->lesson.isEmpty());
        QCOMPARE(*back, project);
    }

    void lessonSectionMustBeAnObject() {
        Project project;
        project.source = QStringLiteral("__global__ void k() {}");
        project.kernel = QStringLiteral("k");
        QJsonObject json = project.toJson();
        json.insert(QStringLiteral("lesson"), QStringLiteral("Threads"));
        QString error;
        QVERIFY(!Project::fromJson(json, &error));
        QVERIFY2(error.startsWith(QStringLiteral("lesson:")), qPrintable(error));
    }

    void firstUseCopiesTheLesson() {
        const QString shipped = shippedLesson(QStringLiteral("01-thread-indices"));
        QString error;
        bool created = false;
        const std::optional<QString> copy = lessonCopy(shipped, &error, &created);
        QVERIFY2(copy, qPrintable(error));
        QVERIFY(created);
        QCOMPARE(*copy, lessonWorkspaceDirectory() + QStringLiteral("/01-thread-indices"));
        QVERIFY(isLessonCopy(*copy));
        QVERIFY(!isLessonCopy(shipped));
        QVERIFY(!copy->startsWith(QStringLiteral(KERNELPAD_SOURCE_DIR)));
        for (const QString& file : {QStringLiteral("lesson.kpad"), QStringLiteral("lesson.md"),
                                    QStringLiteral("solution.cu")})
            QVERIFY2(QFileInfo(*copy + QLatin1Char('/') + file).isWritable(), qPrintable(file));
        const std::optional<Lesson> lesson = Lesson::load(*copy, &error);
        QVERIFY2(lesson, qPrintable(error));
        QCOMPARE(lesson->title, Lesson::load(shipped, &error)->title);
        // A copy asked for as itself is itself.
        QCOMPARE(lessonCopy(*copy, &error, &created).value_or(QString()), *copy);
        QVERIFY(!created);
    }

    void laterUseKeepsTheEditsAndStartOverRestores() {
        const QString shipped = shippedLesson(QStringLiteral("02-saxpy-grid-stride"));
        QString error;
        const QString copy = lessonCopy(shipped, &error).value_or(QString());
        QVERIFY2(!copy.isEmpty(), qPrintable(error));
        const QString kpad = copy + QStringLiteral("/lesson.kpad");
        std::optional<Project> project = Project::load(kpad, &error);
        QVERIFY2(project, qPrintable(error));
        const QString pristine = project->source;
        project->source = QStringLiteral("// mine\n") + pristine;
        QVERIFY2(project->save(kpad, &error), qPrintable(error));

        bool created = true;
        QCOMPARE(lessonCopy(shipped, &error, &created).value_or(QString()), copy);
        QVERIFY(!created);
        QVERIFY(Project::load(kpad, &error)->source.startsWith(QStringLiteral("// mine\n")));

        QVERIFY2(restoreLessonCopy(shipped, &error), qPrintable(error));
        QCOMPARE(Project::load(kpad, &error)->source, pristine);
        QVERIFY(!QFileInfo::exists(copy + QStringLiteral(".old")));
        QVERIFY(Lesson::load(copy, &error));
    }

    void missingLessonIsNamed() {
        QString error;
        QVERIFY(!lessonCopy(QStringLiteral("/nonexistent/99-nothing"), &error));
        QVERIFY2(error.contains(QStringLiteral("99-nothing")), qPrintable(error));
        QVERIFY(!QFileInfo::exists(lessonWorkspaceDirectory() + QStringLiteral("/99-nothing")));
        QVERIFY(!restoreLessonCopy(lessonWorkspaceDirectory() + QStringLiteral("/01-x"), &error));
        QVERIFY2(error.contains(QStringLiteral("student's copy")), qPrintable(error));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestLessonCopy)
} // namespace tst_lessoncopy
#include "tst_lessoncopy.moc"
