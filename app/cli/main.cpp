// kernelpad-cli: compile, run and inspect KernelPad projects without a window.

#include "app/cli/CliBench.h"
#include "app/cli/CliCommands.h"
#include "app/cli/CliInit.h"
#include "app/cli/CliSweep.h"
#include "core/compile/NvrtcApi.h"
#include "core/compile/Program.h"
#include "core/compile/PtxAssembler.h"
#include "core/io/Trace.h"
#include "core/runner/RunnerSpec.h"

#include <QCoreApplication>
#include <QTextStream>

namespace {

const char* const kUsage =
    "Usage: kernelpad-cli COMMAND [options]\n"
    "\n"
    "Commands:\n"
    "  init KERNEL.cu [--kernel NAME] [-o OUT.kpad] [--force]\n"
    "      Write a project for the first __global__ kernel of KERNEL.cu (or NAME): arguments\n"
    "      from its signature (const pointers as in buffers, other pointers inout, sized by the\n"
    "      first integer scalar), a launch covering that size. OUT defaults to KERNEL.kpad;\n"
    "      an existing file is replaced only with --force. KERNEL.ptx (or NVVM IR, .ll) makes\n"
    "      a PTX (NVVM) project, arguments guessed from the .entry's .param types.\n"
    "  compile FILE.kpad|FILE.cu|FILE.ptx|FILE.ll [--arch sm_XY] [--kernel NAME] [--ptx]\n"
    "            [--sass] [--occupancy] [--json]\n"
    "      Compile with NVRTC, assemble PTX with nvJitLink, or compile NVVM IR with libNVVM (no\n"
    "      GPU needed); show diagnostics, kernels and optionally PTX.\n"
    "      --sass compiles with -lineinfo and prints the CUBIN's SASS per kernel (nvdisasm\n"
    "      from $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit or PATH) with source lines;\n"
    "      exit code 4 when nvdisasm is missing, naming every place looked.\n"
    "      --occupancy prints the kernel's occupancy at the project's launch, what limits it,\n"
    "      and where it changes against block size, registers per thread and dynamic shared\n"
    "      memory (from the compiled architecture's limits: no GPU needed).\n"
    "  compile FILE --diff BASE [--sass] [--ptx] [--kernel NAME] [--json]\n"
    "      Compare FILE's compile with BASE's (each .kpad, .cu, .ptx or .ll; ptxas -v added):\n"
    "      per kernel the PTX (and with --sass the SASS) instructions by class, registers,\n"
    "      spills, local and shared memory as before -> after (delta); --ptx adds the PTX\n"
    "      line diff.\n"
    "  run FILE.kpad [--device N] [--reps N] [--json] [--in-process]\n"
    "            [--memcheck [--sanitizer-tool memcheck|racecheck|initcheck]] [--measure-ceiling]\n"
    "            [--no-blocking] [--memcheck-on-fault]\n"
    "      Compile, launch, time and verify the project's kernel. Kernels run in a separate\n"
    "      runner process (a faulting kernel cannot take the caller down); --in-process runs\n"
    "      them inside this process, for debugging. --memcheck runs once (1 repetition, no\n"
    "      warm-up) under compute-sanitizer (memcheck unless --sanitizer-tool says otherwise),\n"
    "      compiled with -lineinfo; each report prints as FILE:LINE: error: ... with its thread\n"
    "      and block, and --json adds them as \"sanitizer\". --measure-ceiling times the device's\n"
    "      copy ceiling again (it is otherwise measured once per device and kept on disk).\n"
    "      --no-blocking times launches as the host issues them instead of queueing each chunk\n"
    "      of samples behind a blocking kernel (the project's \"blockingKernel\": false).\n"
    "      A kernel fault (a bad memory access, a trap, ...) is explained: what usually causes\n"
    "      it and what to check. --memcheck-on-fault then runs the kernel once more under\n"
    "      compute-sanitizer memcheck and prints its reports and the faulting line, thread\n"
    "      and block (--json: \"memcheck\", that run's result, and \"memcheckFinding\").\n"
    "  profile FILE.kpad [--set basic|full] [--device N] [--json]\n"
    "      Profile one launch of the project's kernel under Nsight Compute (ncu from\n"
    "      $KERNELPAD_NCU, $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit or PATH), compiled with\n"
    "      -lineinfo, 1 repetition, no warm-up. Prints speed of light (throughputs as % of\n"
    "      peak, occupancy, DRAM/L2/L1 bytes and hit rates), the roofline point and the\n"
    "      device's roofs, the top warp stall reasons, and each flagged source line as\n"
    "      FILE:LINE: warning: uncoalesced global access: N sectors per request, ideal M (or\n"
    "      shared-memory bank conflicts). --set full collects every section (slower); basic\n"
    "      adds the per-line, warp-state and roofline sections to ncu's basic set. --json\n"
    "      prints {status, profile, flags} or {status, error}. Exit codes as for run; 4 when\n"
    "      ncu is missing (naming every place looked), 3 when the driver does not allow this\n"
    "      user the performance counters (ERR_NVGPUCTRPERM; the message says how to allow them).\n"
    "  sweep FILE.kpad [--json|--csv] [--strategy exhaustive|random|local] [--budget N]\n"
    "            [--seed S] [--results FILE] [--fresh] [--set NAME=VALUES ...] [--reps N]\n"
    "            [--device N | --devices all|N,M,...] [--runner SPEC ...]\n"
    "      Run the project's parameter sweep (its \"sweep\" section: block dimensions, -D\n"
    "      defines, scalar values such as n, the grid and shared memory as formulas,\n"
    "      restrictions) over every local device, one warm runner each (--devices lists\n"
    "      them, a device twice is two runners on it; --device N is one runner on N); each\n"
    "      runner takes the next configuration when it is free, and a configuration whose\n"
    "      runner dies goes to another. Each configuration is compiled (cached), run and\n"
    "      verified, and names the device that ran it. Prints the table best first (failures with "
    "their reason last) and the\n"
    "      best configuration. --set replaces or adds a tunable: bx, by, bz, a scalar argument\n"
    "      or a define, VALUES as \"1,2,4\", \"0:64:8\" or \"1:1024:x2\" (powers of 2).\n"
    "      Results are appended as JSON lines to the window's NAME.sweep-HASH.jsonl beside the\n"
    "      project (in the cache folder when that folder is read-only or the examples'), or to\n"
    "      --results FILE; an interrupted sweep, run here or in the window, resumes from it\n"
    "      (stderr says which file and how many were done); --fresh starts over. Exit 2 when\n"
    "      no configuration passed, 3 without a CUDA device (a compile-only evaluation is no\n"
    "      sweep).\n"
    "      With one --runner, --devices and --device choose devices of that runner. With\n"
    "      --runner given twice or more, the sweep spreads over every device of every runner\n"
    "      (--device and --devices are refused then); a runner that cannot be reached is\n"
    "      named on stderr and left out, and each result names its device as\n"
    "      \"RUNNER: NAME (device N)\" in the table, --csv and --json.\n"
    "  devices [--json]\n"
    "      List the CUDA devices and their limits.\n"
    "  bench-launch [--launches N] [--repeats K] [--device N] [--json]\n"
    "      Host cost per back-to-back launch of an empty kernel (bench/compare).\n"
    "  serve\n"
    "      Be KernelPad's runner process: JSON requests on stdin, one per line, answers on\n"
    "      stdout (the protocol is documented in core/runner/Protocol.h).\n"
    "\n"
    "The runner (run, compile, sweep, devices):\n"
    "  --runner local|ssh:[user@]host[:port][/path/to/kernelpad-cli]|cmd:<command line>\n"
    "      Where kernels run (default: this computer, or $KERNELPAD_RUNNER_SPEC in the same\n"
    "      syntax). ssh: `kernelpad-cli serve` on HOST through OpenSSH with your own config,\n"
    "      keys and agent (BatchMode: never a password prompt). cmd: any command that starts\n"
    "      a runner, e.g. cmd:srun --gpus=1 --time=00:30:00 kernelpad-cli serve (Slurm).\n"
    "      compile uses the runner only when NVRTC cannot be loaded here. sweep takes --runner\n"
    "      more than once: every device of every runner (see sweep above).\n"
    "\n"
    "Exit codes: 0 success, 1 compile error, 2 verification failed, 3 CUDA or driver error\n"
    "(including no driver: compile-only, and errors compute-sanitizer reported under\n"
    "--memcheck), 4 bad input (file, arguments; also --memcheck without compute-sanitizer).\n";

} // namespace

