#include "core/project/RunnerSpec.h"

#include "core/compile/NvrtcApi.h"
#include "core/io/JsonFields.h"

#include <QProcess>

namespace kernelpad {
namespace {

const QString kSyntax = QStringLiteral(
    "expected local, ssh:[user@]host[:port][/path/to/kernelpad-cli] or cmd:<command line>");

QString kindName(RunnerSpec::Kind kind) {
    switch (kind) {
    case RunnerSpec::Kind::Local:
        return QStringLiteral("local");
    case RunnerSpec::Kind::Ssh:
        return QStringLiteral("ssh");
    case RunnerSpec::Kind::Command:
        return QStringLiteral("command");
    }
    return {};
}

} // namespace

QString kernelpadVersion() {
#ifdef KERNELPAD_VERSION
    return QStringLiteral(KERNELPAD_VERSION);
#else
    return QStringLiteral("unknown");
#endif
}

bool nvrtcUnavailableHere() {
    return !nvrtcUnavailableReason().isEmpty();
}

QString nvrtcUnavailableReason() {
    if (qEnvironmentVariable("KERNELPAD_NO_NVRTC") == QLatin1String("1"))
        return QStringLiteral("NVRTC is not used on this computer (KERNELPAD_NO_NVRTC=1); ") +
               useARunnerAdvice();
    QString why;
    (void)NvrtcApi::load(&why);
    return why;
}

RunnerSpec RunnerSpec::local() {
    return RunnerSpec{};
}

QString RunnerSpec::displayName() const {
    if (!name.isEmpty())
        return name;
    switch (kind) {
    case Kind::Local:
        return QStringLiteral("this computer");
    case Kind::Ssh:
        return host;
    case Kind::Command: {
        const QStringList words = QProcess::splitCommand(commandLine);
        return words.isEmpty() ? QStringLiteral("command") : words.first();
    }
    }
    return {};
}

QString RunnerSpec::destination() const {
    return user.isEmpty() ? host : user + QLatin1Char('@') + host;
}

int RunnerSpec::effectiveHelloLimitMs() const {
    if (helloLimitMs > 0)
        return helloLimitMs;
    switch (kind) {
    case Kind::Local:
        return kLocalHelloLimitMs;
    case Kind::Ssh:
        return kSshHelloLimitMs;
    case Kind::Command:
        return kCommandHelloLimitMs;
    }
    return kLocalHelloLimitMs;
}

qint64 RunnerSpec::effectiveKeepBeyondBytes() const {
    bool set = false;
    const qint64 fromEnv = qEnvironmentVariable("KERNELPAD_STREAM_KEEP_BYTES").toLongLong(&set);
    if (set && fromEnv >= 0)
        return fromEnv;
    return keepBeyondBytes >= 0 ? keepBeyondBytes : kDefaultKeepBeyondBytes;
}

bool RunnerSpec::setHelloLimitText(const QString& seconds, QString* error) {
    const QString text = seconds.trimmed();
    if (text.isEmpty()) {
        helloLimitMs = 0;
        return true;
    }
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !(value >= 0) || value * 1000.0 > kMaxHelloLimitMs) {
        RunnerSpec byDefault;
        byDefault.kind = kind;
        *error = QStringLiteral("Hello time limit: '%1' is not a number of seconds between 0 "
                                "(the default, %2 s for this runner) and %3")
                     .arg(text)
                     .arg(byDefault.effectiveHelloLimitMs() / 1000)
                     .arg(kMaxHelloLimitMs / 1000);
        return false;
    }
    helloLimitMs = int(value * 1000.0 + 0.5);
    return true;
}

bool RunnerSpec::setKeepLimitText(const QString& mebibytes, QString* error) {
    const QString text = mebibytes.trimmed();
    if (text.isEmpty()) {
        keepBeyondBytes = -1;
        return true;
    }
    bool ok = false;
    const double value = text.toDouble(&ok);
    constexpr double kMiB = 1024.0 * 1024.0;
    if (!ok || !(value >= 0) || value * kMiB > double(kMaxKeepBeyondBytes)) {
        *error = QStringLiteral("Keep outputs larger than: '%1' is not a size in MiB between 0 "
                                "(every output stays on the runner) and %2 (empty: %3)")
                     .arg(text)
                     .arg(kMaxKeepBeyondBytes >> 20)
                     .arg(kDefaultKeepBeyondBytes >> 20);
        return false;
    }
    keepBeyondBytes = qint64(value * kMiB + 0.5);
    return true;
}

QString RunnerSpec::helloLimitText() const {
    return helloLimitMs > 0 ? QString::number(helloLimitMs / 1000.0) : QString();
}

QString RunnerSpec::keepLimitText() const {
    return keepBeyondBytes >= 0 ? QString::number(double(keepBeyondBytes) / (1024.0 * 1024.0))
                                : QString();
}

