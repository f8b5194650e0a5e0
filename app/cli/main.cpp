// kernelpad-cli: compile, run and inspect KernelPad projects without a window.

#include "app/cli/CliAb.h"
#include "app/cli/CliBench.h"
#include "app/cli/CliCommands.h"
#include "app/cli/CliInit.h"
#include "app/cli/CliRunners.h"
#include "app/cli/CliSass.h"
#include "app/cli/CliSweep.h"
#include "app/cli/CliTest.h"
#include "app/cli/CliUsage.h"
#include "core/compile/CompileWatchdog.h"
#include "core/compile/NvrtcApi.h"
#include "core/compile/Program.h"
#include "core/compile/PtxAssembler.h"
#include "core/io/QuitSignals.h"
#include "core/io/Trace.h"
#include "core/project/RunnerSpec.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cstring>

namespace {

/// Prints the refusal of an option the command does not take, naming the valid ones; as JSON
/// on stdout when the command was asked for JSON, as the commands print their own refusals.
int refuseOption(const kernelpad::cli::CommandUsage& command, const QString& option,
                 const QStringList& args) {
    const QString message =
        QStringLiteral("%1: unknown option %2 (valid options: %3; kernelpad-cli %1 --help "
                       "explains them)")
            .arg(command.name, option, kernelpad::cli::validOptions(command));
    if (command.flags.contains(QStringLiteral("--json")) && args.contains(QStringLiteral("--json")))
        QTextStream(stdout) << QJsonDocument(
                                   QJsonObject{{"error", message}, {"status", "bad-input"}})
                                   .toJson(QJsonDocument::Indented);
    else
        QTextStream(stderr) << "kernelpad-cli: " << message << '\n';
    return kernelpad::cli::kExitBadInput;
}

int printVersion() {
    QTextStream out(stdout);
    out << "kernelpad-cli " << KERNELPAD_VERSION << '\n';
    // The compilers this computer has (loaded at run time, so a missing one is no crash).
    QString why;
    if (const kernelpad::NvrtcApi* nvrtc = kernelpad::NvrtcApi::load(&why))
        out << "NVRTC " << kernelpad::Program::nvrtcVersion() << " (" << nvrtc->path << ")\n";
    else
        out << why << '\n';
    if (const kernelpad::NvJitLinkApi* link = kernelpad::NvJitLinkApi::load(&why))
        out << "nvJitLink " << kernelpad::nvJitLinkVersion() << " (" << link->path << ")\n";
    else
        out << why << '\n';
    return kernelpad::cli::kExitOk;
}

/// The command's own entry point (kernelpad::cli::findCommand knew the name).
int runCommand(const QString& command, const QStringList& args) {
    using Entry = int (*)(const QStringList&);
    static const QHash<QString, Entry> entries = {
        {QStringLiteral("init"), &kernelpad::cli::runInit},
        {QStringLiteral("compile"), &kernelpad::cli::runCompile},
        {QStringLiteral("sass"), &kernelpad::cli::runSass},
        {QStringLiteral("run"), &kernelpad::cli::runRun},
        {QStringLiteral("profile"), &kernelpad::cli::runProfile},
        {QStringLiteral("test"), &kernelpad::cli::runTest},
        {QStringLiteral("sweep"), &kernelpad::cli::runSweep},
        {QStringLiteral("devices"), &kernelpad::cli::runDevices},
        {QStringLiteral("runners"), &kernelpad::cli::runRunners},
        {QStringLiteral("ab"), &kernelpad::cli::runAb},
        {QStringLiteral("bench-launch"), &kernelpad::cli::runBenchLaunch}};
    if (command == QLatin1String("attach")) { // without arguments it never reaches here (main)
        QTextStream(stderr) << "kernelpad-cli attach takes no arguments\n";
        return kernelpad::cli::kExitBadInput;
    }
    return entries.value(command, &kernelpad::cli::runServe)(args);
}

} // namespace

