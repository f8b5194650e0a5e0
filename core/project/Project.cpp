#include "core/project/Project.h"

#include "core/io/ControlChars.h"
#include "core/io/JsonFields.h"
#include "core/io/SafeFile.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QJsonValue>
#include <QRegularExpression>

#include <cmath>
#include <utility>

namespace kernelpad {

namespace {

const QString kFormatMarker = QStringLiteral("kernelpad-project");
/// A project is source text and a few settings; anything larger is not a project file, and
/// reading it whole could exhaust memory or hold the window. 16 MiB is the largest source
/// kernelpad-cli init reads (ProjectFromSource.cpp) with room for the settings.
constexpr qint64 kMaxProjectBytes = qint64(16) << 20;
/// NAME_MAX of Linux file systems: sourceName is a file name (NVRTC resolves the main
/// source's quoted includes against its directory part, so it must not have one).
constexpr qsizetype kMaxSourceNameLength = 255;

/// Empty when `name` can be NVRTC's program name: a plain file name, no folder, no control
/// character.
QString sourceNameProblem(const QString& name) {
    if (name.trimmed().isEmpty())
        return QStringLiteral("sourceName: must not be empty");
    if (QString bad = controlCharacterError(QStringLiteral("sourceName"), name); !bad.isEmpty())
        return bad;
    if (name.contains(u'/') || name.contains(u'\\'))
        return QStringLiteral("sourceName: must be a file name without a folder (got \"%1\")")
            .arg(name);
    if (name == QLatin1String(".") || name == QLatin1String(".."))
        return QStringLiteral("sourceName: must be a file name, not \"%1\"").arg(name);
    if (name.size() > kMaxSourceNameLength)
        return QStringLiteral("sourceName: must be at most %1 characters (got %2)")
            .arg(kMaxSourceNameLength)
            .arg(name.size());
    return {};
}

/// Puts `path` in front of a nested message. Messages that already start with a field path
/// ("buffer.count: ...", "grid[1] must be >= 1") are joined with a dot, others with a colon,
/// so the result always reads "arguments[2].buffer.count: ...".
QString withPath(const QString& path, const QString& inner) {
    static const QRegularExpression fieldPath(
        QStringLiteral(R"(^[A-Za-z_]\w*(\[\d+\])*(\.[A-Za-z_]\w*(\[\d+\])*)*(:| must ))"));
    if (inner.startsWith(QLatin1Char('[')))
        return path + inner;
    if (fieldPath.match(inner).hasMatch())
        return path + QLatin1Char('.') + inner;
    return path + QStringLiteral(": ") + inner;
}

/// 1-based line and column of a byte offset, for JSON parse errors.
QString lineAndColumn(const QByteArray& bytes, qsizetype offset) {
    offset = qBound(qsizetype(0), offset, bytes.size());
    const QByteArray before = bytes.left(offset);
    const qsizetype line = before.count('\n') + 1;
    const qsizetype column = offset - (before.lastIndexOf('\n') + 1) + 1;
    return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

} // namespace

QStringList Project::nameExpressions() const {
    QStringList names;
    if (language != SourceLanguage::Cuda) // PTX and NVVM IR name their entries themselves
        return names;
    const auto add = [&names](const QString& expression) {
        if (expression.contains(QLatin1Char('<')) && !names.contains(expression))
            names.append(expression);
    };
    add(kernel);
    for (const QString& stepKernel : pipeline.kernelNames())
        add(stepKernel);
    for (const ArgumentSpec& arg : arguments)
        if (arg.isBuffer() && arg.buffer.verify.kind == VerifySpec::Kind::Reference)
            add(arg.buffer.verify.referenceKernel);
    return names;
}

const ArgumentSpec* Project::findArgument(const QString& argumentName) const {
    for (const ArgumentSpec& arg : arguments)
        if (arg.name == argumentName)
            return &arg;
    return nullptr;
}

const GlobalSpec* Project::findGlobal(const QString& globalName) const {
    for (const GlobalSpec& global : globals)
        if (global.name == globalName)
            return &global;
    return nullptr;
}

namespace {

/// The "globals" section; nothing when the project sets none, so that
/// files without globals stay as they were.
void insertGlobals(QJsonObject* json, const QVector<GlobalSpec>& globals) {
    if (globals.isEmpty())
        return;
    QJsonArray array;
    for (const GlobalSpec& global : globals)
        array.append(global.toJson());
    json->insert(QStringLiteral("globals"), array);
}

/// Reads the "globals" section into `project`; false with `error` naming the entry.
bool readGlobals(const QJsonObject& json, Project* project, QString* error) {
    if (!json.contains(QStringLiteral("globals")))
        return true;
    const QJsonValue value = json.value(QStringLiteral("globals"));
    if (!value.isArray()) {
        *error = json::typeError(QStringLiteral("globals"), QStringLiteral("an array"), value);
        return false;
    }
    const QJsonArray array = value.toArray();
    QHash<QString, qsizetype> seen; // name -> its index
    seen.reserve(array.size());
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = QStringLiteral("globals[%1]").arg(i);
        if (!array[i].isObject()) {
            *error = json::typeError(path, QStringLiteral("an object"), array[i]);
            return false;
        }
        QString message;
        std::optional<GlobalSpec> global = GlobalSpec::fromJson(array[i].toObject(), &message);
        if (!global) {
            *error = withPath(path, message);
            return false;
        }
        // One lookup per entry: 40,000 globals compared pairwise took 16 s to open.
        if (const auto before = seen.constFind(global->name); before != seen.cend()) {
            *error = QStringLiteral("%1.name: duplicate global '%2' (also globals[%3])")
                         .arg(path, global->name)
                         .arg(*before);
            return false;
        }
        seen.insert(global->name, i);
        project->globals.append(std::move(*global));
    }
    return true;
}

} // namespace

QJsonObject Project::toJson() const {
    QJsonObject json = toJsonWithoutGlobals();
    insertGlobals(&json, globals);
    if (language != SourceLanguage::Cuda) // absent for CUDA C++: older files stay byte-stable
        json.insert(QStringLiteral("language"), languageName(language));
    if (!pipeline.isEmpty())
        json.insert(QStringLiteral("pipeline"), pipeline.toJson());
    if (!sweep.isEmpty())
        json.insert(QStringLiteral("sweep"), sweep.toJson());
    if (!baseline.isEmpty())
        json.insert(QStringLiteral("baseline"), baseline.toJson());
    if (!tests.isEmpty())
        json.insert(QStringLiteral("tests"), tests.toJson());
    if (!lesson.isEmpty())
        json.insert(QStringLiteral("lesson"), lesson);
    return json;
}

QJsonObject Project::toJsonWithoutGlobals() const {
    QJsonArray args;
    for (const ArgumentSpec& arg : arguments)
        args.append(arg.toJson());
    return QJsonObject{{QStringLiteral("format"), kFormatMarker},
                       {QStringLiteral("version"), kFormatVersion},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("description"), description},
                       {QStringLiteral("sourceName"), sourceName},
                       {QStringLiteral("source"), source},
                       {QStringLiteral("options"), options.toJson()},
                       {QStringLiteral("kernel"), kernel},
                       {QStringLiteral("arguments"), args},
                       {QStringLiteral("launch"), launch.toJson()},
                       {QStringLiteral("timing"), timing.toJson()}};
}