int main(int argc, char** argv) {
    kernelpad::tracePhase("main");
    QCoreApplication app(argc, argv);
    kernelpad::tracePhase("Qt core application started");
    QCoreApplication::setApplicationName(QStringLiteral("kernelpad-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KERNELPAD_VERSION));
    QStringList args = QCoreApplication::arguments().mid(1);
    QTextStream err(stderr);
    if (args.isEmpty() || args.first() == "--help" || args.first() == "-h" ||
        args.first() == "help") {
        QTextStream(stdout) << kUsage;
        return args.isEmpty() ? kernelpad::cli::kExitBadInput : kernelpad::cli::kExitOk;
    }
    if (args.first() == "--version") {
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
        return 0;
    }
    const QString command = args.takeFirst();
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
        if (command != "run" && command != "compile" && command != "sweep" &&
            command != "devices") {
            err << "kernelpad-cli: --runner is for run, compile, sweep and devices\n";
            return kernelpad::cli::kExitBadInput;
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
    if (command == "init")
        return kernelpad::cli::runInit(args);
    if (command == "compile")
        return kernelpad::cli::runCompile(args);
    if (command == "run")
        return kernelpad::cli::runRun(args);
    if (command == "profile")
        return kernelpad::cli::runProfile(args);
    if (command == "sweep")
        return kernelpad::cli::runSweep(args);
    if (command == "devices")
        return kernelpad::cli::runDevices(args);
    if (command == "bench-launch")
        return kernelpad::cli::runBenchLaunch(args);
    if (command == "serve")
        return kernelpad::cli::runServe(args);
    err << "kernelpad-cli: unknown command '" << command << "'\n\n" << kUsage;
    return kernelpad::cli::kExitBadInput;
}