QString RunnerSpec::validate() const {
    if (helloLimitMs < 0 || helloLimitMs > kMaxHelloLimitMs)
        return QStringLiteral("runner '%1': the hello time limit %2 ms is not between 0 and %3 ms")
            .arg(displayName())
            .arg(helloLimitMs)
            .arg(kMaxHelloLimitMs);
    if (keepBeyondBytes < -1 || keepBeyondBytes > kMaxKeepBeyondBytes)
        return QStringLiteral("runner '%1': the keep limit of streamed outputs, %2 bytes, is not "
                              "between 0 and %3 bytes")
            .arg(displayName())
            .arg(keepBeyondBytes)
            .arg(kMaxKeepBeyondBytes);
    switch (kind) {
    case Kind::Local:
        return {};
    case Kind::Ssh:
        if (host.isEmpty())
            return QStringLiteral("runner '%1': the ssh host is empty").arg(displayName());
        if (host.startsWith(QLatin1Char('-')) || host.contains(QLatin1Char(' ')) ||
            host.contains(QLatin1Char('@')))
            return QStringLiteral("runner '%1': the ssh host '%2' is not a host name")
                .arg(displayName(), host);
        if (user.startsWith(QLatin1Char('-')) || user.contains(QLatin1Char(' ')) ||
            user.contains(QLatin1Char('@')))
            return QStringLiteral("runner '%1': the ssh user '%2' is not a user name")
                .arg(displayName(), user);
        if (port < 0 || port > 65535)
            return QStringLiteral("runner '%1': the ssh port %2 is not between 1 and 65535")
                .arg(displayName())
                .arg(port);
        return {};
    case Kind::Command:
        if (QProcess::splitCommand(commandLine).isEmpty())
            return QStringLiteral("runner '%1': the command line is empty").arg(displayName());
        return {};
    }
    return {};
}

