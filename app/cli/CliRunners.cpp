// kernelpad-cli runners / attach: the command line of the warm runners; the daemon, its wire
// and attach are core/runner/WarmRunner*.

#include "app/cli/CliRunners.h"

#include "app/cli/CliCommands.h"
#include "core/io/Trace.h"
#include "core/project/RunnerSpec.h"
#include "core/runner/WarmRunnerAttach.h"
#include "core/runner/WarmRunnerDaemon.h"
#include "core/runner/WarmRunnerWire.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>
#include <QThread>

#include <signal.h>

namespace kernelpad::cli {
namespace {

/// Exit of `runners status|wait|stop` when no daemon runs, a wait times out or a spare fails.
constexpr int kExitRunnersProblem = 1;
constexpr int kStatusAnswerMs = 5000;
constexpr int kDefaultWaitSeconds = 60;
constexpr int kWaitPollMs = 50;
constexpr int kStopWaitMs = 10000;
/// How long the device list may take: the first spare's driver and contexts (about 0.7 s on an
/// H200, longer with several devices).
constexpr int kDevicesAnswerMs = 15000;
/// What a spare's context costs on each device, for the status line (measured on an H200).
const char* const kContextNote =
    "each spare holds a CUDA context (about 0.5 GB of device memory) on each device it warmed";

std::optional<QJsonObject> askStatus(QString* why) {
    return warm::ask(QJsonObject{{"op", "status"}}, kStatusAnswerMs, why);
}

QString deviceList(const QJsonArray& devices) {
    QStringList names;
    for (const QJsonValue& d : devices)
        names << QStringLiteral("%1 %2")
                     .arg(d[QStringLiteral("ordinal")].toInt())
                     .arg(d[QStringLiteral("name")].toString());
    return names.isEmpty() ? QStringLiteral("none listed") : names.join(QStringLiteral(", "));
}

int printStatus(bool json) {
    QString why;
    const std::optional<QJsonObject> s = askStatus(&why);
    QTextStream out(stdout);
    if (!s) {
        if (json)
            out << QJsonDocument(QJsonObject{{"running", false}, {"why", why}}).toJson();
        else
            out << "no warm runners: " << why << '\n';
        return kExitRunnersProblem;
    }
    if (json) {
        QJsonObject o = *s;
        o.insert(QStringLiteral("running"), true);
        o.insert(QStringLiteral("note"), QString::fromUtf8(kContextNote));
        out << QJsonDocument(o).toJson(QJsonDocument::Indented);
        return kExitOk;
    }
    const auto number = [&](const char* key) { return s->value(QLatin1String(key)).toInt(); };
    out << "warm runners: pid " << qint64(s->value(QStringLiteral("pid")).toDouble()) << ", socket "
        << s->value(QStringLiteral("socket")).toString() << ", log "
        << s->value(QStringLiteral("log")).toString() << '\n'
        << "devices: " << deviceList(s->value(QStringLiteral("devices")).toArray())
        << " (warmed: " << s->value(QStringLiteral("warmDevices")).toString() << ")\n";
    if (s->contains(QStringLiteral("devicesError")))
        out << "  the spares could not use them: "
            << s->value(QStringLiteral("devicesError")).toString() << '\n';
    out << "spares: " << number("ready") << " ready, " << number("warming") << " warming, "
        << number("inUse") << " in use (keeps " << number("target") << ")\n"
        << "idle: ends after " << qint64(s->value(QStringLiteral("idleSecondsLeft")).toDouble())
        << " s more with no runner taken\n"
        << "attaches: " << number("attaches") << " warm, " << number("coldFallbacks")
        << " fell back cold";
    if (s->contains(QStringLiteral("lastColdReason")))
        out << " (last because " << s->value(QStringLiteral("lastColdReason")).toString() << ')';
    out << '\n';
    if (s->contains(QStringLiteral("failing")))
        out << "spares are failing to start: " << s->value(QStringLiteral("failing")).toString()
            << '\n';
    out << kContextNote << '\n';
    return kExitOk;
}

int waitForSpares(const QStringList& args) {
    int seconds = kDefaultWaitSeconds;
    if (args.size() == 2 && args[0] == QLatin1String("--timeout")) {
        bool ok = false;
        seconds = args[1].toInt(&ok);
        if (!ok || seconds < 0) {
            QTextStream(stderr) << "kernelpad-cli runners wait: --timeout: '" << args[1]
                                << "' is not a number of seconds\n";
            return kExitBadInput;
        }
    } else if (!args.isEmpty()) {
        QTextStream(stderr) << "kernelpad-cli runners wait takes only --timeout S\n";
        return kExitBadInput;
    }
    QElapsedTimer clock;
    clock.start();
    QString why;
    for (;;) {
        const std::optional<QJsonObject> s = askStatus(&why);
        if (!s)
            break;
        if (s->contains(QStringLiteral("failing"))) {
            why = QStringLiteral("spares are failing to start: %1")
                      .arg(s->value(QStringLiteral("failing")).toString());
            break;
        }
        // Every spare ready: a runner still in use counts only once it has ended and its
        // replacement is warm, so that the next timed command neither waits for a spare nor
        // has one made beside it (a context being made or torn down on a GPU delays the
        // driver calls of the process timing there).
        const int ready = s->value(QStringLiteral("ready")).toInt();
        const int inUse = s->value(QStringLiteral("inUse")).toInt();
        const int target = s->value(QStringLiteral("target")).toInt();
        if (ready >= target)
            return kExitOk;
        if (clock.elapsed() >= qint64(seconds) * 1000) {
            why = QStringLiteral("%1 of %2 spares still not ready after %3 s (%4 in use)")
                      .arg(target - ready)
                      .arg(target)
                      .arg(seconds)
                      .arg(inUse);
            break;
        }
        QThread::msleep(kWaitPollMs);
    }
    QTextStream(stderr) << "kernelpad-cli runners wait: " << why << '\n';
    return kExitRunnersProblem;
}

int stopDaemon() {
    QString why;
    const std::optional<QJsonObject> answer =
        warm::ask(QJsonObject{{"op", "stop"}}, kStatusAnswerMs, &why);
    if (!answer) {
        QTextStream(stdout) << "no warm runners to stop: " << why << '\n';
        return kExitOk;
    }
    const auto pid = pid_t(answer->value(QStringLiteral("pid")).toDouble());
    QElapsedTimer clock;
    clock.start();
    while (pid > 0 && ::kill(pid, 0) == 0 && clock.elapsed() < kStopWaitMs)
        QThread::msleep(kWaitPollMs);
    QTextStream(stdout) << "warm runners stopped (pid " << pid << ")\n";
    return kExitOk;
}

int startDaemon(const QStringList& args) {
    warm::DaemonOptions options;
    QString error;
    if (!warm::parseDaemonOptions(args, &options, &error)) {
        QTextStream(stderr) << "kernelpad-cli runners start: " << error << '\n';
        return kExitBadInput;
    }
    qint64 pid = 0;
    if (!warm::startDaemon(options, &pid, &error)) {
        QTextStream(stderr) << "kernelpad-cli runners start: " << error << '\n';
        return kExitRunnersProblem;
    }
    QTextStream(stdout) << "warm runners started (pid " << pid << ", socket " << warm::socketPath()
                        << "), warming devices " << options.devices
                        << "; `kernelpad-cli runners wait` blocks until they are ready\n"
                        << kContextNote << '\n';
    return kExitOk;
}

} // namespace

int runRunners(const QStringList& args) {
    const QString sub = args.value(0);
    const QStringList rest = args.mid(1);
    if (sub == QLatin1String("start"))
        return startDaemon(rest);
    if (sub == QLatin1String("run")) { // the daemon itself, in the foreground (start runs it)
        warm::DaemonOptions options;
        QString error;
        if (!warm::parseDaemonOptions(rest, &options, &error)) {
            QTextStream(stderr) << "kernelpad-cli runners run: " << error << '\n';
            return kExitBadInput;
        }
        return warm::runDaemon(options);
    }
    if (sub == QLatin1String("status") && (rest.isEmpty() || rest == QStringList{"--json"}))
        return printStatus(!rest.isEmpty());
    if (sub == QLatin1String("wait"))
        return waitForSpares(rest);
    if (sub == QLatin1String("stop") && rest.isEmpty())
        return stopDaemon();
    QTextStream(stderr) << "kernelpad-cli runners: expected start, status [--json], wait "
                           "[--timeout S] or stop (got '"
                        << args.join(QLatin1Char(' ')) << "'; kernelpad-cli runners --help)\n";
    return kExitBadInput;
}

int runAttach(const char* argv0) {
    return warm::runAttach(argv0);
}

std::optional<QVector<DeviceInfo>> warmDevices(QString* error, QString* why) {
    if (warm::warmRunnersOff()) {
        *why = QStringLiteral("KERNELPAD_WARM_RUNNERS is off");
        return std::nullopt;
    }
    const std::optional<QJsonObject> answer =
        warm::ask(QJsonObject{{"op", "devices"},
                              {"executable", warm::ownExecutable()},
                              {"version", kernelpadVersion()},
                              {"environment", warm::runnerEnvironment()}},
                  kDevicesAnswerMs, why);
    if (!answer)
        return std::nullopt;
    if (answer->contains(QStringLiteral("refused"))) {
        *why = answer->value(QStringLiteral("refused")).toString();
        return std::nullopt;
    }
    QVector<DeviceInfo> devices;
    for (const QJsonValue& value : answer->value(QStringLiteral("devices")).toArray()) {
        QString bad;
        if (const std::optional<DeviceInfo> d = DeviceInfo::fromJson(value.toObject(), &bad))
            devices.append(*d);
    }
    *error = answer->value(QStringLiteral("error")).toString();
    if (devices.isEmpty() && error->isEmpty())
        *error = QStringLiteral("the CUDA driver reports no devices");
    tracePhase("devices: listed by the warm runners");
    return devices;
}

} // namespace kernelpad::cli
