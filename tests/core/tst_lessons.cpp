// The lessons in resources/lessons: every one loads, its starter and solution compile with
// NVRTC (no GPU needed), its text has the required headings; and broken lesson files are
// refused with messages naming the file and the field.

#include "core/compile/Program.h"
#include "core/engine/TestRun.h"
#include "core/launch/BufferInit.h"
#include "core/project/Lesson.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_lessons {

using namespace kernelpad;

namespace {

/// The architecture the lessons are compiled for here: the GPU machine's (an H100).
const QString kArch = QStringLiteral("sm_90");
/// The issue asks for at least this many lessons, one per topic.
constexpr int kMinLessons = 12;
/// A lesson checks at least this many sizes ("tests" cases), its own among them or not.
constexpr int kMinLessonCases = 3;
/// The buffers of all of a lesson's cases together: a check of the lesson takes seconds.
constexpr qint64 kMaxLessonTestBytes = qint64(256) << 20;

QString lessonsDir() {
    return QStringLiteral(KERNELPAD_LESSONS_DIR);
}

/// Every kernel a project launches or verifies with: the kernel and the reference kernels.
QStringList kernelsUsed(const Project& project) {
    QStringList names{project.kernel};
    for (const ArgumentSpec& argument : project.arguments)
        if (argument.isBuffer() && argument.buffer.verify.kind == VerifySpec::Kind::Reference)
            names.append(argument.buffer.verify.referenceKernel);
    return names;
}

/// Compiles `project` as a run would and checks that every kernel it uses is there.
QString compileProblem(const Project& project, const QString& dir) {
    const CompileResult result =
        Program(project.source, project.sourceName, project.options, dir, project.language)
            .compile(kArch, project.nameExpressions());
    if (!result.ok)
        return QStringLiteral("does not compile:\n") + result.log;
    for (const QString& name : kernelsUsed(project)) {
        const bool found = std::any_of(result.kernels.cbegin(), result.kernels.cend(),
                                       [&name](const KernelInfo& k) { return k.name == name; });
        if (!found)
            return QStringLiteral("has no kernel named %1").arg(name);
    }
    return {};
}

QJsonObject readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return QJsonDocument::fromJson(file.readAll()).object();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    file.write(bytes);
}

/// A copy of the first lesson in `root/bad`, for a test to break.
QString copyFirstLesson(const QString& root) {
    const QString source = lessonsDir() + QStringLiteral("/01-thread-indices");
    const QString target = root + QStringLiteral("/bad");
    QDir().mkpath(target);
    for (const QString& name : QDir(source).entryList(QDir::Files))
        if (!QFile::copy(source + QLatin1Char('/') + name, target + QLatin1Char('/') + name))
            qFatal("cannot copy %s", qPrintable(name));
    return target;
}

} // namespace

