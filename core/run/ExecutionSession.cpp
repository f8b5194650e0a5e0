#include "core/run/ExecutionSession.h"

#include "core/io/Trace.h"

#include "core/compile/Program.h"
#include "core/cuda/Context.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/Device.h"
#include "core/cuda/DriverApi.h"
#include "core/cuda/Module.h"
#include "core/launch/LaunchValidation.h"
#include "core/launch/Packing.h"
#include "core/run/BlockingKernel.h"
#include "core/run/ErrorText.h"
#include "core/run/Measure.h"
#include "core/run/PipelineRun.h"
#include "core/run/RunBuffers.h"
#include "core/run/RunGlobals.h"
#include "core/run/RunMemory.h"
#include "core/run/RunTextures.h"
#include "core/run/RunVerification.h"

#include <QDir>
#include <QElapsedTimer>

#include <algorithm>
#include <cmath>

namespace kernelpad {
namespace {

/// Launches above the default 48 KiB of dynamic shared memory need an opt-in attribute
/// (CUDA Programming Guide, "Shared Memory", compute capability 7.0+).
constexpr int kDefaultDynamicSharedLimitBytes = 48 * 1024;

struct Failure {
    RunStatus status;
    QString message;
};

QString kernelList(const CompileResult& compiled) {
    QStringList names;
    for (const KernelInfo& k : compiled.kernels)
        names << k.name;
    return names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "));
}

LaunchLimits limitsFor(const DeviceInfo& d, const Kernel& kernel) {
    LaunchLimits l;
    l.maxThreadsPerBlock = d.maxThreadsPerBlock;
    l.maxBlockDim = d.maxBlockDim;
    l.maxGridDim = d.maxGridDim;
    l.maxSharedPerBlockBytes = d.sharedMemPerBlockBytes;
    l.maxSharedPerBlockOptinBytes = d.sharedMemPerBlockOptinBytes;
    l.kernelMaxThreadsPerBlock = kernel.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    l.kernelStaticSharedBytes = kernel.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    l.kernelName = kernel.name();
    return l;
}

/// Clusters and cooperative launch, checked against the device and the
/// kernel before any memory is taken; `launch` becomes what the driver is given (a kernel's
/// own __cluster_dims__ apply without the launch attribute). Empty when it can be launched.
QString checkClusterAndCooperative(const Kernel& kernel, const KernelInfo* info,
                                   const Device& device, const DeviceInfo& d,
                                   LaunchConfig* launch) {
    ClusterLimits clusterLimits;
    clusterLimits.ccMajor = d.ccMajor;
    clusterLimits.ccMinor = d.ccMinor;
    clusterLimits.kernelName = kernel.name();
    if (info) {
        clusterLimits.kernelCluster = info->reqnctapercluster;
        clusterLimits.kernelExplicitCluster = info->explicitCluster;
    }
    const std::array<int, 3> cluster = effectiveCluster(*launch, clusterLimits.kernelCluster);
    const qint64 clusterBlocks = qint64(cluster[0]) * cluster[1] * cluster[2];
    const bool clustersPossible = d.ccMajor >= 9;
    if (clustersPossible && clusterBlocks > ClusterLimits::kPortableClusterBlocks &&
        launch->hasCluster()) {
        // Past the portable 8 the device decides, for this kernel and block.
        clusterLimits.maxClusterBlocks = kernel.maxPotentialClusterBlocks(launch->dims(), true);
        clusterLimits.maxIsPortable = false;
    }
    QString problem = validateCluster(*launch, clusterLimits);
    if (!problem.isEmpty())
        return problem;
    if (clusterLimits.kernelCluster[0] > 0)
        launch->cluster = {0, 0, 0};
    if (clusterBlocks > 0 && kernel.maxActiveClusters(launch->dims()) == 0)
        return QStringLiteral("a cluster of %1 blocks (%2 x %3 x %4) of %5 threads with %6 of "
                              "dynamic shared memory each cannot be resident on the device at "
                              "once (cuOccupancyMaxActiveClusters is 0); use smaller clusters, "
                              "blocks or shared memory")
            .arg(clusterBlocks)
            .arg(cluster[0])
            .arg(cluster[1])
            .arg(cluster[2])
            .arg(launch->threadsPerBlock())
            .arg(formatBytes(launch->sharedMemBytes));
    if (launch->cooperative) {
        CooperativeLimits cooperative;
        cooperative.deviceSupports = device.attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) != 0;
        cooperative.smCount = d.smCount;
        cooperative.blocksPerSm =
            kernel.maxActiveBlocksPerSm(int(launch->threadsPerBlock()), launch->sharedMemBytes);
        cooperative.kernelName = kernel.name();
        problem = validateCooperative(*launch, cooperative);
    }
    return problem;
}

KernelResources resourcesOf(const Kernel& k, const DeviceInfo& d, const LaunchConfig& launch) {
    KernelResources r;
    r.registers = k.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
    r.staticSharedBytes = k.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    r.localBytes = k.attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    r.constBytes = k.attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
    r.maxThreadsPerBlock = k.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    r.ptxVersion = k.attribute(CU_FUNC_ATTRIBUTE_PTX_VERSION);
    r.binaryVersion = k.attribute(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
    const qint64 threads = launch.threadsPerBlock();
    if (threads > 0 && threads <= r.maxThreadsPerBlock && d.warpSize > 0 && d.maxThreadsPerSm > 0) {
        r.occupancyBlocksPerSm = k.maxActiveBlocksPerSm(int(threads), launch.sharedMemBytes);
        const qint64 warpsPerBlock = (threads + d.warpSize - 1) / d.warpSize;
        r.occupancy =
            double(r.occupancyBlocksPerSm * warpsPerBlock) / (d.maxThreadsPerSm / d.warpSize);
    }
    return r;
}

/// A measured run's status from its verification.
RunResult finishVerification(RunResult& result) {
    if (!result.verified()) {
        result.status = RunStatus::VerificationFailed;
        QStringList failed;
        for (const BufferVerification& v : result.verification)
            if (!v.passed)
                failed << v.buffer;
        result.error =
            QStringLiteral("verification failed for %1").arg(failed.join(QStringLiteral(", ")));
    }
    return result;
}

} // namespace

CompileResult compileProject(const Project& project, const QString& projectDir, const QString& arch,
                             CompileCache* cache) {
    const Program program(project.source, project.sourceName, project.options, projectDir,
                          project.language);
    const QStringList expressions = project.nameExpressions();
    const auto compile = [&] { return program.compile(arch, expressions); };
    if (!cache)
        return compile();
    QElapsedTimer lookup; // a hit's compile time includes reading the included files
    lookup.start();
    const QDir base(projectDir);
    QStringList includeRoots;
    for (const QString& dir : project.options.includeDirs)
        includeRoots << QDir::cleanPath(base.absoluteFilePath(dir));
    // The project directory is in the key because relative include dirs resolve there.
    const QStringList keyFlags = project.options.toFlags(arch) + includeRoots
                                 << base.absolutePath();
    // PTX and NVVM IR are keyed by their language and tools (CUDA keeps its keys of old).
    const QString tools = project.language == SourceLanguage::Cuda
                              ? Program::nvrtcVersion()
                              : languageName(project.language) + QLatin1Char(' ') +
                                    Program::compilerOf(project.language);
    const QByteArray key = CompileCache::key(
        project.source, project.sourceName, keyFlags, expressions, tools,
        CompileCache::includeFingerprint(project.source, base.absolutePath(), includeRoots));
    CompileResult result = cache->findOrCompile(key, compile);
    if (result.cacheHit)
        result.compileMs = double(lookup.nsecsElapsed()) / 1e6;
    return result;
}

/// The context, stream and the last module of the device this session uses.
struct ExecutionSession::DeviceState {
    DeviceState(int ordinal, CompileCache* cache)
        : device(ordinal)
        , info(device.info())
        , context(device)
        , comparer(cache)
        , expressionEvaluator(cache)
        , deviceInit(cache)
        , blocker(cache) {
        // A ceiling measured by an earlier process is shown from the first run on.
        if (std::optional<CopyCeiling> known =
                readCachedCeiling(defaultCeilingPath(), ceilingKey(info)))
            ceiling = *known;
    }
    Device device;
    DeviceInfo info;
    Context context;
    Stream stream;
    QByteArray moduleCubin; ///< the CUBIN (or, for a virtual arch, the PTX) of `module`
    std::optional<Module> module;
    JitLog moduleJit;     ///< the JIT's report when `module` came from PTX
    DeviceBuffer l2Flush; ///< cold-mode flush buffer, allocated once and reused
    /// The last run's buffers: the next run keeps the allocations (and the contents of
    /// unchanged "in" buffers) it can ("Fast edit -> result").
    std::vector<RunBuffer> buffers;
    GpuComparer comparer; ///< large reference-kernel verifications (RunVerification.h)
    GpuExpressionEvaluator expressionEvaluator; ///< expression checks compared on the GPU
    DeviceInit deviceInit;                      ///< seeded random inputs generated on the GPU
    BlockingKernel blocker;             ///< what timed samples are queued behind (Measure.h)
    ExpectedCache expected;             ///< expression checks' expected values, kept between runs
    std::optional<CopyCeiling> ceiling; ///< the device's copy ceiling when known
    /// A measurement was tried: one that failed (too little free memory) is not tried again
    /// before every later run, which would add it to each configuration of a sweep.
    bool ceilingTried = false;
    /// The run's textures and surfaces: freed when the run ends, or by the next run when an
    /// error ended it (never while a sticky fault unwinds: docs/ARCHITECTURE.md, "Threading").
    std::optional<RunTextures> textures;

