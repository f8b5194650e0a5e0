#include "app/cli/CliCommands.h"

#include "app/cli/CliDiff.h"
#include "app/cli/CliEngine.h"
#include "app/cli/CliFormat.h"
#include "app/cli/CliOccupancy.h"
#include "app/cli/CliProfile.h"
#include "app/cli/CliSass.h"
#include "core/engine/Engine.h"
#include "core/io/SafeFile.h"
#include "core/io/Trace.h"
#include "core/profile/ProfileAdvice.h"
#include "core/profile/ProfileComparison.h"
#include "core/project/Project.h"
#include "core/run/ErrorText.h"
#include "core/run/Summary.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <climits>
#include <memory>
#include <optional>

namespace kernelpad::cli {

void printJson(const QJsonObject& object) {
    QTextStream(stdout) << QJsonDocument(object).toJson(QJsonDocument::Indented);
}

namespace {

/// Options of one subcommand: flags without values and options with one value.
struct ParsedArgs {
    QStringList positional;
    QHash<QString, QString> values;
    QSet<QString> flags;
};

std::optional<ParsedArgs> parseArgs(const QStringList& args, const QStringList& flagNames,
                                    const QStringList& valueNames, QString* error) {
    ParsedArgs parsed;
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        if (!a.startsWith(QLatin1String("--"))) {
            parsed.positional << a;
            continue;
        }
        const QString name = a.mid(2);
        if (flagNames.contains(name)) {
            parsed.flags.insert(name);
        } else if (valueNames.contains(name)) {
            if (i + 1 >= args.size()) {
                *error = QStringLiteral("option %1 needs a value").arg(a);
                return std::nullopt;
            }
            parsed.values.insert(name, args[++i]);
        } else {
            *error = QStringLiteral("unknown option %1").arg(a);
            return std::nullopt;
        }
    }
    return parsed;
}

int badInput(const QString& message, bool json) {
    if (json)
        printJson(QJsonObject{{"error", message}, {"status", "bad-input"}});
    else
        QTextStream(stderr) << "kernelpad-cli: " << message << '\n';
    return kExitBadInput;
}

std::optional<int> parsePositiveInt(const QString& text) {
    bool ok = false;
    const int v = text.toInt(&ok);
    return ok && v >= 0 ? std::optional<int>(v) : std::nullopt;
}

int exitCodeFor(RunStatus status) {
    switch (status) {
    case RunStatus::Ok:
        return kExitOk;
    case RunStatus::CompileError:
        return kExitCompileError;
    case RunStatus::VerificationFailed:
        return kExitVerificationFailed;
    case RunStatus::BadInput:
        return kExitBadInput;
    case RunStatus::CudaError:
    case RunStatus::DriverUnavailable:
    case RunStatus::Cancelled:
    case RunStatus::Timeout:
        return kExitCudaError;
    }
    return kExitCudaError;
}

int exitCodeFor(const RunResult& result) {
    // A fault compute-sanitizer found is a CUDA error even when the run itself looked fine.
    if (result.sanitizerErrorCount() > 0 && result.status != RunStatus::CompileError &&
        result.status != RunStatus::BadInput)
        return kExitCudaError;
    return exitCodeFor(result.status);
}

} // namespace

namespace {

/// What `kernelpad-cli compile` compiles: a .kpad project, or a source file (.cu, .ptx, .ll)
/// read as a bare project.
std::optional<Project> compileInput(const QString& path, QString* error) {
    if (path.endsWith(QLatin1String(".kpad")))
        return Project::load(path, error);
    // Bounded and regular files only: a FIFO would hang the CLI, /dev/zero fill memory.
    QString why;
    const std::optional<QByteArray> bytes =
        readRegularFile(path, ReadLimits{kMaxCliSourceBytes, true}, &why);
    if (!bytes) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, why);
        return std::nullopt;
    }
    Project project;
    project.source = QString::fromUtf8(*bytes);
    project.sourceName = QFileInfo(path).fileName();
    project.language = languageOfFile(path); // .ptx, .ll/.nvvm
    return project;
}