namespace {

/// The "format" marker and the "version" this build reads; false with the message in `error`.
bool checkProjectFormat(const QJsonObject& json, const json::FieldReader& fields, QString* error) {
    const auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    const QJsonValue format = json.value(QStringLiteral("format"));
    if (format.toString() != kFormatMarker)
        return fail(format.isUndefined()
                        ? QStringLiteral("format: missing; this is not a KernelPad project")
                        : QStringLiteral("format: expected \"%1\", got %2; this is not a "
                                         "KernelPad project")
                              .arg(kFormatMarker,
                                   format.isString()
                                       ? QLatin1Char('"') + format.toString() + QLatin1Char('"')
                                       : json::typeName(format)));
    qint64 versionNumber = 0;
    if (!fields.readWholeNumber(QStringLiteral("version"), &versionNumber,
                                json::Presence::Required))
        return false;
    if (versionNumber > Project::kFormatVersion)
        return fail(QStringLiteral("version: made by a newer KernelPad: version %1, this build "
                                   "reads up to %2")
                        .arg(versionNumber)
                        .arg(Project::kFormatVersion));
    if (versionNumber < 1)
        return fail(QStringLiteral("version: must be >= 1 (got %1)").arg(versionNumber));
    return true;
}

/// The "arguments" array, names unique; false with the message (naming the path) in `error`.
bool readProjectArguments(const json::FieldReader& fields, QVector<ArgumentSpec>* out,
                          QString* error) {
    const auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    QJsonArray args;
    if (!fields.readArray(QStringLiteral("arguments"), &args))
        return false;
    QString message;
    QHash<QString, qsizetype> seen; // name -> its index
    seen.reserve(args.size());
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString path = json::indexPath(QStringLiteral("arguments"), i);
        if (!args[i].isObject())
            return fail(json::typeError(path, QStringLiteral("an object"), args[i]));
        std::optional<ArgumentSpec> arg = ArgumentSpec::fromJson(args[i].toObject(), &message);
        if (!arg)
            return fail(withPath(path, message));
        // One lookup per argument: 40,000 compared pairwise took 7 s to open.
        if (const auto before = seen.constFind(arg->name); before != seen.cend())
            return fail(QStringLiteral("%1.name: duplicate argument name '%2' (also "
                                       "arguments[%3])")
                            .arg(path, arg->name)
                            .arg(*before));
        seen.insert(arg->name, i);
        out->append(std::move(*arg));
    }
    return true;
}