    const Module& moduleFor(const QByteArray& cubin) {
        if (!module || cubin != moduleCubin) {
            module.reset();
            module.emplace(cubin);
            moduleCubin = cubin;
            moduleJit = JitLog{};
        }
        return *module;
    }

    /// The module of `compiled`: its CUBIN, or for a virtual arch (no CUBIN) its PTX through
    /// the driver's JIT. Null when the JIT refused the PTX; `jit` gets the JIT's report (a
    /// module kept from the last run says `reused`).
    const Module* moduleOf(const CompileResult& compiled, JitLog* jit) {
        if (!compiled.cubin.isEmpty()) {
            *jit = JitLog{};
            return &moduleFor(compiled.cubin);
        }
        const QByteArray ptx = compiled.ptx.toUtf8();
        if (module && ptx == moduleCubin) {
            *jit = moduleJit;
            jit->reused = true;
            return &*module;
        }
        module.reset();
        moduleCubin.clear();
        JitLog log;
        log.target = info.arch();
        std::optional<Module> loaded = Module::loadPtx(ptx, &log);
        *jit = log;
        if (!loaded)
            return nullptr;
        module.emplace(std::move(*loaded));
        moduleCubin = ptx;
        moduleJit = log;
        return &*module;
    }
};

namespace {

/// "the driver's JIT could not compile the PTX for sm_90: CUDA_ERROR_INVALID_PTX\n<log>"
QString jitFailure(const JitLog& jit, const QString& arch) {
    QString message = QStringLiteral("the driver's JIT could not compile the %1 PTX for %2: %3")
                          .arg(arch, jit.target, jit.failure);
    if (!jit.errorLog.isEmpty())
        message += QStringLiteral("\nJIT error log:\n") + jit.errorLog;
    if (!jit.infoLog.isEmpty())
        message += QStringLiteral("\nJIT info log:\n") + jit.infoLog;
    return message;
}

} // namespace

ExecutionSession::ExecutionSession(CompileCache* cache)
    : m_cache(cache) {}

ExecutionSession::~ExecutionSession() {
    // After a sticky error the driver may crash in any call: leak the handles.
    if (isPoisoned())
        (void)m_state.release();
}

ExecutionSession::DeviceState& ExecutionSession::deviceState(int ordinal) {
    if (!m_state || m_state->device.ordinal() != ordinal) {
        m_state.reset();
        m_state = std::make_unique<DeviceState>(ordinal, m_cache);
    }
    m_state->context.makeCurrent();
    return *m_state;
}

QVector<DeviceInfo> ExecutionSession::devices(QString* error) {
    QString why;
    if (!DriverApi::load(&why)) {
        *error = why;
        return {};
    }
    try {
        QVector<DeviceInfo> list = Device::all();
        if (list.isEmpty())
            *error = QStringLiteral("the CUDA driver reports no devices");
        return list;
    } catch (const CudaError& e) {
        *error = e.message();
    }
    return {};
}

std::optional<KernelResources> ExecutionSession::kernelResources(const CompileResult& compiled,
                                                                 const QString& kernel,
                                                                 const LaunchConfig& launch,
                                                                 int device, QString* error) {
    if (isPoisoned()) {
        *error = m_poisonReason;
        return std::nullopt;
    }
    try {
        DriverApi::get();
        const QString lowered = compiled.loweredName(kernel);
        if (lowered.isEmpty() || (compiled.cubin.isEmpty() && compiled.ptx.isEmpty())) {
            *error = QStringLiteral("kernel '%1' is not in the module").arg(kernel);
            return std::nullopt;
        }
        DeviceState& s = deviceState(device);
        JitLog jit;
        const Module* module = s.moduleOf(compiled, &jit);
        if (!module) {
            *error = jitFailure(jit, compiled.arch);
            return std::nullopt;
        }
        const Kernel k = module->kernel(lowered, kernel);
        return resourcesOf(k, s.info, launch);
    } catch (const CudaError& e) {
        if (e.isSticky())
            m_poisonReason = explainCudaError(e, kernel);
        *error = e.message();
    } catch (const DriverUnavailable& e) {
        *error = QString::fromUtf8(e.what());
    }
    return std::nullopt;
}

std::optional<CopyCeiling> ExecutionSession::deviceCeiling(int device, bool remeasure,
                                                           QString* error) {
    if (isPoisoned()) {
        *error = m_poisonReason;
        return std::nullopt;
    }
    try {
        DriverApi::get();
        DeviceState& s = deviceState(device);
        if (s.ceiling && !remeasure)
            return s.ceiling;
        const CopyCeiling measured = measureCopyCeiling(s.device, s.stream);
        if (!(measured.gbs > 0)) {
            *error = QStringLiteral("too little free device memory to measure the copy ceiling");
            return std::nullopt;
        }
        s.ceiling = measured;
        (void)writeCachedCeiling(defaultCeilingPath(), ceilingKey(s.info), measured);
        return s.ceiling;
    } catch (const CudaError& e) {
        if (e.isSticky())
            m_poisonReason = explainCudaError(e, QStringLiteral("the copy ceiling"));
        *error = e.message();
    } catch (const DriverUnavailable& e) {
        *error = QString::fromUtf8(e.what());
    }
    return std::nullopt;
}

RunResult ExecutionSession::run(const RunRequest& request, const std::atomic_bool& cancel,
                                const ProgressFn& progress) {
    QElapsedTimer wall;
    wall.start();
    RunResult result;
    result.launch = request.project.launch;
    auto finish = [&](RunResult r) {
        r.totalMs = double(wall.nsecsElapsed()) / 1e6;
        return r;
    };
    const QString timingProblem = request.project.timing.validate();
    if (!timingProblem.isEmpty()) {
        result.status = RunStatus::BadInput;
        result.error = QStringLiteral("timing: %1").arg(timingProblem);
        return finish(std::move(result));
    }
    if (isPoisoned()) {
        result.status = RunStatus::CudaError;
        result.error = m_poisonReason;
        return finish(std::move(result));
    }
    QString noDriver;
    tracePhase("run: started");
    const bool haveDriver = DriverApi::load(&noDriver) != nullptr;
    tracePhase(haveDriver ? "driver loaded (cuInit)" : "no driver");
    try {
        QString arch = request.project.options.arch.value_or(QString());
        if (haveDriver) {
            DeviceState& s = deviceState(request.device);
            tracePhase("device and primary context ready");
            result.device = s.info;
            if (arch.isEmpty())
                arch = s.info.arch();
        }
        if (arch.isEmpty())
            arch = QString::fromLatin1(kDefaultArch);
        if (progress)
            progress(QStringLiteral("compiling"), 0, 1);
        result.compile = compileProject(request.project, request.projectDir, arch, m_cache);
        tracePhase(result.compile.cacheHit ? "compiled (cache hit)" : "compiled (NVRTC)");
        if (!result.compile.ok) {
            result.status = RunStatus::CompileError;
            result.error = !result.compile.error.isEmpty()
                               ? result.compile.error
                               : QStringLiteral("compilation failed with %1 error(s)")
                                     .arg(result.compile.errorCount());
            return finish(std::move(result));
        }
        // A pipeline's kernels and bindings are checked against the compile, so that a step
        // naming a kernel the module lacks is named with or without a driver.
        if (const QString problem = request.project.pipeline.problemWithCompiled(
                request.project.arguments, result.compile);
            !problem.isEmpty()) {
            result.status = RunStatus::BadInput;
            result.error = problem;
            return finish(std::move(result));
        }
        if (!haveDriver) {
            result.status = RunStatus::DriverUnavailable;
            result.error =
                QStringLiteral(
                    "%1: compile-only. The source compiled; running needs an NVIDIA driver.")
                    .arg(noDriver);
            return finish(std::move(result));
        }
        RunResult done = runOnDevice(request, result, cancel, progress);
        m_state->textures.reset();
        return finish(std::move(done));
    } catch (const CudaError& e) {
        result.status = RunStatus::CudaError;
        result.error = explainCudaError(e, request.project.kernel);
        if (explainFault(e.code()))
            result.faultCode = int(e.code());
        if (e.isSticky())
            m_poisonReason = result.error;
    } catch (const DriverUnavailable& e) {
        result.status = RunStatus::DriverUnavailable;
        result.error = QString::fromUtf8(e.what());
    } catch (const std::bad_alloc&) {
        result.status = RunStatus::BadInput;
        result.error =
            QStringLiteral("the host ran out of memory preparing the buffers; reduce their sizes");
    }
    return finish(std::move(result));
}

RunResult ExecutionSession::runOnDevice(const RunRequest& request, RunResult& result,
                                        const std::atomic_bool& cancel,
                                        const ProgressFn& progress) {
    const Project& project = request.project;
    auto fail = [&](RunStatus status, const QString& message) {
        result.status = status;
        result.error = message;
        return result;
    };
    auto cancelled = [&] { return cancel.load(std::memory_order_relaxed); };
    QElapsedTimer watchdog;
    watchdog.start();

    DeviceState& s = deviceState(request.device);
    // A pipeline runs its steps instead of the single launch: its steps
    // are checked here, the project's own kernel only by reference kernels that use it.
    const bool isPipeline = !project.pipeline.isEmpty();
    QString problem; // the pipeline's kernels were checked against the compile by run()
    const QString lowered = result.compile.loweredName(
        isPipeline ? project.pipeline.steps.front().kernel : project.kernel);
    if (lowered.isEmpty())
        return fail(RunStatus::BadInput,
                    QStringLiteral("kernel '%1' is not in the compiled module; it has: %2")
                        .arg(project.kernel, kernelList(result.compile)));
    result.kernelLowered = lowered;
    if (progress)
        progress(QStringLiteral("loading"), 0, 1);
    const Module* module = s.moduleOf(result.compile, &result.jit);
    tracePhase("module loaded");
    if (!module)
        return fail(RunStatus::CompileError, jitFailure(result.jit, result.compile.arch));
    std::optional<PipelinePlan> plan;
    if (isPipeline) {
        plan = PipelinePlan::prepare(
            project, result.compile, *module,
            [&s](const Kernel& k, const LaunchConfig& l) {
                return validateLaunch(l, limitsFor(s.info, k));
            },
            &problem);
        if (!plan)
            return fail(RunStatus::BadInput, problem);
        result.launch = plan->firstLaunch();
    }
    const Kernel kernel =
        isPipeline ? plan->firstKernel() : module->kernel(lowered, project.kernel);

    if (!isPipeline)
        problem = checkAgainstParams(project.arguments, kernel.paramLayouts(), project.kernel);
    if (!problem.isEmpty())
        return fail(RunStatus::BadInput, problem);
    if (!isPipeline)
        problem = validateLaunch(project.launch, limitsFor(s.info, kernel));
    if (!problem.isEmpty())
        return fail(RunStatus::BadInput, problem);
    // Module globals: found in the module and sized before any buffer.
    std::optional<std::vector<RunGlobal>> globals =
        prepareGlobals(project, request.projectDir, result.compile, &problem);
    if (!globals)
        return fail(RunStatus::BadInput, problem);
    problem = bindGlobals(*globals, *module);
    if (!problem.isEmpty())
        return fail(RunStatus::BadInput, problem);
    result.resources = resourcesOf(kernel, s.info, result.launch);
    if (!isPipeline && project.launch.sharedMemBytes > kDefaultDynamicSharedLimitBytes)
        kernel.allowDynamicSharedBytes(project.launch.sharedMemBytes);
    // What the driver is given: the project's launch, less a cluster the kernel declares.
    LaunchConfig launch = project.launch;
    if (!isPipeline)
        problem = checkClusterAndCooperative(kernel, result.compile.findKernel(lowered), s.device,
                                             s.info, &launch);
    if (!problem.isEmpty())
        return fail(RunStatus::BadInput, problem);

    // The copy ceiling, once per device (then from the disk cache), before the run's buffers
    // take the memory; a failed measurement only leaves the share of the ceiling out.
    if (request.measureCeiling || (!s.ceiling && !s.ceilingTried)) {
        s.ceilingTried = true;
        if (progress)
            progress(QStringLiteral("measuring the device's copy ceiling"), 0, 1);
        QString ceilingProblem;
        (void)deviceCeiling(request.device, request.measureCeiling, &ceilingProblem);
        if (isPoisoned())
            return fail(RunStatus::CudaError, m_poisonReason);
    }
    tracePhase("launch checked, globals bound, copy ceiling known");
    if (progress)
        progress(QStringLiteral("preparing buffers"), 0, 1);
    // Bounds before bytes: the whole run's host and device memory is checked before any
    // buffer is generated or read, not one buffer at a time after they are all built.
    size_t freeBeforeBytes = 0, totalBeforeBytes = 0;
    check(DriverApi::get().cuMemGetInfo(&freeBeforeBytes, &totalBeforeBytes), "cuMemGetInfo");
    problem = checkRunMemory(project.arguments, request.projectDir, s.buffers,
                             AvailableMemory{availableHostBytes(), qint64(freeBeforeBytes)});
    if (!problem.isEmpty())
        return fail(RunStatus::BadInput, problem);
    // Large seeded random inputs are generated on the GPU when its generator is ready (the host
    // makes the same values only if it needs them); its compile failing only costs the upload.
    QString deviceInitProblem;
    const bool anyToGenerate =
        std::any_of(project.arguments.begin(), project.arguments.end(), [](const ArgumentSpec& a) {
            return a.isBuffer() && a.buffer.direction == Direction::In &&
                   deviceCanGenerate(a.buffer);
        });
    const bool generateOnDevice =
        anyToGenerate && s.deviceInit.prepare(s.info.arch(), &deviceInitProblem);
    std::optional<std::vector<RunBuffer>> prepared = prepareBuffers(
        project.arguments, request.projectDir, &problem, &s.buffers, generateOnDevice);
    if (!prepared)
        return fail(RunStatus::BadInput, problem);
    tracePhase("buffers prepared on the host (inputs generated)");
    // What the previous run left that this one cannot use is freed before the check.
    const qint64 toAllocateBytes = adoptBuffers(*prepared, s.buffers);
    size_t freeBytes = 0, totalDeviceBytes = 0;
    check(DriverApi::get().cuMemGetInfo(&freeBytes, &totalDeviceBytes), "cuMemGetInfo");
    if (toAllocateBytes > qint64(freeBytes))
        return fail(
            RunStatus::BadInput,
            QStringLiteral("the buffers need %1 but the GPU has %2 free of %3; reduce their sizes")
                .arg(formatBytes(toAllocateBytes), formatBytes(qint64(freeBytes)),
                     formatBytes(qint64(totalDeviceBytes))));
    if (isPipeline)
        // The last run may have been a pipeline whose steps wrote its "in" buffers.
        for (RunBuffer& b : *prepared)
            if (b.reuse == BufferReuse::Contents)
                b.reuse = BufferReuse::Memory;
    const BufferUploadStats uploads = uploadBuffers(*prepared, s.stream, QString(), &s.deviceInit);
    s.buffers = std::move(*prepared);
    tracePhase("buffers allocated, initialised and uploaded");
    if (isPipeline)
        // Any step may write any buffer: what this run leaves is no buffer's initial contents,
        // so the next run keeps the allocations only (a changed key forbids Contents).
        for (RunBuffer& b : s.buffers)
            b.key.direction = Direction::InOut;
    const std::vector<RunBuffer>& buffers = s.buffers;
    s.textures.reset();
    s.textures =
        RunTextures::create(project.arguments, request.projectDir, s.device, s.stream, &problem);
    if (!s.textures)
        return fail(RunStatus::BadInput, problem);
    QVector<quint64> addresses = bufferAddresses(buffers, project.arguments.size());
    s.textures->applyHandles(addresses);
    std::optional<PackedArgs> packed;
    if (isPipeline) {
        if (!plan->pack(project.arguments, buffers, s.textures->handles(project.arguments.size()),
                        &problem))
            return fail(RunStatus::BadInput, problem);
    } else {
        packed = PackedArgs::pack(project.arguments, addresses, &problem);
        if (!packed)
            return fail(RunStatus::BadInput, problem);
    }

    // One launch whose outputs are verified; repetitions afterwards may change inout
    // buffers again and again, so they are timed but never checked.
    if (progress)
        progress(QStringLiteral("verifying launch"), 0, 1);
    writeGlobals(*globals, s.stream);
    if (isPipeline) {
        plan->enqueue(s.stream);
        s.stream.synchronize(QStringLiteral("running the pipeline of '%1'").arg(project.name));
        plan->applyFinalBindings(s.buffers);
    } else {
        kernel.launch(launch.dims(), s.stream, packed->kernelParams());
        s.stream.synchronize(QStringLiteral("running '%1'").arg(project.kernel));
    }
    s.textures->readSurfaces(s.stream);
    tracePhase("verified launch done");
    QElapsedTimer verifyClock;
    verifyClock.start();
    // The comparer's kernels need a CUBIN: a virtual arch gives none, so the device's arch.
    const QString arch = result.compile.arch.isEmpty() || isVirtualArch(result.compile.arch)
                             ? s.info.arch()
                             : result.compile.arch;
    for (auto it = s.expected.begin(); it != s.expected.end();) {
        const bool stillChecked =
            std::any_of(buffers.begin(), buffers.end(), [&](const RunBuffer& b) {
                return b.name == it->first && b.verify.kind == VerifySpec::Kind::Expression;
            });
        it = stillChecked ? std::next(it) : s.expected.erase(it);
    }
    RunVerifier verifier(project, request.projectDir, result.compile, *module, s.stream,
                         &s.comparer, arch, &s.expected);
    verifier.imageHandles = s.textures->handles(project.arguments.size());
    verifier.expressionEvaluator = &s.expressionEvaluator;
    verifier.deviceInit = &s.deviceInit;
    // Outputs verified on the GPU are copied to the host only when the caller keeps them.
    QHash<QString, QByteArray> outputs;
    for (const RunBuffer& b : buffers) {
        if (b.direction == Direction::In || (verifier.verifiesOnGpu(b) && !request.keepOutputs))
            continue;
        QByteArray host(int(0), Qt::Uninitialized);
        host.resize(qsizetype(b.bytes));
        b.device.downloadAsync(host.data(), b.bytes, s.stream);
        outputs.insert(b.name, host);
    }
    QHash<QString, QByteArray> globalOutputs;
    readGlobals(*globals, s.stream, &globalOutputs);
    s.stream.synchronize(QStringLiteral("copying outputs of '%1'").arg(project.kernel));
    tracePhase("outputs copied to the host");

    if (progress)
        progress(QStringLiteral("verifying"), 0, 1);
    result.verification = verifier.verify(buffers, outputs);
    tracePhase("buffers compared");
    result.verification +=
        verifyGlobals(*globals, globalOutputs, project, buffers, request.projectDir);
    result.verification += s.textures->verify(project.arguments, buffers, request.projectDir);
    const double verifyMs = double(verifyClock.nsecsElapsed()) / 1e6;
    tracePhase("outputs verified");
    if (request.keepOutputs)
        for (const RunBuffer& b : buffers)
            if (outputs.contains(b.name))
                result.outputs.push_back(
                    OutputBuffer{b.name, b.type, b.count, outputs.value(b.name)});
    if (request.keepOutputs)
        for (const RunGlobal& g : *globals)
            if (globalOutputs.contains(g.name))
                result.outputs.push_back(
                    OutputBuffer{g.name, g.type, g.count, globalOutputs.value(g.name)});
    if (request.keepOutputs)
        result.outputs += s.textures->outputs();
    outputs.clear();
    if (cancelled())
        return fail(RunStatus::Cancelled, QStringLiteral("cancelled before timing"));

    const TimingSpec& timing = project.timing;
    DeviceBuffer* flush = nullptr;
    if (timing.mode == TimingSpec::Mode::Cold && s.info.l2CacheBytes > 0) {
        if (s.l2Flush.sizeBytes() != s.info.l2CacheBytes)
            s.l2Flush = DeviceBuffer(s.info.l2CacheBytes, QStringLiteral("the L2 flush buffer"));
        flush = &s.l2Flush;
    }
    BlockingKernel* blocker = nullptr;
    QString blockerProblem;
    if (timing.blockingKernel && s.blocker.prepare(s.info.arch(), &blockerProblem))
        blocker = &s.blocker;
    const qint64 bytes = timing.bytesOverride.value_or(bytesMoved(buffers));
    if (isPipeline) {
        if (progress)
            progress(QStringLiteral("timing the pipeline"), 0, 1);
        const int samples = std::max(1, request.repetitions.value_or(timing.repetitions));
        PipelineMeasurement pm =
            plan->measure(s.stream, samples, timing.warmupLaunches, project.pipeline.graph, cancel,
                          watchdog, timing.timeLimitMs);
        result.pipeline = std::move(pm.timing);
        // A pass moves each buffer as often as its steps touch it: only the project's own
        // figure gives a bandwidth.
        result.timing =
            computeStats(result.pipeline.sequence.timesMs, timing.bytesOverride.value_or(0),
                         timing.flopsPerLaunch.value_or(0.0));
        result.timing.mode = result.pipeline.sequence.mode;
        result.timing.ceilingGBs = s.ceiling ? s.ceiling->gbs : 0.0;
        result.timing.stopReason = result.pipeline.sequence.stopReason;
        result.timing.verifyMs = verifyMs;
        result.timing.buffersReused = uploads.reused;
        if (pm.status != RunStatus::Ok)
            return fail(pm.status, pm.status == RunStatus::Cancelled
                                       ? QStringLiteral("cancelled while timing the pipeline")
                                       : QStringLiteral("the run passed its time limit of %1 ms "
                                                        "while timing the pipeline")
                                             .arg(timing.timeLimitMs));
        return finishVerification(result);
    }
    const MeasureOutcome m =
        measure(MeasureTarget{kernel, launch.dims(), s.stream, packed->kernelParams(), s.info,
                              flush, blocker, bytes, timing.flopsPerLaunch.value_or(0.0)},
                timing, request.repetitions, cancel, watchdog, progress);
    tracePhase("timed");
    result.timing = m.timing;
    if (!blockerProblem.isEmpty())
        qWarning("timed without the blocking kernel: %s", qPrintable(blockerProblem));
    result.timing.verifyMs = verifyMs;
    result.timing.buffersReused = uploads.reused;
    result.timing.uploadsSkipped = uploads.uploadsSkipped;
    result.timing.uploadBytesSkipped = uploads.bytesSkipped;
    result.timing.ceilingGBs = s.ceiling ? s.ceiling->gbs : 0.0;
    if (m.status == RunStatus::Cancelled)
        return fail(m.status, QStringLiteral("cancelled after %1 samples").arg(m.timing.reps()));
    if (m.status == RunStatus::Timeout)
        return fail(m.status,
                    QStringLiteral("the run passed its time limit of %1 ms after %2 samples; "
                                   "the statistics cover those")
                        .arg(timing.timeLimitMs)
                        .arg(m.timing.reps()));
    return finishVerification(result);
}

} // namespace kernelpad