/// Why `kernel` (when named) is not in a compiled module, or empty: it is, by its name or as
/// a name expression NVRTC lowered.
QString missingKernel(const CompileResult& result, const QString& kernel) {
    if (!result.ok || kernel.isEmpty() || result.findKernel(kernel))
        return {};
    for (const auto& [expression, name] : result.loweredNames)
        if (expression == kernel)
            return {};
    QStringList names;
    for (const KernelInfo& k : result.kernels)
        names << k.name;
    return QStringLiteral("kernel '%1' is not in the module; it has: %2")
        .arg(kernel, names.join(QStringLiteral(", ")));
}

} // namespace

int runCompile(const QStringList& args) {
    QString error;
    const std::optional<ParsedArgs> p =
        parseArgs(args, {"ptx", "json", "sass", "occupancy", "registers"},
                  {"arch", "kernel", "diff"}, &error);
    const bool json = args.contains(QStringLiteral("--json"));
    if (!p)
        return badInput(error, json);
    if (p->positional.size() != 1)
        return badInput(QStringLiteral("compile takes one FILE.kpad, FILE.cu, FILE.ptx or FILE.ll"),
                        json);
    const QString path = p->positional.first();
    const bool wantRegisters = p->flags.contains("registers");
    if (const QString e = registersOptionError(wantRegisters, p->flags.contains("sass"),
                                               p->values.contains("diff"));
        !e.isEmpty())
        return badInput(e, json);
    if (p->values.contains("diff"))
        return runCompileDiff({path, p->values.value("diff"), p->values.value("arch"),
                               p->values.value("kernel"), p->flags.contains("ptx"),
                               p->flags.contains("sass"), json});
    const QFileInfo info(path);
    std::optional<Project> loaded = compileInput(path, &error);
    if (!loaded)
        return badInput(error, json);
    Project project = std::move(*loaded);
    if (p->values.contains("kernel"))
        project.kernel = p->values.value("kernel");
    const QString arch =
        p->values.value("arch", project.options.arch.value_or(QString::fromLatin1(kDefaultArch)));
    const bool wantSass = p->flags.contains("sass");
    // The SASS is annotated with source lines, which need -lineinfo; it adds line tables
    // only, the instructions are the same (tests/data/sass/README.md).
    if (wantSass)
        project.options.lineInfo = true;
    CompileResult result;
    SassResult sass;
    QVector<FunctionRegisterUse> registers;
    QString specError;
    const std::optional<RunnerSpec> spec = RunnerSpec::fromEnvironment(&specError);
    if (const QString noNvrtc = nvrtcUnavailableReason(); !noNvrtc.isEmpty()) {
        // No NVRTC here: the runner elsewhere compiles (its toolkit, the same source).
        if (!spec || spec->isLocal())
            return badInput(noNvrtc + QStringLiteral(" (no --runner elsewhere was given)"), json);
        if (wantSass)
            return badInput(QStringLiteral("--sass needs NVRTC and nvdisasm on this computer"),
                            json);
        result = compileThroughEngine(project, info.absolutePath(), arch, spec);
        if (!result.ok && result.kernels.isEmpty() && result.diagnostics.isEmpty() &&
            result.arch.isEmpty()) {
            QTextStream(stderr) << "kernelpad-cli: " << result.log << '\n';
            return kExitCudaError;
        }
    } else if (wantSass) {
        // The -lineinfo compile and its SASS in one request (nvdisasm runs in the Engine).
        SassReport report = disassembleThroughEngine(project, info.absolutePath(), arch);
        if (wantRegisters && report.ok())
            registers = registerUse(report);
        result = std::move(report.compile);
        if (result.ok)
            sass = std::move(report.sass);
    } else {
        result = compileThroughEngine(project, info.absolutePath(), arch);
    }
    if (const QString missing = missingKernel(result, project.kernel); !missing.isEmpty())
        return badInput(missing, json);
    // Program's name for a source without one, which is what .loc and nvdisasm name.
    const QString sourceName =
        project.sourceName.isEmpty() ? QStringLiteral("kernel.cu") : project.sourceName;
    // The kernel named, else the module's only one: the curves are of one kernel.
    const bool wantOccupancy = p->flags.contains("occupancy");
    const QString occupancyKernel = !project.kernel.isEmpty()    ? project.kernel
                                    : result.kernels.size() == 1 ? result.kernels.first().name
                                                                 : QString();
    OccupancyReport occupancy;
    if (wantOccupancy && result.ok) {
        const qint64 threads = project.launch.threadsPerBlock();
        occupancy = occupancyKernel.isEmpty()
                        ? OccupancyReport{{},
                                          false,
                                          false,
                                          QStringLiteral("the module has several kernels: name "
                                                         "one with --kernel")}
                        : occupancyReport(result, occupancyKernel, nullptr, nullptr,
                                          threads > INT_MAX ? INT_MAX : int(threads),
                                          project.launch.sharedMemBytes);
    }
    if (json) {
        QJsonObject object = result.toJson(p->flags.contains("ptx"));
        if (wantOccupancy && result.ok)
            object.insert("occupancy", occupancyJson(occupancy));
        if (wantSass && result.ok)
            insertSassJson(&object, sass, wantRegisters ? &registers : nullptr, result, sourceName);
        printJson(object);
    } else {
        QTextStream out(stdout);
        printCompile(out, result, p->flags.contains("ptx"));
        if (sass.ok)
            printSassPart(out, sass, wantRegisters ? &registers : nullptr, result, project.source,
                          sourceName);
        if (wantOccupancy && result.ok)
            printOccupancy(out, occupancy, occupancyKernel);
    }
    if (!result.error.isEmpty())
        return kExitBadInput;
    if (!result.ok)
        return kExitCompileError;
    if (wantOccupancy && !occupancy.error.isEmpty()) {
        if (!json)
            QTextStream(stderr) << "kernelpad-cli: no occupancy curves: " << occupancy.error
                                << '\n';
        return kExitBadInput;
    }
    if (wantSass && !sass.ok) {
        if (!json)
            QTextStream(stderr) << "kernelpad-cli: " << sass.error << '\n';
        return kExitBadInput;
    }
    return kExitOk;
}

