#include "core/runner/RunnerHello.h"

#include "core/runner/Protocol.h"

#include <QVersionNumber>

namespace kernelpad {
namespace {

/// Where a runner lives, for messages: "gpu-box", "this computer", "the runner command".
QString whereText(const RunnerSpec& spec) {
    switch (spec.kind) {
    case RunnerSpec::Kind::Local:
        return QStringLiteral("this computer");
    case RunnerSpec::Kind::Ssh:
        return spec.host;
    case RunnerSpec::Kind::Command:
        return spec.displayName();
    }
    return {};
}

bool isSshProblem(const QString& text) {
    static const char* const kSigns[] = {
        "Permission denied",    "Could not resolve hostname", "Connection refused",
        "Connection timed out", "No route to host",           "Host key verification failed",
        "Connection closed by", "Network is unreachable",     "Too many authentication failures",
    };
    for (const char* s : kSigns)
        if (text.contains(QLatin1String(s)))
            return true;
    return false;
}

bool isMissingProgram(const QString& text) {
    return text.contains(QLatin1String("command not found")) ||
           text.contains(QLatin1String("No such file or directory")) ||
           text.contains(QLatin1String("not found"));
}

} // namespace

QString describeRunnerStartFailure(const RunnerSpec& spec, const QString& why,
                                   const QString& stderrText, const QString& firstLine) {
    const QString where = whereText(spec);
    QString text;
    if (!firstLine.isEmpty())
        text = QStringLiteral("KernelPad's runner on %1 printed \"%2\" instead of its hello")
                   .arg(where, firstLine.left(200));
    else
        text =
            QStringLiteral("KernelPad's runner on %1 ended before its hello (%2)").arg(where, why);
    const QString said = stderrText.trimmed().right(2000);
    if (!said.isEmpty())
        text += QStringLiteral(". It said:\n") + said;
    const QString all = stderrText + QLatin1Char('\n') + firstLine;
    QString hint;
    if (spec.kind == RunnerSpec::Kind::Ssh && isSshProblem(all)) {
        hint = QStringLiteral("check that `ssh -o BatchMode=yes %1 true` works in a terminal; add "
                              "your key with ssh-copy-id %1")
                   .arg(spec.destination());
    } else if (isMissingProgram(all) || why.contains(QLatin1String("code 127"))) {
        const QString program = spec.kind == RunnerSpec::Kind::Ssh && !spec.remotePath.isEmpty()
                                    ? spec.remotePath
                                    : QStringLiteral("kernelpad-cli");
        hint = spec.kind == RunnerSpec::Kind::Ssh
                   ? QStringLiteral("%1 was not found on %2: install KernelPad on %2 or give the "
                                    "path, as in ssh:%3/path/to/kernelpad-cli")
                         .arg(program, spec.host, spec.destination())
                   : QStringLiteral("a program of the command was not found: install KernelPad "
                                    "there or give the full path of kernelpad-cli in the "
                                    "command");
    } else if (spec.kind == RunnerSpec::Kind::Command) {
        hint = QStringLiteral("check that `%1` prints a hello line in a terminal")
                   .arg(spec.commandLine);
    } else if (!firstLine.isEmpty() && spec.kind == RunnerSpec::Kind::Ssh) {
        hint = QStringLiteral("the remote shell's start-up files must not print anything for a "
                              "non-interactive command");
    }
    if (!hint.isEmpty())
        text += QStringLiteral("\nTry: ") + hint + QLatin1Char('.');
    return text;
}

QString describeVersionMismatch(const RunnerSpec& spec, int protocol,
                                const QString& runnerVersion) {
    const QString ours = kernelpadVersion();
    if (protocol == kRunnerProtocolVersion && runnerVersion == ours)
        return {};
    const QString theirs = runnerVersion.isEmpty() ? QStringLiteral("an older KernelPad")
                                                   : QStringLiteral("KernelPad ") + runnerVersion;
    // Which is older: the protocol says first, then the release number.
    bool runnerOlder = protocol < kRunnerProtocolVersion;
    if (protocol == kRunnerProtocolVersion)
        runnerOlder = runnerVersion.isEmpty() ||
                      QVersionNumber::fromString(runnerVersion) < QVersionNumber::fromString(ours);
    const QString where = whereText(spec);
    const QString runnerWhere = spec.kind == RunnerSpec::Kind::Ssh ? QStringLiteral("on ") + where
                                                                   : QStringLiteral("of ") + where;
    QString update;
    if (runnerOlder)
        update = spec.kind == RunnerSpec::Kind::Local
                     ? QStringLiteral("update kernelpad-cli on this computer")
                     : QStringLiteral("update kernelpad-cli on %1").arg(where);
    else
        update = QStringLiteral("update this KernelPad");
    return QStringLiteral("the runner %1 is %2 (protocol %3); this KernelPad is %4 (protocol %5): "
                          "%6")
        .arg(runnerWhere, theirs)
        .arg(protocol)
        .arg(ours)
        .arg(kRunnerProtocolVersion)
        .arg(update);
}

} // namespace kernelpad
