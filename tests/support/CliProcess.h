#pragma once
// kernelpad-cli run as a child process by the tests of its commands: one launcher, so that
// every test waits, reads and reports a command that never ends the same way.

#include "TestPaths.h"

#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace kernelpad::test {

/// How kernelpad-cli ended and what it printed.
struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

/// Runs `kernelpad-cli <args>` in this process's environment with `env` added (a temporary
/// XDG_CACHE_HOME keeps the default results files out of the user's cache) and waits up to
/// `timeoutMs`; a command that does not end by then ends the test program, naming it.
inline CliResult runCli(const QStringList& args, const QMap<QString, QString>& env, int timeoutMs) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (auto it = env.cbegin(); it != env.cend(); ++it)
        environment.insert(it.key(), it.value());
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(KERNELPAD_CLI_PATH), args);
    if (!process.waitForFinished(timeoutMs))
        qFatal("kernelpad-cli %s did not finish within %d ms", qPrintable(args.join(' ')),
               timeoutMs);
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

} // namespace kernelpad::test
