#include "ui/ProjectDocument.h"

#include "core/io/SafeFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
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
}

// The recovery file is deliberately left in place: only removeRecovery() (save, discard,
// clean close) deletes it, so a window torn down any other way is recoverable.
ProjectDocument::~ProjectDocument() = default;

QString ProjectDocument::displayName() const {
    return m_path.isEmpty() ? tr("Untitled") : QFileInfo(m_path).fileName();
}

QString ProjectDocument::directory() const {
    if (!m_path.isEmpty())
        return QFileInfo(m_path).absolutePath();
    return m_copyDirectory.isEmpty() ? QDir::currentPath() : m_copyDirectory;
}

std::optional<Project> ProjectDocument::load(const QString& path, QString* error) {
    QString why;
    std::optional<Project> project = Project::load(path, &why);
    if (!project) {
        if (error)
            *error = why.isEmpty() ? tr("%1 could not be read.").arg(path) : why;
        return std::nullopt;
    }
    removeRecovery();
    newRecoveryPath();
    m_copyDirectory.clear();
    m_path = QFileInfo(path).absoluteFilePath();
    emit pathChanged(m_path);
    setDirty(false);
    return project;
}

bool ProjectDocument::save(const Project& project, const QString& path, QString* error) {
    QString why;
    if (!project.save(path, &why)) {
        if (error)
            *error = why.isEmpty() ? tr("%1 could not be written.").arg(path) : why;
        return false;
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (absolute != m_path) {
        m_path = absolute;
        emit pathChanged(m_path);
    }
    removeRecovery();
    setDirty(false);
    return true;
}

void ProjectDocument::reset(const QString& path) {
    m_copyDirectory.clear();
    removeRecovery();
    newRecoveryPath();
    m_path = path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
    emit pathChanged(m_path);
    setDirty(false);
}

void ProjectDocument::resetAsCopy(const QString& directory) {
    reset();
    m_copyDirectory = QFileInfo(directory).absoluteFilePath();
}

void ProjectDocument::markChanged() {
    m_recoveryStale = true;
    setDirty(true);
    if (!m_autosave.isActive())
        m_autosave.start();
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

void ProjectDocument::setSnapshotProvider(std::function<Project()> provider) {
    m_snapshot = std::move(provider);
}

void ProjectDocument::setAutosaveIntervalMs(int intervalMs) {
    m_autosave.setInterval(std::max(1, intervalMs));
}

bool ProjectDocument::autosaveNow(QString* error) {
    if (!m_dirty || !m_snapshot)
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
    json.insert(QStringLiteral("project"), m_snapshot().toJson());

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
    m_path = entry.originalPath;
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
