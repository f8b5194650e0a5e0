#include "core/sweep/SweepResultsPath.h"

#include "core/sweep/SweepSpace.h"
#include "core/sweep/SweepStrategy.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QThread>

#include <algorithm>

#include <sys/stat.h>
#include <unistd.h>

namespace kernelpad {

namespace {

/// The hex digits of the hash kept in a file name: short enough to read, and a collision
/// between two versions of one project's sweep is not a practical worry at 32 bits.
constexpr int kHashDigits = 8;

/// What keys a project's results folder: the project file's canonical path, or, while it
/// does not exist, its canonical folder's path and its name.
QString canonicalProjectPath(const QString& projectPath) {
    const QFileInfo info(projectPath);
    const QString canonical = info.canonicalFilePath();
    if (!canonical.isEmpty())
        return canonical;
    const QString folder = QFileInfo(info.absolutePath()).canonicalFilePath();
    return folder.isEmpty() ? info.absoluteFilePath() : folder + QLatin1Char('/') + info.fileName();
}

/// Makes `path` a folder only its owner can enter (mode 0700), or tightens one of the user's
/// that an older KernelPad made with the umask's mode.
void makePrivateFolder(const QString& path) {
    const QByteArray name = QFile::encodeName(path);
    if (::mkdir(name.constData(), 0700) == 0)
        return;
    struct stat st {};
    if (::lstat(name.constData(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
        (st.st_mode & 077) != 0)
        ::chmod(name.constData(), 0700);
}

/// "NAME.sweep-HASH.jsonl" of `projectPath` ("untitled" when empty); NAME that of the file a
/// link to the project leads to, so that every path to it names one file.
QString resultsFileName(const QString& projectPath, const QString& hash) {
    return QStringLiteral("%1.sweep-%2.jsonl")
        .arg(projectPath.isEmpty()
                 ? QStringLiteral("untitled")
                 : QFileInfo(canonicalProjectPath(projectPath)).completeBaseName(),
             hash);
}

/// "NAME.sweep-" of a results file name, or empty when `fileName` is not one.
QString resultsPrefix(const QString& fileName) {
    const qsizetype at = fileName.lastIndexOf(QStringLiteral(".sweep-"));
    return at > 0 && fileName.endsWith(QStringLiteral(".jsonl")) ? fileName.left(at + 7)
                                                                 : QString();
}

} // namespace

QString sweepDeviceKey(QStringList deviceNames) {
    deviceNames.removeAll(QString());
    std::sort(deviceNames.begin(), deviceNames.end());
    deviceNames.erase(std::unique(deviceNames.begin(), deviceNames.end()), deviceNames.end());
    return deviceNames.join(QStringLiteral(" + "));
}

QString sweepResultsHash(const Project& project, const QString& deviceKey) {
    // The project a configuration runs has every field a tunable sets overwritten by the
    // tunable's value; the first configuration that maps stands for them all.
    Project runs = project;
    QString ignored;
    if (std::unique_ptr<SweepSpace> space = SweepSpace::create(project, &ignored)) {
        for (const SweepPoint& point : space->points()) {
            if (std::optional<Project> mapped = space->project(point, &ignored)) {
                runs = std::move(*mapped);
                break;
            }
        }
    }
    QJsonObject json = runs.toJson();
    for (const char* field : {"name", "description", "lesson", "sweep"})
        json.remove(QLatin1String(field));
    QJsonObject sweep = project.sweep.toJson();
    sweep.remove(QStringLiteral("strategy"));
    sweep.remove(QStringLiteral("objective"));
    json.insert(QStringLiteral("sweep"), sweep);
    json.insert(QStringLiteral("devices"), deviceKey);
    return QString::fromLatin1(
        QCryptographicHash::hash(QJsonDocument(json).toJson(QJsonDocument::Compact),
                                 QCryptographicHash::Sha1)
            .toHex()
            .left(kHashDigits));
}

QString sweepResultsCacheDirectory() {
    QString base = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
    if (base.isEmpty())
        base = QDir::tempPath();
    QDir().mkpath(base + QStringLiteral("/kernelpad"));
    const QString dir = base + QStringLiteral("/kernelpad/sweeps");
    makePrivateFolder(dir);
    return dir;
}

QString sweepResultsDirectory(const QString& projectPath) {
    const QString key =
        projectPath.isEmpty()
            ? QStringLiteral("untitled")
            : QString::fromLatin1(
                  QCryptographicHash::hash(QFile::encodeName(canonicalProjectPath(projectPath)),
                                           QCryptographicHash::Sha256)
                      .toHex());
    const QString dir = sweepResultsCacheDirectory() + QLatin1Char('/') + key;
    makePrivateFolder(dir);
    return dir;
}

QString sweepResultsPath(const Project& project, const QString& projectPath,
                         const QString& deviceKey) {
    return sweepResultsDirectory(projectPath) + QLatin1Char('/') +
           resultsFileName(projectPath, sweepResultsHash(project, deviceKey));
}

QStringList sweepResultsBesideProject(const QString& projectPath) {
    if (projectPath.isEmpty())
        return {};
    const QFileInfo info(projectPath);
    const QString prefix = info.completeBaseName() + QStringLiteral(".sweep-");
    // Names only: QDir::System lists links and FIFOs too, and nothing is opened.
    QStringList out;
    for (const QString& name :
         info.dir().entryList({prefix + QStringLiteral("*.jsonl")},
                              QDir::Files | QDir::System | QDir::Hidden, QDir::Name))
        if (resultsPrefix(name) == prefix)
            out.append(info.dir().filePath(name));
    return out;
}

QStringList staleSweepResults(const QString& resultsPath) {
    const QFileInfo info(resultsPath);
    const QString prefix = resultsPrefix(info.fileName());
    if (prefix.isEmpty())
        return {};
    QStringList out;
    const QFileInfoList found =
        info.dir().entryInfoList({prefix + QStringLiteral("*.jsonl")}, QDir::Files, QDir::Time);
    for (const QFileInfo& other : found)
        if (other.fileName() != info.fileName() && resultsPrefix(other.fileName()) == prefix)
            out.append(other.absoluteFilePath());
    return out;
}

SweepResultsSnapshot loadSweepResults(const Project& project, const QString& projectPath,
                                      const QString& deviceKey) {
    SweepResultsSnapshot snapshot;
    snapshot.path = sweepResultsPath(project, projectPath, deviceKey);
    QString ignored;
    if (std::unique_ptr<SweepSpace> space = SweepSpace::create(project, &ignored))
        snapshot.total = SweepStrategy::create(project.sweep.strategy, *space)->limit();
    const QFileInfo info(snapshot.path);
    // Anything under the name counts, a link or a FIFO included: the read refuses it, by name.
    snapshot.exists = info.exists() || info.isSymLink();
    if (snapshot.exists) {
        snapshot.modified = info.lastModified();
        if (std::optional<QVector<SweepRecord>> records =
                readSweepResults(snapshot.path, &snapshot.error))
            snapshot.records = std::move(*records);
    }
    snapshot.stale = staleSweepResults(snapshot.path);
    snapshot.besideProject = sweepResultsBesideProject(projectPath);
    return snapshot;
}

SweepResultsLoader::SweepResultsLoader(QObject* parent)
    : QObject(parent) {
    qRegisterMetaType<kernelpad::SweepResultsSnapshot>();
}

SweepResultsLoader::~SweepResultsLoader() {
    if (!m_thread)
        return;
    m_thread->quit();
    m_thread->wait();
    delete m_worker;
    delete m_thread;
}

void SweepResultsLoader::request(const Project& project, const QString& projectPath,
                                 const QString& deviceKey) {
    if (!m_thread) {
        m_thread = new QThread;
        m_thread->setObjectName(QStringLiteral("sweep results"));
        m_worker = new QObject;
        m_worker->moveToThread(m_thread);
        m_thread->start();
    }
    const quint64 generation = ++m_generation;
    QMetaObject::invokeMethod(
        m_worker,
        [this, generation, project, projectPath, deviceKey] {
            SweepResultsSnapshot snapshot = loadSweepResults(project, projectPath, deviceKey);
            snapshot.generation = generation;
            // Delivered on this object's thread; the destructor waits for this thread, so
            // `this` outlives the call, and a queued call to a deleted object is dropped.
            QMetaObject::invokeMethod(
                this,
                [this, snapshot] {
                    if (snapshot.generation == m_generation)
                        emit loaded(snapshot);
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

} // namespace kernelpad
