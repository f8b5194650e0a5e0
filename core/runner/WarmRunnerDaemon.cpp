#include "core/runner/WarmRunnerDaemon.h"
// The daemon's loop: one poll() over its socket, the spares' stderr (until each says it is
// ready), the attach connections of the spares handed out, and a self-pipe for SIGCHLD and
// SIGTERM. No threads, so fork() for a spare is safe.

#include "core/project/RunnerSpec.h"
#include "core/runner/WarmRunnerWire.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kernelpad::warm {
namespace {

using Clock = std::chrono::steady_clock;

/// The line a spare prints on stderr once its contexts are made (core/runner/RunnerServer.cpp).
constexpr const char* kReadyPrefix = "kernelpad-warm: ready ";
/// Spares that end before they are ready, in a row, before the daemon stops starting more.
constexpr int kMaxFailedStarts = 3;
/// How long a client may take to send its request line.
constexpr int kRequestReadMs = 2000;

int g_signalPipe[2] = {-1, -1};

extern "C" void onDaemonSignal(int signal) {
    const char c = char(signal);
    (void)!::write(g_signalPipe[1], &c, 1);
}

struct Spare {
    pid_t pid = 0;
    int io = -1;  ///< the daemon's end of the spare's stdin/stdout until handed out
    int err = -1; ///< the daemon's end of its stderr until handed out
    bool ready = false;
    int client = -1;        ///< the attach connection it was handed to
    bool handedOut = false; ///< its end is a used runner's, not a failed start
    QByteArray line;        ///< its stderr line being read before it is ready
};

/// "trace.log", "cache/kp": not absolute, not a number, with a '/' or a '.' in it.
bool looksLikeRelativePath(const QString& value) {
    bool number = false;
    (void)value.toDouble(&number);
    return !value.isEmpty() && !value.startsWith(QLatin1Char('/')) && !number &&
           (value.contains(QLatin1Char('/')) || value.contains(QLatin1Char('.')));
}

QString exitText(int status) {
    return WIFSIGNALED(status) ? QStringLiteral("killed by signal %1").arg(WTERMSIG(status))
                               : QStringLiteral("exited with code %1").arg(WEXITSTATUS(status));
}

class Daemon {
public:
    explicit Daemon(DaemonOptions options)
        : m_options(std::move(options))
        , m_executable(ownExecutable())
        , m_environment(runnerEnvironment())
        , m_cwd(QDir::currentPath()) {
        if (m_options.devices != QLatin1String("all"))
            m_target = m_options.spares > 0 ? m_options.spares
                                            : int(m_options.devices.split(QLatin1Char(',')).size());
        else
            m_target = m_options.spares > 0 ? m_options.spares : 1; // topped up once listed
    }

    bool listen(QString* error);
    int loop();

private:
    void startSpare();
    void topUp();
    void reap();
    void readSpareStderr(Spare& spare);
    void onClient(int fd);
    void onAttach(int fd, const QJsonObject& request);
    void onClientGone(Spare& spare);
    void answerDeviceWaiters();
    /// Why `request` must not get this daemon's spares (or devices: `forDevices`), or empty.
    [[nodiscard]] QString mismatch(const QJsonObject& request, bool forDevices) const;
    [[nodiscard]] QJsonObject status() const;
    [[nodiscard]] bool anyHandedOut() const;
    void shutdownAll();

