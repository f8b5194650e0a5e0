#include "core/run/ExecutionSession.h"

#include "core/io/Trace.h"

#include "core/compile/Program.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"
#include "core/run/DeviceRun.h"
#include "core/run/ErrorText.h"
#include "core/run/SessionDeviceState.h"
#include "core/run/TelemetryClockLock.h"

#include <QDir>
#include <QElapsedTimer>

namespace kernelpad {

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

QByteArray compileCacheKey(const Project& project, const QString& projectDir, const QString& arch,
                           QByteArray* includes) {
    const QDir base(projectDir);
    QStringList includeRoots;
    for (const QString& dir : project.options.includeDirs)
        includeRoots << QDir::cleanPath(base.absoluteFilePath(dir));
    const QByteArray headers =
        CompileCache::includeFingerprint(project.source, base.absolutePath(), includeRoots);
    if (includes)
        *includes = headers;
    // The project folder changes a compile only through what resolves in it: the headers
    // found there (their paths and bytes are in `headers`) and relative include dirs (absolute
    // in `includeRoots`). Without a header found there, the same source compiles the same in any
    // folder, so a streamed runner's folder of the moment (one per request, RunnerServer) does
    // not keep runs, runners and the disk cache from sharing a compile (docs/ARCHITECTURE.md).
    QStringList keyFlags = project.options.toFlags(arch) + includeRoots;
    if (!headers.isEmpty())
        keyFlags << base.absolutePath();
    // PTX and NVVM IR are keyed by their language and tools (CUDA keeps its keys of old).
    const QString tools = project.language == SourceLanguage::Cuda
                              ? Program::nvrtcVersion()
                              : languageName(project.language) + QLatin1Char(' ') +
                                    Program::compilerOf(project.language);
    return CompileCache::key(project.source, project.sourceName, keyFlags,
                             project.nameExpressions(), tools, headers);
}

CompileResult compileProject(const Project& project, const QString& projectDir, const QString& arch,
                             CompileCache* cache) {
    const Program program(project.source, project.sourceName, project.options, projectDir,
                          project.language);
    const auto compile = [&] { return program.compile(arch, project.nameExpressions()); };
    QElapsedTimer lookup; // a hit's compile time includes reading the included files
    lookup.start();
    // Read with or without a cache: the result names the headers it was made from, which the
    // project alone does not (a SASS count keyed by the project would outlive a header edit).
    QByteArray includes;
    const QByteArray key = compileCacheKey(project, projectDir, arch, &includes);
    const auto named = [&includes](CompileResult result) {
        result.includeFingerprint = QString::fromLatin1(includes.toHex());
        return result;
    };
    if (!cache)
        return named(compile());
    CompileResult result = cache->findOrCompile(key, compile);
    if (result.cacheHit)
        result.compileMs = double(lookup.nsecsElapsed()) / 1e6;
    return named(std::move(result));
}

QString jitFailure(const JitLog& jit, const QString& arch) {
    QString message = QStringLiteral("the driver's JIT could not compile the %1 PTX for %2: %3")
                          .arg(arch, jit.target, jit.failure);
    if (!jit.errorLog.isEmpty())
        message += QStringLiteral("\nJIT error log:\n") + jit.errorLog;
    if (!jit.infoLog.isEmpty())
        message += QStringLiteral("\nJIT info log:\n") + jit.infoLog;
    return message;
}

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
            progress(RunStage::Compiling, 0, 1);
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
    DeviceRun run(request, result, deviceState(request.device), cancel, progress);
    if (!run.prepareKernel())
        return run.result();
    // The copy ceiling, once per device (then from the disk cache), before the run's buffers
    // take the memory; a failed measurement only leaves the share of the ceiling out.
    DeviceState& s = *m_state;
    if (request.measureCeiling || (!s.ceiling && !s.ceilingTried)) {
        s.ceilingTried = true;
        run.report(RunStage::MeasuringCeiling);
        QString ceilingProblem;
        (void)deviceCeiling(request.device, request.measureCeiling, &ceilingProblem);
        if (isPoisoned())
            return run.fail(RunStatus::CudaError, m_poisonReason);
    }
    tracePhase("launch checked, globals bound, copy ceiling known");
    if (!run.prepareMemory() || !run.launchAndVerify())
        return run.result();
    // Device > Lock Clocks travels with every run: locked (again) or released before timing.
    const QString lockProblem = applyClockLock(request.lockClocks, s.info.pciBusId);
    RunResult timed = run.time();
    timed.timing.telemetry.lockError = lockProblem;
    return timed;
}

} // namespace kernelpad
