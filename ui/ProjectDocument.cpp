#include "ui/ProjectDocument.h"

#include "core/io/SafeFile.h"
#include "core/project/Examples.h"
#include "ui/SettingsHistory.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QUuid>

#include <algorithm>

namespace kernelpad {

namespace {
const char kRecoveryFormat[] = "kernelpad-recovery";
constexpr int kRecoveryVersion = 1;

QString lockPathFor(const QString& recoveryPath) {
    return recoveryPath + QStringLiteral(".lock");
}

// A project file must name a kernel (Project::fromJson insists); before the first compile
// the best guess is the first __global__ function of the source.
QString guessKernelName(const QString& source) {
    static const QRegularExpression re(
        QStringLiteral("__global__[^(;{]*?([A-Za-z_][A-Za-z0-9_]*)\\s*\\("));
    const QRegularExpressionMatch m = re.match(source);
    return m.hasMatch() ? m.captured(1) : QStringLiteral("kernel");
}
} // namespace

ProjectDocument::ProjectDocument(QObject* parent)
    : QObject(parent) {
    m_autosave.setSingleShot(true);
    m_autosave.setInterval(kAutosaveIntervalMs);
    connect(&m_autosave, &QTimer::timeout, this, [this] {
        QString error;
        if (!autosaveNow(&error) && !error.isEmpty())
            emit autosaveFailed(error);
    });
    newRecoveryPath();
    m_settingsHistory = new SettingsHistory(this);
}

// The recovery file is deliberately left in place: only removeRecovery() (save, discard,
// clean close) deletes it, so a window torn down any other way is recoverable.
ProjectDocument::~ProjectDocument() = default;

QString ProjectDocument::displayName() const {
    if (!m_path.isEmpty())
        return QFileInfo(m_path).fileName();
    const QString name = m_untitledName.isEmpty() ? tr("Untitled") : m_untitledName;
    return m_copyOf.isEmpty() ? name : tr("%1 (copy of %2)").arg(name, m_copyOf);
}

void ProjectDocument::setCopyOf(const QString& origin) {
    if (m_copyOf == origin)
        return;
    m_copyOf = origin;
    if (m_path.isEmpty())
        emit pathChanged(m_path); // the title follows the display name
}

QString ProjectDocument::saveDirectory() const {
    // A file name that does not exist stands for "a new file in this folder".
    const auto mayCreateIn = [](const QString& folder) {
        return !folder.isEmpty() && QFileInfo(folder).isDir() &&
               protectedReason(QDir(folder).filePath(QStringLiteral(".kernelpad-new"))).isEmpty();
    };
    const QString origin = m_path.isEmpty() ? m_copyDirectory : QFileInfo(m_path).absolutePath();
    if (mayCreateIn(origin))
        return origin;
    if (mayCreateIn(QDir::currentPath()))
        return QDir::currentPath();
    return QDir::homePath();
}

bool ProjectDocument::isWritableFolder(const QString& folder) {
    const QFileInfo info(folder);
    return info.isDir() && info.isWritable() && info.permission(QFile::WriteOwner);
}

QString ProjectDocument::protectedReason(const QString& path) {
    const QFileInfo file(path);
    switch (shippedKind(file.exists() ? path : file.absolutePath())) {
    case ShippedKind::Example:
        return tr("the shipped example");
    case ShippedKind::Template:
        return tr("the template");
    case ShippedKind::Lesson:
        return tr("the shipped lesson");
    case ShippedKind::None:
        break;
    }
    // A save writes a new file beside the old one and renames it over (core/io/SafeFile.h),
    // so the folder must be writable as well as the file.
    if (!isWritableFolder(file.absolutePath()))
        return tr("a read-only folder");
    if (file.exists() && (!file.isWritable() || !file.permission(QFile::WriteOwner)))
        return tr("a read-only file");
    return {};
}

void ProjectDocument::setUntitledName(const QString& name) {
    if (m_untitledName == name)
        return;
    m_untitledName = name;
    if (m_path.isEmpty())
        emit pathChanged(m_path); // the title follows the display name
}

QString ProjectDocument::directory() const {
    if (!m_path.isEmpty())
        return QFileInfo(m_path).absolutePath();
    return m_copyDirectory.isEmpty() ? QDir::currentPath() : m_copyDirectory;
}

void ProjectDocument::changedField(void (ProjectDocument::*signal)()) {
    // Undoing back to the text (or setting back to the value) last opened or saved leaves
    // nothing unsaved: no "*", no question on close, no recovery file.
    if (m_savedProject && m_project == *m_savedProject) {
        removeRecovery();
        setDirty(false);
    } else {
        markChanged();
    }
    emit(this->*signal)();
    emit edited();
}

void ProjectDocument::setSource(const QString& source) {
    if (m_project.source == source)
        return;
    m_project.source = source;
    changedField(&ProjectDocument::sourceChanged);
}

void ProjectDocument::setOptions(const ProgramOptions& options) {
    if (m_project.options == options)
        return;
    m_project.options = options;
    changedField(&ProjectDocument::optionsChanged);
}

void ProjectDocument::setKernel(const QString& kernel) {
    const QString trimmed = kernel.trimmed();
    if (m_project.kernel == trimmed)
        return;
    m_project.kernel = trimmed;
    changedField(&ProjectDocument::kernelChanged);
}

void ProjectDocument::setArguments(const QVector<ArgumentSpec>& arguments) {
    const bool same = arguments.size() == m_project.arguments.size() &&
                      std::equal(arguments.cbegin(), arguments.cend(), m_project.arguments.cbegin(),
                                 [](const ArgumentSpec& a, const ArgumentSpec& b) {
                                     return a.toJson() == b.toJson();
                                 });
    if (same)
        return;
    m_project.arguments = arguments;
    changedField(&ProjectDocument::argumentsChanged);
}

void ProjectDocument::setGlobals(const QVector<GlobalSpec>& globals) {
    if (m_project.globals == globals)
        return;
    m_project.globals = globals;
    changedField(&ProjectDocument::globalsChanged);
}

void ProjectDocument::setLaunch(const LaunchConfig& launch) {
    if (m_project.launch == launch)
        return;
    m_project.launch = launch;
    changedField(&ProjectDocument::launchChanged);
}

void ProjectDocument::setSweep(const SweepSpec& sweep) {
    if (m_project.sweep == sweep)
        return;
    m_project.sweep = sweep;
    changedField(&ProjectDocument::sweepChanged);
}

void ProjectDocument::setBaseline(const BaselineSpec& baseline) {
    if (m_project.baseline == baseline)
        return;
    m_project.baseline = baseline;
    changedField(&ProjectDocument::baselineChanged);
}

void ProjectDocument::setTiming(const TimingSpec& timing) {
    if (m_project.timing == timing)
        return;
    m_project.timing = timing;
    changedField(&ProjectDocument::timingChanged);
}

void ProjectDocument::setPipeline(const Pipeline& pipeline) {
    if (m_project.pipeline == pipeline)
        return;
    m_project.pipeline = pipeline;
    changedField(&ProjectDocument::pipelineChanged);
}

void ProjectDocument::replace(const Project& project, const QString& path,
                              const QString& copyDirectory) {
    m_project = project;
    m_savedProject = project;
    m_untitledName = project.name;
    reset(path);
    if (!copyDirectory.isEmpty())
        m_copyDirectory = QFileInfo(copyDirectory).absoluteFilePath();
    emit projectReplaced();
}

std::optional<Project> ProjectDocument::read(const QString& path, QString* error) {
    QString why;
    std::optional<Project> project = Project::load(path, &why);
    if (!project && error)
        *error = why.isEmpty() ? tr("%1 could not be read.").arg(path) : why;
    return project;
}

bool ProjectDocument::open(const QString& path, QString* error) {
    std::optional<Project> project = read(path, error);
    if (!project)
        return false;
    replace(*project, path);
    return true;
}

bool ProjectDocument::save(const QString& path, QString* error) {
    QString target = path;
    if (QFileInfo(target).suffix().isEmpty())
        target += QStringLiteral(".kpad");
    Project project = m_project;
    if (project.name.isEmpty() || project.name == tr("Untitled"))
        project.name = QFileInfo(target).completeBaseName();
    if (project.kernel.isEmpty())
        project.kernel = guessKernelName(project.source);
    // Not even when asked by name: the shipped examples stay what they are for everyone.
    if (const QString reason = protectedReason(target);
        !reason.isEmpty() && QFileInfo(target).absoluteDir().exists()) {
        if (error)
            *error = tr("%1 was not written: it is in %2, which KernelPad does not write over. "
                        "Save it in a folder of yours.")
                         .arg(QDir::toNativeSeparators(target), reason);
        return false;
    }
    QString why;
    if (!project.save(target, &why)) {
        if (error)
            *error = why.isEmpty() ? tr("%1 could not be written.").arg(target) : why;
        return false;
    }
    const bool kernelGuessed = project.kernel != m_project.kernel;
    m_project = project;
    m_savedProject = project;
    m_untitledName = project.name;
    const QString absolute = QFileInfo(target).absoluteFilePath();
    if (absolute != m_path) {
        m_path = absolute;
        m_copyDirectory.clear();
        m_copyOf.clear();
        emit pathChanged(m_path);
    }
    removeRecovery();
    if (kernelGuessed)
        emit kernelChanged();
    setDirty(false);
    return true;
}

void ProjectDocument::reset(const QString& path) {
    m_copyDirectory.clear();
    m_copyOf.clear();
    removeRecovery();
    newRecoveryPath();
    m_path = path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
    emit pathChanged(m_path);
    setDirty(false);
}

void ProjectDocument::markChanged() {
    m_recoveryStale = true;
    setDirty(true);
    if (!m_autosave.isActive())
        m_autosave.start();
}

void ProjectDocument::cleanIfSaved() {
    if (!m_dirty || !m_savedProject || !(m_project == *m_savedProject))
        return;
    removeRecovery();
    setDirty(false);
}

void ProjectDocument::setDirty(bool dirty) {
    if (!dirty) {
        m_recoveryStale = false;
        m_autosave.stop();
    }
    if (m_dirty == dirty)
        return;
    m_dirty = dirty;
    emit dirtyChanged(dirty);
}

void ProjectDocument::setAutosaveIntervalMs(int intervalMs) {
    m_autosave.setInterval(std::max(1, intervalMs));
}

bool ProjectDocument::autosaveNow(QString* error) {
    if (!m_dirty)
        return false;
    if (!QDir().mkpath(recoveryDirectory())) {
        if (error)
            *error = tr("Cannot create the recovery folder %1.").arg(recoveryDirectory());
        return false;
    }
    if (!m_lock) {
        m_lock = std::make_unique<QLockFile>(lockPathFor(m_recoveryPath));
        // Held for the document's life; a crashed process leaves a stale lock that
        // findRecoveryFiles() recognises by its dead PID.
        m_lock->tryLock(0);
    }
    QJsonObject json;
    json.insert(QStringLiteral("format"), QLatin1String(kRecoveryFormat));
    json.insert(QStringLiteral("version"), kRecoveryVersion);
    json.insert(QStringLiteral("originalPath"), m_path);
    json.insert(QStringLiteral("savedAt"),
                QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
    json.insert(QStringLiteral("project"), m_project.toJson());

    QString why;
    if (!writeFileAtomically(m_recoveryPath, QJsonDocument(json).toJson(QJsonDocument::Indented),
                             &why)) {
        if (error)
            *error = tr("Autosave to %1 failed: %2").arg(m_recoveryPath, why);
        return false;
    }
    m_recoveryStale = false;
    return true;
}

bool ProjectDocument::hasRecoveryFile() const {
    return QFileInfo::exists(m_recoveryPath);
}

void ProjectDocument::removeRecovery() {
    m_autosave.stop();
    if (!m_recoveryPath.isEmpty())
        QFile::remove(m_recoveryPath);
    releaseLock();
}

void ProjectDocument::adoptRecovery(const RecoveryEntry& entry) {
    releaseLock();
    m_recoveryPath = entry.recoveryPath;
    m_lock = std::make_unique<QLockFile>(lockPathFor(m_recoveryPath));
    m_lock->tryLock(0);
    m_project = entry.project;
    m_savedProject.reset();
    m_untitledName = entry.project.name;
    m_copyDirectory.clear();
    m_copyOf.clear();
    m_path = entry.originalPath;
    emit projectReplaced();
    emit pathChanged(m_path);
    setDirty(true);
    m_recoveryStale = false; // the file on disk is exactly what was restored
}

void ProjectDocument::newRecoveryPath() {
    releaseLock();
    m_recoveryPath =
        QDir(recoveryDirectory())
            .filePath(QUuid::createUuid().toString(QUuid::WithoutBraces) + QStringLiteral(".json"));
}

void ProjectDocument::releaseLock() {
    if (m_lock) {
        m_lock->unlock();
        m_lock.reset();
    }
}

QString ProjectDocument::recoveryDirectory() {
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
        .filePath(QStringLiteral("recovery"));
}

std::optional<RecoveryEntry> ProjectDocument::readRecovery(const QString& file, QString* error) {
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = tr("%1: %2").arg(file, f.errorString());
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &parseError);
    if (!doc.isObject()) {
        if (error)
            *error = tr("%1: not JSON (%2)").arg(file, parseError.errorString());
        return std::nullopt;
    }
    const QJsonObject json = doc.object();
    if (json.value(QStringLiteral("format")).toString() != QLatin1String(kRecoveryFormat)) {
        if (error)
            *error = tr("%1: not a KernelPad recovery file").arg(file);
        return std::nullopt;
    }
    const QJsonObject projectJson = json.value(QStringLiteral("project")).toObject();
    QString why;
    std::optional<Project> project = Project::fromJson(projectJson, &why);
    if (!project) {
        // Half-finished work may not be a valid project yet (no kernel chosen, a field
        // mid-edit); the typed source still matters more than the rest, so keep it.
        const QString source = projectJson.value(QStringLiteral("source")).toString();
        if (source.isEmpty()) {
            if (error)
                *error = tr("%1: project: %2").arg(file, why);
            return std::nullopt;
        }
        Project salvaged;
        salvaged.source = source;
        salvaged.name = projectJson.value(QStringLiteral("name")).toString();
        salvaged.kernel = projectJson.value(QStringLiteral("kernel")).toString();
        const QString sourceName = projectJson.value(QStringLiteral("sourceName")).toString();
        if (!sourceName.trimmed().isEmpty())
            salvaged.sourceName = sourceName;
        project = std::move(salvaged);
    }
    RecoveryEntry entry;
    entry.recoveryPath = QFileInfo(file).absoluteFilePath();
    entry.originalPath = json.value(QStringLiteral("originalPath")).toString();
    entry.savedAt =
        QDateTime::fromString(json.value(QStringLiteral("savedAt")).toString(), Qt::ISODateWithMs);
    entry.project = std::move(*project);
    return entry;
}

QVector<RecoveryEntry> ProjectDocument::findRecoveryFiles() {
    QVector<RecoveryEntry> entries;
    const QDir dir(recoveryDirectory());
    const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files);
    for (const QString& name : files) {
        const QString path = dir.filePath(name);
        QLockFile lock(lockPathFor(path));
        if (!lock.tryLock(0))
            continue; // a running KernelPad is still editing this document
        lock.unlock();
        if (std::optional<RecoveryEntry> entry = readRecovery(path, nullptr))
            entries.append(std::move(*entry));
    }
    std::sort(entries.begin(), entries.end(),
              [](const RecoveryEntry& a, const RecoveryEntry& b) { return a.savedAt > b.savedAt; });
    return entries;
}

} // namespace kernelpad
