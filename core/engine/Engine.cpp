#include "core/engine/Engine.h"

#include "core/compile/CompileWatchdog.h"
#include "core/engine/EngineWorkers.h"

#include <QMetaObject>
#include <QPointer>
#include <QThread>

#include <mutex>
#include <optional>

namespace kernelpad {

struct Engine::Private {
    CompileCache cache;
    std::atomic_bool cancel{false};
    QThread compileThread;
    QThread gpuThread;
    CompileWorker* compileWorker = nullptr; // lives on compileThread, deleted when it ends
    GpuWorker* gpuWorker = nullptr;         // lives on gpuThread, deleted when it ends

    // Touched only on the Engine's thread.
    QVector<DeviceInfo> devices;
    bool driverKnownMissing = false;
    quint64 nextId = 1;
    std::optional<QPair<quint64, RunRequest>> queuedRun; ///< replaced by newer requests
    quint64 activeRun = 0;
    quint64 activeProfile = 0;
    Isolation isolation = Isolation::Process;
    QHash<quint64, RunRequest> wantResources; ///< compile id -> what to query after it
    RunnerSpec runner;
};

Engine::Isolation Engine::defaultIsolation() {
    if (qEnvironmentVariableIntValue("KERNELPAD_IN_PROCESS") == 1)
        return Isolation::InProcess;
    if (RunnerClient::findRunner().isEmpty()) {
        qWarning(
            "KernelPad: the runner (kernelpad-cli) was not found; kernels run inside this process");
        return Isolation::InProcess;
    }
    return Isolation::Process;
}

Engine::Engine(QObject* parent, Isolation isolation)
    : QObject(parent)
    , d(std::make_unique<Private>()) {
    d->isolation = isolation;
    qRegisterMetaType<kernelpad::CompileResult>();
    qRegisterMetaType<kernelpad::RunResult>();
    qRegisterMetaType<kernelpad::KernelResources>();
    qRegisterMetaType<kernelpad::DeviceInfo>();
    qRegisterMetaType<QVector<kernelpad::DeviceInfo>>();
    qRegisterMetaType<kernelpad::Project>();
    qRegisterMetaType<kernelpad::RunRequest>();
    qRegisterMetaType<kernelpad::LaunchConfig>();
    qRegisterMetaType<kernelpad::SassReport>();
    qRegisterMetaType<kernelpad::ProfileSet>();
    qRegisterMetaType<kernelpad::ProfileOutcome>();

    d->compileWorker = new CompileWorker(&d->cache);
    d->compileWorker->moveToThread(&d->compileThread);
    connect(&d->compileThread, &QThread::finished, d->compileWorker, &QObject::deleteLater);
    d->gpuWorker = new GpuWorker(&d->cache, &d->cancel, isolation == Isolation::Process);
    d->gpuWorker->moveToThread(&d->gpuThread);
    connect(&d->gpuThread, &QThread::finished, d->gpuWorker, &QObject::deleteLater);

    const auto onCompiled = [this](quint64 id, const CompileResult& r) {
        emit compiled(id, r);
        const RunRequest want = d->wantResources.take(id);
        if (r.ok && !d->driverKnownMissing && !want.project.kernel.isEmpty())
            QMetaObject::invokeMethod(d->gpuWorker, "queryResources", Qt::QueuedConnection,
                                      Q_ARG(quint64, id), Q_ARG(kernelpad::CompileResult, r),
                                      Q_ARG(kernelpad::RunRequest, want));
    };
    connect(d->compileWorker, &CompileWorker::compiled, this, onCompiled);
    // Without NVRTC here the runner elsewhere compiles (CompileWorker::compile).
    connect(d->compileWorker, &CompileWorker::compileInRunnerWanted, d->gpuWorker,
            &GpuWorker::compileInRunner);
    connect(d->gpuWorker, &GpuWorker::compiled, this, onCompiled);
    connect(d->compileWorker, &CompileWorker::sassListed, this, &Engine::sassListed);
    connect(d->compileWorker, &CompileWorker::sassReady, this, &Engine::sassReady);
    connect(d->gpuWorker, &GpuWorker::devicesChanged, this,
            [this](const QVector<DeviceInfo>& devices, const QString& error) {
                d->devices = devices;
                d->driverKnownMissing = devices.isEmpty();
                emit devicesChanged(devices, error);
            });
    connect(d->gpuWorker, &GpuWorker::resourcesReady, this, &Engine::resourcesReady);
    connect(d->gpuWorker, &GpuWorker::runnerRestarted, this, &Engine::runnerRestarted);
    connect(d->gpuWorker, &GpuWorker::runProgress, this, &Engine::runProgress);
    connect(d->gpuWorker, &GpuWorker::rangeFetched, this, &Engine::rangeFetched);
    connect(d->gpuWorker, &GpuWorker::runFinished, this, [this](quint64 id, const RunResult& r) {
        d->activeRun = 0;
        emit runFinished(id, r);
        if (d->queuedRun) {
            auto [nextId, request] = *d->queuedRun;
            d->queuedRun.reset();
            d->cancel = false;
            d->activeRun = nextId;
            QMetaObject::invokeMethod(d->gpuWorker, "run", Qt::QueuedConnection,
                                      Q_ARG(quint64, nextId),
                                      Q_ARG(kernelpad::RunRequest, request));
        }
    });
    connect(d->gpuWorker, &GpuWorker::profileFinished, this,
            [this](quint64 id, const ProfileOutcome& outcome) {
                if (id == d->activeProfile)
                    d->activeProfile = 0;
                emit profileFinished(id, outcome);
            });
    d->compileThread.setObjectName(QStringLiteral("kernelpad-compile"));
    d->gpuThread.setObjectName(QStringLiteral("kernelpad-gpu"));
    d->compileThread.start();
    d->gpuThread.start();
}

Engine::~Engine() {
    d->cancel = true;
    // A compile that has not returned is left to its own thread (CompileWatchdog.h), so both
    // threads stop promptly even with NVRTC hung; runs compile on the GPU thread too.
    abandonCompilesOn(&d->compileThread);
    abandonCompilesOn(&d->gpuThread);
    d->compileThread.quit();
    d->gpuThread.quit();
    d->compileThread.wait();
    d->gpuThread.wait();
    stopAbandoningCompilesOn(&d->compileThread);
    stopAbandoningCompilesOn(&d->gpuThread);
}

void Engine::refreshDevices() {
    QMetaObject::invokeMethod(d->gpuWorker, &GpuWorker::refreshDevices, Qt::QueuedConnection);
}

void Engine::setRunner(const RunnerSpec& spec) {
    if (spec == d->runner)
        return;
    d->runner = spec;
    QMetaObject::invokeMethod(
        d->gpuWorker, [worker = d->gpuWorker, spec] { worker->setRunner(spec); },
        Qt::QueuedConnection);
}

const RunnerSpec& Engine::runner() const {
    return d->runner;
}

quint64 Engine::compile(const Project& project, const QString& projectDir, int device) {
    const quint64 id = d->nextId++;
    QString arch = project.options.arch.value_or(QString());
    if (arch.isEmpty() && device >= 0 && device < d->devices.size())
        arch = d->devices[device].arch();
    if (arch.isEmpty())
        arch = QString::fromLatin1(kDefaultArch);
    RunRequest want;
    want.project = project;
    want.projectDir = projectDir;
    want.device = device;
    want.keepOutputs = false;
    d->wantResources.insert(id, want);
    QMetaObject::invokeMethod(d->compileWorker, "compile", Qt::QueuedConnection, Q_ARG(quint64, id),
                              Q_ARG(kernelpad::Project, project), Q_ARG(QString, projectDir),
                              Q_ARG(QString, arch), Q_ARG(bool, !d->runner.isLocal()));
    return id;
}

quint64 Engine::disassemble(const Project& project, const QString& projectDir,
                            const QString& arch) {
    const quint64 id = d->nextId++;
    QMetaObject::invokeMethod(d->compileWorker, "disassemble", Qt::QueuedConnection,
                              Q_ARG(quint64, id), Q_ARG(kernelpad::Project, project),
                              Q_ARG(QString, projectDir), Q_ARG(QString, arch));
    return id;
}

quint64 Engine::run(const RunRequest& request) {
    const quint64 id = d->nextId++;
    if (d->activeRun != 0) {
        // A newer request replaces a queued older one, which is answered as cancelled.
        if (d->queuedRun) {
            RunResult replaced;
            replaced.status = RunStatus::Cancelled;
            replaced.error = QStringLiteral("replaced by a newer run request");
            emit runFinished(d->queuedRun->first, replaced);
        }
        d->queuedRun = qMakePair(id, request);
        return id;
    }
    d->cancel = false;
    d->activeRun = id;
    QMetaObject::invokeMethod(d->gpuWorker, "run", Qt::QueuedConnection, Q_ARG(quint64, id),
                              Q_ARG(kernelpad::RunRequest, request));
    return id;
}

quint64 Engine::profile(const RunRequest& request, ProfileSet set) {
    const quint64 id = d->nextId++;
    if (d->activeProfile != 0) {
        ProfileOutcome refused;
        refused.status = ProfileStatus::Failed;
        refused.error = QStringLiteral("a profile is already running; wait for it or cancel it");
        // Queued, as every answer: the caller connects after this returns.
        QMetaObject::invokeMethod(
            this, [this, id, refused] { emit profileFinished(id, refused); }, Qt::QueuedConnection);
        return id;
    }
    // d->cancel is left as it is: it belongs to the run in flight, if any; a profile is
    // stopped through GpuWorker::cancelRun().
    d->activeProfile = id;
    QMetaObject::invokeMethod(d->gpuWorker, "profile", Qt::QueuedConnection, Q_ARG(quint64, id),
                              Q_ARG(kernelpad::RunRequest, request),
                              Q_ARG(kernelpad::ProfileSet, set));
    return id;
}

quint64 Engine::fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes) {
    const quint64 id = d->nextId++;
    // Not queued behind runs: the runner answers it between runs, and a later run makes the
    // answer an error that says so.
    QMetaObject::invokeMethod(
        d->gpuWorker,
        [worker = d->gpuWorker, id, run, buffer, offset, bytes] {
            worker->fetchRange(id, run, buffer, offset, bytes);
        },
        Qt::QueuedConnection);
    return id;
}

void Engine::cancel() {
    d->queuedRun.reset();
    d->cancel = true;
    QMetaObject::invokeMethod(d->gpuWorker, &GpuWorker::cancelRun, Qt::QueuedConnection);
}

Engine::Isolation Engine::isolation() const {
    return d->isolation;
}

bool Engine::isRunning() const {
    return d->activeRun != 0 || d->activeProfile != 0;
}

} // namespace kernelpad