    DaemonOptions m_options;
    const QString m_executable;
    const QJsonObject m_environment;
    const QString m_cwd;
    int m_target = 1;
    int m_listen = -1;
    std::vector<Spare> m_spares;
    std::vector<int> m_deviceWaiters;
    bool m_devicesKnown = false;
    QJsonArray m_devices;
    QString m_devicesError;
    int m_failedStarts = 0;
    QString m_lastFailure;
    int m_attaches = 0;
    int m_coldFallbacks = 0;
    QString m_lastCold;
    Clock::time_point m_lastClient = Clock::now();
    bool m_stop = false;
};

bool Daemon::listen(QString* error) {
    if (!ensureFolder(error))
        return false;
    QString why;
    if (ask(QJsonObject{{"op", "status"}}, kRequestReadMs, &why)) {
        *error = QStringLiteral("warm runners are already running (kernelpad-cli runners status)");
        return false;
    }
    const QByteArray path = QFile::encodeName(socketPath());
    struct stat st {};
    if (::lstat(path.constData(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid()) {
            *error =
                QStringLiteral("%1 is in the way and is not a socket of yours").arg(socketPath());
            return false;
        }
        (void)::unlink(path.constData()); // a daemon that ended without removing it
    }
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= qsizetype(sizeof address.sun_path)) {
        *error = QStringLiteral("the socket's path %1 is too long").arg(socketPath());
        return false;
    }
    std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    m_listen = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (m_listen < 0 ||
        ::bind(m_listen, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(m_listen, SOMAXCONN) != 0) {
        *error = QStringLiteral("cannot listen on %1: %2")
                     .arg(socketPath(), QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    if (::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        *error = QStringLiteral("cannot make the signal pipe");
        return false;
    }
    struct sigaction action {};
    action.sa_handler = onDaemonSignal;
    action.sa_flags = SA_RESTART;
    for (int s : {SIGCHLD, SIGTERM, SIGINT})
        ::sigaction(s, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    return true;
}

void Daemon::startSpare() {
    int io[2] = {-1, -1};
    int err[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, io) != 0 ||
        ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, err) != 0) {
        m_lastFailure = QStringLiteral("socketpair: %1").arg(std::strerror(errno));
        ++m_failedStarts;
        return;
    }
    // Built before fork: the child only calls dup2 and execve. $KERNELPAD_WARM_SPARE_COMMAND
    // (a program run with no arguments) stands in for `kernelpad-cli serve` in the tests.
    const QString standIn = qEnvironmentVariable("KERNELPAD_WARM_SPARE_COMMAND");
    const QByteArray program = QFile::encodeName(standIn.isEmpty() ? m_executable : standIn);
    const QByteArray warmDevices = "KERNELPAD_WARM_DEVICES=" + m_options.devices.toUtf8();
    std::vector<char*> env;
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "KERNELPAD_WARM_DEVICES=", 23) != 0)
            env.push_back(*e);
    env.push_back(const_cast<char*>(warmDevices.constData()));
    env.push_back(nullptr);
    char serve[] = "serve";
    char* argv[] = {const_cast<char*>(program.constData()), standIn.isEmpty() ? serve : nullptr,
                    nullptr};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(io[1], STDIN_FILENO);
        ::dup2(io[1], STDOUT_FILENO);
        ::dup2(err[1], STDERR_FILENO);
        ::execve(program.constData(), argv, env.data());
        ::_exit(127);
    }
    ::close(io[1]);
    ::close(err[1]);
    if (pid < 0) {
        ::close(io[0]);
        ::close(err[0]);
        m_lastFailure = QStringLiteral("fork: %1").arg(std::strerror(errno));
        ++m_failedStarts;
        return;
    }
    Spare spare;
    spare.pid = pid;
    spare.io = io[0];
    spare.err = err[0];
    m_spares.push_back(spare);
    std::fprintf(stderr, "spare %d started\n", int(pid));
}

void Daemon::topUp() {
    if (m_stop)
        return;
    // A spare handed out counts until it ends: a new context made while its client times
    // kernels on the same GPU would disturb the timing.
    while (int(m_spares.size()) < m_target && m_failedStarts < kMaxFailedStarts) {
        const size_t before = m_spares.size();
        startSpare();
        if (m_spares.size() == before)
            break;
    }
}

void Daemon::reap() {
    int status = 0;
    pid_t pid = 0;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
        for (auto it = m_spares.begin(); it != m_spares.end(); ++it) {
            if (it->pid != pid)
                continue;
            if (it->handedOut) {
                // The attach relays this as its own end (RunnerConnection's messages stay true).
                const QJsonObject end = WIFSIGNALED(status)
                                            ? QJsonObject{{"signal", WTERMSIG(status)}}
                                            : QJsonObject{{"exit", WEXITSTATUS(status)}};
                if (it->client >= 0) { // else attach is gone already (onClientGone)
                    (void)sendMessage(it->client, end);
                    ::close(it->client);
                }
                m_lastClient = Clock::now();
            } else {
                ++m_failedStarts;
                m_lastFailure =
                    QStringLiteral("a spare %1 before it was used").arg(exitText(status));
                std::fprintf(stderr, "spare %d %s\n", int(pid), qPrintable(exitText(status)));
            }
            if (it->io >= 0)
                ::close(it->io);
            if (it->err >= 0)
                ::close(it->err);
            m_spares.erase(it);
            break;
        }
    }
    if (m_failedStarts >= kMaxFailedStarts)
        answerDeviceWaiters(); // no spare will list them
}