bool RunnerSpec::command(const QString& localRunner, QString* program, QStringList* arguments,
                         QString* error) const {
    if (const QString problem = validate(); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    switch (kind) {
    case Kind::Local:
        *program = localRunner;
        *arguments = {QStringLiteral("serve")};
        return true;
    case Kind::Ssh: {
        // BatchMode: a key or agent, never a prompt (nobody can answer it in the window);
        // keep-alives: a vanished network ends the run within ~15 s instead of never.
        QStringList a{QStringLiteral("-o"), QStringLiteral("BatchMode=yes"),
                      QStringLiteral("-o"), QStringLiteral("ServerAliveInterval=5"),
                      QStringLiteral("-o"), QStringLiteral("ServerAliveCountMax=3")};
        if (port > 0)
            a << QStringLiteral("-p") << QString::number(port);
        a << sshOptions << destination()
          << (remotePath.isEmpty() ? QStringLiteral("kernelpad-cli") : remotePath)
          << QStringLiteral("serve");
        *program = QStringLiteral("ssh");
        *arguments = a;
        return true;
    }
    case Kind::Command: {
        QStringList words = QProcess::splitCommand(commandLine);
        *program = words.takeFirst();
        *arguments = words;
        return true;
    }
    }
    return false;
}

QJsonObject RunnerSpec::toJson() const {
    QJsonObject o{{"kind", kindName(kind)}};
    if (!name.isEmpty())
        o.insert(QStringLiteral("name"), name);
    if (kind == Kind::Ssh) {
        o.insert(QStringLiteral("host"), host);
        if (!user.isEmpty())
            o.insert(QStringLiteral("user"), user);
        if (port > 0)
            o.insert(QStringLiteral("port"), port);
        if (!sshOptions.isEmpty())
            o.insert(QStringLiteral("sshOptions"), QJsonArray::fromStringList(sshOptions));
        if (!remotePath.isEmpty())
            o.insert(QStringLiteral("remotePath"), remotePath);
    } else if (kind == Kind::Command) {
        o.insert(QStringLiteral("command"), commandLine);
    }
    if (helloLimitMs > 0)
        o.insert(QStringLiteral("helloLimitMs"), helloLimitMs);
    if (keepBeyondBytes >= 0)
        o.insert(QStringLiteral("keepBeyondBytes"), keepBeyondBytes);
    return o;
}

std::optional<RunnerSpec> RunnerSpec::fromJson(const QJsonObject& o, QString* error) {
    const json::FieldReader fields(o, error, QStringLiteral("runner"));
    constexpr auto optional = json::Presence::Optional;
    constexpr auto required = json::Presence::Required;
    RunnerSpec s;
    QString kind;
    if (!fields.readChoice(
            QStringLiteral("kind"),
            {QStringLiteral("local"), QStringLiteral("ssh"), QStringLiteral("command")}, &kind,
            required) ||
        !fields.readString(QStringLiteral("name"), &s.name, optional))
        return std::nullopt;
    if (kind == QLatin1String("local")) {
        s.kind = Kind::Local;
    } else if (kind == QLatin1String("ssh")) {
        s.kind = Kind::Ssh;
        if (!fields.readString(QStringLiteral("host"), &s.host, required) ||
            !fields.readString(QStringLiteral("user"), &s.user, optional) ||
            !fields.readInt(QStringLiteral("port"), &s.port, optional, {0, 65535}) ||
            !fields.readString(QStringLiteral("remotePath"), &s.remotePath, optional))
            return std::nullopt;
        if (!fields.readStrings(QStringLiteral("sshOptions"), &s.sshOptions, optional))
            return std::nullopt;
    } else if (kind == QLatin1String("command")) {
        s.kind = Kind::Command;
        if (!fields.readString(QStringLiteral("command"), &s.commandLine, required))
            return std::nullopt;
    }
    // Both limits are optional: settings saved before they existed still load.
    if (!fields.readInt(QStringLiteral("helloLimitMs"), &s.helloLimitMs, optional,
                        {0, kMaxHelloLimitMs}) ||
        !fields.readWholeNumber(QStringLiteral("keepBeyondBytes"), &s.keepBeyondBytes, optional,
                                {0, kMaxKeepBeyondBytes}))
        return std::nullopt;
    if (const QString problem = s.validate(); !problem.isEmpty()) {
        *error = problem;
        return std::nullopt;
    }
    return s;
}

std::optional<RunnerSpec> RunnerSpec::parse(const QString& text, QString* error) {
    const auto fail = [&](const QString& what) {
        *error = QStringLiteral("--runner '%1': %2; %3").arg(text, what, kSyntax);
        return std::nullopt;
    };
    if (text == QLatin1String("local"))
        return local();
    if (text.startsWith(QLatin1String("cmd:"))) {
        RunnerSpec s;
        s.kind = Kind::Command;
        s.commandLine = text.mid(4);
        if (QProcess::splitCommand(s.commandLine).isEmpty())
            return fail(QStringLiteral("the command line is empty"));
        return s;
    }
    if (!text.startsWith(QLatin1String("ssh:")))
        return fail(QStringLiteral("unknown kind of runner"));
    RunnerSpec s;
    s.kind = Kind::Ssh;
    QString rest = text.mid(4);
    if (const qsizetype slash = rest.indexOf(QLatin1Char('/')); slash >= 0) {
        s.remotePath = rest.mid(slash);
        rest = rest.left(slash);
    }
    if (const qsizetype at = rest.indexOf(QLatin1Char('@')); at >= 0) {
        s.user = rest.left(at);
        rest = rest.mid(at + 1);
        if (s.user.isEmpty())
            return fail(QStringLiteral("the user before '@' is empty"));
    }
    if (const qsizetype colon = rest.indexOf(QLatin1Char(':')); colon >= 0) {
        bool ok = false;
        const QString portText = rest.mid(colon + 1);
        const int port = portText.toInt(&ok);
        if (!ok || port < 1 || port > 65535)
            return fail(
                QStringLiteral("the port '%1' is not a number between 1 and 65535").arg(portText));
        s.port = port;
        rest = rest.left(colon);
    }
    s.host = rest;
    if (s.host.isEmpty())
        return fail(QStringLiteral("the host is empty"));
    if (const QString problem = s.validate(); !problem.isEmpty())
        return fail(problem);
    return s;
}

QString RunnerSpec::toText() const {
    switch (kind) {
    case Kind::Local:
        return QStringLiteral("local");
    case Kind::Ssh:
        return QStringLiteral("ssh:") + destination() +
               (port > 0 ? QStringLiteral(":%1").arg(port) : QString()) + remotePath;
    case Kind::Command:
        return QStringLiteral("cmd:") + commandLine;
    }
    return {};
}

std::optional<RunnerSpec> RunnerSpec::fromEnvironment(QString* error) {
    const QString text = qEnvironmentVariable("KERNELPAD_RUNNER_SPEC");
    if (text.isEmpty())
        return std::nullopt;
    std::optional<RunnerSpec> s = parse(text, error);
    if (!s)
        *error = QStringLiteral("$KERNELPAD_RUNNER_SPEC: ") + *error;
    return s;
}

bool RunnerSpec::operator==(const RunnerSpec& o) const {
    return kind == o.kind && name == o.name && host == o.host && user == o.user && port == o.port &&
           sshOptions == o.sshOptions && remotePath == o.remotePath &&
           commandLine == o.commandLine && helloLimitMs == o.helloLimitMs &&
           keepBeyondBytes == o.keepBeyondBytes;
}

} // namespace kernelpad
