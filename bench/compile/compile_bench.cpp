// bench/compile: NVRTC's time for every shipped example and for kernels that include the heavy
// toolkit headers (cooperative_groups, CUB's block_reduce.cuh, cuda_bf16.h, cuda_fp8.h,
// cuda/barrier, cuda/pipeline), through core's Program (no compile cache, no GPU). The umbrella
// cub/cub.cuh is not among them: NVRTC 13.0 refuses it (its device-wide algorithms declare
// host functions, "not allowed in JIT mode", and include <cstdint> from the toolkit).
//   first        a new process, an empty cache folder: the first compile of the source
//   edit, same   the source edited below its includes (a constant changed), compiled again in
//                that process: where automatic precompiled headers pay (docs/ARCHITECTURE.md)
//   edit, new    the edited source compiled by a second new process on the same cache folder
// Each row is measured in processes of its own (this program run again with --child), wall
// time and the process's CPU time (the build machine is shared: CPU time is the steadier
// figure). "edit, same" is the median of --reps edits (default 3). Target: "edit, same"
// ≤ 250 ms for the heavy headers. Exit 1 when a compile fails or a heavy header misses the
// target; needs no GPU. --variants times raw NVRTC's options instead (compile_bench_variants.h).
// Every compile of a run gets an edit constant of its own (a salt per run, editValue): on a
// machine with a driver NVRTC keeps NVVM's and ptxas's output in the driver's compute cache, and a
// repeated source would skip both phases there.

#include "compile_bench_phases.h"
#include "compile_bench_variants.h"
#include "core/compile/PrecompiledHeaders.h"
#include "core/compile/Program.h"
#include "core/project/Examples.h"
#include "core/project/Project.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>

#include <sys/resource.h>

using namespace kernelpad;

namespace {

constexpr double kTargetMs = 250.0;

/// One source to time: `source` holds EDIT where the edit changes a constant.
struct Case {
    QString name;
    QString sourceName;
    QString source;
    ProgramOptions options;
    QString baseDir;
    bool heavy = false;
};

// The heavy-header kernels: each includes one header set and uses it below the includes.
const char* const kCooperative = R"(#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void gridScale(int* data, int n) {
    cg::grid_group grid = cg::this_grid();
    for (long long i = grid.thread_rank(); i < n; i += grid.size())
        data[i] *= EDIT;
    grid.sync();
}
)";
const char* const kCubBlock = R"(#include <cub/block/block_reduce.cuh>
extern "C" __global__ void blockSum(const int* in, int* out) {
    using Reduce = cub::BlockReduce<int, 256>;
    __shared__ typename Reduce::TempStorage storage;
    const int total = Reduce(storage).Sum(in[blockIdx.x * 256 + threadIdx.x] * EDIT);
    if (threadIdx.x == 0)
        out[blockIdx.x] = total;
}
)";
const char* const kBf16 = R"(#include <cuda_bf16.h>
extern "C" __global__ void scaleBf16(__nv_bfloat16* data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = __float2bfloat16(__bfloat162float(data[i]) * EDIT.0f);
}
)";
const char* const kFp8 = R"(#include <cuda_fp8.h>
extern "C" __global__ void quantize(const float* in, __nv_fp8_e4m3* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __nv_fp8_e4m3(in[i] * EDIT.0f);
}
)";
const char* const kBarrier = R"(#include <cuda/barrier>
extern "C" __global__ void stage(const int* in, int* out) {
    __shared__ int tile[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    bar.arrive_and_wait();
    out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x] * EDIT;
}
)";
const char* const kPipeline = R"(#include <cuda/pipeline>
extern "C" __global__ void copyTile(const int* in, int* out) {
    __shared__ int tile[256];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&tile[threadIdx.x], &in[blockIdx.x * 256 + threadIdx.x], sizeof(int),
                       pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    out[blockIdx.x * 256 + threadIdx.x] = tile[threadIdx.x] * EDIT;
    pipe.consumer_release();
}
)";

QVector<Case> heavyCases() {
    const std::pair<const char*, const char*> kernels[] = {
        {"cooperative_groups", kCooperative},
        {"cub/block_reduce", kCubBlock},
        {"cuda_bf16.h", kBf16},
        {"cuda_fp8.h", kFp8},
        {"cuda/barrier", kBarrier},
        {"cuda/pipeline", kPipeline},
    };
    QVector<Case> cases;
    for (const auto& [name, source] : kernels) {
        Case c;
        c.name = QString::fromLatin1(name);
        c.sourceName = QStringLiteral("heavy.cu");
        c.source = QString::fromLatin1(source);
        c.heavy = true;
        cases.append(c);
    }
    return cases;
}

