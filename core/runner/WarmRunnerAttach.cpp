#include "core/runner/WarmRunnerAttach.h"

#include "core/io/Trace.h"
#include "core/project/RunnerSpec.h"
#include "core/runner/WarmRunnerWire.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

namespace kernelpad::warm {
namespace {

/// How long attach waits for the daemon's answer before it starts cold.
constexpr int kAttachAnswerMs = 2000;
/// How long the spare's exit status may take after its output ended.
constexpr int kExitStatusMs = 30000;
constexpr size_t kRelayBytes = 64 * 1024;

/// Becomes `kernelpad-cli serve` (this very program): the cold runner, traced with why.
int becomeCold(const char* argv0, const QString& why) {
    const std::string line = "attach: cold, because " + why.toStdString();
    tracePhase(line.c_str());
    const QByteArray program = QFile::encodeName(ownExecutable());
    char serve[] = "serve";
    char* argv[] = {const_cast<char*>(argv0), serve, nullptr};
    ::execv(program.constData(), argv);
    std::fprintf(stderr, "kernelpad-cli attach: cannot start %s serve: %s\n", program.constData(),
                 std::strerror(errno));
    return 127;
}

/// Writes all of `data` to `fd`; false when it cannot (the reader went away).
bool writeAll(int fd, const char* data, ssize_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size_t(size));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= n;
    }
    return true;
}

/// Copies what `from` has to `to`; false at its end.
bool relay(int from, int to) {
    char buffer[kRelayBytes];
    const ssize_t n = ::read(from, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    (void)writeAll(to, buffer, n); // a client that stopped reading is not this side's concern
    return true;
}

/// Relays until the spare's stdout and stderr end; then its exit status from the daemon.
[[noreturn]] void relayUntilEnd(int daemon, int io, int err) {
    bool inputOpen = true;
    bool outputOpen = true;
    bool errorOpen = true;
    while (outputOpen || errorOpen) {
        std::vector<pollfd> fds;
        if (inputOpen)
            fds.push_back({STDIN_FILENO, POLLIN, 0});
        if (outputOpen)
            fds.push_back({io, POLLIN, 0});
        if (errorOpen)
            fds.push_back({err, POLLIN, 0});
        if (::poll(fds.data(), nfds_t(fds.size()), -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (const pollfd& p : fds) {
            if (!p.revents)
                continue;
            if (p.fd == STDIN_FILENO) {
                char buffer[kRelayBytes];
                const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
                if (n < 0 && errno == EINTR)
                    continue;
                // The client closed its side: so does the spare's input (its "end of stdin").
                if (n <= 0 || !writeAll(io, buffer, n)) {
                    inputOpen = false;
                    ::shutdown(io, SHUT_WR);
                }
            } else if (p.fd == io) {
                outputOpen = relay(io, STDOUT_FILENO);
            } else {
                errorOpen = relay(err, STDERR_FILENO);
            }
        }
    }
    const std::optional<QJsonObject> end = readMessage(daemon, kExitStatusMs);
    if (end && end->contains(QStringLiteral("signal"))) {
        const int signal = end->value(QStringLiteral("signal")).toInt();
        std::signal(signal, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, signal);
        ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
        ::raise(signal);
        ::_exit(128 + signal);
    }
    if (!end)
        std::fprintf(stderr,
                     "kernelpad-cli attach: the warm-runner daemon ended with the runner\n");
    ::_exit(end ? end->value(QStringLiteral("exit")).toInt() : 1);
}

} // namespace

int runAttach(const char* argv0) {
    std::signal(SIGPIPE, SIG_IGN);
    if (warmRunnersOff())
        return becomeCold(argv0, QStringLiteral("KERNELPAD_WARM_RUNNERS is off"));
    QString why;
    const Connection daemon = connectToDaemon(&why);
    if (!daemon.isOpen())
        return becomeCold(argv0, why);
    const QJsonObject request{{"op", "attach"},
                              {"executable", ownExecutable()},
                              {"version", kernelpadVersion()},
                              {"environment", runnerEnvironment()},
                              {"cwd", QDir::currentPath()}};
    std::vector<int> fds;
    const std::optional<QJsonObject> answer = sendMessage(daemon.fd(), request)
                                                  ? readMessage(daemon.fd(), kAttachAnswerMs, &fds)
                                                  : std::nullopt;
    if (!answer || !answer->value(QStringLiteral("ok")).toBool() || fds.size() != 2) {
        for (int fd : fds)
            ::close(fd);
        return becomeCold(argv0, answer ? answer->value(QStringLiteral("why")).toString()
                                        : QStringLiteral("the daemon did not answer"));
    }
    const std::string line =
        "attach: warm runner " +
        std::to_string(qint64(answer->value(QStringLiteral("pid")).toDouble()));
    tracePhase(line.c_str());
    relayUntilEnd(daemon.fd(), fds[0], fds[1]);
}

} // namespace kernelpad::warm
