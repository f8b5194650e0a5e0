#include "core/runner/WarmRunnerDaemon.h"
// `runners start`'s side: its options, and the daemon started detached (`runners run` in a
// session of its own, its output in the log of its folder).

#include "core/runner/WarmRunnerWire.h"

#include <QFile>
#include <QJsonObject>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kernelpad::warm {
namespace {

/// How long `runners start` waits for the daemon to answer.
constexpr int kStartWaitMs = 10000;
constexpr int kStartPollMs = 20;
constexpr int kStartAskMs = 1000;
constexpr int kSecondsPerMinute = 60;
/// The longest idle time `--idle-minutes` takes: a week.
constexpr int kMaxIdleMinutes = 7 * 24 * 60;
constexpr int kMaxSpares = 64;

QString startExitText(int status) {
    return WIFSIGNALED(status) ? QStringLiteral("was killed by signal %1").arg(WTERMSIG(status))
                               : QStringLiteral("exited with code %1").arg(WEXITSTATUS(status));
}

} // namespace

bool parseDaemonOptions(const QStringList& args, DaemonOptions* options, QString* error) {
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& name = args[i];
        if (i + 1 >= args.size()) {
            *error = QStringLiteral("%1 needs a value").arg(name);
            return false;
        }
        const QString value = args[++i];
        bool ok = false;
        if (name == QLatin1String("--devices")) {
            const QString devices = value.trimmed();
            for (const QString& item : devices.split(QLatin1Char(',')))
                if (devices != QLatin1String("all") && (item.toInt(&ok) < 0 || !ok)) {
                    *error = QStringLiteral("--devices: '%1' is not a device ordinal (expected "
                                            "all or a list such as 0,1)")
                                 .arg(item);
                    return false;
                }
            options->devices = devices;
        } else if (name == QLatin1String("--spares")) {
            options->spares = value.toInt(&ok);
            if (!ok || options->spares < 1 || options->spares > kMaxSpares) {
                *error = QStringLiteral("--spares: '%1' is not a number from 1 to %2")
                             .arg(value)
                             .arg(kMaxSpares);
                return false;
            }
        } else if (name == QLatin1String("--idle-minutes")) {
            const int minutes = value.toInt(&ok);
            if (!ok || minutes < 1 || minutes > kMaxIdleMinutes) {
                *error = QStringLiteral("--idle-minutes: '%1' is not a number of minutes from 1 "
                                        "to %2")
                             .arg(value)
                             .arg(kMaxIdleMinutes);
                return false;
            }
            options->idleSeconds = minutes * kSecondsPerMinute;
        } else {
            *error = QStringLiteral("unknown option %1 (valid: --devices, --spares, "
                                    "--idle-minutes)")
                         .arg(name);
            return false;
        }
    }
    bool set = false;
    const int seconds = qEnvironmentVariableIntValue("KERNELPAD_WARM_IDLE_SECONDS", &set);
    if (set && seconds > 0)
        options->idleSeconds = seconds;
    return true;
}

QStringList daemonArguments(const DaemonOptions& options) {
    QStringList args{QStringLiteral("--devices"), options.devices};
    if (options.spares > 0)
        args << QStringLiteral("--spares") << QString::number(options.spares);
    return args; // the idle time travels as seconds, in the environment
}

bool startDaemon(const DaemonOptions& options, qint64* pid, QString* error) {
    if (!ensureFolder(error))
        return false;
    QString why;
    if (const std::optional<QJsonObject> s =
            ask(QJsonObject{{"op", "status"}}, kStartAskMs, &why)) {
        *error = QStringLiteral("warm runners are already running (pid %1); `kernelpad-cli runners "
                                "stop` ends them")
                     .arg(qint64(s->value(QStringLiteral("pid")).toDouble()));
        return false;
    }
    const QByteArray program = QFile::encodeName(ownExecutable());
    rotateLog();
    const QByteArray log = QFile::encodeName(logPath());
    const QByteArray idle = QByteArray::number(options.idleSeconds);
    std::vector<QByteArray> args{program, "runners", "run"};
    for (const QString& a : daemonArguments(options))
        args.push_back(a.toUtf8());
    std::vector<char*> argv;
    for (QByteArray& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const int logFd =
        ::open(log.constData(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (logFd < 0) {
        *error = QStringLiteral("cannot open the log %1: %2").arg(logPath(), std::strerror(errno));
        return false;
    }
    const pid_t child = ::fork();
    if (child == 0) {
        ::setsid(); // no terminal's hang-up or Ctrl+C reaches it
        const int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, STDIN_FILENO);
        ::dup2(logFd, STDOUT_FILENO);
        ::dup2(logFd, STDERR_FILENO);
        ::setenv("KERNELPAD_WARM_IDLE_SECONDS", idle.constData(), 1);
        ::execv(program.constData(), argv.data());
        ::_exit(127);
    }
    ::close(logFd);
    if (child < 0) {
        *error = QStringLiteral("fork: %1").arg(std::strerror(errno));
        return false;
    }
    for (int waited = 0; waited < kStartWaitMs; waited += kStartPollMs) {
        int status = 0;
        if (::waitpid(child, &status, WNOHANG) == child) {
            QFile f(logPath());
            QByteArray tail;
            if (f.open(QIODevice::ReadOnly) && f.seek(std::max<qint64>(0, f.size() - 600)))
                tail = f.read(600);
            *error = QStringLiteral("the daemon %1 at start; its log %2 ends:\n%3")
                         .arg(startExitText(status), logPath(), QString::fromUtf8(tail).trimmed());
            return false;
        }
        if (ask(QJsonObject{{"op", "status"}}, kStartAskMs, &why)) {
            *pid = child;
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(kStartPollMs));
    }
    *error = QStringLiteral("the daemon did not answer within %1 s (its log: %2)")
                 .arg(kStartWaitMs / 1000)
                 .arg(logPath());
    return false;
}

} // namespace kernelpad::warm
