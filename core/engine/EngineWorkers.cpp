#include "core/engine/EngineWorkers.h"

#include "core/profile/Ncu.h"
#include "core/profile/ProfileRun.h"
#include "core/project/RunnerSpec.h"
#include "core/run/ConsoleOutput.h"
#include "core/runner/ConsoleCapture.h"
#include "core/runner/RunnerConnection.h"

#include <optional>

namespace kernelpad {

void CompileWorker::compile(quint64 id, const Project& project, const QString& projectDir,
                            const QString& arch, bool runnerElsewhere) {
    // Asked here rather than in Engine::compile: the first question loads NVRTC, which the UI
    // thread must not wait for.
    if (runnerElsewhere && nvrtcUnavailableHere()) {
        RunRequest request;
        request.project = project;
        request.project.options.arch = arch;
        request.projectDir = projectDir;
        request.keepOutputs = false;
        emit compileInRunnerWanted(id, request);
        return;
    }
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
    // A request replaced while it waited in the queue ends without compiling.
    const SassJobs::Flag cancel = m_sassJobs->flag(id);
    SassReport report;
    if (cancel->load()) {
        report.sourceName = sourceName;
        report.sass.cancelled = true;
        report.sass.error = sassCancelledMessage();
    } else {
        // The text goes out as soon as nvdisasm has printed it; the map follows in sassReady().
        report = makeSassReport(
            compileProject(withLines, projectDir, arch, m_cache), sourceName,
            [&](const SassReport& listed) { emit sassListed(id, listed); }, &SassCache::instance(),
            cancel.get());
    }
    m_sassJobs->finish(id);
    emit sassReady(id, report);
}

RunnerClient& GpuWorker::client() {
    if (!m_client) {
        m_client = new RunnerClient(this);
        connect(m_client, &RunnerClient::devicesChanged, this, &GpuWorker::devicesChanged);
        connect(m_client, &RunnerClient::runProgress, this, &GpuWorker::runProgress);
        connect(m_client, &RunnerClient::runFinished, this, &GpuWorker::runFinished);
        connect(m_client, &RunnerClient::resourcesReady, this, &GpuWorker::resourcesReady);
        connect(m_client, &RunnerClient::runnerRestarted, this, &GpuWorker::runnerRestarted);
        connect(m_client, &RunnerClient::compiled, this, &GpuWorker::compiled);
        connect(m_client, &RunnerClient::fetched, this, &GpuWorker::rangeFetched);
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

void GpuWorker::setRunner(const RunnerSpec& spec) {
    QString error;
    if (!client().setSpec(spec, &error)) {
        emit devicesChanged({}, error);
        return;
    }
    m_isolated = spec.isLocal() ? m_localIsolated : true;
    refreshDevices();
}

void GpuWorker::compileInRunner(quint64 id, const RunRequest& request) {
    client().requestCompile(id, request);
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
    // In this process the kernel's printf would land on the caller's own stdout (the CLI's
    // table or JSON): captured as the runner does, it becomes the run's console.
    std::unique_ptr<ConsoleCapture> console;
    if (m_captureConsole) {
        QString why;
        console = ConsoleCapture::start(kMaxConsoleBytes, &why);
        if (!console)
            qWarning("%s", qPrintable(why));
    }
    RunResult result = session().run(request, *m_cancel, [&](RunStage stage, int done, int total) {
        emit runProgress(id, toString(stage), done, total);
    });
    if (console)
        result.console = console->take();
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

void GpuWorker::profile(quint64 id, const RunRequest& request, ProfileSet set) {
    const auto fail = [&](ProfileStatus status, const QString& message,
                          RunStatus runStatus = RunStatus::Ok) {
        ProfileOutcome o;
        o.status = status;
        o.error = message;
        o.runStatus = runStatus;
        emit profileFinished(id, o);
    };
    if (m_profile)
        return fail(ProfileStatus::Failed, QStringLiteral("a profile is already running"));
    const NcuLocation ncu = findNcu();
    if (ncu.path.isEmpty())
        return fail(ProfileStatus::NcuMissing, ncu.notFoundMessage());
    // ncu must start the process that runs the kernel, so a profile always uses a runner of
    // its own, in-process mode or not.
    QStringList searched;
    const QString runner = RunnerConnection::findRunner(&searched);
    if (runner.isEmpty())
        return fail(ProfileStatus::Failed,
                    QStringLiteral("KernelPad's runner (kernelpad-cli) was not found, and ncu "
                                   "profiles it; looked in: %1")
                        .arg(searched.join(QStringLiteral(", "))));
    QString error;
    RunStatus status = RunStatus::Ok;
    const std::optional<QString> lowered =
        ProfileRun::loweredKernelName(request, m_cache, &error, &status);
    if (!lowered)
        return fail(ProfileStatus::KernelFailed, error, status);
    emit runProgress(id, toString(RunStage::Profiling), 0, 1);
    // A connection that is never started: the runner's command line and limits as a warm
    // runner has them.
    const RunnerConnection defaults;
    m_profile =
        new ProfileRun(ncu.path, runner, defaults.arguments(), defaults.preparationLimitMs(), this);
    connect(m_profile, &ProfileRun::progress, this, &GpuWorker::runProgress);
    connect(m_profile, &ProfileRun::finished, this,
            [this](quint64 finishedId, const ProfileOutcome& outcome) {
                m_profile->disconnect(this);
                m_profile->deleteLater();
                m_profile = nullptr;
                emit profileFinished(finishedId, outcome);
            });
    if (!m_profile->start(id, request, set, *lowered, &error)) {
        delete m_profile;
        m_profile = nullptr;
        fail(ProfileStatus::Failed, error);
    }
}

void GpuWorker::fetchRange(quint64 id, quint64 run, const QString& buffer, qint64 offset,
                           qint64 bytes) {
    if (!m_isolated) {
        // Outputs of a run in this process are all here; none was kept anywhere.
        emit rangeFetched(id, {},
                          QStringLiteral("kernels run inside this process now, so no runner "
                                         "keeps output '%1'; run again to see it")
                              .arg(buffer));
        return;
    }
    client().fetch(id, run, buffer, offset, bytes);
}

void GpuWorker::cancelProfile() {
    if (m_profile)
        m_profile->cancel();
}

void GpuWorker::cancelRun() {
    if (m_isolated && m_client)
        m_client->cancel();
}

} // namespace kernelpad