int runRun(const QStringList& args) {
    QString error;
    const std::optional<ParsedArgs> p = parseArgs(
        args,
        {"json", "in-process", "memcheck", "measure-ceiling", "no-blocking", "memcheck-on-fault"},
        {"device", "reps", "sanitizer-tool"}, &error);
    const bool json = args.contains(QStringLiteral("--json"));
    if (!p)
        return badInput(error, json);
    if (p->positional.size() != 1 || !p->positional.first().endsWith(QLatin1String(".kpad")))
        return badInput(QStringLiteral("run takes one FILE.kpad"), json);
    const QString path = p->positional.first();
    std::optional<Project> project = Project::load(path, &error);
    if (!project)
        return badInput(error, json);
    RunRequest request;
    request.project = *project;
    request.projectDir = QFileInfo(path).absolutePath();
    request.keepOutputs = false;
    tracePhase("project loaded");
    request.measureCeiling = p->flags.contains("measure-ceiling");
    if (p->flags.contains("no-blocking"))
        request.project.timing.blockingKernel = false;
    if (p->values.contains("device")) {
        const std::optional<int> device = parsePositiveInt(p->values.value("device"));
        if (!device)
            return badInput(QStringLiteral("--device takes a device number (got '%1')")
                                .arg(p->values.value("device")),
                            json);
        request.device = *device;
    }
    if (p->values.contains("reps")) {
        const std::optional<int> reps = parsePositiveInt(p->values.value("reps"));
        if (!reps || *reps < 1)
            return badInput(QStringLiteral("--reps takes a number of repetitions >= 1 (got '%1')")
                                .arg(p->values.value("reps")),
                            json);
        request.repetitions = *reps;
    }
    if (p->flags.contains("memcheck") || p->values.contains("sanitizer-tool")) {
        // --sanitizer-tool alone implies --memcheck: naming a tool asks for a checked run.
        const QString toolName = p->values.value("sanitizer-tool", QStringLiteral("memcheck"));
        const std::optional<SanitizerTool> tool = sanitizerToolFromName(toolName);
        if (!tool || *tool == SanitizerTool::None)
            return badInput(
                QStringLiteral("--sanitizer-tool takes memcheck, racecheck or initcheck (got '%1')")
                    .arg(toolName),
                json);
        if (p->flags.contains("in-process"))
            return badInput(
                QStringLiteral("--memcheck cannot be combined with --in-process: compute-sanitizer "
                               "must start the process that runs the kernel"),
                json);
        request.sanitizer = *tool;
    }
    const bool memcheckOnFault = p->flags.contains("memcheck-on-fault");
    QString specError;
    const std::optional<RunnerSpec> spec = RunnerSpec::fromEnvironment(&specError);
    const bool remote = spec && !spec->isLocal();
    if (remote && p->flags.contains("in-process"))
        return badInput(QStringLiteral("--in-process cannot be combined with --runner %1: the "
                                       "kernel runs in that runner")
                            .arg(spec->toText()),
                        json);
    if (remote && (memcheckOnFault || request.sanitizer != SanitizerTool::None))
        return badInput(QStringLiteral("--memcheck and --memcheck-on-fault need the runner on this "
                                       "computer (compute-sanitizer starts it), not --runner %1")
                            .arg(spec->toText()),
                        json);
    if (memcheckOnFault && p->flags.contains("in-process"))
        return badInput(QStringLiteral("--memcheck-on-fault cannot be combined with --in-process: "
                                       "compute-sanitizer must start the process that runs the "
                                       "kernel"),
                        json);
    const RunResult result =
        runThroughEngine(request, p->flags.contains("in-process") ? Engine::Isolation::InProcess
                                  : remote                        ? Engine::Isolation::Process
                                                                  : Engine::defaultIsolation());
    tracePhase("result received");
    // One run under memcheck places a fault at its line, thread and block.
    std::optional<RunResult> memcheck;
    if (memcheckOnFault && memcheckCanLocateFault(result)) {
        if (!json)
            QTextStream(stderr) << "kernelpad-cli: the kernel faulted; running it once under "
                                   "compute-sanitizer memcheck to find the line\n";
        RunRequest again = request;
        again.sanitizer = SanitizerTool::Memcheck;
        memcheck = runThroughEngine(again, Engine::Isolation::Process);
    }
    if (json) {
        // The result as the runner sends it, plus its measured values as keyed summaries.
        QJsonObject object = result.toJson(false);
        object.insert(QStringLiteral("summaries"), summariesToJson(summarize(result)));
        if (memcheck) {
            object.insert(QStringLiteral("memcheck"), memcheck->toJson(false));
            object.insert(QStringLiteral("memcheckFinding"), memcheckFinding(*memcheck));
        }
        printJson(object);
    } else {
        QTextStream out(stdout);
        printRun(out, result);
        if (memcheck) {
            printSanitizer(out, *memcheck);
            out << '\n' << memcheckFinding(*memcheck) << '\n';
        } else if (memcheckCanLocateFault(result)) {
            out << "To find the line, thread and block: kernelpad-cli run " << p->positional.first()
                << " --memcheck-on-fault\n";
        }
    }
    tracePhase("result printed");
    return exitCodeFor(result);
}

