#include "core/runner/WarmRunnerWire.h"

#include <QFile>
#include <QJsonDocument>
#include <QProcessEnvironment>

#include <cerrno>
#include <cstring>
#include <utility>

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace kernelpad::warm {
namespace {

constexpr mode_t kWarmFolderMode = 0700;
/// A line longer than this is not one of ours (a device list is a few KiB).
constexpr qsizetype kMaxWarmLineBytes = 1 << 20;
/// Descriptors one message may carry: a spare's stdin/stdout and its stderr.
constexpr int kMaxWarmFds = 4;

QString errnoSentence(int code) {
    return QString::fromLocal8Bit(std::strerror(code));
}

} // namespace

bool warmRunnersOff() {
    return qEnvironmentVariable("KERNELPAD_WARM_RUNNERS") == QLatin1String("off");
}

bool daemonSocketPresent() {
    struct stat st {};
    return !warmRunnersOff() && ::lstat(QFile::encodeName(socketPath()).constData(), &st) == 0 &&
           S_ISSOCK(st.st_mode);
}

QString folderPath() {
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!runtime.isEmpty())
        return runtime + QStringLiteral("/kernelpad-runners");
    return QStringLiteral("/tmp/kernelpad-runners-%1").arg(::getuid());
}

QString socketPath() {
    return folderPath() + QStringLiteral("/socket");
}

QString logPath() {
    return folderPath() + QStringLiteral("/daemon.log");
}

void rotateLog(qint64 limitBytes) {
    const QByteArray log = QFile::encodeName(logPath());
    struct stat st {};
    if (::lstat(log.constData(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= limitBytes)
        return;
    (void)::rename(log.constData(), (log + ".1").constData()); // a failure keeps appending
}

QString folderProblem(const QString& folder, bool* exists) {
    struct stat st {};
    *exists = false;
    if (::lstat(QFile::encodeName(folder).constData(), &st) != 0)
        return errno == ENOENT ? QString() : errnoSentence(errno);
    *exists = true;
    if (S_ISLNK(st.st_mode))
        return QStringLiteral("it is a symbolic link");
    if (!S_ISDIR(st.st_mode))
        return QStringLiteral("it is not a folder");
    if (st.st_uid != ::geteuid())
        return QStringLiteral("it belongs to user id %1, not to you (user id %2)")
            .arg(st.st_uid)
            .arg(::geteuid());
    if ((st.st_mode & 07777) != kWarmFolderMode)
        return QStringLiteral("its mode is %1, not 0700")
            .arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'));
    return {};
}

QString refusal(const QString& folder, const QString& problem) {
    return QStringLiteral("the warm runners' folder %1 is refused: %2. Remove it (or set "
                          "XDG_RUNTIME_DIR to a private folder) and start the warm runners again.")
        .arg(folder, problem);
}

bool ensureFolder(QString* error) {
    const QString folder = folderPath();
    bool exists = false;
    QString problem = folderProblem(folder, &exists);
    if (problem.isEmpty() && !exists) {
        // Made, then set to 0700 whatever the umask; a folder made by another in between is
        // judged below like any other.
        if (::mkdir(QFile::encodeName(folder).constData(), kWarmFolderMode) == 0)
            (void)::chmod(QFile::encodeName(folder).constData(), kWarmFolderMode);
        else if (errno != EEXIST)
            problem = QStringLiteral("it cannot be created: %1").arg(errnoSentence(errno));
        if (problem.isEmpty())
            problem = folderProblem(folder, &exists);
    }
    if (!problem.isEmpty()) {
        *error = refusal(folder, problem);
        return false;
    }
    return true;
}

Connection::Connection(Connection&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

Connection::~Connection() {
    if (m_fd >= 0)
        ::close(m_fd);
}

int Connection::release() {
    return std::exchange(m_fd, -1);
}

Connection connectToDaemon(QString* why) {
    const QString folder = folderPath();
    bool exists = false;
    if (const QString problem = folderProblem(folder, &exists); !problem.isEmpty()) {
        *why = refusal(folder, problem);
        return {};
    }
    const QByteArray path = QFile::encodeName(socketPath());
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (!exists || path.size() >= qsizetype(sizeof address.sun_path)) {
        *why = exists ? QStringLiteral("the socket's path %1 is too long for a Unix socket")
                            .arg(socketPath())
                      : QStringLiteral("no warm-runner daemon is running");
        return {};
    }
    std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    Connection c(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!c.isOpen() ||
        ::connect(c.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        *why = errno == ENOENT || errno == ECONNREFUSED
                   ? QStringLiteral("no warm-runner daemon is running")
                   : QStringLiteral("the warm-runner daemon's socket %1 cannot be reached: %2")
                         .arg(socketPath(), errnoSentence(errno));
        return {};
    }
    return c;
}

bool sendMessage(int socket, const QJsonObject& message, const std::vector<int>& fds) {
    QByteArray line = QJsonDocument(message).toJson(QJsonDocument::Compact);
    line.append('\n');
    qsizetype sent = 0;
    bool fdsSent = fds.empty();
    while (sent < line.size()) {
        iovec io{line.data() + sent, size_t(line.size() - sent)};
        msghdr msg{};
        msg.msg_iov = &io;
        msg.msg_iovlen = 1;
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxWarmFds)] = {};
        if (!fdsSent) {
            msg.msg_control = control;
            msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
            cmsghdr* header = CMSG_FIRSTHDR(&msg);
            header->cmsg_level = SOL_SOCKET;
            header->cmsg_type = SCM_RIGHTS;
            header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
            std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
        }
        const ssize_t n = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        fdsSent = true;
        sent += n;
    }
    return true;
}

std::optional<QJsonObject> readMessage(int socket, int timeoutMs, std::vector<int>* fds) {
    QByteArray line;
    // One byte at a time: what follows the line (the attach's exit status) stays in the socket.
    for (;;) {
        pollfd p{socket, POLLIN, 0};
        const int ready = ::poll(&p, 1, timeoutMs);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return std::nullopt;
        char c = 0;
        iovec io{&c, 1};
        msghdr msg{};
        msg.msg_iov = &io;
        msg.msg_iovlen = 1;
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxWarmFds)] = {};
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        const ssize_t n = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return std::nullopt;
        for (cmsghdr* h = CMSG_FIRSTHDR(&msg); h; h = CMSG_NXTHDR(&msg, h)) {
            if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
                continue;
            const size_t count = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t k = 0; k < count; ++k) {
                int fd = -1;
                std::memcpy(&fd, CMSG_DATA(h) + k * sizeof(int), sizeof fd);
                if (fds)
                    fds->push_back(fd);
                else
                    ::close(fd);
            }
        }
        if (c == '\n')
            break;
        line.append(c);
        if (line.size() > kMaxWarmLineBytes)
            return std::nullopt;
    }
    const QJsonDocument document = QJsonDocument::fromJson(line);
    if (!document.isObject())
        return std::nullopt;
    return document.object();
}

