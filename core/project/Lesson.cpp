#include "core/project/Lesson.h"

#include "core/io/JsonFields.h"
#include "core/io/SafeFile.h"

#include <QCoreApplication>
#include <QDate>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>

#include <algorithm>

namespace kernelpad {

namespace {

/// A lesson's text or solution is a page or a kernel; anything larger is not one.
constexpr qint64 kMaxLessonFileBytes = qint64(1) << 20;
/// Fewer characters than this cannot hold the concept, the task and the questions.
constexpr int kMinTextCharacters = 400;

const QStringList& levelNames() {
    static const QStringList names{QStringLiteral("beginner"), QStringLiteral("intermediate"),
                                   QStringLiteral("advanced")};
    return names;
}

const QStringList& kindNames() {
    static const QStringList names{QStringLiteral("correctness"), QStringLiteral("speed")};
    return names;
}

/// The keys the "lesson" section may hold: a misspelt one ("hint") is an error, not a silent
/// loss of the teacher's hints.
const QStringList& sectionKeys() {
    static const QStringList keys{QStringLiteral("title"),
                                  QStringLiteral("topic"),
                                  QStringLiteral("level"),
                                  QStringLiteral("order"),
                                  QStringLiteral("kind"),
                                  QStringLiteral("hints"),
                                  QStringLiteral("solution"),
                                  QStringLiteral("solutionFile"),
                                  QStringLiteral("requiredSpeedup"),
                                  QStringLiteral("minBaselineRatio"),
                                  QStringLiteral("recorded")};
    return keys;
}

std::optional<QString> readTextFile(const QString& path, QString* why) {
    ReadFailure failure = ReadFailure::None;
    const std::optional<QByteArray> bytes =
        readRegularFile(path, ReadLimits{kMaxLessonFileBytes, true}, why, &failure);
    if (!bytes) {
        if (failure == ReadFailure::Missing)
            *why = QStringLiteral("no such file");
        else if (failure == ReadFailure::TooLarge)
            *why = QStringLiteral("larger than %1 KiB").arg(kMaxLessonFileBytes >> 10);
        return std::nullopt;
    }
    return QString::fromUtf8(*bytes);
}

bool readNonEmptyString(const json::FieldReader& fields, const QString& key, QString* out) {
    if (!fields.readString(key, out, json::Presence::Required))
        return false;
    if (out->trimmed().isEmpty())
        return fields.fail(fields.path(key) + QStringLiteral(": must not be empty"));
    return true;
}

bool readPositive(const json::FieldReader& fields, const QString& key, std::optional<double>* out,
                  json::Presence presence) {
    if (!fields.has(key) && presence == json::Presence::Optional)
        return true;
    double value = 0;
    if (!fields.readNumber(key, &value, presence))
        return false;
    if (!(value > 0))
        return fields.fail(fields.path(key) + QStringLiteral(": must be > 0 (got %1)").arg(value));
    *out = value;
    return true;
}

std::optional<LessonFigures> readFigures(const json::FieldReader& parent, const QString& key) {
    QJsonObject object;
    if (!parent.readObject(key, &object, json::Presence::Required))
        return std::nullopt;
    const json::FieldReader fields = parent.nested(key, object);
    LessonFigures figures;
    std::optional<double> median;
    if (!readPositive(fields, QStringLiteral("medianMs"), &median, json::Presence::Required) ||
        !readPositive(fields, QStringLiteral("bandwidthGBs"), &figures.bandwidthGBs,
                      json::Presence::Optional) ||
        !readPositive(fields, QStringLiteral("gflops"), &figures.gflops, json::Presence::Optional))
        return std::nullopt;
    figures.medianMs = *median;
    return figures;
}

/// "recorded": {} (not measured yet) or the measured figures.
bool readRecord(const json::FieldReader& section, std::optional<LessonRecord>* out) {
    const QString key = QStringLiteral("recorded");
    if (!section.has(key))
        return true;
    QJsonObject object;
    if (!section.readObject(key, &object))
        return false;
    if (object.isEmpty())
        return true;
    const json::FieldReader fields = section.nested(key, object);
    LessonRecord record;
    if (!readNonEmptyString(fields, QStringLiteral("device"), &record.device) ||
        !readNonEmptyString(fields, QStringLiteral("date"), &record.date))
        return false;
    if (!QDate::fromString(record.date, Qt::ISODate).isValid())
        return fields.fail(
            fields.path(QStringLiteral("date")) +
            QStringLiteral(": expected a date as 2026-11-24 (got \"%1\")").arg(record.date));
    std::optional<LessonFigures> solution = readFigures(fields, QStringLiteral("solution"));
    if (!solution)
        return false;
    record.solution = *solution;
    if (fields.has(QStringLiteral("starter"))) {
        record.starter = readFigures(fields, QStringLiteral("starter"));
        if (!record.starter)
            return false;
    }
    if (!readPositive(fields, QStringLiteral("speedup"), &record.speedup, json::Presence::Optional))
        return false;
    *out = record;
    return true;
}

/// Empty when `markdown` has a title line and every required heading in order, else what
/// is missing.
QString textProblem(const QString& markdown) {
    if (markdown.trimmed().size() < kMinTextCharacters)
        return QStringLiteral("has %1 characters; a lesson needs at least %2")
            .arg(markdown.trimmed().size())
            .arg(kMinTextCharacters);
    const QStringList lines = markdown.split(QLatin1Char('\n'));
    const auto firstLine = std::find_if(lines.cbegin(), lines.cend(), [](const QString& line) {
        return !line.trimmed().isEmpty();
    });
    if (firstLine == lines.cend() || !firstLine->startsWith(QLatin1String("# ")))
        return QStringLiteral("must start with a title line (\"# Title\")");
    qsizetype from = 0;
    for (const QString& heading : Lesson::requiredHeadings()) {
        const qsizetype at = lines.indexOf(QStringLiteral("## ") + heading, from);
        if (at < 0)
            return QStringLiteral("has no heading \"## %1\" (the headings, in order: %2)")
                .arg(heading, Lesson::requiredHeadings().join(QLatin1String(", ")));
        from = at + 1;
    }
    return {};
}

} // namespace

QString lessonLevelName(LessonLevel level) {
    return levelNames().at(int(level));
}

QString lessonKindName(LessonKind kind) {
    return kindNames().at(int(kind));
}

QString Lesson::projectPath() const {
    return directory + QLatin1Char('/') + QLatin1String(kProjectFile);
}

QString Lesson::textPath() const {
    return directory + QLatin1Char('/') + QLatin1String(kTextFile);
}

Project Lesson::solutionProject() const {
    Project solved = project;
    solved.source = solutionSource;
    return solved;
}

QStringList Lesson::requiredHeadings() {
    return {QStringLiteral("Concept"), QStringLiteral("What to do"),
            QStringLiteral("What to look at"), QStringLiteral("Questions")};
}

namespace {

/// A speed lesson's "requiredSpeedup" (more than 1), which no other lesson has; false with the
/// message naming the field in `message` (where `fields` also writes its own).
bool readRequiredSpeedup(const json::FieldReader& fields, Lesson* lesson, QString* message) {
    const QString speedupKey = QStringLiteral("requiredSpeedup");
    if (lesson->kind == LessonKind::Speed) {
        if (!readPositive(fields, speedupKey, &lesson->requiredSpeedup, json::Presence::Required))
            return false;
        if (*lesson->requiredSpeedup > 1)
            return true;
        *message = fields.path(speedupKey) +
                   QStringLiteral(": a speed lesson's solution must be faster than the starter, "
                                  "so more than 1 (got %1)")
                       .arg(*lesson->requiredSpeedup);
        return false;
    }
    if (!fields.has(speedupKey))
        return true;
    *message = fields.path(speedupKey) +
               QStringLiteral(": only speed lessons have one (this lesson's kind is "
                              "\"correctness\")");
    return false;
}

/// "minBaselineRatio": the least library-time-over-kernel-time a run must reach, which needs
/// the project's "baseline"; false with the message naming the field in `message`.
bool readMinBaselineRatio(const json::FieldReader& fields, Lesson* lesson, QString* message) {
    const QString key = QStringLiteral("minBaselineRatio");
    if (!readPositive(fields, key, &lesson->minBaselineRatio, json::Presence::Optional))
        return false;
    if (!lesson->minBaselineRatio || !lesson->project.baseline.isEmpty())
        return true;
    *message = fields.path(key) + QStringLiteral(": the lesson's project has no \"baseline\" "
                                                 "to compare with; add one or remove this");
    return false;
}

} // namespace

std::optional<Lesson> Lesson::load(const QString& dir, QString* error) {
    const QFileInfo dirInfo(dir);
    // Messages name the file as "<folder>/<file>", which is how a teacher finds it.
    const QString folder = dirInfo.fileName();
    const QString projectName = folder + QLatin1Char('/') + QLatin1String(kProjectFile);
    const QString textName = folder + QLatin1Char('/') + QLatin1String(kTextFile);
    QString message;
    const auto fail = [error](const QString& file, const QString& why) -> std::optional<Lesson> {
        if (error)
            *error = file + QStringLiteral(": ") + why;
        return std::nullopt;
    };
    if (!dirInfo.isDir())
        return fail(folder, QStringLiteral("not a folder"));

    Lesson lesson;
    lesson.directory = dirInfo.canonicalFilePath();
    std::optional<Project> project = Project::load(lesson.projectPath(), &message);
    if (!project)
        return fail(projectName, message);
    lesson.project = *project;

    // The project loader ignores the "lesson" section; read it from the same file.
    const std::optional<QString> raw = readTextFile(lesson.projectPath(), &message);
    if (!raw)
        return fail(projectName, message);
    const QJsonObject json = QJsonDocument::fromJson(raw->toUtf8()).object();
    QJsonObject section;
    const json::FieldReader top(json, &message);
    if (!top.readObject(QStringLiteral("lesson"), &section, json::Presence::Required))
        return fail(projectName, message);
    const json::FieldReader fields = top.nested(QStringLiteral("lesson"), section);
    for (auto it = section.constBegin(); it != section.constEnd(); ++it)
        if (!sectionKeys().contains(it.key()))
            return fail(projectName,
                        fields.path(it.key()) + QStringLiteral(": unknown field; the fields are %1")
                                                    .arg(sectionKeys().join(QLatin1String(", "))));

    QString level;
    QString kind;
    if (!readNonEmptyString(fields, QStringLiteral("title"), &lesson.title) ||
        !readNonEmptyString(fields, QStringLiteral("topic"), &lesson.topic) ||
        !fields.readChoice(QStringLiteral("level"), levelNames(), &level,
                           json::Presence::Required) ||
        !fields.readInt(QStringLiteral("order"), &lesson.order, json::Presence::Required,
                        {1, std::numeric_limits<int>::max()}) ||
        !fields.readChoice(QStringLiteral("kind"), kindNames(), &kind, json::Presence::Required) ||
        !fields.readStrings(QStringLiteral("hints"), &lesson.hints, json::Presence::Required))
        return fail(projectName, message);
    lesson.level = LessonLevel(levelNames().indexOf(level));
    lesson.kind = LessonKind(kindNames().indexOf(kind));
    const QString hintsPath = fields.path(QStringLiteral("hints"));
    if (lesson.hints.isEmpty())
        return fail(projectName, hintsPath + QStringLiteral(": give at least one hint"));
    for (qsizetype i = 0; i < lesson.hints.size(); ++i)
        if (lesson.hints.at(i).trimmed().isEmpty())
            return fail(projectName,
                        json::indexPath(hintsPath, i) + QStringLiteral(": must not be empty"));

    // The solution: inline ("solution") or in a file beside the project ("solutionFile").
    const bool inlineSolution = fields.has(QStringLiteral("solution"));
    const bool fileSolution = fields.has(QStringLiteral("solutionFile"));
    if (inlineSolution == fileSolution)
        return fail(projectName, fields.path(QStringLiteral("solution")) +
                                     QStringLiteral(": give exactly one of \"solution\" (the "
                                                    "source) and \"solutionFile\" (a file name)"));
    if (inlineSolution) {
        if (!readNonEmptyString(fields, QStringLiteral("solution"), &lesson.solutionSource))
            return fail(projectName, message);
    } else {
        if (!readNonEmptyString(fields, QStringLiteral("solutionFile"), &lesson.solutionFile))
            return fail(projectName, message);
        const QString filePath = fields.path(QStringLiteral("solutionFile"));
        // Beside the project only: a lesson folder must be complete when copied alone.
        if (lesson.solutionFile.contains(QLatin1Char('/')) ||
            lesson.solutionFile.contains(QLatin1Char('\\')) ||
            lesson.solutionFile.startsWith(QLatin1Char('.')))
            return fail(projectName, filePath + QStringLiteral(": \"%1\" must be a file name in "
                                                               "the lesson's folder")
                                                    .arg(lesson.solutionFile));
        const std::optional<QString> source =
            readTextFile(lesson.directory + QLatin1Char('/') + lesson.solutionFile, &message);
        if (!source)
            return fail(folder + QLatin1Char('/') + lesson.solutionFile,
                        message + QStringLiteral(" (named by ") + filePath + QLatin1Char(')'));
        if (source->trimmed().isEmpty())
            return fail(folder + QLatin1Char('/') + lesson.solutionFile,
                        QStringLiteral("is empty"));
        lesson.solutionSource = *source;
    }
    if (lesson.solutionSource.trimmed() == lesson.project.source.trimmed())
        return fail(projectName, fields.path(QStringLiteral("solution")) +
                                     QStringLiteral(": the solution is the starter's source; the "
                                                    "starter must leave something to do"));

    if (!readRequiredSpeedup(fields, &lesson, &message) ||
        !readMinBaselineRatio(fields, &lesson, &message))
        return fail(projectName, message);
    if (!readRecord(fields, &lesson.recorded))
        return fail(projectName, message);

    const std::optional<QString> text = readTextFile(lesson.textPath(), &message);
    if (!text)
        return fail(textName, message);
    if (const QString problem = textProblem(*text); !problem.isEmpty())
        return fail(textName, problem);
    lesson.text = *text;
    return lesson;
}

QVector<Lesson> listLessons(const QString& dir, QStringList* problems) {
    QVector<Lesson> lessons;
    const QFileInfoList folders =
        QDir(dir).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& folder : folders) {
        if (!QFileInfo::exists(folder.absoluteFilePath() + QLatin1Char('/') +
                               QLatin1String(Lesson::kProjectFile)))
            continue;
        QString error;
        std::optional<Lesson> lesson = Lesson::load(folder.absoluteFilePath(), &error);
        if (lesson)
            lessons.append(*lesson);
        else if (problems)
            problems->append(error);
    }
    std::sort(lessons.begin(), lessons.end(), [](const Lesson& a, const Lesson& b) {
        return a.order != b.order ? a.order < b.order : a.directory < b.directory;
    });
    for (qsizetype i = 1; i < lessons.size(); ++i)
        if (problems && lessons.at(i).order == lessons.at(i - 1).order)
            problems->append(QStringLiteral("%1 and %2: both have lesson.order %3")
                                 .arg(QFileInfo(lessons.at(i - 1).directory).fileName(),
                                      QFileInfo(lessons.at(i).directory).fileName())
                                 .arg(lessons.at(i).order));
    return lessons;
}