namespace {

/// Profiles the project at `path` (its own runner under ncu: no warm runner is needed).
ProfileOutcome profileProject(const Project& project, const QString& path, ProfileSet set,
                              std::optional<int> device) {
    RunRequest request;
    request.project = project;
    request.projectDir = QFileInfo(path).absolutePath();
    request.keepOutputs = false;
    if (device)
        request.device = *device;
    Engine engine(nullptr, Engine::Isolation::InProcess);
    ProfileOutcome outcome;
    QEventLoop loop;
    QObject::connect(&engine, &Engine::profileFinished, &loop,
                     [&](quint64, const ProfileOutcome& o) {
                         outcome = o;
                         loop.quit();
                     });
    engine.profile(request, set);
    loop.exec();
    if (outcome.ok() && outcome.report.sourceName.isEmpty())
        outcome.report.sourceName = QFileInfo(path).fileName();
    return outcome;
}

int profileExitCode(const ProfileOutcome& outcome) {
    switch (outcome.status) {
    case ProfileStatus::Ok:
        return kExitOk;
    case ProfileStatus::NcuMissing:
        return kExitBadInput;
    case ProfileStatus::CounterPermission:
    case ProfileStatus::NoKernelProfiled:
    case ProfileStatus::Failed:
        return kExitCudaError;
    case ProfileStatus::KernelFailed:
    case ProfileStatus::Timeout:
    case ProfileStatus::Cancelled:
        // A compile that failed before the run is a compile error; anything else under ncu
        // is at least a CUDA error.
        const int code = exitCodeFor(outcome.runStatus);
        return code == kExitOk ? kExitCudaError : code;
    }
    return kExitCudaError;
}

/// A saved profile is a few hundred KiB (its per-line SASS); more is not one.
constexpr qint64 kMaxProfileJsonBytes = qint64(64) << 20;

/// The baseline of `profile --baseline B`: B's saved profile (`profile --json`'s output, or a
/// report alone) or B.kpad profiled now as the current one is.
ProfileOutcome baselineProfile(const QString& path, ProfileSet set, std::optional<int> device) {
    ProfileOutcome outcome;
    outcome.status = ProfileStatus::Failed;
    QString error;
    if (path.endsWith(QLatin1String(".json"))) {
        const std::optional<QByteArray> bytes =
            readRegularFile(path, ReadLimits{kMaxProfileJsonBytes, true}, &error);
        QJsonParseError parse{};
        const QJsonObject object =
            bytes ? QJsonDocument::fromJson(*bytes, &parse).object() : QJsonObject();
        const QJsonObject report = object.contains(QStringLiteral("profile"))
                                       ? object.value(QStringLiteral("profile")).toObject()
                                       : object;
        std::optional<ProfileReport> r;
        if (bytes && parse.error == QJsonParseError::NoError &&
            !report.contains(QStringLiteral("kernel")))
            error = QStringLiteral("not a saved profile (the output of `profile --json`, or its "
                                   "\"profile\"): it has no \"kernel\"");
        else if (bytes && parse.error == QJsonParseError::NoError)
            r = ProfileReport::fromJson(report, &error);
        else if (bytes)
            error = parse.errorString();
        if (!r) {
            outcome.error = QStringLiteral("--baseline %1: %2").arg(path, error);
            return outcome;
        }
        outcome.status = ProfileStatus::Ok;
        outcome.report = *r;
        return outcome;
    }
    const std::optional<Project> project = Project::load(path, &error);
    if (!project) {
        outcome.error = QStringLiteral("--baseline: %1").arg(error);
        return outcome;
    }
    outcome = profileProject(*project, path, set, device);
    if (!outcome.ok())
        outcome.error = QStringLiteral("the baseline %1: %2").arg(path, outcome.error);
    return outcome;
}

void printProfileOutcome(const ProfileOutcome& outcome, const ProfileOutcome* baseline, bool json) {
    if (json) {
        QJsonObject object{{"status", profileStatusName(outcome.status)}};
        object.insert("profile", outcome.report.toJson());
        object.insert("flags", QJsonArray::fromStringList(profileWarnings(outcome.report)));
        object.insert("advice", adviceToJson(profileAdvice(outcome.report)));
        if (baseline) {
            object.insert("baseline", baseline->report.toJson());
            object.insert("comparison",
                          comparisonToJson(compareProfiles(outcome.report, baseline->report)));
        }
        printJson(object);
        return;
    }
    QTextStream out(stdout);
    printProfile(out, outcome.report);
    if (baseline)
        printComparison(out, compareProfiles(outcome.report, baseline->report), baseline->report);
}

} // namespace

