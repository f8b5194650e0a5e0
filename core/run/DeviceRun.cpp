#include "core/run/DeviceRun.h"

#include "core/compile/Program.h"
#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"
#include "core/io/Trace.h"
#include "core/launch/LaunchValidation.h"
#include "core/run/ErrorText.h"
#include "core/run/Measure.h"
#include "core/run/RunBuffers.h"
#include "core/run/RunMemory.h"
#include "core/run/RunTensorMaps.h"
#include "core/run/RunTextures.h"
#include "core/run/RunVerification.h"

#include <algorithm>

namespace kernelpad {
namespace {

QString kernelList(const CompileResult& compiled) {
    QStringList names;
    for (const KernelInfo& k : compiled.kernels)
        names << k.name;
    return names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "));
}

LaunchLimits limitsFor(const DeviceInfo& d, const Kernel& kernel) {
    LaunchLimits l = LaunchLimits::forDevice(d);
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

DeviceRun::DeviceRun(const RunRequest& request, RunResult& result,
                     ExecutionSession::DeviceState& device, const std::atomic_bool& cancel,
                     const ProgressFn& progress)
    : m_request(request)
    , m_project(request.project)
    , m_result(result)
    , m_s(device)
    , m_cancel(cancel)
    , m_progress(progress)
    // A pipeline runs its steps instead of the single launch: its steps are checked here, the
    // project's own kernel only by reference kernels that use it.
    , m_isPipeline(!request.project.pipeline.isEmpty())
    , m_launch(request.project.launch) {
    m_watchdog.start();
}

RunResult DeviceRun::fail(RunStatus status, const QString& message) {
    m_result.status = status;
    m_result.error = message;
    return m_result;
}

void DeviceRun::report(RunStage stage, int done, int total) const {
    if (m_progress)
        m_progress(stage, done, total);
}

bool DeviceRun::prepareKernel() {
    QString problem; // the pipeline's kernels were checked against the compile by run()
    m_lowered = m_result.compile.loweredName(m_isPipeline ? m_project.pipeline.steps.front().kernel
                                                          : m_project.kernel);
    if (m_lowered.isEmpty()) {
        fail(RunStatus::BadInput,
             QStringLiteral("kernel '%1' is not in the compiled module; it has: %2")
                 .arg(m_project.kernel, kernelList(m_result.compile)));
        return false;
    }
    m_result.kernelLowered = m_lowered;
    report(RunStage::Loading);
    m_module = m_s.moduleOf(m_result.compile, &m_result.jit);
    tracePhase("module loaded");
    if (!m_module) {
        fail(RunStatus::CompileError, jitFailure(m_result.jit, m_result.compile.arch));
        return false;
    }
    if (m_isPipeline) {
        const DeviceInfo& info = m_s.info;
        m_plan = PipelinePlan::prepare(
            m_project, m_result.compile, *m_module,
            [&info](const Kernel& k, const LaunchConfig& l) {
                return validateLaunch(l, limitsFor(info, k));
            },
            &problem);
        if (!m_plan) {
            fail(RunStatus::BadInput, problem);
            return false;
        }
        m_result.launch = m_plan->firstLaunch();
        m_kernel.emplace(m_plan->firstKernel());
    } else {
        m_kernel.emplace(m_module->kernel(m_lowered, m_project.kernel));
        if (!checkSingleLaunch())
            return false;
    }
    // Module globals: found in the module and sized before any buffer.
    m_globals = prepareGlobals(m_project, m_request.projectDir, m_result.compile, &problem);
    if (m_globals)
        problem = bindGlobals(*m_globals, *m_module);
    if (!m_globals || !problem.isEmpty()) {
        fail(RunStatus::BadInput, problem);
        return false;
    }
    // The opt-in above 48 KiB first: the occupancy query counts the launch's shared memory
    // and answers 0 blocks for a kernel not yet allowed that much.
    if (!m_isPipeline)
        m_kernel->allowDynamicSharedBytes(m_project.launch.sharedMemBytes);
    m_result.resources = resourcesOf(*m_kernel, m_s.info, m_result.launch);
    if (m_isPipeline)
        return true;
    problem = checkClusterAndCooperative(*m_kernel, m_result.compile.findKernel(m_lowered),
                                         m_s.device, m_s.info, &m_launch);
    if (!problem.isEmpty()) {
        fail(RunStatus::BadInput, problem);
        return false;
    }
    return true;
}

bool DeviceRun::checkSingleLaunch() {
    QString problem =
        checkAgainstParams(m_project.arguments, m_kernel->paramLayouts(), m_project.kernel);
    if (problem.isEmpty())
        problem = validateLaunch(m_project.launch, limitsFor(m_s.info, *m_kernel));
    if (!problem.isEmpty()) {
        fail(RunStatus::BadInput, problem);
        return false;
    }
    return true;
}

bool DeviceRun::prepareMemory() {
    report(RunStage::PreparingBuffers);
    QString problem;
    const auto failed = [&] {
        fail(RunStatus::BadInput, problem);
        return false;
    };
    if (!planBaseline())
        return false;
    // Bounds before bytes: the whole run's host and device memory is checked before any
    // buffer is generated or read, not one buffer at a time after they are all built.
    size_t freeBeforeBytes = 0, totalBeforeBytes = 0;
    check(DriverApi::get().cuMemGetInfo(&freeBeforeBytes, &totalBeforeBytes), "cuMemGetInfo");
    problem = checkRunMemory(m_project.arguments, m_request.projectDir, m_s.buffers,
                             AvailableMemory{availableHostBytes(), qint64(freeBeforeBytes)});
    if (!problem.isEmpty())
        return failed();
    // Large seeded random inputs are generated on the GPU when its generator is ready (the host
    // makes the same values only if it needs them); its compile failing only costs the upload.
    QString deviceInitProblem;
    const bool anyToGenerate = std::any_of(
        m_project.arguments.begin(), m_project.arguments.end(), [](const ArgumentSpec& a) {
            return a.isBuffer() && a.buffer.direction == Direction::In &&
                   deviceCanGenerate(a.buffer);
        });
    const bool generateOnDevice =
        anyToGenerate && m_s.deviceInit.prepare(m_s.info.arch(), &deviceInitProblem);
    std::optional<std::vector<RunBuffer>> prepared = prepareBuffers(
        m_project.arguments, m_request.projectDir, &problem, &m_s.buffers, generateOnDevice);
    if (!prepared)
        return failed();
    tracePhase("buffers prepared on the host (inputs generated)");
    // What the previous run left that this one cannot use is freed before the check.
    const qint64 toAllocateBytes = adoptBuffers(*prepared, m_s.buffers);
    // So are the reference copies it kept that none of this run's outputs can take.
    std::vector<RunBuffer>& kept = m_s.referenceOutputs;
    kept.erase(std::remove_if(kept.begin(), kept.end(),
                              [&](const RunBuffer& k) {
                                  return std::none_of(
                                      prepared->begin(), prepared->end(), [&](const RunBuffer& b) {
                                          return b.direction != Direction::In && b.name == k.name &&
                                                 b.bytes == k.bytes;
                                      });
                              }),
               kept.end());
    size_t freeBytes = 0, totalDeviceBytes = 0;
    check(DriverApi::get().cuMemGetInfo(&freeBytes, &totalDeviceBytes), "cuMemGetInfo");
    if (toAllocateBytes > qint64(freeBytes)) {
        problem =
            QStringLiteral("the buffers need %1 but the GPU has %2 free of %3; reduce their sizes")
                .arg(formatBytes(toAllocateBytes), formatBytes(qint64(freeBytes)),
                     formatBytes(qint64(totalDeviceBytes)));
        return failed();
    }
    if (m_isPipeline)
        // The last run may have been a pipeline whose steps wrote its "in" buffers.
        for (RunBuffer& b : *prepared)
            if (b.reuse == BufferReuse::Contents)
                b.reuse = BufferReuse::Memory;
    // No guards under compute-sanitizer: inside the allocation they would hide its bounds check.
    const qint64 guardBytes = m_request.sanitizer == SanitizerTool::None ? kGuardBytes : 0;
    m_uploads = uploadBuffers(*prepared, m_s.stream, QString(), &m_s.deviceInit, guardBytes);
    m_s.buffers = std::move(*prepared);
    tracePhase("buffers allocated, initialised and uploaded");
    if (m_isPipeline)
        // Any step may write any buffer: what this run leaves is no buffer's initial contents,
        // so the next run keeps the allocations only (a changed key forbids Contents).
        for (RunBuffer& b : m_s.buffers)
            b.key.direction = Direction::InOut;
    m_s.textures.reset();
    m_s.textures = RunTextures::create(m_project.arguments, m_request.projectDir, m_s.device,
                                       m_s.stream, &problem);
    if (!m_s.textures)
        return failed();
    QVector<quint64> addresses = bufferAddresses(m_s.buffers, m_project.arguments.size());
    m_s.textures->applyHandles(addresses);
    const std::optional<QVector<QByteArray>> maps =
        encodeTensorMaps(m_project.arguments, addresses, &problem);
    if (!maps)
        return failed();
    if (m_isPipeline) {
        if (!m_plan->pack(m_project.arguments, m_s.buffers,
                          m_s.textures->handles(m_project.arguments.size()), &problem, *maps))
            return failed();
    } else {
        m_packed = PackedArgs::pack(m_project.arguments, addresses, &problem, *maps);
        if (!m_packed)
            return failed();
    }
    if (m_baselinePlan) {
        // A library that is missing or refuses leaves the kernel's own results standing.
        m_baseline = BaselineCall::create(*m_baselinePlan, m_s.buffers, m_s.stream,
                                          &m_result.baseline.error);
        tracePhase("baseline prepared");
    }
    return true;
}

bool DeviceRun::planBaseline() {
    const BaselineSpec& spec = m_project.baseline;
    if (spec.isEmpty())
        return true;
    QString problem;
    if (m_isPipeline)
        problem = QStringLiteral("baseline: a pipeline has no single kernel to measure against "
                                 "%1; remove the baseline or the pipeline")
                      .arg(spec.libraryDisplayName());
    else
        m_baselinePlan = planBaselineCall(spec, m_project.arguments, &problem);
    if (!m_baselinePlan) {
        fail(RunStatus::BadInput, problem);
        return false;
    }
    m_result.baseline.library = spec.libraryDisplayName();
    m_result.baseline.call = m_baselinePlan->describe();
    return true;
}

void DeviceRun::checkBaseline() {
    if (!m_baseline)
        return;
    m_baseline->enqueue();
    BaselineResult& r = m_result.baseline;
    if (!m_baseline->failure().isEmpty()) {
        r.error = m_baseline->failure();
        m_baseline.reset();
        return;
    }
    r.check = m_baseline->check(m_project.arguments);
    r.check.method = QStringLiteral("kernel vs %1").arg(r.library);
    tracePhase("baseline checked");
}

void DeviceRun::timeBaseline(DeviceBuffer* flush, BlockingKernel* blocker) {
    if (!m_baseline)
        return;
    report(RunStage::Timing, 0, 1);
    const TimingSpec& timing = m_project.timing;
    BaselineCall& gemm = *m_baseline;
    const qint64 bytes = m_baselinePlan->bytesMoved();
    const MeasureOutcome m =
        measure(MeasureTarget{nullptr, m_launch.dims(), m_s.stream, nullptr, m_s.info, flush,
                              blocker, bytes, m_baselinePlan->flops(), [&gemm] { gemm.enqueue(); }},
                timing, m_request.repetitions, m_cancel, m_watchdog, m_progress);
    tracePhase("baseline timed");
    BaselineResult& r = m_result.baseline;
    r.timing = m.timing;
    if (!gemm.failure().isEmpty())
        r.error = gemm.failure();
    else if (m.status != RunStatus::Ok)
        r.error = QStringLiteral("the baseline's timing stopped after %1 samples (%2)")
                      .arg(m.timing.reps())
                      .arg(m.status == RunStatus::Cancelled ? QStringLiteral("cancelled")
                                                            : QStringLiteral("time limit"));
}

void DeviceRun::launchOnce() {
    // One launch whose outputs are verified; repetitions afterwards may change inout
    // buffers again and again, so they are timed but never checked.
    report(RunStage::VerifyingLaunch);
    writeGlobals(*m_globals, m_s.stream);
    if (m_isPipeline) {
        m_plan->enqueue(m_s.stream);
        m_s.stream.synchronize(QStringLiteral("running the pipeline of '%1'").arg(m_project.name));
        m_plan->applyFinalBindings(m_s.buffers);
    } else {
        m_kernel->launch(m_launch.dims(), m_s.stream, m_packed->kernelParams());
        m_s.stream.synchronize(QStringLiteral("running '%1'").arg(m_project.kernel));
    }
    m_s.textures->readSurfaces(m_s.stream);
    tracePhase("verified launch done");
}

QHash<QString, QByteArray> DeviceRun::copyOutputs(RunVerifier& verifier,
                                                  QHash<QString, QByteArray>* globals) {
    // Outputs verified on the GPU are copied to the host only when the caller keeps them.
    QHash<QString, QByteArray> outputs;
    for (const RunBuffer& b : m_s.buffers) {
        if (b.direction == Direction::In || (verifier.verifiesOnGpu(b) && !m_request.keepOutputs))
            continue;
        QByteArray host(int(0), Qt::Uninitialized);
        host.resize(qsizetype(b.bytes));
        b.device.downloadAsync(host.data(), b.bytes, m_s.stream);
        outputs.insert(b.name, host);
    }
    readGlobals(*m_globals, m_s.stream, globals);
    m_s.stream.synchronize(QStringLiteral("copying outputs of '%1'").arg(m_project.kernel));
    tracePhase("outputs copied to the host");
    return outputs;
}

void DeviceRun::keepOutputs(const QHash<QString, QByteArray>& outputs,
                            const QHash<QString, QByteArray>& globals) {
    if (!m_request.keepOutputs)
        return;
    for (const RunBuffer& b : m_s.buffers)
        if (outputs.contains(b.name))
            m_result.outputs.push_back(
                OutputBuffer{b.name, b.type, b.count, outputs.value(b.name)});
    for (const RunGlobal& g : *m_globals)
        if (globals.contains(g.name))
            m_result.outputs.push_back(
                OutputBuffer{g.name, g.type, g.count, globals.value(g.name)});
    m_result.outputs += m_s.textures->outputs();
}

bool DeviceRun::launchAndVerify() {
    launchOnce();
    QElapsedTimer verifyClock;
    verifyClock.start();
    // The comparer's kernels need a CUBIN: a virtual arch gives none, so the device's arch.
    const QString arch = m_result.compile.arch.isEmpty() || isVirtualArch(m_result.compile.arch)
                             ? m_s.info.arch()
                             : m_result.compile.arch;
    const std::vector<RunBuffer>& buffers = m_s.buffers;
    for (auto it = m_s.expected.begin(); it != m_s.expected.end();) {
        const bool stillChecked =
            std::any_of(buffers.begin(), buffers.end(), [&](const RunBuffer& b) {
                return b.name == it->first && b.verify.kind == VerifySpec::Kind::Expression;
            });
        it = stillChecked ? std::next(it) : m_s.expected.erase(it);
    }
    RunVerifier verifier(m_project, m_request.projectDir, m_result.compile, *m_module, m_s.stream,
                         &m_s.comparer, arch, &m_s.expected);
    verifier.imageHandles = m_s.textures->handles(m_project.arguments.size());
    verifier.expressionEvaluator = &m_s.expressionEvaluator;
    verifier.deviceInit = &m_s.deviceInit;
    verifier.referenceOutputs = &m_s.referenceOutputs;
    QHash<QString, QByteArray> globalOutputs;
    QHash<QString, QByteArray> outputs = copyOutputs(verifier, &globalOutputs);

    report(RunStage::Verifying);
    m_result.verification = verifier.verify(buffers, outputs);
    tracePhase("buffers compared");
    m_result.verification +=
        verifyGlobals(*m_globals, globalOutputs, m_project, buffers, m_request.projectDir);
    m_result.verification +=
        m_s.textures->verify(m_project.arguments, buffers, m_request.projectDir);
    tracePhase("globals and textures verified");
    // The guards are read after the verified launch, outside any timed one, and once more
    // after the timing (checkGuardsAfterTiming).
    m_result.guards = checkBufferGuards(buffers, m_s.stream);
    for (const GuardFinding& g : std::as_const(m_result.guards))
        m_result.verification += guardVerification(g);
    m_verifyMs = double(verifyClock.nsecsElapsed()) / 1e6;
    verifier.keepReferenceOutputs();
    tracePhase("outputs verified");
    keepOutputs(outputs, globalOutputs);
    outputs.clear();
    tracePhase("outputs kept");
    checkBaseline();
    tracePhase("baseline checked or none");
    if (m_cancel.load(std::memory_order_relaxed)) {
        fail(RunStatus::Cancelled, QStringLiteral("cancelled before timing"));
        return false;
    }
    return true;
}

void DeviceRun::checkGuardsAfterTiming() {
    // A few hundred bytes per buffer, read after the last sample; a buffer the verified launch
    // had already written outside keeps that finding.
    const QVector<GuardFinding> found =
        guardWritesDuringTiming(m_result.guards, checkBufferGuards(m_s.buffers, m_s.stream));
    for (const GuardFinding& g : found)
        m_result.verification += guardVerification(g);
    m_result.guards += found;
    if (!found.isEmpty())
        tracePhase("guards written while timing");
}

RunResult DeviceRun::time() {
    return m_isPipeline ? timePipeline() : timeLaunches();
}

RunResult DeviceRun::timePipeline() {
    const TimingSpec& timing = m_project.timing;
    report(RunStage::TimingPipeline);
    const int samples = std::max(1, m_request.repetitions.value_or(timing.repetitions));
    PipelineMeasurement pm =
        m_plan->measure(m_s.stream, samples, timing.warmupLaunches, m_project.pipeline.graph,
                        m_cancel, m_watchdog, timing.timeLimitMs);
    checkGuardsAfterTiming();
    m_result.pipeline = std::move(pm.timing);
    // A pass moves each buffer as often as its steps touch it: only the project's own figure
    // gives a bandwidth.
    m_result.timing =
        computeStats(m_result.pipeline.sequence.timesMs, timing.bytesOverride.value_or(0),
                     timing.flopsPerLaunch.value_or(0.0));
    m_result.timing.mode = m_result.pipeline.sequence.mode;
    m_result.timing.ceilingGBs = m_s.ceiling ? m_s.ceiling->gbs : 0.0;
    m_result.timing.stopReason = m_result.pipeline.sequence.stopReason;
    m_result.timing.verifyMs = m_verifyMs;
    m_result.timing.buffersReused = m_uploads.reused;
    if (pm.status != RunStatus::Ok)
        return fail(pm.status, pm.status == RunStatus::Cancelled
                                   ? QStringLiteral("cancelled while timing the pipeline")
                                   : QStringLiteral("the run passed its time limit of %1 ms "
                                                    "while timing the pipeline")
                                         .arg(timing.timeLimitMs));
    return finishVerification(m_result);
}

RunResult DeviceRun::timeLaunches() {
    const TimingSpec& timing = m_project.timing;
    DeviceBuffer* flush = nullptr;
    if (timing.mode == TimingSpec::Mode::Cold && m_s.info.l2CacheBytes > 0) {
        if (m_s.l2Flush.sizeBytes() != m_s.info.l2CacheBytes)
            m_s.l2Flush =
                DeviceBuffer(m_s.info.l2CacheBytes, QStringLiteral("the L2 flush buffer"));
        flush = &m_s.l2Flush;
    }
    BlockingKernel* blocker = nullptr;
    QString blockerProblem;
    if (timing.blockingKernel && m_s.blocker.prepare(m_s.info.arch(), &blockerProblem))
        blocker = &m_s.blocker;
    const qint64 bytes = timing.bytesOverride.value_or(bytesMoved(m_s.buffers));
    tracePhase("about to time (verifier released, blocking kernel ready)");
    const MeasureOutcome m =
        measure(MeasureTarget{&*m_kernel,
                              m_launch.dims(),
                              m_s.stream,
                              m_packed->kernelParams(),
                              m_s.info,
                              flush,
                              blocker,
                              bytes,
                              timing.flopsPerLaunch.value_or(0.0),
                              {}},
                timing, m_request.repetitions, m_cancel, m_watchdog, m_progress);
    tracePhase("timed");
    // Before the library's launches, so that what the guards show is the kernel's doing.
    checkGuardsAfterTiming();
    if (m.status == RunStatus::Ok)
        timeBaseline(flush, blocker);
    m_result.timing = m.timing;
    if (!blockerProblem.isEmpty())
        qWarning("timed without the blocking kernel: %s", qPrintable(blockerProblem));
    m_result.timing.verifyMs = m_verifyMs;
    m_result.timing.buffersReused = m_uploads.reused;
    m_result.timing.uploadsSkipped = m_uploads.uploadsSkipped;
    m_result.timing.uploadBytesSkipped = m_uploads.bytesSkipped;
    m_result.timing.ceilingGBs = m_s.ceiling ? m_s.ceiling->gbs : 0.0;
    if (m.status == RunStatus::Cancelled)
        return fail(m.status, QStringLiteral("cancelled after %1 samples").arg(m.timing.reps()));
    if (m.status == RunStatus::Timeout)
        return fail(m.status,
                    QStringLiteral("the run passed its time limit of %1 ms after %2 samples; "
                                   "the statistics cover those")
                        .arg(timing.timeLimitMs)
                        .arg(m.timing.reps()));
    finishVerification(m_result);
    const BufferVerification& check = m_result.baseline.check;
    if (m_result.status == RunStatus::Ok && m_baseline && !check.passed) {
        m_result.status = RunStatus::VerificationFailed;
        m_result.error =
            QStringLiteral("kernel vs %1: '%2' differs from the library's result in %3 of %4 "
                           "elements (max abs err %5, max rel err %6)")
                .arg(m_result.baseline.library, check.buffer)
                .arg(check.mismatches)
                .arg(check.checked)
                .arg(check.maxAbsError)
                .arg(check.maxRelError);
    }
    return m_result;
}

} // namespace kernelpad