void Daemon::readSpareStderr(Spare& spare) {
    // Byte by byte up to the ready line: what follows is the client's.
    char c = 0;
    for (;;) {
        const ssize_t n = ::recv(spare.err, &c, 1, MSG_DONTWAIT);
        if (n <= 0)
            return; // nothing more now; its end is seen by reap()
        if (c != '\n') {
            spare.line.append(c);
            continue;
        }
        const QByteArray line = std::exchange(spare.line, {});
        if (!line.startsWith(kReadyPrefix)) {
            std::fprintf(stderr, "spare %d: %s\n", int(spare.pid), line.constData());
            continue;
        }
        spare.ready = true;
        m_failedStarts = 0;
        const QJsonObject said =
            QJsonDocument::fromJson(line.mid(int(std::strlen(kReadyPrefix)))).object();
        std::fprintf(stderr, "spare %d ready\n", int(spare.pid));
        if (!m_devicesKnown) {
            m_devicesKnown = true;
            m_devices = said.value(QStringLiteral("devices")).toArray();
            m_devicesError = said.value(QStringLiteral("error")).toString();
            if (m_options.devices == QLatin1String("all") && m_options.spares <= 0 &&
                !m_devices.isEmpty())
                m_target = int(m_devices.size());
            answerDeviceWaiters();
        }
        return;
    }
}

void Daemon::answerDeviceWaiters() {
    QJsonObject answer{{"devices", m_devices}};
    if (!m_devicesKnown)
        answer = QJsonObject{
            {"error", QStringLiteral("no spare could list the devices: %1").arg(m_lastFailure)}};
    else if (!m_devicesError.isEmpty())
        answer.insert(QStringLiteral("error"), m_devicesError);
    for (int fd : std::exchange(m_deviceWaiters, {})) {
        (void)sendMessage(fd, answer);
        ::close(fd);
    }
}

QString Daemon::mismatch(const QJsonObject& request, bool forDevices) const {
    if (request.value(QStringLiteral("executable")).toString() != m_executable)
        return QStringLiteral("the warm runners are %1, not %2")
            .arg(m_executable, request.value(QStringLiteral("executable")).toString());
    if (request.value(QStringLiteral("version")).toString() != kernelpadVersion())
        return QStringLiteral("the warm runners are KernelPad %1, not %2")
            .arg(kernelpadVersion(), request.value(QStringLiteral("version")).toString());
    // The device list depends on CUDA_* alone (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER); a
    // runner on everything it reads.
    const QJsonObject env = request.value(QStringLiteral("environment")).toObject();
    const auto counts = [forDevices](const QString& name) {
        return !forDevices || name.startsWith(QLatin1String("CUDA_"));
    };
    QStringList differ;
    for (const QString& name : env.keys())
        if (counts(name) && env.value(name) != m_environment.value(name))
            differ << name;
    for (const QString& name : m_environment.keys())
        if (counts(name) && !env.contains(name))
            differ << name;
    if (!differ.isEmpty()) {
        return QStringLiteral("the environment differs from the warm runners' in %1")
            .arg(differ.join(QStringLiteral(", ")));
    }
    // Every request KernelPad sends names its project's folder as an absolute path (the command
    // line's QFileInfo::absolutePath, the window's ProjectDocument::directory), so the working
    // folder reaches a runner only through a relative path in its environment
    // (KERNELPAD_TRACE=trace.log): only then must it be the same.
    if (!forDevices && request.value(QStringLiteral("cwd")).toString() != m_cwd)
        for (auto it = m_environment.begin(); it != m_environment.end(); ++it)
            if (looksLikeRelativePath(it.value().toString()))
                return QStringLiteral("%1 is a relative path and the working folder is not the "
                                      "warm runners' (%2)")
                    .arg(it.key(), m_cwd);
    return {};
}

