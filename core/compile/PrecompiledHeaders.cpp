#include "core/compile/PrecompiledHeaders.h"

#include "core/compile/DiskCompileCache.h"
#include "core/compile/NvrtcApi.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QHash>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSet>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace kernelpad {

namespace {

/// Bumped when NVRTC reports the heap too small: the required size plus this share, so that a
/// slightly larger header set does not need another resize.
constexpr double kHeapHeadroom = 1.25;
/// A process folder without its lock file (its process died between mkdir and lock) is
/// deleted once it is this old.
constexpr qint64 kUnlockedFolderAgeSeconds = 600;
constexpr const char* kLockName = "owner.lock";

std::atomic_bool g_enabled{qEnvironmentVariable("KERNELPAD_PCH") != QLatin1String("off")};
std::atomic_int g_created{0};
std::atomic_int g_used{0};
std::atomic_int g_fallbacks{0};
std::atomic_bool g_failureNoted{false};
/// The heap size NVRTC last asked for (0: none pending), applied before the next PCH compile.
std::atomic<size_t> g_heapWanted{0};

/// One PCH heap per process: a PCH compile holds this while NVRTC runs.
std::mutex& pchMutex() {
    static std::mutex mutex;
    return mutex;
}

/// Makes `path` and the folders above it that are missing, each readable by this user only.
bool makePrivatePath(const QString& path) {
    if (QFileInfo(path).isDir())
        return true;
    const QString parent = QFileInfo(path).absolutePath();
    if (parent != path && !makePrivatePath(parent))
        return false;
    return ::mkdir(QFile::encodeName(path).constData(), 0700) == 0 || QFileInfo(path).isDir();
}

/// The folder of this process under one PCH root, held by a lock on its file "owner.lock" for
/// the process's lifetime and deleted when the process ends normally (NVRTC deletes its own files
/// then too).
class ProcessFolder {
public:
    explicit ProcessFolder(const QString& root) {
        if (!makePrivatePath(root))
            return;
        pruneDeadSiblings(root);
        const QString name =
            QStringLiteral("%1-%2")
                .arg(qint64(::getpid()))
                .arg(QRandomGenerator::system()->generate64(), 16, 16, QLatin1Char('0'));
        const QString path = root + QLatin1Char('/') + name;
        if (::mkdir(QFile::encodeName(path).constData(), 0700) != 0)
            return;
        // flock, not QLockFile: the lock ends with the process however it ends, and a pid
        // that another process took over later cannot keep a dead folder alive.
        m_lockFd = ::open(
            QFile::encodeName(path + QLatin1Char('/') + QLatin1String(kLockName)).constData(),
            O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (m_lockFd < 0 || ::flock(m_lockFd, LOCK_EX | LOCK_NB) != 0) {
            QDir(path).removeRecursively();
            return;
        }
        m_path = path;
    }
    ProcessFolder(const ProcessFolder&) = delete;
    ProcessFolder& operator=(const ProcessFolder&) = delete;
    ~ProcessFolder() {
        if (!m_path.isEmpty())
            QDir(m_path).removeRecursively();
        if (m_lockFd >= 0)
            ::close(m_lockFd);
    }
    [[nodiscard]] const QString& path() const { return m_path; }

private:
    /// Deletes the folders of processes that ended without deleting theirs (a crash, a kill):
    /// the lock on their "owner.lock" ended with them, so it can be taken.
    static void pruneDeadSiblings(const QString& root) {
        const QFileInfoList folders =
            QDir(root).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks);
        for (const QFileInfo& folder : folders) {
            const QString lockPath =
                folder.absoluteFilePath() + QLatin1Char('/') + QLatin1String(kLockName);
            if (!QFileInfo::exists(lockPath)) {
                if (folder.lastModified().secsTo(QDateTime::currentDateTime()) >
                    kUnlockedFolderAgeSeconds)
                    QDir(folder.absoluteFilePath()).removeRecursively();
                continue;
            }
            const int fd =
                ::open(QFile::encodeName(lockPath).constData(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
            if (fd < 0)
                continue;
            if (::flock(fd, LOCK_EX | LOCK_NB) == 0) // its owner is gone
                QDir(folder.absoluteFilePath()).removeRecursively();
            ::close(fd);
        }
    }

    QString m_path;
    int m_lockFd = -1;
};

QString nvrtcVersionName(const NvrtcApi& api) {
    int major = 0;
    int minor = 0;
    if (api.nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return {};
    return QStringLiteral("nvrtc-%1.%2").arg(major).arg(minor);
}

/// The PCH root for a cache folder: "<cache>/pch/nvrtc-13.0" (the disk cache keeps its entries
/// as files in <cache>, so a folder beside them is not one of its entries).
QString pchRoot(const QString& cacheDirectory, const QString& version) {
    return QDir::cleanPath(cacheDirectory + QStringLiteral("/pch/") + version);
}

/// Deletes this process's oldest PCH files until they hold at most kMaxPchBytesPerProcess.
void boundFolder(const QString& processDirectory) {
    QFileInfoList files;
    QDirIterator it(processDirectory, {QStringLiteral("*.pch")}, QDir::Files | QDir::NoSymLinks,
                    QDirIterator::Subdirectories);
    qint64 total = 0;
    while (it.hasNext()) {
        files.append(it.nextFileInfo());
        total += files.back().size();
    }
    if (total <= kMaxPchBytesPerProcess)
        return;
    std::sort(files.begin(), files.end(), [](const QFileInfo& a, const QFileInfo& b) {
        return a.lastModified() < b.lastModified();
    });
    for (const QFileInfo& file : std::as_const(files)) {
        if (total <= kMaxPchBytesPerProcess)
            break;
        if (QFile::remove(file.absoluteFilePath()))
            total -= file.size();
    }
}

/// Grows NVRTC's PCH heap to what a compile asked for; only while no PCH compile runs (the
/// caller holds pchMutex), since resizing frees the heap every PCH file of this process
/// points into.
void applyHeapSize(const NvrtcApi& api) {
    const size_t wanted = g_heapWanted.exchange(0);
    size_t current = 0;
    if (wanted == 0 || api.nvrtcGetPCHHeapSize(&current) != NVRTC_SUCCESS || current >= wanted)
        return;
    (void)api.nvrtcSetPCHHeapSize(wanted);
}

} // namespace

PchTicket::~PchTicket() = default;

void PchTicket::release() {
    m_lock.reset();
}

QString pchProcessDirectory(const QString& cacheDirectory) {
    const NvrtcApi* api = NvrtcApi::load();
    if (!api || cacheDirectory.isEmpty())
        return {};
    static std::mutex mutex;
    static std::map<QString, std::unique_ptr<ProcessFolder>> folders;
    const std::lock_guard<std::mutex> lock(mutex);
    if (!DiskCompileCache::folderProblem(cacheDirectory).isEmpty())
        return {}; // the disk cache says why (DiskCompileCache::takeNotice)
    const QString root = pchRoot(cacheDirectory, nvrtcVersionName(*api));
    std::unique_ptr<ProcessFolder>& folder = folders[root];
    if (!folder)
        folder = std::make_unique<ProcessFolder>(root);
    return folder->path();
}

bool includesBeforeCode(const QString& source) {
    bool inComment = false;
    for (QString line : source.split(QLatin1Char('\n'))) {
        line = line.trimmed();
        if (inComment) {
            const qsizetype end = line.indexOf(QLatin1String("*/"));
            if (end < 0)
                continue;
            inComment = false;
            line = line.mid(end + 2).trimmed();
        }
        while (line.startsWith(QLatin1String("/*"))) {
            const qsizetype end = line.indexOf(QLatin1String("*/"), 2);
            if (end < 0) {
                inComment = true;
                break;
            }
            line = line.mid(end + 2).trimmed();
        }
        if (inComment || line.isEmpty() || line.startsWith(QLatin1String("//")))
            continue;
        if (!line.startsWith(QLatin1Char('#')))
            return false; // the header stop: NVRTC precompiles nothing after it
        if (line.mid(1).trimmed().startsWith(QLatin1String("include")))
            return true;
    }
    return false;
}

QByteArray pchHeadersDigest(const QStringList& names, const QList<QByteArray>& texts) {
    if (names.isEmpty())
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (qsizetype i = 0; i < names.size() && i < texts.size(); ++i) {
        // Lengths first, so that no two lists of names and texts hash alike.
        for (const QByteArray& part : {names.at(i).toUtf8(), texts.at(i)}) {
            hash.addData(QByteArray::number(part.size()) + '\n');
            hash.addData(part);
        }
    }
    return hash.result();
}

PchTicket takePchTicket(const NvrtcApi& api, const QStringList& flags, const QString& source,
                        const QByteArray& headersDigest) {
    PchTicket ticket;
    if (!g_enabled.load() || !includesBeforeCode(source) || !api.nvrtcGetPCHCreateStatus ||
        !api.nvrtcSetPCHHeapSize || !api.nvrtcGetPCHHeapSize || !api.nvrtcGetPCHHeapSizeRequired)
        return ticket;
    const QString processDirectory = pchProcessDirectory(DiskCompileCache::defaultDirectory());
    if (processDirectory.isEmpty())
        return ticket;
    auto lock = std::make_shared<std::unique_lock<std::mutex>>(pchMutex(), std::try_to_lock);
    if (!lock->owns_lock())
        return ticket; // another compile of this process holds the heap: go without
    applyHeapSize(api);
    // One folder per option set (NVRTC reuses a file only for the same flags anyway) and text
    // of the project headers (which NVRTC does not check).
    QCryptographicHash optionHash(QCryptographicHash::Sha256);
    optionHash.addData(flags.join(QLatin1Char('\n')).toUtf8());
    optionHash.addData(headersDigest);
    const QByteArray optionSet = optionHash.result().toHex().left(16);
    const QString directory = processDirectory + QLatin1Char('/') + QString::fromLatin1(optionSet);
    if (!QFileInfo::exists(directory) && ::mkdir(QFile::encodeName(directory).constData(), 0700))
        return ticket;
    ticket.m_directory = directory;
    ticket.m_lock = std::move(lock);
    // pch-verbose off: a PCH file that does not fit is no concern of the user's; 639 is the
    // warning "insufficient preallocated memory" that the heap's growth answers.
    ticket.m_flags =
        QStringList{QStringLiteral("-pch"), QStringLiteral("--pch-dir=") + directory,
                    QStringLiteral("--pch-verbose=false"), QStringLiteral("--pch-messages=true"),
                    QStringLiteral("--diag-suppress=639")};
    return ticket;
}

QString takePchMessages(QString* log) {
    static const QRegularExpression message(
        QStringLiteral("^\"[^\"\\n]*\": (creating|using) precompiled header file "
                       "\"[^\"\\n]*\"\\n\\n?"),
        QRegularExpression::MultilineOption);
    QString use;
    QRegularExpressionMatchIterator it = message.globalMatch(*log);
    while (it.hasNext()) {
        const QRegularExpressionMatch match = it.next();
        use = match.captured(1) == QLatin1String("creating") ? QStringLiteral("created")
                                                             : QStringLiteral("used");
    }
    log->remove(message);
    return use;
}

bool isPchFailure(const QString& log) {
    return log.contains(QLatin1String("precompiled header")) ||
           log.contains(QLatin1String("PCH directory")) || log.contains(QLatin1String("PCH file"));
}

void notePchCompile(const PchTicket& ticket, const QString& use, int createStatus,
                    size_t requiredHeapBytes) {
    if (use == QLatin1String("used"))
        g_used.fetch_add(1);
    if (createStatus == NVRTC_SUCCESS) {
        g_created.fetch_add(1);
        boundFolder(QFileInfo(ticket.directory()).absolutePath());
    } else if (createStatus == NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED && requiredHeapBytes > 0) {
        g_heapWanted.store(size_t(double(requiredHeapBytes) * kHeapHeadroom));
    }
}

QString notePchFailure(const PchTicket& ticket, const QString& log) {
    g_fallbacks.fetch_add(1);
    const QFileInfoList files =
        QDir(ticket.directory()).entryInfoList({QStringLiteral("*.pch")}, QDir::Files);
    for (const QFileInfo& file : files)
        QFile::remove(file.absoluteFilePath());
    if (g_failureNoted.exchange(true))
        return {};
    QString reason = log.trimmed().section(QLatin1Char('\n'), 0, 0);
    static const QRegularExpression messageLine(QStringLiteral("^\"[^\"]*\": "));
    for (const QString& line : log.split(QLatin1Char('\n'))) {
        if (isPchFailure(line) && !messageLine.match(line).hasMatch()) {
            reason = line.trimmed();
            break;
        }
    }
    return QStringLiteral("note: compiled again without precompiled headers: NVRTC could not "
                          "use its precompiled header in %1 (%2); it makes a new one next time")
        .arg(QDir::toNativeSeparators(ticket.directory()), reason);
}

void setAutomaticPch(bool enabled) {
    g_enabled.store(enabled);
}

bool automaticPchEnabled() {
    return g_enabled.load();
}

PchCounters pchCounters() {
    return PchCounters{g_created.load(), g_used.load(), g_fallbacks.load()};
}

} // namespace kernelpad