class TestLessons : public QObject {
    Q_OBJECT

private slots:
    void everyLessonIsListed() {
        QStringList problems;
        const QVector<Lesson> lessons = listLessons(lessonsDir(), &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QVERIFY2(lessons.size() >= kMinLessons, qPrintable(QString::number(lessons.size())));
        QSet<int> orders;
        QSet<QString> topics;
        for (const Lesson& lesson : lessons) {
            QVERIFY2(!orders.contains(lesson.order), qPrintable(lesson.directory));
            orders.insert(lesson.order);
            topics.insert(lesson.topic);
        }
        QVERIFY2(topics.size() >= kMinLessons, qPrintable(QStringList(topics.values()).join(", ")));
        // Sorted by order: the course's sequence.
        for (qsizetype i = 1; i < lessons.size(); ++i)
            QVERIFY(lessons.at(i - 1).order < lessons.at(i).order);
        // Both kinds are taught.
        QVERIFY(std::any_of(lessons.cbegin(), lessons.cend(),
                            [](const Lesson& l) { return l.kind == LessonKind::Speed; }));
        QVERIFY(std::any_of(lessons.cbegin(), lessons.cend(),
                            [](const Lesson& l) { return l.kind == LessonKind::Correctness; }));
    }

    void lessonIsComplete_data() {
        QTest::addColumn<QString>("dir");
        const QStringList folders =
            QDir(lessonsDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString& folder : folders)
            QTest::newRow(qPrintable(folder)) << lessonsDir() + QLatin1Char('/') + folder;
    }
    void lessonIsComplete() {
        QFETCH(QString, dir);
        QString error;
        const std::optional<Lesson> lesson = Lesson::load(dir, &error);
        QVERIFY2(lesson, qPrintable(error));

        QVERIFY(!lesson->title.isEmpty());
        QVERIFY(!lesson->hints.isEmpty());
        for (const QString& hint : lesson->hints)
            QVERIFY(!hint.trimmed().isEmpty());
        QVERIFY(lesson->solutionSource != lesson->project.source);
        QCOMPARE(lesson->solutionProject().source, lesson->solutionSource);
        QCOMPARE(lesson->solutionProject().kernel, lesson->project.kernel);
        // Measured figures come from the GPU machine; none is written by hand in advance.
        if (lesson->recorded)
            QVERIFY(!lesson->recorded->device.isEmpty());
        if (lesson->kind == LessonKind::Speed)
            QVERIFY(lesson->requiredSpeedup && *lesson->requiredSpeedup > 1);
        else
            QVERIFY(!lesson->requiredSpeedup);

        // The text: a title and the four sections, each with something under it.
        QVERIFY(lesson->text.startsWith(QStringLiteral("# ")));
        for (const QString& heading : Lesson::requiredHeadings()) {
            const qsizetype at = lesson->text.indexOf(QStringLiteral("\n## ") + heading + '\n');
            QVERIFY2(at >= 0, qPrintable(heading));
            const qsizetype next = lesson->text.indexOf(QStringLiteral("\n## "), at + 1);
            const QString body =
                lesson->text.mid(at + heading.size() + 4, next < 0 ? -1 : next - at).trimmed();
            QVERIFY2(body.size() > 80, qPrintable(heading + QStringLiteral(": ") + body));
        }
        // A question or two.
        QVERIFY(lesson->text.count(QLatin1Char('?')) >= 2);

        // Starter and solution compile, with every kernel the project runs or verifies with.
        const QString starter = compileProblem(lesson->project, lesson->directory);
        QVERIFY2(starter.isEmpty(), qPrintable(QStringLiteral("starter ") + starter));
        const QString solution = compileProblem(lesson->solutionProject(), lesson->directory);
        QVERIFY2(solution.isEmpty(), qPrintable(QStringLiteral("solution ") + solution));
        // A starter's gap is marked where the student works.
        QVERIFY2(lesson->project.source.contains(QStringLiteral("Your task")),
                 qPrintable(lesson->directory));
        QVERIFY(!lesson->solutionSource.contains(QStringLiteral("Your task")));
    }

    // Exercise mode runs each lesson's "tests" cases after its own size: every lesson has
    // at least three, each maps onto a launch (values, grid formulas, buffer counts) for the
    // starter and the solution alike, and all of them together stay small.
    void lessonChecksSeveralSizes_data() { lessonIsComplete_data(); }
    void lessonChecksSeveralSizes() {
        QFETCH(QString, dir);
        QString error;
        const std::optional<Lesson> lesson = Lesson::load(dir, &error);
        QVERIFY2(lesson, qPrintable(error));
        QVERIFY2(!lesson->project.tests.isEmpty(), qPrintable(dir + ": no \"tests\" section"));
        for (const Project& project : {lesson->project, lesson->solutionProject()}) {
            RunRequest base;
            base.project = project;
            base.projectDir = lesson->directory;
            QString note;
            const QVector<PlannedCase> cases = planTestCases(base, {}, &note, &error);
            QVERIFY2(error.isEmpty() && note.isEmpty(), qPrintable(error + note));
            QVERIFY2(cases.size() >= kMinLessonCases, qPrintable(QString::number(cases.size())));
            qint64 bytes = 0;
            for (const PlannedCase& c : cases) {
                QVERIFY2(c.error.isEmpty(), qPrintable(c.name + QStringLiteral(": ") + c.error));
                for (const ArgumentSpec& a : c.request.project.arguments) {
                    if (!a.isBuffer())
                        continue;
                    const std::optional<qint64> count =
                        resolveCount(a.buffer.count, c.request.project.arguments, &error);
                    QVERIFY2(count && *count >= 1,
                             qPrintable(c.name + QStringLiteral(": ") + a.name +
                                        QStringLiteral(": ") + error));
                    bytes += *count * a.buffer.elementType.sizeBytes();
                }
            }
            QVERIFY2(bytes <= kMaxLessonTestBytes,
                     qPrintable(QStringLiteral("%1 MiB of buffers").arg(bytes >> 20)));
        }
    }

    void badLessonIsRefused_data() {
        QTest::addColumn<QString>("patch"); ///< JSON merged into the lesson section; null removes
        QTest::addColumn<QString>("text");  ///< replaces lesson.md when not empty
        QTest::addColumn<QString>("expected");
        const QString keepText;
        QTest::newRow("no lesson section")
            << "no section" << keepText << "bad/lesson.kpad: lesson: missing";
        QTest::newRow("misspelt field")
            << R"({"hint": ["x"]})" << keepText << "bad/lesson.kpad: lesson.hint: unknown field";
        QTest::newRow("no title") << R"({"title": null})" << keepText
                                  << "bad/lesson.kpad: lesson.title: missing";
        QTest::newRow("blank topic") << R"({"topic": " "})" << keepText
                                     << "bad/lesson.kpad: lesson.topic: must not be empty";
        QTest::newRow("unknown level") << R"({"level": "expert"})" << keepText
                                       << "bad/lesson.kpad: lesson.level: expected one of";
        QTest::newRow("order 0") << R"({"order": 0})" << keepText
                                 << "bad/lesson.kpad: lesson.order";
        QTest::newRow("unknown kind") << R"({"kind": "style"})" << keepText
                                      << "bad/lesson.kpad: lesson.kind: expected one of";
        QTest::newRow("no hints") << R"({"hints": []})" << keepText
                                  << "bad/lesson.kpad: lesson.hints: give at least one hint";
        QTest::newRow("empty second hint") << R"({"hints": ["a", ""]})" << keepText
                                           << "bad/lesson.kpad: lesson.hints[1]: must not be empty";
        QTest::newRow("hint not a string")
            << R"({"hints": [3]})" << keepText << "bad/lesson.kpad: lesson.hints[0]";
        QTest::newRow("two solutions") << R"({"solution": "x"})" << keepText
                                       << "bad/lesson.kpad: lesson.solution: give exactly one";
        QTest::newRow("no solution") << R"({"solutionFile": null})" << keepText
                                     << "bad/lesson.kpad: lesson.solution: give exactly one";
        QTest::newRow("solution file missing")
            << R"({"solutionFile": "answer.cu"})" << keepText
            << "bad/answer.cu: no such file (named by lesson.solutionFile)";
        QTest::newRow("solution file outside the folder")
            << R"({"solutionFile": "../solution.cu"})" << keepText
            << "bad/lesson.kpad: lesson.solutionFile: \"../solution.cu\" must be a file name";
        QTest::newRow("speed without a factor")
            << R"({"kind": "speed"})" << keepText
            << "bad/lesson.kpad: lesson.requiredSpeedup: missing";
        QTest::newRow("speed factor not above 1")
            << R"({"kind": "speed", "requiredSpeedup": 0.5})" << keepText
            << "bad/lesson.kpad: lesson.requiredSpeedup: a speed lesson's solution must be faster";
        QTest::newRow("factor on a correctness lesson")
            << R"({"requiredSpeedup": 2})" << keepText
            << "bad/lesson.kpad: lesson.requiredSpeedup: only speed lessons have one";
        QTest::newRow("recorded without a device")
            << R"({"recorded": {"date": "2026-11-24", "solution": {"medianMs": 1}}})" << keepText
            << "bad/lesson.kpad: lesson.recorded.device: missing";
        QTest::newRow("recorded with a bad date")
            << R"({"recorded": {"device": "H100", "date": "24/11/2026", "solution": {"medianMs": 1}}})"
            << keepText << "bad/lesson.kpad: lesson.recorded.date: expected a date";
        QTest::newRow("recorded without the solution")
            << R"({"recorded": {"device": "H100", "date": "2026-11-24"}})" << keepText
            << "bad/lesson.kpad: lesson.recorded.solution: missing";
        QTest::newRow("recorded with a negative time")
            << R"({"recorded": {"device": "H100", "date": "2026-11-24", "solution": {"medianMs": -1}}})"
            << keepText << "bad/lesson.kpad: lesson.recorded.solution.medianMs: must be > 0";
        const QString longParagraph = QString(QStringLiteral("Text of the lesson. ")).repeated(30);
        QTest::newRow("text without questions")
            << "{}"
            << "# T\n\n## Concept\n\n" + longParagraph +
                   "\n\n## What to do\n\nx\n\n## What to look at\n\nx\n"
            << "bad/lesson.md: has no heading \"## Questions\"";
        QTest::newRow("text without a title")
            << "{}"
            << "## Concept\n\n" + longParagraph +
                   "\n## What to do\n\n## What to look at\n\n## Questions\n"
            << "bad/lesson.md: must start with a title line";
        QTest::newRow("text too short") << "{}"
                                        << "# T\n\nToo short.\n"
                                        << "bad/lesson.md: has 15 characters";
        QTest::newRow("no text") << "{}"
                                 << "delete"
                                 << "bad/lesson.md: no such file";
    }
    void badLessonIsRefused() {
        QFETCH(QString, patch);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QString dir = copyFirstLesson(root.path());
        const QString kpad = dir + QStringLiteral("/lesson.kpad");
        QJsonObject json = readJson(kpad);
        if (patch == QLatin1String("no section")) {
            json.remove(QStringLiteral("lesson"));
        } else {
            QJsonObject section = json.value(QStringLiteral("lesson")).toObject();
            const QJsonObject changes = QJsonDocument::fromJson(patch.toUtf8()).object();
            for (auto it = changes.constBegin(); it != changes.constEnd(); ++it) {
                if (it.value().isNull())
                    section.remove(it.key());
                else
                    section.insert(it.key(), it.value());
            }
            json.insert(QStringLiteral("lesson"), section);
        }
        writeFile(kpad, QJsonDocument(json).toJson());
        if (text == QLatin1String("delete"))
            QVERIFY(QFile::remove(dir + QStringLiteral("/lesson.md")));
        else if (!text.isEmpty())
            writeFile(dir + QStringLiteral("/lesson.md"), text.toUtf8());

        QString error;
        QVERIFY(!Lesson::load(dir, &error));
        QVERIFY2(error.startsWith(expected), qPrintable(error));
    }

    void solutionSameAsStarterIsRefused() {
        QTemporaryDir root;
        const QString dir = copyFirstLesson(root.path());
        const QJsonObject json = readJson(dir + QStringLiteral("/lesson.kpad"));
        writeFile(dir + QStringLiteral("/solution.cu"),
                  json.value(QStringLiteral("source")).toString().toUtf8());
        QString error;
        QVERIFY(!Lesson::load(dir, &error));
        QVERIFY2(error.contains(QStringLiteral("the solution is the starter's source")),
                 qPrintable(error));
    }

    void inlineSolutionAndRecordReadBack() {
        QTemporaryDir root;
        const QString dir = copyFirstLesson(root.path());
        QVERIFY(QFile::remove(dir + QStringLiteral("/solution.cu")));
        QJsonObject json = readJson(dir + QStringLiteral("/lesson.kpad"));
        QJsonObject section = json.value(QStringLiteral("lesson")).toObject();
        section.remove(QStringLiteral("solutionFile"));
        section.insert(QStringLiteral("solution"), QStringLiteral("// solved\n"));
        section.insert(
            QStringLiteral("recorded"),
            QJsonDocument::fromJson(R"({"device": "NVIDIA H100 80GB HBM3", "date": "2026-11-24",
                "starter": {"medianMs": 0.5, "bandwidthGBs": 800},
                "solution": {"medianMs": 0.1, "bandwidthGBs": 3000, "gflops": 12.5},
                "speedup": 5})")
                .object());
        json.insert(QStringLiteral("lesson"), section);
        writeFile(dir + QStringLiteral("/lesson.kpad"), QJsonDocument(json).toJson());

        QString error;
        const std::optional<Lesson> lesson = Lesson::load(dir, &error);
        QVERIFY2(lesson, qPrintable(error));
        QCOMPARE(lesson->solutionSource, QStringLiteral("// solved\n"));
        QVERIFY(lesson->solutionFile.isEmpty());
        QVERIFY(lesson->recorded);
        QCOMPARE(lesson->recorded->device, QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(lesson->recorded->solution.medianMs, 0.1);
        QCOMPARE(*lesson->recorded->solution.gflops, 12.5);
        QVERIFY(!lesson->recorded->starter->gflops);
        QCOMPARE(*lesson->recorded->starter->bandwidthGBs, 800.0);
        QCOMPARE(*lesson->recorded->speedup, 5.0);
    }

    void sharedOrderIsReported() {
        QTemporaryDir root;
        const QString first = copyFirstLesson(root.path());
        QVERIFY(QDir().rename(first, root.path() + QStringLiteral("/a")));
        copyFirstLesson(root.path());
        QStringList problems;
        const QVector<Lesson> lessons = listLessons(root.path(), &problems);
        QCOMPARE(lessons.size(), 2);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().contains(QStringLiteral("both have lesson.order 1")),
                 qPrintable(problems.first()));
        // A broken folder is reported, not listed; a folder without lesson.kpad is ignored.
        QVERIFY(QFile::remove(root.path() + QStringLiteral("/a/lesson.md")));
        QDir().mkpath(root.path() + QStringLiteral("/notes"));
        problems.clear();
        QCOMPARE(listLessons(root.path(), &problems).size(), 1);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().startsWith(QStringLiteral("a/lesson.md: no such file")),
                 qPrintable(problems.first()));
    }

    void directoryFromEnvironment() {
        QTemporaryDir root;
        qputenv("KERNELPAD_LESSONS", root.path().toUtf8());
        QCOMPARE(lessonsDirectory(), QDir(root.path()).canonicalPath());
        qunsetenv("KERNELPAD_LESSONS");
        // Without the variable and without an application next to installed lessons, the
        // source tree's folder.
        QCOMPARE(lessonsDirectory(), QDir(lessonsDir()).canonicalPath());
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestLessons)
} // namespace tst_lessons
#include "tst_lessons.moc"
