#pragma once
// Files written so that a failure is reported and the old file stays, and files read so that
// nothing but a regular file of bounded size is ever opened (a full disk once reported
// success and emptied the project; a FIFO hung a reader; /dev/zero ran to bad_alloc).

#include <QByteArray>
#include <QString>

#include <optional>
#include <utility>

#include <sys/types.h>

namespace kernelpad {

/// A file descriptor closed on every path out (move-only).
class UniqueFd {
public:
    explicit UniqueFd(int fd = -1)
        : m_fd(fd) {}
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    UniqueFd(UniqueFd&& other) noexcept
        : m_fd(std::exchange(other.m_fd, -1)) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept;
    ~UniqueFd();
    [[nodiscard]] int get() const { return m_fd; }
    [[nodiscard]] bool isValid() const { return m_fd >= 0; }
    /// Closes now and returns close()'s result (NFS reports a failed write only there).
    [[nodiscard]] int close();

private:
    int m_fd;
};

/// strerror(code) as a QString.
[[nodiscard]] QString errnoText(int code);

/// Replaces `path` with `bytes` atomically: a temporary file beside it is written, flushed and
/// synced, and only then renamed over the old one. On any failure (a full disk included) the
/// old file is untouched, the temporary file is removed, and false comes back with `*error`
/// saying what failed ("No space left on device").
///
/// QSaveFile alone is not enough: on Qt 6.4 its commit() returned true after a buffered
/// write had failed with ENOSPC, leaving an empty file in place of the old one.
[[nodiscard]] bool writeFileAtomically(const QString& path, const QByteArray& bytes,
                                       QString* error);

/// Why readRegularFile() refused, so callers can word their message or treat "absent" as a
/// plain miss.
enum class ReadFailure { None, Missing, NotRegular, TooLarge, Unreadable };

/// Options for readRegularFile().
struct ReadLimits {
    qint64 maxBytes = 0;        ///< larger files are refused before a byte is read
    bool followSymlinks = true; ///< false: a symbolic link is refused (O_NOFOLLOW)
};

/// The whole contents of `path`, or nothing with `*failure` and `*error` set. Opens without
/// blocking (a FIFO never hangs the caller), refuses anything but a regular file (FIFOs,
/// devices, sockets, folders), refuses files over `limits.maxBytes` by their size before
/// reading, and checks that the bytes read match that size.
[[nodiscard]] std::optional<QByteArray> readRegularFile(const QString& path, ReadLimits limits,
                                                        QString* error,
                                                        ReadFailure* failure = nullptr);

/// An open file that is appended to only: the descriptor and what fstat() said of it.
struct AppendFile {
    UniqueFd fd;
    qint64 sizeBytes = 0; ///< its size when opened
    bool created = false; ///< it did not exist and was made (0600, empty)
    dev_t device = 0;     ///< with `inode`, which file it is (to match a later read)
    ino_t inode = 0;
};

/// Opens `path` for appending only where nothing but the caller's own file can be reached:
/// never through a symbolic link (O_NOFOLLOW), without blocking (a FIFO is refused at once),
/// only a regular file, with a single link (a hard link planted to another file is refused)
/// and owned by the user. When it does not exist and `create` is set, it is made with O_EXCL
/// and mode 0600. Never truncates. nullopt with `*error` naming the file and the reason.
[[nodiscard]] std::optional<AppendFile> openAppendOnly(const QString& path, bool create,
                                                       QString* error);

/// Writes all of `bytes` to `fd` (short writes and EINTR retried); false with `*error` set to
/// the system's reason ("No space left on device").
[[nodiscard]] bool writeAllTo(int fd, const QByteArray& bytes, QString* error);

/// True when `path` exists and is not a regular file (after following links): a FIFO, a
/// device, a socket or a folder. Used to refuse such paths before a library opens them.
[[nodiscard]] bool isSpecialFile(const QString& path);

} // namespace kernelpad
