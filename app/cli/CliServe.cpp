// kernelpad-cli serve: the runner process; the loop is core/runner/RunnerServer.cpp.

#include "app/cli/CliCommands.h"

#include "core/runner/RunnerServer.h"

#include <QTextStream>

namespace kernelpad::cli {

int runServe(const QStringList& args) {
    if (!args.isEmpty()) {
        QTextStream(stderr) << "kernelpad-cli serve takes no arguments\n";
        return kExitBadInput;
    }
    return runRunnerServer();
}

} // namespace kernelpad::cli