int runProfile(const QStringList& args) {
    QString error;
    const std::optional<ParsedArgs> p =
        parseArgs(args, {"json"}, {"device", "set", "baseline"}, &error);
    const bool json = args.contains(QStringLiteral("--json"));
    if (!p)
        return badInput(error, json);
    if (p->positional.size() != 1 || !p->positional.first().endsWith(QLatin1String(".kpad")))
        return badInput(QStringLiteral("profile takes one FILE.kpad"), json);
    const QString setName = p->values.value("set", QStringLiteral("basic"));
    const std::optional<ProfileSet> set = profileSetFromName(setName);
    if (!set)
        return badInput(QStringLiteral("--set takes basic or full (got '%1')").arg(setName), json);
    const QString baselinePath = p->values.value("baseline");
    if (p->values.contains("baseline") && !baselinePath.endsWith(QLatin1String(".kpad")) &&
        !baselinePath.endsWith(QLatin1String(".json")))
        return badInput(QStringLiteral("--baseline takes a FILE.kpad to profile or the FILE.json "
                                       "of a saved `profile --json` (got '%1')")
                            .arg(baselinePath),
                        json);
    const QString path = p->positional.first();
    std::optional<Project> project = Project::load(path, &error);
    if (!project)
        return badInput(error, json);
    std::optional<int> device;
    if (p->values.contains("device")) {
        device = parsePositiveInt(p->values.value("device"));
        if (!device)
            return badInput(QStringLiteral("--device takes a device number (got '%1')")
                                .arg(p->values.value("device")),
                            json);
    }
    std::optional<ProfileOutcome> baseline;
    if (baselinePath.endsWith(QLatin1String(".json"))) { // read before a profile is spent
        baseline = baselineProfile(baselinePath, *set, device);
        if (!baseline->ok())
            return badInput(baseline->error, json);
    }
    const ProfileOutcome outcome = profileProject(*project, path, *set, device);
    if (outcome.ok() && p->values.contains("baseline") && !baseline)
        baseline = baselineProfile(baselinePath, *set, device);
    const ProfileOutcome& failed = !outcome.ok() ? outcome : *baseline;
    if (outcome.ok() && (!baseline || baseline->ok())) {
        printProfileOutcome(outcome, baseline ? &*baseline : nullptr, json);
        return kExitOk;
    }
    if (json)
        printJson(
            QJsonObject{{"status", profileStatusName(failed.status)}, {"error", failed.error}});
    else
        QTextStream(stderr) << "kernelpad-cli: " << failed.error << '\n';
    return profileExitCode(failed);
}

int runDevices(const QStringList& args) {
    QString error;
    const std::optional<ParsedArgs> p = parseArgs(args, {"json"}, {}, &error);
    const bool json = args.contains(QStringLiteral("--json"));
    if (!p)
        return badInput(error, json);
    if (!p->positional.isEmpty())
        return badInput(QStringLiteral("devices takes no file"), json);
    const std::optional<RunnerSpec> spec = RunnerSpec::fromEnvironment(&error);
    const QVector<DeviceInfo> devices = devicesThroughEngine(spec, &error);
    if (json) {
        QJsonArray list;
        for (const DeviceInfo& d : devices)
            list.append(d.toJson());
        printJson(QJsonObject{{"devices", list},
                              {"error", error.isEmpty() ? QJsonValue() : QJsonValue(error)}});
    } else if (devices.isEmpty()) {
        QTextStream(stderr) << "kernelpad-cli: " << error << '\n';
    } else {
        QTextStream out(stdout);
        printDevices(out, devices);
    }
    return devices.isEmpty() ? kExitCudaError : kExitOk;
}

} // namespace kernelpad::cli
