#include "app/cli/CliUsage.h"

namespace kernelpad::cli {
namespace {

const char* const kRunnerOption =
    "  --runner local|ssh:[user@]host[:port][/path/to/kernelpad-cli]|cmd:<command line>\n"
    "      Where kernels run (default: this computer, or $KERNELPAD_RUNNER_SPEC in the same\n"
    "      syntax; kernelpad-cli --help explains the kinds).\n";

const char* const kInit =
    "Usage: kernelpad-cli init KERNEL.cu [--kernel NAME] [-o OUT.kpad] [--force]\n"
    "\n"
    "Write a project for the first __global__ kernel of KERNEL.cu (or NAME): arguments from\n"
    "its signature (const pointers as in buffers, other pointers inout, sized by the first\n"
    "integer scalar of at least 32 bits), a launch covering that size. KERNEL.ptx (or NVVM IR,\n"
    ".ll) makes a PTX (NVVM) project, arguments guessed from the .entry's .param types.\n"
    "\n"
    "  --kernel NAME        the kernel to use (default: the first in the file)\n"
    "  -o, --output OUT     the project to write (default: KERNEL.kpad beside the source)\n"
    "  --force              replace OUT when it exists\n";

const char* const kCompile =
    "Usage: kernelpad-cli compile FILE.kpad|FILE.cu|FILE.ptx|FILE.ll [--arch sm_XY]\n"
    "           [--kernel NAME] [--ptx] [--sass [--registers]] [--occupancy] [--diff BASE]\n"
    "           [--json]\n"
    "\n"
    "Compile with NVRTC, assemble PTX with nvJitLink, or compile NVVM IR with libNVVM (no GPU\n"
    "needed); show diagnostics, kernels and optionally PTX.\n"
    "\n"
    "  --arch sm_XY         the architecture to compile for\n"
    "  --kernel NAME        the kernel to report on\n"
    "  --ptx                print the PTX (with --diff: the PTX line diff)\n"
    "  --sass               compile with -lineinfo and print the CUBIN's SASS per kernel\n"
    "                       (nvdisasm from $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit or\n"
    "                       PATH) with source lines; exit code 4 when nvdisasm is missing,\n"
    "                       naming every place looked; each instruction with the\n"
    "                       registers, predicates and uniform registers live there\n"
    "  --registers          with --sass: per source line the most registers live at its\n"
    "                       instructions and its spills (STL/LDL), instead of the SASS\n"
    "  --occupancy          the kernel's occupancy at the project's launch, what limits it,\n"
    "                       and where it changes against block size, registers per thread and\n"
    "                       dynamic shared memory (the compiled architecture's limits: no GPU)\n"
    "  --diff BASE          compare FILE's compile with BASE's (each .kpad, .cu, .ptx or .ll;\n"
    "                       ptxas -v added): per kernel the PTX (and with --sass the SASS)\n"
    "                       instructions by class, registers, spills, local and shared memory\n"
    "                       as before -> after (delta)\n"
    "  --json               print the result as JSON\n"
    "%RUNNER%"
    "      compile uses the runner only when NVRTC cannot be loaded here.\n";

const char* const kSass =
    "Usage: kernelpad-cli sass FILE.kpad|FILE.cu|FILE.ptx|FILE.ll [--arch sm_XY]\n"
    "           [--kernel NAME] [--registers] [--json]\n"
    "\n"
    "The SASS of the compiled CUBIN per kernel, with source lines and the registers live at\n"
    "each instruction (compile FILE --sass; nvdisasm as there, no GPU needed).\n"
    "\n"
    "  --arch sm_XY         the architecture to compile for\n"
    "  --kernel NAME        the kernel to report on\n"
    "  --registers          per source line, instead of the SASS: the most registers live at\n"
    "                       any of its instructions (nvdisasm --print-life-ranges), beside the\n"
    "                       kernel's register count, and its spills: STL/LDL instructions\n"
    "                       (\"spill: 3 stores, 2 loads\"), with ptxas's spill bytes where the\n"
    "                       compile log has them (-Xptxas -v)\n"
    "  --json               print the result as JSON (\"registers\": per kernel its lines)\n";

const char* const kRun =
    "Usage: kernelpad-cli run FILE.kpad [--device N] [--reps N] [--json] [--in-process]\n"
    "           [--memcheck [--sanitizer-tool memcheck|racecheck|initcheck]]\n"
    "           [--measure-ceiling] [--no-blocking] [--memcheck-on-fault]\n"
    "\n"
    "Compile, launch, time and verify the project's kernel. Kernels run in a separate runner\n"
    "process (a faulting kernel cannot take the caller down). A kernel fault (a bad memory\n"
    "access, a trap, ...) is explained: what usually causes it and what to check.\n"
    "\n"
    "  --device N           the CUDA device (default 0)\n"
    "  --reps N             timed repetitions\n"
    "  --json               print the result as JSON\n"
    "  --in-process         run the kernel inside this process, for debugging\n"
    "  --memcheck           run once (1 repetition, no warm-up) under compute-sanitizer,\n"
    "                       compiled with -lineinfo; each report prints as FILE:LINE: error:\n"
    "                       ... with its thread and block (--json: \"sanitizer\")\n"
    "  --sanitizer-tool T   memcheck, racecheck or initcheck (implies --memcheck)\n"
    "  --measure-ceiling    time the device's copy ceiling again (otherwise measured once per\n"
    "                       device and kept on disk)\n"
    "  --no-blocking        time launches as the host issues them instead of queueing each\n"
    "                       chunk of samples behind a blocking kernel\n"
    "  --memcheck-on-fault  after a kernel fault, run the kernel once more under\n"
    "                       compute-sanitizer memcheck and print the faulting line, thread and\n"
    "                       block (--json: \"memcheck\" and \"memcheckFinding\")\n"
    "%RUNNER%";

const char* const kTest =
    "Usage: kernelpad-cli test FILE.kpad [--junit FILE.xml] [--json] [--case NAME]\n"
    "           [--device N] [--in-process]\n"
    "\n"
    "Run the project's tests (its \"tests\" section: sizes, tail sizes around the block and\n"
    "the warp, grid formulas) case by case, each compiled once, run and verified as run does,\n"
    "then run again and compared bit for bit for determinism (float outputs by default).\n"
    "Prints one line per case with each check, and the first mismatches of a failing one. A\n"
    "project without a \"tests\" section runs its own size as the single case.\n"
    "\n"
    "  --junit FILE.xml     also write JUnit XML (a testcase per case and check) for CI\n"
    "  --json               print the cases and their checks as JSON\n"
    "  --case NAME          run only the case of that name (\"n = 33\")\n"
    "  --device N           the CUDA device (default 0)\n"
    "  --in-process         run the kernel inside this process, for debugging\n"
    "%RUNNER%"
    "Exit codes: 0 every check passed (warnings and skipped checks pass), 2 a check failed,\n"
    "1 compile error, 3 CUDA or driver error (no device), 4 bad input.\n";

const char* const kProfile =
    "Usage: kernelpad-cli profile FILE.kpad [--set basic|full] [--device N]\n"
    "                             [--baseline B.kpad|B.json] [--json]\n"
    "\n"
    "Profile one launch of the project's kernel under Nsight Compute (ncu from\n"
    "$KERNELPAD_NCU, $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit or PATH), compiled with\n"
    "-lineinfo, 1 repetition, no warm-up. Prints speed of light (throughputs as % of peak,\n"
    "occupancy, DRAM/L2/L1 bytes and hit rates), the roofline point and the device's roofs,\n"
    "the hierarchical roofline (L1, L2 and DRAM bandwidth against their peaks, the FP32,\n"
    "FP64, FP16/BF16 and tensor roofs, the kernel's point at each level and the roof it is\n"
    "bound by), the top warp stall reasons, each flagged source line as FILE:LINE: warning:\n"
    "uncoalesced global access: N sectors per request, ideal M (or shared-memory bank\n"
    "conflicts), and Nsight Compute's advice: its rules, the largest estimated speedup of the\n"
    "kernel's time first (\"local\": of one unit's share), each with the lines it is about.\n"
    "Exit codes as for run; 4 when ncu is missing (naming every place looked), 3 when the\n"
    "driver does not allow this user the performance counters (ERR_NVGPUCTRPERM).\n"
    "\n"
    "  --set basic|full     basic (default) adds the per-line, warp-state and roofline\n"
    "                       sections to ncu's basic set; full collects every section (slower)\n"
    "  --device N           the CUDA device (default 0)\n"
    "  --baseline B         compare with B: a project profiled now the same way, or the\n"
    "                       saved output of `profile --json`; prints the duration, throughput\n"
    "                       and DRAM changes and every metric that moved by 1 % or more\n"
    "  --json               print {status, profile, flags, advice[, baseline, comparison]}\n"
    "                       or {status, error}\n";

const char* const kSweep =
    "Usage: kernelpad-cli sweep FILE.kpad [--json|--csv] [--strategy exhaustive|random|local]\n"
    "           [--budget N] [--seed S] [--results FILE] [--fresh] [--set NAME=VALUES ...]\n"
    "           [--fast | --accurate | --budget-ms MS] [--reps N] [--no-confirm]\n"
    "           [--device N | --devices all|N,M,...] [--runner SPEC ...]\n"
    "\n"
    "Run the project's parameter sweep (its \"sweep\" section) over every local device, one\n"
    "warm runner each; each configuration is compiled (cached), run and verified, and names\n"
    "the device that ran it. Prints the table best first (failures with their reason last)\n"
    "and the best configuration, confirmed by an interleaved A/B against the runner-up (the\n"
    "best other passing one) on one device. Results are appended as JSON lines to "
    "NAME.sweep-HASH.jsonl\n"
    "beside the project (in the cache folder when that folder is read-only), and an\n"
    "interrupted sweep resumes from it. Exit 2 when no configuration passed, 3 without a\n"
    "CUDA device.\n"
    "\n"
    "  --json, --csv        print the results as JSON or CSV\n"
    "  --strategy S         exhaustive (default), random or local\n"
    "  --budget N           at most N configurations\n"
    "  --fast               time each configuration with 10 samples after 2 warm-ups (no\n"
    "                       stopping rule), then the best again with the project's timing\n"
    "  --accurate           time each configuration with the project's timing (default)\n"
    "  --budget-ms MS       time each configuration for at most MS ms (1-60000), then the\n"
    "                       best again with the project's timing\n"
    "  --seed S             the random strategy's seed\n"
    "  --results FILE       the results file instead of NAME.sweep-HASH.jsonl\n"
    "  --fresh              start over instead of resuming\n"
    "  --no-confirm         skip the A/B of the best against the runner-up\n"
    "  --set NAME=VALUES    replace or add a tunable (bx, by, bz, a scalar argument or a\n"
    "                       define); VALUES as \"1,2,4\", \"0:64:8\" or \"1:1024:x2\"\n"
    "  --reps N             timed repetitions per configuration\n"
    "  --device N           one runner on device N\n"
    "  --devices all|N,M    these devices (a device twice is two runners on it)\n"
    "%RUNNER%"
    "      Given twice or more, the sweep spreads over every device of every runner\n"
    "      (--device and --devices are refused then).\n";

const char* const kDevices = "Usage: kernelpad-cli devices [--json]\n"
                             "\n"
                             "List the CUDA devices and their limits.\n"
                             "\n"
                             "  --json               print the devices as JSON\n"
                             "%RUNNER%";

const char* const kBench =
    "Usage: kernelpad-cli bench-launch [--launches N] [--repeats K] [--device N] [--json]\n"
    "\n"
    "Host cost per back-to-back launch of an empty kernel (bench/compare).\n"
    "\n"
    "  --launches N         launches per repeat\n"
    "  --repeats K          repeats\n"
    "  --device N           the CUDA device (default 0)\n"
    "  --json               print the result as JSON\n";

const char* const kAb =
    "Usage: kernelpad-cli ab A.kpad B.kpad [options]\n"
    "       kernelpad-cli ab P.kpad --version N [options]\n"
    "\n"
    "Is B faster than A? Both kernels are compiled, verified once each, then timed in one\n"
    "runner on A's inputs (B's arguments must match A's), their launches interleaved in blocks\n"
    "in random ABBA order, until the 95 % interval of the ratio of medians B/A is narrower than\n"
    "the target or the budget is spent. The verdict: \"B is x % faster\", \"B is x % slower\",\n"
    "\"no detectable difference at +-y %\", or a refusal when the arms ran at different clocks\n"
    "or temperatures, or one throttled. With --version, A is P.kpad as it is now and B is\n"
    "version N of it as the window's Versions tab keeps it.\n"
    "\n"
    "  --version N          B is version N of P.kpad (the window's Versions tab numbers)\n"
    "  --versions-dir DIR   where the versions are kept (default: the window's data folder,\n"
    "                       ~/.local/share/KernelPad/KernelPad)\n"
    "  --budget-ms N        wall time for the interleaved blocks (default 10000, at least 100)\n"
    "  --target-percent P   stop once the interval's half-width is under P % (default 0.5)\n"
    "  --seed N             the seed of the block order and of the bootstrap\n"
    "  --device N           the CUDA device (default 0)\n"
    "  --json               print the result as JSON (verdict, ratio, interval, both arms)\n"
    "%RUNNER%"
    "\n"
    "Exit codes: 0 a verdict (faster, slower or no detectable difference), 5 refused (the\n"
    "arms' conditions differed: the message says which), 1 compile error, 2 verification\n"
    "failed, 3 CUDA or driver error (or cancelled), 4 bad input (files, options, B's\n"
    "arguments not A's).\n";

const char* const kServe =
    "Usage: kernelpad-cli serve\n"
    "\n"
    "Be KernelPad's runner process: JSON requests on stdin, one per line, answers on stdout\n"
    "(the protocol is documented in core/runner/Protocol.h). Takes no options.\n";

const char* const kRunners =
    "Usage: kernelpad-cli runners start [--devices all|N,M] [--spares N] [--idle-minutes M]\n"
    "       kernelpad-cli runners status [--json]\n"
    "       kernelpad-cli runners wait [--timeout S]\n"
    "       kernelpad-cli runners stop\n"
    "\n"
    "Warm runners kept between commands: a daemon keeps spare runners, each with the driver\n"
    "initialised and a context made on every warmed device, and every local runner of a later\n"
    "command (run, test, sweep, ab, the window) takes one instead of starting cold, so no\n"
    "command pays the driver's start-up (about 0.65 s). A spare used is replaced when it ends.\n"
    "Each spare holds a CUDA context (about 0.5 GB of device memory) on each device it\n"
    "warmed. A runner whose environment (KERNELPAD_*, CUDA_*) or kernelpad-cli differs from\n"
    "the daemon's, or whose working folder does while one of those variables is a relative\n"
    "path, starts cold as before; KERNELPAD_WARM_RUNNERS=off turns them off for one command.\n"
    "The daemon listens in $XDG_RUNTIME_DIR/kernelpad-runners (else\n"
    "/tmp/kernelpad-runners-UID), a folder of mode 0700 that must be yours.\n"
    "\n"
    "  start                start the daemon (detached; its log is in its folder)\n"
    "  --devices all|N,M    the devices each spare warms (default all)\n"
    "  --spares N           spares kept ready (default one per warmed device)\n"
    "  --idle-minutes M     end after M minutes with no runner taken (default 30;\n"
    "                       $KERNELPAD_WARM_IDLE_SECONDS overrides it in seconds)\n"
    "  status               pid, socket, devices, spares ready/warming/in use, idle time left\n"
    "                       and attaches that fell back cold; exit 1 when none runs\n"
    "  --json               status as JSON\n"
    "  wait                 block until every spare is ready (one in use counts once it\n"
    "                       has ended and its replacement is warm); exit 1 with why\n"
    "                       otherwise\n"
    "  --timeout S          wait at most S seconds (default 60)\n"
    "  stop                 end the daemon and its spares\n";

const char* const kAttach =
    "Usage: kernelpad-cli attach\n"
    "\n"
    "Be a local runner through the warm runners (kernelpad-cli runners): take a ready spare\n"
    "and relay stdin, stdout and stderr to it, ending with its exit status; without one,\n"
    "become `kernelpad-cli serve` (KERNELPAD_TRACE says why). The local runner's command\n"
    "while the daemon runs. Takes no options.\n";

const char* const kOverview =
    "Usage: kernelpad-cli COMMAND [options]\n"
    "       kernelpad-cli COMMAND --help   (that command's options)\n"
    "       kernelpad-cli --version\n"
    "\n"
    "Commands:\n"
    "%COMMANDS%"
    "\n"
    "The runner (run, test, compile, sweep, devices):\n"
    "  --runner local|ssh:[user@]host[:port][/path/to/kernelpad-cli]|cmd:<command line>\n"
    "      Where kernels run (default: this computer, or $KERNELPAD_RUNNER_SPEC in the same\n"
    "      syntax). ssh: `kernelpad-cli serve` on HOST through OpenSSH with your own config,\n"
    "      keys and agent (BatchMode: never a password prompt). cmd: any command that starts\n"
    "      a runner, e.g. cmd:srun --gpus=1 --time=00:30:00 kernelpad-cli serve (Slurm).\n"
    "\n"
    "Exit codes: 0 success, 1 compile error, 2 verification failed, 3 CUDA or driver error\n"
    "(including no driver: compile-only, and errors compute-sanitizer reported under\n"
    "--memcheck), 4 bad input (file, arguments; also --memcheck without compute-sanitizer),\n"
    "5 ab refused a verdict (the two arms ran under different conditions).\n";

QString withRunner(const char* text) {
    return QString::fromUtf8(text).replace(QStringLiteral("%RUNNER%"),
                                           QString::fromUtf8(kRunnerOption));
}

const QString kRunner = QStringLiteral("--runner");

/// Whether `arg` is written as an option (a lone "-" is a file name: standard input).
bool looksLikeOption(const QString& arg) {
    return arg.size() > 1 && arg.startsWith(QLatin1Char('-'));
}

bool takesValue(const CommandUsage& command, const QString& arg) {
    return command.valued.contains(arg);
}

} // namespace

const QVector<CommandUsage>& commandUsages() {
    static const QVector<CommandUsage> commands{
        {QStringLiteral("init"),
         QStringLiteral("write a project for a kernel in a .cu, .ptx or .ll file"),
         withRunner(kInit),
         {QStringLiteral("--force")},
         {QStringLiteral("--kernel"), QStringLiteral("-o"), QStringLiteral("--output")}},
        {QStringLiteral("compile"),
         QStringLiteral("compile with NVRTC (no GPU needed): diagnostics, PTX, SASS, occupancy"),
         withRunner(kCompile),
         {QStringLiteral("--ptx"), QStringLiteral("--sass"), QStringLiteral("--occupancy"),
          QStringLiteral("--registers"), QStringLiteral("--json")},
         {QStringLiteral("--arch"), QStringLiteral("--kernel"), QStringLiteral("--diff"), kRunner}},
        {QStringLiteral("sass"),
         QStringLiteral("the SASS per kernel, or registers and spills per source line"),
         QString::fromUtf8(kSass),
         {QStringLiteral("--registers"), QStringLiteral("--json")},
         {QStringLiteral("--arch"), QStringLiteral("--kernel")}},
        {QStringLiteral("run"),
         QStringLiteral("compile, launch, time and verify a project's kernel"),
         withRunner(kRun),
         {QStringLiteral("--json"), QStringLiteral("--in-process"), QStringLiteral("--memcheck"),
          QStringLiteral("--measure-ceiling"), QStringLiteral("--no-blocking"),
          QStringLiteral("--memcheck-on-fault")},
         {QStringLiteral("--device"), QStringLiteral("--reps"), QStringLiteral("--sanitizer-tool"),
          kRunner}},
        {QStringLiteral("test"),
         QStringLiteral("run a project's tests: every case and check, JUnit XML for CI"),
         withRunner(kTest),
         {QStringLiteral("--json"), QStringLiteral("--in-process")},
         {QStringLiteral("--junit"), QStringLiteral("--case"), QStringLiteral("--device"),
          kRunner}},
        {QStringLiteral("profile"),
         QStringLiteral("profile one launch under Nsight Compute"),
         withRunner(kProfile),
         {QStringLiteral("--json")},
         {QStringLiteral("--set"), QStringLiteral("--device"), QStringLiteral("--baseline")}},
        {QStringLiteral("sweep"),
         QStringLiteral("run a project's parameter sweep"),
         withRunner(kSweep),
         {QStringLiteral("--json"), QStringLiteral("--csv"), QStringLiteral("--fresh"),
          QStringLiteral("--fast"), QStringLiteral("--accurate"), QStringLiteral("--no-confirm")},
         {QStringLiteral("--strategy"), QStringLiteral("--budget"), QStringLiteral("--budget-ms"),
          QStringLiteral("--seed"), QStringLiteral("--results"), QStringLiteral("--set"),
          QStringLiteral("--reps"), QStringLiteral("--device"), QStringLiteral("--devices"),
          kRunner}},
        {QStringLiteral("devices"),
         QStringLiteral("list the CUDA devices and their limits"),
         withRunner(kDevices),
         {QStringLiteral("--json")},
         {kRunner}},
        {QStringLiteral("bench-launch"),
         QStringLiteral("host cost per back-to-back launch of an empty kernel"),
         withRunner(kBench),
         {QStringLiteral("--json")},
         {QStringLiteral("--launches"), QStringLiteral("--repeats"), QStringLiteral("--device")}},
        {QStringLiteral("ab"),
         QStringLiteral("interleaved A/B timing of two kernels, with a verdict"),
         withRunner(kAb),
         {QStringLiteral("--json")},
         {QStringLiteral("--version"), QStringLiteral("--versions-dir"),
          QStringLiteral("--budget-ms"), QStringLiteral("--target-percent"),
          QStringLiteral("--seed"), QStringLiteral("--device"), kRunner}},
        {QStringLiteral("serve"),
         QStringLiteral("be KernelPad's runner process (JSON lines on stdin and stdout)"),
         withRunner(kServe),
         {},
         {}},
        {QStringLiteral("runners"),
         QStringLiteral("warm runners kept between commands: start, status, wait, stop"),
         withRunner(kRunners),
         {QStringLiteral("--json")},
         {QStringLiteral("--devices"), QStringLiteral("--spares"), QStringLiteral("--idle-minutes"),
          QStringLiteral("--timeout")}},
        {QStringLiteral("attach"),
         QStringLiteral("be a local runner through a warm spare (else serve)"),
         withRunner(kAttach),
         {},
         {}},
    };
    return commands;
}

const CommandUsage* findCommand(const QString& name) {
    for (const CommandUsage& command : commandUsages())
        if (command.name == name)
            return &command;
    return nullptr;
}

QString overviewUsage() {
    QString list;
    for (const CommandUsage& command : commandUsages())
        list += QStringLiteral("  %1%2\n").arg(command.name, -14).arg(command.summary);
    return QString::fromUtf8(kOverview).replace(QStringLiteral("%COMMANDS%"), list);
}

bool asksForHelp(const CommandUsage& command, const QStringList& args) {
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--help") || args[i] == QLatin1String("-h"))
            return true;
        if (takesValue(command, args[i]))
            ++i;
    }
    return false;
}

QString unknownOption(const CommandUsage& command, const QStringList& args) {
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& arg = args[i];
        if (takesValue(command, arg)) {
            ++i;
            continue;
        }
        // --runner=SPEC is the one option also written with '=' (main.cpp reads it).
        if (command.valued.contains(kRunner) && arg.startsWith(kRunner + QLatin1Char('=')))
            continue;
        if (looksLikeOption(arg) && !command.flags.contains(arg))
            return arg;
    }
    return {};
}

QString validOptions(const CommandUsage& command) {
    QStringList names = command.flags;
    for (const QString& option : command.valued)
        names << option + QStringLiteral(" VALUE");
    names << QStringLiteral("--help");
    return names.join(QStringLiteral(", "));
}

} // namespace kernelpad::cli