std::optional<QJsonObject> ask(const QJsonObject& request, int timeoutMs, QString* why) {
    const Connection c = connectToDaemon(why);
    if (!c.isOpen())
        return std::nullopt;
    if (!sendMessage(c.fd(), request)) {
        *why = QStringLiteral("the warm-runner daemon closed its socket");
        return std::nullopt;
    }
    std::optional<QJsonObject> answer = readMessage(c.fd(), timeoutMs);
    if (!answer)
        *why = QStringLiteral("the warm-runner daemon did not answer within %1 s")
                   .arg(timeoutMs / 1000.0);
    return answer;
}

QJsonObject runnerEnvironment() {
    // Read by the client alone: which runner to start, and these warm runners' own switches
    // (KERNELPAD_WARM_*).
    static const QStringList clientOnly = {QStringLiteral("KERNELPAD_RUNNER"),
                                           QStringLiteral("KERNELPAD_RUNNER_SPEC")};
    QJsonObject env;
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    for (const QString& name : system.keys())
        if ((name.startsWith(QLatin1String("KERNELPAD_")) ||
             name.startsWith(QLatin1String("CUDA_"))) &&
            !name.startsWith(QLatin1String("KERNELPAD_WARM_")) && !clientOnly.contains(name))
            env.insert(name, system.value(name));
    return env;
}

QString ownExecutable() {
    char buffer[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    return n > 0 ? QFile::decodeName(QByteArray(buffer, int(n))) : QString();
}

} // namespace kernelpad::warm
