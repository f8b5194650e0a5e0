#include "core/engine/EngineWorkers.h"

#include <optional>

namespace kernelpad {

void CompileWorker::compile(quint64 id, const Project& project, const QString& projectDir,
                            const QString& arch) {
    emit compiled(id, compileProject(project, projectDir, arch, m_cache));
}

void CompileWorker::disassemble(quint64 id, const Project& project, const QString& projectDir,
                                const QString& arch) {
    // The line map needs -lineinfo, which adds line tables and leaves the instructions as
    // they are (tests/data/sass/README.md), so this is the SASS of what runs.
    Project withLines = project;
    withLines.options.lineInfo = true;
    // Program's name for a source without one: the name .loc and nvdisasm use.
    const QString sourceName =
        project.sourceName.isEmpty() ? QStringLiteral("kernel.cu") : project.sourceName;
    emit sassReady(
        id, makeSassReport(compileProject(withLines, projectDir, arch, m_cache), sourceName));
}

RunnerClient& GpuWorker::client() {
    if (!m_client) {
        m_client = new RunnerClient(this);
        connect(m_client, &RunnerClient::devicesChanged, this, &GpuWorker::devicesChanged);
        connect(m_client, &RunnerClient::runProgress, this, &GpuWorker::runProgress);
        connect(m_client, &RunnerClient::runFinished, this, &GpuWorker::runFinished);
        connect(m_client, &RunnerClient::resourcesReady, this, &GpuWorker::resourcesReady);
        connect(m_client, &RunnerClient::runnerRestarted, this, &GpuWorker::runnerRestarted);
    }
    return *m_client;
}

ExecutionSession& GpuWorker::session() {
    if (!m_session)
        m_session = std::make_unique<ExecutionSession>(m_cache);
    return *m_session;
}

void GpuWorker::refreshDevices() {
    if (m_isolated) {
        client().requestDevices(0);
        return;
    }
    QString error;
    const QVector<DeviceInfo> devices = session().devices(&error);
    emit devicesChanged(devices, error);
}

void GpuWorker::run(quint64 id, const RunRequest& request) {
    if (m_isolated) {
        client().run(id, request);
        return;
    }
    if (request.sanitizer != SanitizerTool::None) {
        // compute-sanitizer must start the process that runs the kernel; this one is running.
        RunResult refused;
        refused.status = RunStatus::BadInput;
        refused.sanitizerTool = request.sanitizer;
        refused.error =
            QStringLiteral(
                "a %1 run needs KernelPad's runner process (compute-sanitizer starts it), "
                "but kernels run inside this process here (in-process mode, or "
                "kernelpad-cli was not found). Unset KERNELPAD_IN_PROCESS or drop --in-process.")
                .arg(sanitizerToolName(request.sanitizer));
        emit runFinished(id, refused);
        return;
    }
    const RunResult result =
        session().run(request, *m_cancel, [&](const QString& stage, int done, int total) {
            emit runProgress(id, stage, done, total);
        });
    emit runFinished(id, result);
}

void GpuWorker::queryResources(quint64 id, const CompileResult& compiled,
                               const RunRequest& request) {
    if (m_isolated) {
        client().requestResources(id, request);
        return;
    }
    QString error;
    if (std::optional<KernelResources> r = session().kernelResources(
            compiled, request.project.kernel, request.project.launch, request.device, &error))
        emit resourcesReady(id, request.project.kernel, *r);
}

void GpuWorker::cancelRun() {
    if (m_isolated && m_client)
        m_client->cancel();
}

} // namespace kernelpad