QStringList lessonsSearchPaths() {
    QStringList candidates;
    const QString fromEnvironment = qEnvironmentVariable("KERNELPAD_LESSONS");
    if (!fromEnvironment.isEmpty())
        candidates.append(fromEnvironment);
    // applicationDirPath() needs an application object; tests and tools may not have one.
    if (QCoreApplication::instance()) {
        const QString appDir = QCoreApplication::applicationDirPath();
        candidates.append(appDir + QStringLiteral("/../share/kernelpad/lessons"));
        candidates.append(appDir + QStringLiteral("/lessons"));
    }
    candidates.append(QStringLiteral(KERNELPAD_SOURCE_DIR "/resources/lessons"));
    for (QString& candidate : candidates)
        candidate = QDir::cleanPath(candidate);
    return candidates;
}

QString lessonsDirectory() {
    for (const QString& candidate : lessonsSearchPaths()) {
        const QFileInfo info(candidate);
        if (info.isDir())
            return info.canonicalFilePath();
    }
    return {};
}

std::optional<Lesson> lessonForProject(const QString& projectPath) {
    if (projectPath.isEmpty())
        return std::nullopt;
    const QFileInfo file(projectPath);
    if (file.fileName() != QLatin1String(Lesson::kProjectFile) || !file.isFile())
        return std::nullopt;
    QString error;
    return Lesson::load(file.absolutePath(), &error);
}

QString nextLessonDirectory(const QVector<Lesson>& lessons, const Lesson& current) {
    // A lesson opened from a copy keeps its folder's name, so that finds it in the course.
    const QString id = QFileInfo(current.directory).fileName();
    for (qsizetype i = 0; i < lessons.size(); ++i)
        if (QFileInfo(lessons.at(i).directory).fileName() == id)
            return i + 1 < lessons.size() ? lessons.at(i + 1).directory : QString();
    for (const Lesson& lesson : lessons)
        if (lesson.order > current.order)
            return lesson.directory;
    return {};
}

} // namespace kernelpad
