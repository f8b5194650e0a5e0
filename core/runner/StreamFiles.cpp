#include "core/runner/StreamFiles.h"

#include "core/io/SafeFile.h"
#include "core/launch/BufferInit.h"
#include "core/runner/Protocol.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <functional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace kernelpad {
namespace {

/// `path` relative to `base` when it lies inside it, else empty.
QString insideName(const QDir& base, const QString& path) {
    const QString absolute = QDir::cleanPath(base.absoluteFilePath(path));
    const QString name = base.relativeFilePath(absolute);
    return isSafeStreamName(name) ? name : QString();
}

/// Calls `each` with every buffer description of the project and the field it sits at.
void forEachBuffer(Project& project, const std::function<void(BufferSpec&, const QString&)>& each) {
    for (int k = 0; k < project.arguments.size(); ++k)
        if (!project.arguments[k].isScalar())
            each(project.arguments[k].buffer, QStringLiteral("arguments[%1]").arg(k));
    for (int k = 0; k < project.globals.size(); ++k)
        each(project.globals[k].value, QStringLiteral("globals[%1]").arg(k));
}

/// The project folder with every link resolved, so that a file's resolved path can be checked
/// against it.
struct ProjectRoot {
    QDir base;
    QString canonical;

    /// `absolute` (inside the folder by its name) with its links resolved, or empty with why
    /// in `problem` when it is missing or a link leads out of the project folder.
    QString resolve(const QString& absolute, const QString& field, QString* problem) const {
        const QString resolved = QFileInfo(absolute).canonicalFilePath();
        if (resolved.isEmpty()) {
            *problem = QStringLiteral("%1: '%2' is not a readable file").arg(field, absolute);
            return {};
        }
        if (canonical.isEmpty() || !resolved.startsWith(canonical + QLatin1Char('/'))) {
            *problem = QStringLiteral("%1: '%2' is a link to '%3', outside the project folder %4, "
                                      "so it is not sent to the runner")
                           .arg(field, absolute, resolved, base.absolutePath());
            return {};
        }
        return resolved;
    }
};

/// The size of the regular file at `resolved` (no link: it is resolved), or -1 with why: a
/// FIFO, device or socket is refused by its type, without opening it.
qint64 regularFileBytes(const QString& resolved, const QString& field, QString* problem) {
    struct stat st {};
    if (::lstat(QFile::encodeName(resolved).constData(), &st) != 0) {
        *problem =
            QStringLiteral("%1: cannot read '%2': %3").arg(field, resolved, errnoText(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        *problem = QStringLiteral("%1: '%2' is not a regular file (a FIFO, device, socket or "
                                  "folder), so it is not sent to the runner")
                       .arg(field, resolved);
        return -1;
    }
    return qint64(st.st_size);
}

/// The files of one request, gathered in order; the first problem stops it.
class Collector {
public:
    explicit Collector(const QString& projectDir) {
        m_root.base = QDir(projectDir.isEmpty() ? QDir::currentPath() : projectDir);
        m_root.canonical = QFileInfo(m_root.base.absolutePath()).canonicalFilePath();
    }
    [[nodiscard]] const QString& problem() const { return m_problem; }
    [[nodiscard]] const QVector<StreamedFile>& files() const { return m_files; }

    /// A .npy file: a readable regular file inside the project folder, links resolved;
    /// `path` becomes its name relative to the folder.
    void takeFile(QString& path, const QString& field) {
        if (!m_problem.isEmpty())
            return;
        const QDir& base = m_root.base;
        const QString name = insideName(base, path);
        const QString absolute = QDir::cleanPath(base.absoluteFilePath(path));
        if (name.isEmpty()) {
            m_problem = QStringLiteral("%1: '%2' is outside the project folder %3, so it cannot "
                                       "be sent to the runner; move it into the project folder")
                            .arg(field, path, base.absolutePath());
            return;
        }
        const QString resolved = m_root.resolve(absolute, field, &m_problem);
        if (resolved.isEmpty())
            return;
        const qint64 bytes = regularFileBytes(resolved, field, &m_problem);
        if (bytes < 0)
            return;
        if (!QFileInfo(resolved).isReadable()) {
            m_problem = QStringLiteral("%1: '%2' is not a readable file").arg(field, absolute);
            return;
        }
        if (bytes > kMaxBufferBytes) {
            m_problem = QStringLiteral("%1: '%2' is larger than %3 bytes")
                            .arg(field, absolute)
                            .arg(kMaxBufferBytes);
            return;
        }
        path = name;
        add(name, resolved, bytes);
    }

    /// Include dirs resolve inside the runner's copy of the project folder: each becomes its
    /// name relative to the folder. The absolute folders to search come back.
    QStringList takeIncludeDirs(QStringList& includeDirs) {
        const QDir& base = m_root.base;
        QStringList roots;
        for (int k = 0; k < includeDirs.size() && m_problem.isEmpty(); ++k) {
            QString& dir = includeDirs[k];
            const QString absolute = QDir::cleanPath(base.absoluteFilePath(dir));
            const QString name = absolute == QDir::cleanPath(base.absolutePath())
                                     ? QStringLiteral(".")
                                     : insideName(base, dir);
            if (name.isEmpty()) {
                m_problem = QStringLiteral("options.includeDirs[%1]: '%2' is outside the project "
                                           "folder %3, so its headers cannot be sent to the "
                                           "runner")
                                .arg(k)
                                .arg(dir, base.absolutePath());
                break;
            }
            dir = name;
            roots << absolute;
        }
        return roots;
    }

    /// Local headers: quoted includes beside the including file, then the include dirs; only
    /// files inside the project folder (the toolkit's headers are the runner's own), each read
    /// bounded to find what it includes in turn.
    void takeHeaders(const QString& source, const QStringList& includeRoots) {
        static const QRegularExpression includeLine(
            QStringLiteral(R"re(^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>))re"),
            QRegularExpression::MultilineOption);
        QList<QPair<QString, QString>> pending{{source, m_root.base.absolutePath()}};
        while (!pending.isEmpty() && m_problem.isEmpty()) {
            const auto [text, dir] = pending.takeFirst();
            auto it = includeLine.globalMatch(text);
            while (it.hasNext() && m_problem.isEmpty()) {
                const QRegularExpressionMatch m = it.next();
                const bool quoted = m.capturedLength(1) > 0;
                const QString included = quoted ? m.captured(1) : m.captured(2);
                QStringList dirs = includeRoots;
                if (quoted)
                    dirs.prepend(dir);
                for (const QString& d : dirs) {
                    const QString path = QDir::cleanPath(QDir(d).absoluteFilePath(included));
                    const QFileInfo info(path);
                    if ((!info.exists() && !info.isSymLink()) || info.isDir())
                        continue;
                    if (std::optional<QString> header = takeHeader(path, included))
                        pending.push_back({*header, info.absolutePath()});
                    break;
                }
            }
        }
    }

private:
    /// Lists the header at `path` (the first match of `included`) unless it is outside the
    /// project folder by its name or already listed; its text when it was listed now.
    std::optional<QString> takeHeader(const QString& path, const QString& included) {
        const QString name = insideName(m_root.base, path);
        if (name.isEmpty() || m_seen.contains(name))
            return std::nullopt;
        if (m_files.size() >= kMaxStreamedFiles) {
            m_problem = QStringLiteral("source: it includes more than %1 local files")
                            .arg(kMaxStreamedFiles);
            return std::nullopt;
        }
        const QString field = QStringLiteral("source: #include \"%1\"").arg(included);
        const QString resolved = m_root.resolve(path, field, &m_problem);
        if (resolved.isEmpty())
            return std::nullopt;
        QString why;
        const std::optional<QByteArray> bytes =
            readRegularFile(resolved, ReadLimits{kMaxStreamedHeaderBytes, false}, &why);
        if (!bytes) {
            m_problem = field + QStringLiteral(": ") + why;
            return std::nullopt;
        }
        add(name, resolved, bytes->size());
        return QString::fromUtf8(*bytes);
    }

    void add(const QString& name, const QString& path, qint64 bytes) {
        if (m_seen.contains(name))
            return;
        m_seen.insert(name);
        m_files.push_back(StreamedFile{name, path, bytes});
    }

    ProjectRoot m_root;
    QVector<StreamedFile> m_files;
    QSet<QString> m_seen;
    QString m_problem;
};

} // namespace

std::optional<QVector<StreamedFile>> collectStreamedFiles(RunRequest* request, QString* error) {
    Collector collect(request->projectDir);
    forEachBuffer(request->project, [&](BufferSpec& b, const QString& field) {
        if (b.init.kind == InitSpec::Kind::File)
            collect.takeFile(b.init.path, field + QStringLiteral(".init.path"));
        if (b.verify.kind == VerifySpec::Kind::File)
            collect.takeFile(b.verify.path, field + QStringLiteral(".verify.path"));
    });
    if (collect.problem().isEmpty()) {
        const QStringList roots = collect.takeIncludeDirs(request->project.options.includeDirs);
        if (collect.problem().isEmpty())
            collect.takeHeaders(request->project.source, roots);
    }
    if (!collect.problem().isEmpty()) {
        *error = collect.problem();
        return std::nullopt;
    }
    return collect.files();
}

bool openStreamedFile(const StreamedFile& file, QFile* into, QString* error) {
    // O_NOFOLLOW: the path is already resolved, so a link here was put there since.
    // O_NONBLOCK: a FIFO swapped in never hangs the sender.
    UniqueFd fd(::open(QFile::encodeName(file.path).constData(),
                       O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY));
    if (!fd.isValid()) {
        *error = QStringLiteral("cannot read '%1' to send it to the runner: %2")
                     .arg(file.path, errnoText(errno));
        return false;
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || qint64(st.st_size) != file.bytes) {
        *error = QStringLiteral("'%1' changed while it was sent to the runner").arg(file.path);
        return false;
    }
    ::fcntl(fd.get(), F_SETFL, O_RDONLY);
    // The QFile gets a descriptor of its own to close; `fd` closes this one.
    const int handle = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0);
    if (handle < 0 || !into->open(handle, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        if (handle >= 0)
            ::close(handle);
        *error = QStringLiteral("cannot read '%1' to send it to the runner: %2")
                     .arg(file.path, errnoText(errno));
        return false;
    }
    return true;
}

QHash<QString, qint64> streamedOutputBounds(const RunRequest& request) {
    const QVector<ArgumentSpec>& args = request.project.arguments;
    QHash<QString, qint64> bounds;
    const auto allow = [&](const QString& name, std::optional<qint64> count, qint64 element) {
        qint64 bytes = kMaxBufferBytes;
        if (count && *count >= 0 && element > 0 && !__builtin_mul_overflow(*count, element, &bytes))
            bytes = std::min(bytes, kMaxBufferBytes);
        else
            bytes = kMaxBufferBytes;
        bounds[name] = std::max(bounds.value(name, 0), bytes);
    };
    QString ignored;
    for (const ArgumentSpec& a : args) {
        if (a.isBuffer())
            allow(a.name, resolveCount(a.buffer.count, args, &ignored),
                  a.buffer.elementType.sizeBytes());
        else if (a.isImage()) // a texture's or surface's array
            allow(a.name, a.texture.elementCount(), a.texture.elementType().sizeBytes());
    }
    for (const GlobalSpec& g : request.project.globals)
        allow(g.name, resolveCount(g.value.count, args, &ignored), g.value.elementType.sizeBytes());
    return bounds;
}

QString checkStreamedPaths(const RunRequest& request, const QSet<QString>& names) {
    Project project = request.project; // forEachBuffer hands out mutable specs
    QString problem;
    const auto check = [&](const QString& path, const QString& field) {
        if (problem.isEmpty() && !names.contains(path))
            problem = QStringLiteral("%1: '%2' is not one of the files sent with the request "
                                     "(a runner with streamed buffers opens no other path)")
                          .arg(field, path);
    };
    forEachBuffer(project, [&](BufferSpec& b, const QString& field) {
        if (b.init.kind == InitSpec::Kind::File)
            check(b.init.path, field + QStringLiteral(".init.path"));
        if (b.verify.kind == VerifySpec::Kind::File)
            check(b.verify.path, field + QStringLiteral(".verify.path"));
    });
    for (int k = 0; k < project.options.includeDirs.size() && problem.isEmpty(); ++k) {
        const QString& dir = project.options.includeDirs[k];
        if (dir != QLatin1String(".") && !isSafeStreamName(dir))
            problem = QStringLiteral("options.includeDirs[%1]: '%2' must be a folder inside the "
                                     "project (no absolute path, no '..')")
                          .arg(k)
                          .arg(dir);
    }
    return problem;
}

} // namespace kernelpad