static int runCommandLine(int argc, char** argv) {
    kernelpad::tracePhase("main");
    QCoreApplication app(argc, argv);
    kernelpad::tracePhase("Qt core application started");
    QCoreApplication::setApplicationName(QStringLiteral("kernelpad-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KERNELPAD_VERSION));
    QStringList args = QCoreApplication::arguments().mid(1);
    QTextStream err(stderr);
    if (args.isEmpty() || args.first() == "--help" || args.first() == "-h") {
        QTextStream(stdout) << kernelpad::cli::overviewUsage();
        return args.isEmpty() ? kernelpad::cli::kExitBadInput : kernelpad::cli::kExitOk;
    }
    // `kernelpad-cli help [COMMAND]`, as git and cmake answer it.
    if (args.first() == "help") {
        const kernelpad::cli::CommandUsage* asked =
            args.size() > 1 ? kernelpad::cli::findCommand(args[1]) : nullptr;
        if (args.size() > 1 && !asked) {
            err << "kernelpad-cli: unknown command '" << args[1] << "'\n\n"
                << kernelpad::cli::overviewUsage();
            return kernelpad::cli::kExitBadInput;
        }
        QTextStream(stdout) << (asked ? asked->text : kernelpad::cli::overviewUsage());
        return kernelpad::cli::kExitOk;
    }
    if (args.first() == "--version")
        return printVersion();
    const QString command = args.takeFirst();
    const kernelpad::cli::CommandUsage* usage = kernelpad::cli::findCommand(command);
    if (!usage) {
        err << "kernelpad-cli: unknown command '" << command << "'\n\n"
            << kernelpad::cli::overviewUsage();
        return kernelpad::cli::kExitBadInput;
    }
    if (kernelpad::cli::asksForHelp(*usage, args)) {
        QTextStream(stdout) << usage->text;
        return kernelpad::cli::kExitOk;
    }
    if (const QString option = kernelpad::cli::unknownOption(*usage, args); !option.isEmpty())
        return refuseOption(*usage, option, args);
    // --runner (anywhere after the command) becomes $KERNELPAD_RUNNER_SPEC, which every
    // runner this process starts follows (RunnerConnection). sweep takes it several times (every
    // device of every runner): it gets them all back as --runner options.
    QStringList runners;
    for (qsizetype i = 0; i < args.size();) {
        QString text;
        if (args[i] == QLatin1String("--runner")) {
            if (i + 1 >= args.size()) {
                err << "kernelpad-cli: --runner needs a value: local, ssh:[user@]host[:port]"
                       "[/path/to/kernelpad-cli] or cmd:<command line>\n";
                return kernelpad::cli::kExitBadInput;
            }
            text = args[i + 1];
            args.remove(i, 2);
        } else if (args[i].startsWith(QLatin1String("--runner="))) {
            text = args[i].mid(9);
            args.remove(i);
        } else {
            ++i;
            continue;
        }
        QString error;
        const std::optional<kernelpad::RunnerSpec> spec =
            kernelpad::RunnerSpec::parse(text, &error);
        if (!spec) {
            err << "kernelpad-cli: " << error << '\n';
            return kernelpad::cli::kExitBadInput;
        }
        if (!runners.isEmpty() && command != "sweep") {
            err << "kernelpad-cli: --runner once: only sweep spreads over several runners\n";
            return kernelpad::cli::kExitBadInput;
        }
        if (runners.isEmpty())
            qputenv("KERNELPAD_RUNNER_SPEC", spec->toText().toUtf8());
        runners << spec->toText();
    }
    if (command == "sweep")
        for (const QString& runner : std::as_const(runners))
            args << QStringLiteral("--runner") << runner;
    if (command != "serve") {
        QString error;
        (void)kernelpad::RunnerSpec::fromEnvironment(&error);
        if (!error.isEmpty()) {
            err << "kernelpad-cli: " << error << '\n';
            return kernelpad::cli::kExitBadInput;
        }
    }
    return runCommand(command, args);
}

int main(int argc, char** argv) {
    // Started by the window (as its runner, or a tool's): take Ctrl+C and SIGTERM again
    // (core/io/QuitSignals.h).
    kernelpad::unblockQuitSignals();
    // attach decides between a warm spare and a cold `serve` before any Qt start-up: it is on
    // the path of every local runner (core/runner/WarmRunnerAttach.h).
    if (argc == 2 && std::strcmp(argv[1], "attach") == 0)
        return kernelpad::cli::runAttach(argv[0]);
    // A command's Engine may leave an abandoned compile running (core/compile/CompileWatchdog.h).
    return kernelpad::exitCodeAfterCompiles(runCommandLine(argc, argv));
}