/// The shipped CUDA C++ examples; the edit is a device constant after the source, below every
/// include.
QVector<Case> exampleCases(QString* error) {
    QVector<Case> cases;
    const QString dir = examplesDirectory();
    for (const QFileInfo& file :
         QDir(dir).entryInfoList({QStringLiteral("*.kpad")}, QDir::Files, QDir::Name)) {
        std::optional<Project> project = Project::load(file.absoluteFilePath(), error);
        if (!project)
            return {};
        if (project->language != SourceLanguage::Cuda)
            continue; // PTX and NVVM IR do not go through NVRTC
        Case c;
        c.name = file.completeBaseName();
        c.sourceName = project->sourceName;
        c.source =
            project->source + QStringLiteral("\n__device__ int kernelpadBenchEdit = EDIT;\n");
        c.options = project->options;
        c.baseDir = file.absolutePath();
        cases.append(c);
    }
    return cases;
}

/// User and system CPU time of this process so far, in ms: NVRTC's parsing is user time,
/// reading a precompiled header into its heap mostly system time (page faults).
std::pair<double, double> userSystemMs() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto ms = [](const timeval& t) {
        return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3;
    };
    return {ms(usage.ru_utime), ms(usage.ru_stime)};
}

double processCpuMs() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}

/// One timed compile of `c` with EDIT replaced by `edit`; with `phases`, the row holds the
/// compile's phases (compile_bench_phases.h).
QJsonObject timedCompile(const Case& c, int edit, const bench::PhaseMode& phases) {
    QString source = c.source;
    source.replace(QStringLiteral("EDIT"), QString::number(bench::editValue(edit)));
    const Program program(source, c.sourceName, c.options, c.baseDir);
    std::optional<CompilePhaseRecorder> recorder;
    if (phases.on)
        recorder.emplace(phases.nvrtcTimes);
    const PchCounters before = pchCounters();
    const auto [userStart, systemStart] = userSystemMs();
    const double cpuStart = processCpuMs();
    QElapsedTimer wall;
    wall.start();
    const CompileResult result = program.compile(QStringLiteral("sm_90"));
    const double wallMs = double(wall.nsecsElapsed()) / 1e6;
    QJsonObject row{{QStringLiteral("ok"), result.ok},
                    {QStringLiteral("wallMs"), wallMs},
                    {QStringLiteral("cpuMs"), processCpuMs() - cpuStart}};
    const auto [userEnd, systemEnd] = userSystemMs();
    if (recorder) {
        QVector<CompilePhase> all = recorder->phases();
        all += bench::enginePhases(result, source, c.sourceName, c.options, c.baseDir);
        row.insert(QStringLiteral("phases"), bench::phasesJson(all));
    }
    row.insert(QStringLiteral("userMs"), userEnd - userStart);
    row.insert(QStringLiteral("systemMs"), systemEnd - systemStart);
    const PchCounters after = pchCounters();
    row.insert(QStringLiteral("pch"), after.used > before.used         ? QStringLiteral("used")
                                      : after.created > before.created ? QStringLiteral("made")
                                                                       : QString());
    if (!result.ok)
        row.insert(QStringLiteral("log"), result.log.left(2000));
    return row;
}

/// --child: runs in a process of its own; prints one JSON object on stdout. The edit in the
/// same process is the one of `reps` edits with the median wall time.
int runChild(const Case& c, const QString& phase, int reps, const bench::PhaseMode& phases) {
    (void)Program::nvrtcVersion(); // loading NVRTC is not the compile's time
    QJsonObject out;
    if (phase == QLatin1String("first")) {
        out.insert(QStringLiteral("first"), timedCompile(c, 1, phases));
        QVector<QJsonObject> edits;
        for (int i = 0; i < std::max(1, reps); ++i)
            edits.append(timedCompile(c, 2 + i, phases));
        QJsonArray editPhases;
        for (const QJsonObject& edit : std::as_const(edits))
            editPhases.append(edit.value(QStringLiteral("phases")));
        std::sort(edits.begin(), edits.end(), [](const QJsonObject& a, const QJsonObject& b) {
            return a.value(QStringLiteral("wallMs")).toDouble() <
                   b.value(QStringLiteral("wallMs")).toDouble();
        });
        QJsonObject median = edits[edits.size() / 2];
        median.insert(QStringLiteral("reps"), int(edits.size()));
        if (phases.on) // each phase's median over the edits, not the median edit's
            median.insert(QStringLiteral("phases"), bench::medianPhases(editPhases));
        out.insert(QStringLiteral("editSame"), median);
    } else {
        // Not an edit the first process compiled: the driver's compute cache would answer it.
        out.insert(QStringLiteral("editNew"), timedCompile(c, reps + 2, phases));
    }
    std::fputs(QJsonDocument(out).toJson(QJsonDocument::Compact).constData(), stdout);
    return 0;
}

