#pragma once
// What the warm-runner daemon (core/runner/WarmRunnerDaemon.h) and its clients (`kernelpad-cli
// attach`, `runners status|wait|stop`, the command line's device list) share: the private
// folder and its socket, and one-line JSON messages over the socket, the attach answer carrying
// a spare runner's descriptors (SCM_RIGHTS). Plain POSIX, no event loop: attach decides before
// any QCoreApplication exists.

#include <QJsonObject>
#include <QString>

#include <optional>
#include <vector>

namespace kernelpad::warm {

/// $KERNELPAD_WARM_RUNNERS=off: every local runner is started cold (the test suite sets it).
[[nodiscard]] bool warmRunnersOff();

/// Whether a local runner should be `attach`: warm runners are not off and the daemon's socket
/// is there (a cheap lstat; attach itself checks the rest).
[[nodiscard]] bool daemonSocketPresent();

/// The daemon's private folder: $XDG_RUNTIME_DIR/kernelpad-runners, else
/// /tmp/kernelpad-runners-<uid>.
[[nodiscard]] QString folderPath();
/// The socket in it.
[[nodiscard]] QString socketPath();
/// The daemon's log (its stdout and stderr) in it.
[[nodiscard]] QString logPath();
/// What a log may hold before the next start moves it aside.
inline constexpr qint64 kLogRotateBytes = qint64(1) << 20;
/// Before a daemon starts: a log (a plain file) over `limitBytes` becomes daemon.log.1, replacing
/// the one before, so the logs of every start ever made stay within about twice the limit.
void rotateLog(qint64 limitBytes = kLogRotateBytes);

/// Why `folder` must not be used, or empty: it is judged by lstat (never through a link): it
/// must be a folder, not a symbolic link, owned by this user and of mode 0700. A folder that
/// does not exist is fine (`*exists` false).
[[nodiscard]] QString folderProblem(const QString& folder, bool* exists);
/// The refusal's sentence for `problem` (folderProblem's answer), naming the folder.
[[nodiscard]] QString refusal(const QString& folder, const QString& problem);
/// Creates the folder (mode 0700) when missing and checks it; false with the sentence.
bool ensureFolder(QString* error);

/// A connected client socket, closed on destruction.
class Connection {
public:
    Connection() = default;
    explicit Connection(int fd)
        : m_fd(fd) {}
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    Connection(Connection&& other) noexcept;
    Connection& operator=(Connection&& other) noexcept;
    ~Connection();
    [[nodiscard]] int fd() const { return m_fd; }
    [[nodiscard]] bool isOpen() const { return m_fd >= 0; }
    /// Gives up the descriptor without closing it.
    int release();

private:
    int m_fd = -1;
};

/// Connects to the daemon's socket after checking the folder; a closed Connection and `*why`
/// ("no warm-runner daemon is running", the folder's refusal) when there is none.
[[nodiscard]] Connection connectToDaemon(QString* why);

/// Sends `message` as one line, with `fds` attached when not empty. False on a failed write.
bool sendMessage(int socket, const QJsonObject& message, const std::vector<int>& fds = {});

/// One line read from `socket` (at most 1 MiB), with the descriptors that came with it in
/// `*fds` (closed by the caller); nothing at the end of the stream or on a bad line.
/// `timeoutMs` < 0 waits for ever.
[[nodiscard]] std::optional<QJsonObject> readMessage(int socket, int timeoutMs,
                                                     std::vector<int>* fds = nullptr);

/// One request and its answer: connect, send, read (within `timeoutMs`); nothing and `*why`
/// when the daemon is not there or did not answer.
[[nodiscard]] std::optional<QJsonObject> ask(const QJsonObject& request, int timeoutMs,
                                             QString* why);

/// The environment the runner reads: every KERNELPAD_* and CUDA_* variable but those only a
/// client reads (KERNELPAD_RUNNER, KERNELPAD_RUNNER_SPEC) and the warm runners' own
/// (KERNELPAD_WARM_*). Attach's and the spares' must be equal.
[[nodiscard]] QJsonObject runnerEnvironment();

/// This program's own path (/proc/self/exe, links resolved).
[[nodiscard]] QString ownExecutable();

} // namespace kernelpad::warm
