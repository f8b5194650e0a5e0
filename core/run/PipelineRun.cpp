#include "core/run/PipelineRun.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/Graph.h"
#include "core/cuda/Stream.h"
#include "core/launch/LaunchValidation.h"

#include <QHash>

#include <algorithm>
#include <cmath>
#include <utility>

namespace kernelpad {

std::optional<PipelinePlan> PipelinePlan::prepare(const Project& project,
                                                  const CompileResult& compiled,
                                                  const Module& module,
                                                  const LaunchCheck& checkLaunch, QString* error) {
    const Pipeline& pipeline = project.pipeline;
    if (QString problem = pipeline.problemWith(project.arguments); !problem.isEmpty()) {
        *error = problem;
        return std::nullopt;
    }
    if (QString problem = pipeline.problemWithCompiled(project.arguments, compiled);
        !problem.isEmpty()) {
        *error = problem;
        return std::nullopt;
    }
    PipelinePlan plan;
    for (int i = 0; i < pipeline.steps.size(); ++i) {
        const PipelineStep& step = pipeline.steps[i];
        const QString path = QStringLiteral("pipeline.steps[%1]").arg(i);
        const QString lowered = compiled.loweredName(step.kernel);
        Kernel kernel = module.kernel(lowered, step.kernel);
        QString problem = checkAgainstParams(pipeline.stepArguments(i, project.arguments),
                                             kernel.paramLayouts(), step.kernel);
        if (problem.isEmpty())
            problem = checkLaunch(kernel, step.launch);
        if (!problem.isEmpty()) {
            *error = QStringLiteral("%1: %2").arg(path, problem);
            return std::nullopt;
        }
        // Above 48 KiB of dynamic shared memory a kernel must opt in (as a single launch
        // does); the attribute is the kernel's, so set it before capture as well.
        kernel.allowDynamicSharedBytes(step.launch.sharedMemBytes);
        plan.m_steps.push_back(Step{kernel,
                                    step.kernel,
                                    step.launch,
                                    step.repeat,
                                    pipeline.stepArguments(i, project.arguments),
                                    step.swaps,
                                    {}});
    }
    return plan;
}

bool PipelinePlan::pack(const QVector<ArgumentSpec>& arguments,
                        const std::vector<RunBuffer>& buffers, const QVector<quint64>& imageHandles,
                        QString* error, const QVector<QByteArray>& tensorMaps) {
    // Which buffer's memory each buffer name refers to at this point of the pass.
    QHash<QString, int> owner;
    for (int b = 0; b < int(buffers.size()); ++b)
        owner.insert(buffers[size_t(b)].name, b);
    QHash<QString, int> argumentIndex;
    for (int a = 0; a < arguments.size(); ++a)
        argumentIndex.insert(arguments[a].name, a);

    for (size_t s = 0; s < m_steps.size(); ++s) {
        Step& step = m_steps[s];
        step.launches.clear();
        step.launches.reserve(size_t(step.repeat));
        const QString path = QStringLiteral("pipeline.steps[%1]").arg(s);
        for (int r = 0; r < step.repeat; ++r) {
            const QVector<ArgumentSpec>& bound = step.arguments;
            QVector<quint64> addresses(bound.size(), 0);
            QVector<QByteArray> maps(bound.size());
            for (int j = 0; j < bound.size(); ++j) {
                const ArgumentSpec& arg = bound[j];
                if (arg.isTensorMap())
                    maps[j] = tensorMaps.value(argumentIndex.value(arg.name));
                else if (arg.isBuffer())
                    addresses[j] = buffers[size_t(owner.value(arg.name))].device.address();
                else if (arg.isImage())
                    addresses[j] = imageHandles.value(argumentIndex.value(arg.name));
            }
            QString why;
            std::optional<PackedArgs> packed = PackedArgs::pack(bound, addresses, &why, maps);
            if (!packed) {
                *error = QStringLiteral("%1: %2").arg(path, why);
                return false;
            }
            step.launches.push_back(std::move(*packed));
            for (const auto& [first, second] : step.swaps) {
                const int a = owner.value(first), b = owner.value(second);
                if (buffers[size_t(a)].bytes != buffers[size_t(b)].bytes) {
                    *error = QStringLiteral("%1: cannot swap '%2' (%3) with '%4' (%5): swapped "
                                            "buffers must have the same size")
                                 .arg(path, first, formatBytes(buffers[size_t(a)].bytes), second,
                                      formatBytes(buffers[size_t(b)].bytes));
                    return false;
                }
                owner.insert(first, b);
                owner.insert(second, a);
            }
        }
    }
    m_finalOwner.assign(buffers.size(), 0);
    for (int b = 0; b < int(buffers.size()); ++b)
        m_finalOwner[size_t(b)] = owner.value(buffers[size_t(b)].name);
    return true;
}

void PipelinePlan::enqueueStep(int step, const Stream& stream) const {
    const Step& s = m_steps[size_t(step)];
    const LaunchDims dims = s.launch.dims();
    for (PackedArgs& args : s.launches)
        s.kernel.launch(dims, stream, args.kernelParams());
}

void PipelinePlan::enqueue(const Stream& stream) const {
    for (int s = 0; s < int(m_steps.size()); ++s)
        enqueueStep(s, stream);
}

void PipelinePlan::applyFinalBindings(std::vector<RunBuffer>& buffers) const {
    std::vector<DeviceBuffer> memory;
    memory.reserve(buffers.size());
    for (RunBuffer& b : buffers)
        memory.push_back(std::move(b.device));
    for (size_t b = 0; b < buffers.size(); ++b)
        buffers[b].device = std::move(memory[size_t(m_finalOwner[b])]);
}

namespace {

/// A sample loop's stop: cancelled, or past the run's time limit.
RunStatus stopStatus(const std::atomic_bool& cancel, const QElapsedTimer& runClock,
                     int timeLimitMs) {
    if (cancel.load(std::memory_order_relaxed))
        return RunStatus::Cancelled;
    if (runClock.elapsed() > timeLimitMs)
        return RunStatus::Timeout;
    return RunStatus::Ok;
}

TimingStats statsOf(QVector<double> timesMs, int samples) {
    TimingStats stats = computeStats(std::move(timesMs));
    stats.mode = QStringLiteral("hot");
    stats.stopReason =
        stats.reps() >= samples ? QStringLiteral("fixed count") : QStringLiteral("stopped early");
    return stats;
}

} // namespace

PipelineMeasurement PipelinePlan::measure(const Stream& stream, int samples, int warmup, bool graph,
                                          const std::atomic_bool& cancel,
                                          const QElapsedTimer& runClock, int timeLimitMs) const {
    PipelineMeasurement out;
    PipelineTiming& t = out.timing;
    const int stepCount = int(m_steps.size());
    for (const Step& s : m_steps)
        t.launches += s.repeat;
    for (int w = 0; w < warmup; ++w)
        enqueue(stream);
    stream.synchronize(QStringLiteral("warming up the pipeline"));

    // Per step: events between the steps of a pass.
    std::vector<Event> marks(size_t(stepCount) + 1);
    std::vector<QVector<double>> stepTimes(static_cast<size_t>(stepCount));
    for (int n = 0; n < samples && out.status == RunStatus::Ok; ++n) {
        marks[0].record(stream);
        for (int s = 0; s < stepCount; ++s) {
            enqueueStep(s, stream);
            marks[size_t(s) + 1].record(stream);
        }
        marks.back().synchronize();
        for (int s = 0; s < stepCount; ++s)
            stepTimes[size_t(s)].append(marks[size_t(s) + 1].elapsedMsSince(marks[size_t(s)]));
        out.status = stopStatus(cancel, runClock, timeLimitMs);
    }
    for (int s = 0; s < stepCount; ++s)
        t.steps.append(StepTiming{m_steps[size_t(s)].name, m_steps[size_t(s)].repeat,
                                  statsOf(stepTimes[size_t(s)], samples)});

    // The pass alone, with no event between its launches: what the graph is compared with.
    Event start, stop;
    QVector<double> passTimes;
    for (int n = 0; n < samples && out.status == RunStatus::Ok; ++n) {
        start.record(stream);
        enqueue(stream);
        stop.record(stream);
        stop.synchronize();
        passTimes.append(stop.elapsedMsSince(start));
        out.status = stopStatus(cancel, runClock, timeLimitMs);
    }
    t.sequence = statsOf(passTimes, samples);

    if (!graph || out.status != RunStatus::Ok)
        return out;
    t.graph = true;
    QElapsedTimer instantiate;
    instantiate.start();
    Graph captured;
    {
        StreamCapture capture(stream);
        enqueue(stream);
        captured = capture.end();
    }
    const GraphExec exec(captured);
    t.graphInstantiateMs = double(instantiate.nsecsElapsed()) / 1e6;
    for (int w = 0; w < std::max(warmup, 1); ++w) // the first replay uploads the graph
        exec.launch(stream);
    stream.synchronize(QStringLiteral("warming up the pipeline's graph"));
    QVector<double> graphTimes;
    for (int n = 0; n < samples && out.status == RunStatus::Ok; ++n) {
        start.record(stream);
        exec.launch(stream);
        stop.record(stream);
        stop.synchronize();
        graphTimes.append(stop.elapsedMsSince(start));
        out.status = stopStatus(cancel, runClock, timeLimitMs);
    }
    t.graphReplay = statsOf(graphTimes, samples);
    return out;
}

} // namespace kernelpad