/// Runs this program with --child for `c` and `phase`, `cacheDir` as the cache folder.
QJsonObject runInNewProcess(const Case& c, const QString& phase, const QString& cacheDir,
                            const QString& setName, int reps, const QStringList& phaseArguments) {
    QProcess child;
    QProcessEnvironment env = bench::saltedEnvironment();
    env.insert(QStringLiteral("KERNELPAD_CACHE_DIR"), cacheDir);
    child.setProcessEnvironment(env);
    child.start(QCoreApplication::applicationFilePath(),
                QStringList{QStringLiteral("--child"), c.name, QStringLiteral("--set"), setName,
                            QStringLiteral("--phase"), phase, QStringLiteral("--reps"),
                            QString::number(reps)} +
                    phaseArguments);
    child.waitForFinished(-1);
    const QJsonObject out = QJsonDocument::fromJson(child.readAllStandardOutput()).object();
    if (out.isEmpty())
        return {
            {QStringLiteral("error"), QString::fromUtf8(child.readAllStandardError()).left(2000)}};
    return out;
}

QString cell(const QJsonObject& row) {
    if (!row.value(QStringLiteral("ok")).toBool())
        return QStringLiteral("FAILED");
    const QString pch = row.value(QStringLiteral("pch")).toString();
    return QStringLiteral("%1 / %2%3")
        .arg(row.value(QStringLiteral("wallMs")).toDouble(), 6, 'f', 0)
        .arg(row.value(QStringLiteral("cpuMs")).toDouble(), 6, 'f', 0)
        .arg(pch.isEmpty() ? QString() : QStringLiteral(" ") + pch);
}

/// Times every case; prints the table and returns the rows.
QJsonArray runAll(const QVector<Case>& cases, const QString& setName, int reps,
                  const bench::PhaseMode& phases, bool* allOk) {
    std::printf("%-22s %-26s %-26s %-26s\n", "source (wall / CPU ms)", "first (new process)",
                "edit, same process", "edit, new process");
    QJsonArray rows;
    for (const Case& c : cases) {
        QTemporaryDir cache;
        QJsonObject row = runInNewProcess(c, QStringLiteral("first"), cache.path(), setName, reps,
                                          phases.arguments());
        const QJsonObject again = runInNewProcess(c, QStringLiteral("edit"), cache.path(), setName,
                                                  reps, phases.arguments());
        for (auto it = again.begin(); it != again.end(); ++it)
            row.insert(it.key(), it.value());
        row.insert(QStringLiteral("name"), c.name);
        row.insert(QStringLiteral("heavy"), c.heavy);
        const QJsonObject first = row.value(QStringLiteral("first")).toObject();
        const QJsonObject same = row.value(QStringLiteral("editSame")).toObject();
        const QJsonObject fresh = row.value(QStringLiteral("editNew")).toObject();
        const bool ok = first.value(QStringLiteral("ok")).toBool() &&
                        same.value(QStringLiteral("ok")).toBool() &&
                        fresh.value(QStringLiteral("ok")).toBool();
        const bool missed = c.heavy && same.value(QStringLiteral("wallMs")).toDouble() > kTargetMs;
        *allOk = *allOk && ok && !missed;
        std::printf("%-22s %-26s %-26s %-26s%s\n", qPrintable(c.name), qPrintable(cell(first)),
                    qPrintable(cell(same)), qPrintable(cell(fresh)),
                    !ok ? "  FAILED" : (missed ? "  above 250 ms" : ""));
        for (const QJsonObject& r : {first, same, fresh, row}) {
            if (r.contains(QStringLiteral("log")) || r.contains(QStringLiteral("error")))
                std::printf("    %s\n", qPrintable(r.value(QStringLiteral("log")).toString() +
                                                   r.value(QStringLiteral("error")).toString()));
        }
        if (phases.on)
            bench::printPhases(same);
        std::fflush(stdout);
        rows.append(row);
    }
    return rows;
}