void Daemon::onAttach(int fd, const QJsonObject& request) {
    m_lastClient = Clock::now();
    QString why = mismatch(request, false);
    Spare* chosen = nullptr;
    if (why.isEmpty()) {
        for (Spare& s : m_spares)
            // Never one handed out before: after its attach went away it is being killed
            // (onClientGone), and its descriptors are gone, until reap() removes it.
            if (s.ready && !s.handedOut && !chosen)
                chosen = &s;
        if (!chosen)
            why = m_spares.empty()
                      ? QStringLiteral("no spare runner is running (%1)").arg(m_lastFailure)
                      : QStringLiteral("no spare runner is ready");
    }
    if (!chosen) {
        ++m_coldFallbacks;
        m_lastCold = why;
        (void)sendMessage(fd, QJsonObject{{"ok", false}, {"why", why}});
        ::close(fd);
        return;
    }
    if (!sendMessage(fd, QJsonObject{{"ok", true}, {"pid", double(chosen->pid)}},
                     {chosen->io, chosen->err})) {
        std::fprintf(stderr, "spare %d not handed over: %s\n", int(chosen->pid),
                     std::strerror(errno));
        ::close(fd);
        return; // the attach went away; the spare stays
    }
    ++m_attaches;
    chosen->handedOut = true;
    ::close(std::exchange(chosen->io, -1));
    ::close(std::exchange(chosen->err, -1));
    chosen->client = fd;
}

void Daemon::onClientGone(Spare& spare) {
    // attach was killed (a cancel, a watchdog): its runner may be stuck in a kernel and never
    // read its input again, so it is killed at once; reap() then removes it.
    ::kill(spare.pid, SIGKILL);
    ::close(std::exchange(spare.client, -1));
    m_lastClient = Clock::now();
}

void Daemon::onClient(int fd) {
    const std::optional<QJsonObject> request = readMessage(fd, kRequestReadMs);
    if (!request)
        std::fprintf(stderr, "a client's request could not be read: %s\n", std::strerror(errno));
    const QString op = request ? request->value(QStringLiteral("op")).toString() : QString();
    if (op == QLatin1String("attach")) {
        onAttach(fd, *request);
        return;
    }
    if (op == QLatin1String("devices")) {
        m_lastClient = Clock::now();
        // A list for another environment (CUDA_VISIBLE_DEVICES) would name other devices.
        if (const QString why = mismatch(*request, true); !why.isEmpty()) {
            (void)sendMessage(fd, QJsonObject{{"refused", why}});
            ::close(fd);
            return;
        }
        m_deviceWaiters.push_back(fd);
        if (m_devicesKnown || m_failedStarts >= kMaxFailedStarts)
            answerDeviceWaiters();
        return;
    }
    if (op == QLatin1String("status")) {
        (void)sendMessage(fd, status());
    } else if (op == QLatin1String("stop")) {
        (void)sendMessage(fd, QJsonObject{{"stopping", true}, {"pid", double(::getpid())}});
        m_stop = true;
    } else {
        (void)sendMessage(fd, QJsonObject{{"error", "unknown request"}});
    }
    ::close(fd);
}

bool Daemon::anyHandedOut() const {
    for (const Spare& s : m_spares)
        if (s.client >= 0)
            return true;
    return false;
}