/// The "pipeline", "sweep", "baseline" and "tests" sections, which name the project's arguments;
/// false with the message (naming the field) in `error`.
bool readRunSections(const QJsonObject& json, const json::FieldReader& fields, Project* out,
                     QString* error) {
    const auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    Project& project = *out;
    QString message;
    if (json.contains(QStringLiteral("pipeline"))) {
        QJsonObject value;
        if (!fields.readObject(QStringLiteral("pipeline"), &value))
            return false;
        std::optional<Pipeline> pipeline = Pipeline::fromJson(value, project.arguments, &message);
        if (!pipeline)
            return fail(message);
        project.pipeline = std::move(*pipeline);
    }
    if (json.contains(QStringLiteral("sweep"))) {
        QJsonObject value;
        if (!fields.readObject(QStringLiteral("sweep"), &value))
            return false;
        std::optional<SweepSpec> sweep = SweepSpec::fromJson(value, project.arguments, &message);
        if (!sweep)
            return fail(message);
        project.sweep = std::move(*sweep);
    }
    if (json.contains(QStringLiteral("baseline"))) {
        QJsonObject value;
        if (!fields.readObject(QStringLiteral("baseline"), &value))
            return false;
        std::optional<BaselineSpec> baseline =
            BaselineSpec::fromJson(value, project.arguments, &message);
        if (!baseline)
            return fail(message);
        project.baseline = std::move(*baseline);
    }
    if (json.contains(QStringLiteral("tests"))) {
        std::optional<TestSpec> tests =
            TestSpec::fromJson(json.value(QStringLiteral("tests")), project.arguments, &message);
        if (!tests)
            return fail(message);
        project.tests = std::move(*tests);
    }
    if (project.sweep.objective == SweepObjective::Baseline && project.baseline.isEmpty())
        return fail(QStringLiteral("sweep.objective: \"baseline\" ranks by the ratio to the "
                                   "project's library baseline, but the project has no "
                                   "\"baseline\" section"));
    return true;
}

} // namespace