/// --variants (the parent: `child` empty) or --variant-child over the heavy headers.
int runVariantMode(const QString& child, const QString& variant, const QString& only, int reps,
                   const QString& jsonPath) {
    QVector<bench::VariantSource> sources;
    for (const Case& c : heavyCases())
        if (c.name.contains(only))
            sources.append(bench::VariantSource{c.name, c.source});
    if (!child.isEmpty()) {
        for (const bench::VariantSource& source : std::as_const(sources))
            if (source.name == child)
                return bench::runVariantChild(source, variant, reps);
        return 1;
    }
    return bench::runVariants(sources, reps, jsonPath,
                              {QStringLiteral("--reps"), QString::number(reps)})
               ? 0
               : 1;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("NVRTC first and edited compiles "
                                                    "(bench/compile)"));
    parser.addHelpOption();
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Write rows to FILE."),
                                  QStringLiteral("file"));
    const QCommandLineOption only(QStringLiteral("only"),
                                  QStringLiteral("Only sources whose name contains TEXT."),
                                  QStringLiteral("text"));
    const QCommandLineOption set(QStringLiteral("set"),
                                 QStringLiteral("heavy, examples or all (default)."),
                                 QStringLiteral("set"), QStringLiteral("all"));
    const QCommandLineOption child(QStringLiteral("child"), QStringLiteral("(internal)"),
                                   QStringLiteral("name"));
    const QCommandLineOption phase(QStringLiteral("phase"), QStringLiteral("(internal)"),
                                   QStringLiteral("phase"));
    const QCommandLineOption reps(QStringLiteral("reps"),
                                  QStringLiteral("Edits in the same process, their median shown "
                                                 "(default 3; --variants: 5)."),
                                  QStringLiteral("n"));
    const QCommandLineOption variants(
        QStringLiteral("variants"),
        QStringLiteral(
            "Time raw NVRTC's options on the heavy headers (compile_bench_variants.h)."));
    const QCommandLineOption variantChild(QStringLiteral("variant-child"),
                                          QStringLiteral("(internal)"), QStringLiteral("name"));
    const QCommandLineOption variant(QStringLiteral("variant"), QStringLiteral("(internal)"),
                                     QStringLiteral("variant"));
    const QCommandLineOption phases(
        QStringLiteral("phases"),
        QStringLiteral("Time each step of KernelPad's compile path (compile_bench_phases.h) and "
                       "print them for the edit in the same process."));
    const QCommandLineOption nvrtcTimes(
        QStringLiteral("nvrtc-time"),
        QStringLiteral("With --phases: NVRTC's own phases too (its --time option)."));
    parser.addOptions(
        {json, only, set, child, phase, reps, variants, variantChild, variant, phases, nvrtcTimes});
    parser.process(app);
    bench::PhaseMode phaseMode;
    phaseMode.on = parser.isSet(phases) || parser.isSet(nvrtcTimes);
    phaseMode.nvrtcTimes = parser.isSet(nvrtcTimes);

    const QString setName = parser.value(set);
    QString error;
    QVector<Case> cases;
    if (setName != QLatin1String("heavy"))
        cases = exampleCases(&error);
    if (!error.isEmpty()) {
        std::fprintf(stderr, "compile_bench: %s\n", qPrintable(error));
        return 1;
    }
    if (setName != QLatin1String("examples"))
        cases += heavyCases();
    const int repCount = parser.isSet(reps)
                             ? std::max(1, parser.value(reps).toInt())
                             : (parser.isSet(variants) || parser.isSet(variantChild) ? 5 : 3);
    if (parser.isSet(variants) || parser.isSet(variantChild))
        return runVariantMode(parser.isSet(variantChild) ? parser.value(variantChild) : QString(),
                              parser.value(variant), parser.value(only), repCount,
                              parser.value(json));
    if (parser.isSet(child)) {
        for (const Case& c : std::as_const(cases)) {
            if (c.name == parser.value(child))
                return runChild(c, parser.value(phase), repCount, phaseMode);
        }
        std::fprintf(stderr, "compile_bench: no source named %s\n",
                     qPrintable(parser.value(child)));
        return 1;
    }
    if (parser.isSet(only)) {
        cases.erase(
            std::remove_if(cases.begin(), cases.end(),
                           [&](const Case& c) { return !c.name.contains(parser.value(only)); }),
            cases.end());
    }
    std::printf("NVRTC %s, %d sources\n", qPrintable(Program::nvrtcVersion()), int(cases.size()));
    bool allOk = true;
    const QJsonArray rows = runAll(cases, setName, repCount, phaseMode, &allOk);
    if (parser.isSet(json)) {
        QFile out(parser.value(json));
        if (!out.open(QIODevice::WriteOnly) ||
            out.write(QJsonDocument(QJsonObject{{QStringLiteral("nvrtc"), Program::nvrtcVersion()},
                                                {QStringLiteral("rows"), rows}})
                          .toJson()) < 0) {
            std::fprintf(stderr, "compile_bench: cannot write %s\n", qPrintable(out.fileName()));
            return 1;
        }
    }
    return allOk ? 0 : 1;
}