QJsonObject Daemon::status() const {
    int ready = 0;
    int inUse = 0;
    for (const Spare& s : m_spares) {
        if (s.handedOut)
            ++inUse; // until its process has ended, even after its attach went away
        else if (s.ready)
            ++ready;
    }
    const double idleLeft =
        anyHandedOut() ? double(m_options.idleSeconds)
                       : m_options.idleSeconds -
                             std::chrono::duration<double>(Clock::now() - m_lastClient).count();
    QJsonObject o{{"pid", double(::getpid())},
                  {"socket", socketPath()},
                  {"log", logPath()},
                  {"executable", m_executable},
                  {"version", kernelpadVersion()},
                  {"cwd", m_cwd},
                  {"warmDevices", m_options.devices},
                  {"devices", m_devices},
                  {"target", m_target},
                  {"ready", ready},
                  {"inUse", inUse},
                  {"warming", int(m_spares.size()) - ready - inUse},
                  {"idleSecondsLeft", std::max(0.0, idleLeft)},
                  {"attaches", m_attaches},
                  {"coldFallbacks", m_coldFallbacks}};
    if (!m_devicesError.isEmpty())
        o.insert(QStringLiteral("devicesError"), m_devicesError);
    if (!m_lastCold.isEmpty())
        o.insert(QStringLiteral("lastColdReason"), m_lastCold);
    if (m_failedStarts >= kMaxFailedStarts)
        o.insert(QStringLiteral("failing"), m_lastFailure);
    return o;
}

void Daemon::shutdownAll() {
    for (Spare& s : m_spares) {
        ::kill(s.pid, SIGKILL);
        for (int fd : {s.io, s.err, s.client})
            if (fd >= 0)
                ::close(fd);
    }
    for (Spare& s : m_spares)
        (void)::waitpid(s.pid, nullptr, 0);
    m_spares.clear();
    for (int fd : std::exchange(m_deviceWaiters, {}))
        ::close(fd);
    (void)::unlink(QFile::encodeName(socketPath()).constData());
}

int Daemon::loop() {
    topUp();
    while (!m_stop) {
        std::vector<pollfd> fds{{m_listen, POLLIN, 0}, {g_signalPipe[0], POLLIN, 0}};
        std::vector<size_t> owners; // spare index per entry after the first two
        for (size_t i = 0; i < m_spares.size(); ++i) {
            const Spare& s = m_spares[i];
            if (s.client >= 0 || (!s.ready && s.err >= 0)) {
                fds.push_back({s.client >= 0 ? s.client : s.err, POLLIN, 0});
                owners.push_back(i);
            }
        }
        const double idleLeftMs =
            m_options.idleSeconds * 1000.0 -
            std::chrono::duration<double, std::milli>(Clock::now() - m_lastClient).count();
        if (!anyHandedOut() && m_deviceWaiters.empty() && idleLeftMs <= 0) {
            std::fprintf(stderr, "no client for %d s: ending\n", m_options.idleSeconds);
            break;
        }
        const int waitMs = anyHandedOut() ? -1 : int(std::min(idleLeftMs + 1, 60000.0));
        if (::poll(fds.data(), nfds_t(fds.size()), waitMs) < 0 && errno != EINTR)
            break;
        if (fds[1].revents & POLLIN) {
            char caught[16];
            const ssize_t n = ::read(g_signalPipe[0], caught, sizeof caught);
            for (ssize_t k = 0; k < n; ++k)
                if (caught[k] == char(SIGTERM) || caught[k] == char(SIGINT))
                    m_stop = true;
        }
        // Spares first (their indices are still those of `owners`), then the end of any.
        for (size_t k = 2; k < fds.size(); ++k) {
            if (!fds[k].revents)
                continue;
            Spare& s = m_spares[owners[k - 2]];
            if (s.client >= 0) {
                char c = 0;
                if (::recv(s.client, &c, 1, MSG_DONTWAIT) <= 0)
                    onClientGone(s);
            } else {
                readSpareStderr(s);
            }
        }
        if (fds[0].revents & POLLIN) {
            const int client = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
            if (client >= 0)
                onClient(client);
        }
        reap();
        topUp();
    }
    shutdownAll();
    std::fprintf(stderr, "warm runners stopped\n");
    return 0;
}

} // namespace

int runDaemon(const DaemonOptions& options) {
    Daemon daemon(options);
    QString error;
    if (!daemon.listen(&error)) {
        std::fprintf(stderr, "kernelpad-cli runners: %s\n", qPrintable(error));
        return 1;
    }
    std::fprintf(stderr, "warm runners listening on %s (pid %d)\n", qPrintable(socketPath()),
                 int(::getpid()));
    return daemon.loop();
}

} // namespace kernelpad::warm