std::optional<Project> Project::fromJson(const QJsonObject& json, QString* error) {
    const auto fail = [error](const QString& message) -> std::optional<Project> {
        if (error)
            *error = message;
        return std::nullopt;
    };

    const json::FieldReader fields(json, error);
    if (!checkProjectFormat(json, fields, error))
        return std::nullopt;

    Project project;
    // Optional strings keep their defaults when absent; present ones must be strings.
    if (!fields.readString(QStringLiteral("name"), &project.name) ||
        !fields.readString(QStringLiteral("description"), &project.description) ||
        !fields.readString(QStringLiteral("sourceName"), &project.sourceName) ||
        !fields.readString(QStringLiteral("source"), &project.source, json::Presence::Required) ||
        !fields.readString(QStringLiteral("kernel"), &project.kernel, json::Presence::Required))
        return std::nullopt;
    QString message;
    // The name and the kernel reach log lines, window titles and NVRTC's name expressions; the
    // description is free text shown as such.
    for (const auto& [field, value] :
         {std::pair{"name", &project.name}, std::pair{"kernel", &project.kernel}}) {
        if (QString bad = controlCharacterError(QLatin1String(field), *value); !bad.isEmpty())
            return fail(bad);
    }
    if (project.kernel.trimmed().isEmpty())
        return fail(QStringLiteral("kernel: must name the kernel to launch"));
    if (QString bad = sourceNameProblem(project.sourceName); !bad.isEmpty())
        return fail(bad);
    QString language = languageName(SourceLanguage::Cuda);
    if (!fields.readString(QStringLiteral("language"), &language))
        return std::nullopt;
    if (const std::optional<SourceLanguage> known = languageFromName(language))
        project.language = *known;
    else
        return fail(QStringLiteral("language: must be one of %1 (got \"%2\")")
                        .arg(languageNames().join(QStringLiteral(", ")), language));

    if (json.contains(QStringLiteral("options"))) {
        QJsonObject value;
        if (!fields.readObject(QStringLiteral("options"), &value))
            return std::nullopt;
        std::optional<ProgramOptions> options = ProgramOptions::fromJson(value, &message);
        if (!options)
            return fail(withPath(QStringLiteral("options"), message));
        project.options = std::move(*options);
    }

    if (json.contains(QStringLiteral("arguments")) &&
        !readProjectArguments(fields, &project.arguments, error))
        return std::nullopt;

    if (json.contains(QStringLiteral("launch"))) {
        QJsonObject value;
        if (!fields.readObject(QStringLiteral("launch"), &value))
            return std::nullopt;
        std::optional<LaunchConfig> launch = LaunchConfig::fromJson(value, &message);
        if (!launch)
            return fail(withPath(QStringLiteral("launch"), message));
        project.launch = *launch;
    }

    if (json.contains(QStringLiteral("timing"))) {
        QJsonObject value;
        if (!fields.readObject(QStringLiteral("timing"), &value))
            return std::nullopt;
        std::optional<TimingSpec> timing = TimingSpec::fromJson(value, &message);
        if (!timing)
            return fail(withPath(QStringLiteral("timing"), message));
        project.timing = *timing;
    }
    if (!readGlobals(json, &project, &message))
        return fail(message);
    if (!readRunSections(json, fields, &project, error))
        return std::nullopt;
    // Validated by Lesson::load, which knows its fields; a plain project only carries it.
    if (json.contains(QStringLiteral("lesson")) &&
        !fields.readObject(QStringLiteral("lesson"), &project.lesson))
        return std::nullopt;
    return project;
}

std::optional<Project> Project::load(const QString& path, QString* error) {
    const QString shown = QDir::toNativeSeparators(path);
    const auto fail = [error](const QString& message) -> std::optional<Project> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    // Only a regular file of bounded size: a FIFO named *.kpad must not hang the window.
    QString why;
    ReadFailure failure = ReadFailure::None;
    const std::optional<QByteArray> read =
        readRegularFile(path, ReadLimits{kMaxProjectBytes, true}, &why, &failure);
    if (!read) {
        switch (failure) {
        case ReadFailure::Missing:
            return fail(QStringLiteral("cannot open project '%1': no such file").arg(shown));
        case ReadFailure::TooLarge:
            return fail(QStringLiteral("'%1' is larger than %2 MiB, the most a project file may "
                                       "be; it is not a project file (%3)")
                            .arg(shown)
                            .arg(kMaxProjectBytes >> 20)
                            .arg(why));
        default:
            return fail(QStringLiteral("cannot open project '%1': %2").arg(shown, why));
        }
    }
    const QByteArray& bytes = *read;

    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(
            QStringLiteral("'%1' is not valid JSON: %2 at %3")
                .arg(shown, parseError.errorString(), lineAndColumn(bytes, parseError.offset)));
    if (!document.isObject())
        return fail(QStringLiteral("'%1': a project file must hold one JSON object").arg(shown));
    QString message;
    std::optional<Project> project = fromJson(document.object(), &message);
    if (!project)
        return fail(QStringLiteral("'%1': %2").arg(shown, message));
    return project;
}

bool Project::save(const QString& path, QString* error) const {
    // Written beside, synced, then renamed: a crash or a full disk never leaves half a project,
    // and the old file stays until the new one is whole.
    QString why;
    const QJsonObject json = toJson();
    // Every file KernelPad writes must open again: a value the loader refuses (an NVRTC flag
    // off the allow-list, a control character in a name) is named now, while the window
    // still holds the work, not when someone opens the file.
    if (!fromJson(json, &why)) {
        if (error)
            *error = QStringLiteral("cannot save project to '%1': %2; change it and save again")
                         .arg(QDir::toNativeSeparators(path), why);
        return false;
    }
    if (!writeFileAtomically(path, QJsonDocument(json).toJson(QJsonDocument::Indented), &why)) {
        if (error)
            *error = QStringLiteral("cannot save project to '%1': %2")
                         .arg(QDir::toNativeSeparators(path), why);
        return false;
    }
    return true;
}

bool operator==(const Project& a, const Project& b) {
    return a.toJson() == b.toJson();
}

} // namespace kernelpad
