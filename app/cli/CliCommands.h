#pragma once
// The subcommands of kernelpad-cli; each returns the process exit code.

#include <QStringList>

class QJsonObject;

namespace kernelpad::cli {

/// Exit codes (docs/cli.md; `kernelpad-cli --help` lists them).
enum ExitCode {
    kExitOk = 0,
    kExitCompileError = 1,
    kExitVerificationFailed = 2,
    kExitCudaError = 3,
    kExitBadInput = 4,
};

int runCompile(const QStringList& args);
int runRun(const QStringList& args);
int runDevices(const QStringList& args);
int runServe(const QStringList& args);
int runProfile(const QStringList& args);

/// Writes `object` to stdout as indented JSON (every command's --json output).
void printJson(const QJsonObject& object);

} // namespace kernelpad::cli
