#include "core/io/SafeFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kernelpad {
namespace {

bool writeAll(int fd, const QByteArray& bytes, int* code) {
    const char* p = bytes.constData();
    qint64 left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, size_t(left));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *code = errno;
            return false;
        }
        p += n;
        left -= n;
    }
    return true;
}

} // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

UniqueFd::~UniqueFd() {
    if (m_fd >= 0)
        ::close(m_fd);
}

int UniqueFd::close() {
    const int rc = ::close(m_fd);
    m_fd = -1;
    return rc;
}

QString errnoText(int code) {
    return QString::fromLocal8Bit(std::strerror(code));
}

bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error) {
    const auto fail = [&](const QString& what) {
        if (error)
            *error = what;
        return false;
    };
    const QFileInfo target(path);
    const QString shown = QDir::toNativeSeparators(path);
    if (target.exists() && !target.isFile())
        return fail(QStringLiteral("cannot write '%1': it is not a regular file").arg(shown));
    // The temporary file lives beside the target so that rename() is atomic (same filesystem).
    QByteArray temp =
        QFile::encodeName(target.absolutePath() + QLatin1Char('/') + QStringLiteral(".") +
                          target.fileName() + QStringLiteral(".XXXXXX"));
    UniqueFd fd(::mkostemp(temp.data(), O_CLOEXEC));
    if (fd.get() < 0)
        return fail(QStringLiteral("cannot write '%1': %2").arg(shown, errnoText(errno)));
    const auto discard = [&](int code) {
        ::unlink(temp.constData());
        return fail(QStringLiteral("cannot write '%1': %2").arg(shown, errnoText(code)));
    };
    // Keep the old file's permissions (mkostemp makes 0600); a new file gets 0666 & ~umask.
    struct stat old {};
    mode_t mode = 0;
    if (::stat(QFile::encodeName(path).constData(), &old) == 0) {
        mode = old.st_mode & 07777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    int code = 0;
    if (!writeAll(fd.get(), bytes, &code))
        return discard(code);
    if (::fchmod(fd.get(), mode) != 0)
        return discard(errno);
    // Delayed allocation can fail only at fsync (or close): both are checked.
    if (::fsync(fd.get()) != 0)
        return discard(errno);
    if (fd.close() != 0)
        return discard(errno);
    if (::rename(temp.constData(), QFile::encodeName(path).constData()) != 0)
        return discard(errno);
    return true;
}

std::optional<QByteArray> readRegularFile(const QString& path, ReadLimits limits, QString* error,
                                          ReadFailure* failure) {
    const QString shown = QDir::toNativeSeparators(path);
    const auto fail = [&](ReadFailure why, const QString& what) -> std::optional<QByteArray> {
        if (failure)
            *failure = why;
        if (error)
            *error = what;
        return std::nullopt;
    };
    if (failure)
        *failure = ReadFailure::None;
    // O_NONBLOCK: opening a FIFO with no writer would otherwise block for ever.
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    if (!limits.followSymlinks)
        flags |= O_NOFOLLOW;
    UniqueFd fd(::open(QFile::encodeName(path).constData(), flags));
    if (fd.get() < 0) {
        const int code = errno;
        if (code == ENOENT)
            return fail(ReadFailure::Missing, QStringLiteral("'%1' does not exist").arg(shown));
        if (code == ELOOP)
            return fail(
                ReadFailure::NotRegular,
                QStringLiteral("'%1' is a symbolic link, which is not followed here").arg(shown));
        return fail(ReadFailure::Unreadable,
                    QStringLiteral("cannot read '%1': %2").arg(shown, errnoText(code)));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return fail(ReadFailure::Unreadable,
                    QStringLiteral("cannot read '%1': %2").arg(shown, errnoText(errno)));
    if (!S_ISREG(st.st_mode))
        return fail(ReadFailure::NotRegular,
                    QStringLiteral("'%1' is not a regular file (a FIFO, device, socket or folder)")
                        .arg(shown));
    if (st.st_size > limits.maxBytes)
        return fail(ReadFailure::TooLarge, QStringLiteral("'%1' is %2 bytes, more than the %3 "
                                                          "allowed here")
                                               .arg(shown)
                                               .arg(qint64(st.st_size))
                                               .arg(limits.maxBytes));
    // A regular file never blocks; clearing O_NONBLOCK keeps read() semantics plain.
    ::fcntl(fd.get(), F_SETFL, O_RDONLY);
    QByteArray bytes(qsizetype(st.st_size), Qt::Uninitialized);
    qint64 done = 0;
    while (done < st.st_size) {
        const ssize_t n = ::read(fd.get(), bytes.data() + done, size_t(st.st_size - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail(ReadFailure::Unreadable,
                        QStringLiteral("cannot read '%1': %2").arg(shown, errnoText(errno)));
        if (n == 0)
            break;
        done += n;
    }
    // A file that shrank or grew while being read is not what was checked.
    char extra = 0;
    if (done != st.st_size || ::read(fd.get(), &extra, 1) != 0)
        return fail(ReadFailure::Unreadable,
                    QStringLiteral("'%1' changed while it was being read").arg(shown));
    return bytes;
}

std::optional<AppendFile> openAppendOnly(const QString& path, bool create, QString* error) {
    const QString shown = QDir::toNativeSeparators(path);
    const auto refuse = [&](const QString& why) -> std::optional<AppendFile> {
        if (error)
            *error = QStringLiteral("'%1' %2").arg(shown, why);
        return std::nullopt;
    };
    const QByteArray name = QFile::encodeName(path);
    // O_NONBLOCK: a FIFO with no reader fails with ENXIO instead of waiting for one.
    const int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    AppendFile out;
    out.fd = UniqueFd(::open(name.constData(), flags));
    if (!out.fd.isValid() && errno == ENOENT && create) {
        // O_EXCL: a link planted between the two opens is not followed, it is an error.
        out.fd = UniqueFd(::open(name.constData(), flags | O_CREAT | O_EXCL, 0600));
        out.created = out.fd.isValid();
    }
    if (!out.fd.isValid()) {
        const int code = errno;
        if (code == ELOOP)
            return refuse(QStringLiteral("is a symbolic link, which is never written through"));
        if (code == ENXIO)
            return refuse(QStringLiteral("is not a regular file (a FIFO or socket)"));
        return refuse(QStringLiteral("cannot be opened to append (%1)").arg(errnoText(code)));
    }
    struct stat st {};
    if (::fstat(out.fd.get(), &st) != 0)
        return refuse(QStringLiteral("cannot be opened to append (%1)").arg(errnoText(errno)));
    if (!S_ISREG(st.st_mode))
        return refuse(QStringLiteral("is not a regular file (a FIFO, device, socket or folder)"));
    if (st.st_nlink > 1)
        return refuse(QStringLiteral("has %1 hard links; a file written here must have one, so "
                                     "that no other file can be reached through it")
                          .arg(qulonglong(st.st_nlink)));
    if (st.st_uid != ::geteuid())
        return refuse(QStringLiteral("is owned by another user"));
    // A regular file never blocks; clearing O_NONBLOCK keeps write() semantics plain.
    ::fcntl(out.fd.get(), F_SETFL, O_WRONLY | O_APPEND);
    out.sizeBytes = qint64(st.st_size);
    out.device = st.st_dev;
    out.inode = st.st_ino;
    return out;
}

bool writeAllTo(int fd, const QByteArray& bytes, QString* error) {
    int code = 0;
    if (writeAll(fd, bytes, &code))
        return true;
    if (error)
        *error = errnoText(code);
    return false;
}

bool isSpecialFile(const QString& path) {
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return false;
    return !S_ISREG(st.st_mode);
}

} // namespace kernelpad
