#include "core/engine/Engine.h"

#include "core/compile/CompileWatchdog.h"
#include "core/engine/EnginePrivate.h"
#include "core/io/Trace.h"
#include "core/sweep/SweepJob.h"

#include <QMetaObject>

#include <utility>

namespace kernelpad {

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

    d->compileWorker = new CompileWorker(&d->cache, &d->sassJobs);
    d->compileWorker->moveToThread(&d->compileThread);
    connect(&d->compileThread, &QThread::finished, d->compileWorker, &QObject::deleteLater);
    d->sassWorker = new CompileWorker(&d->cache, &d->sassJobs);
    d->sassWorker->moveToThread(&d->sassThread);
    connect(&d->sassThread, &QThread::finished, d->sassWorker, &QObject::deleteLater);
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
    connect(d->sassWorker, &CompileWorker::sassListed, this, &Engine::sassListed);
    connect(d->sassWorker, &CompileWorker::sassReady, this, &Engine::sassReady);
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
    connect(d->gpuWorker, &GpuWorker::runFinished, this, &Engine::onRunFinished);
    connect(d->gpuWorker, &GpuWorker::profileFinished, this, &Engine::onProfileFinished);
    d->compileThread.setObjectName(QStringLiteral("kernelpad-compile"));
    d->sassThread.setObjectName(QStringLiteral("kernelpad-sass"));
    d->gpuThread.setObjectName(QStringLiteral("kernelpad-gpu"));
    d->compileThread.start();
    d->sassThread.start();
    d->gpuThread.start();
}

Engine::~Engine() {
    d->cancel = true;
    // Sweeps first: each waits for its own thread and stops its runners.
    for (Private::Sweep& sweep : d->sweeps)
        delete sweep.job;
    d->sweeps.clear();
    delete std::exchange(d->preparedSweep, nullptr); // runners started for a sweep never run
    // nvdisasm in flight is killed rather than waited for.
    d->sassJobs.cancelAll();
    // A compile that has not returned is left to its own thread (CompileWatchdog.h), so every
    // worker thread stops promptly even with NVRTC hung; disassemblies compile on the SASS
    // thread, runs on the GPU thread.
    for (QThread* thread : {&d->compileThread, &d->sassThread, &d->gpuThread}) {
        abandonCompilesOn(thread);
        thread->quit();
    }
    for (QThread* thread : {&d->compileThread, &d->sassThread, &d->gpuThread})
        thread->wait();
    tracePhase("engine: workers ended"); // a finished sweep's job, a child, is deleted after
    for (QThread* thread : {&d->compileThread, &d->sassThread, &d->gpuThread})
        stopAbandoningCompilesOn(thread);
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

quint64 Engine::compile(const Project& project, const QString& projectDir, int device,
                        bool queryResources) {
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
    if (queryResources)
        d->wantResources.insert(id, want);
    QMetaObject::invokeMethod(d->compileWorker, "compile", Qt::QueuedConnection, Q_ARG(quint64, id),
                              Q_ARG(kernelpad::Project, project), Q_ARG(QString, projectDir),
                              Q_ARG(QString, arch), Q_ARG(bool, !d->runner.isLocal()));
    return id;
}

quint64 Engine::disassemble(const Project& project, const QString& projectDir, const QString& arch,
                            const QString& tag) {
    const quint64 id = d->nextId++;
    d->sassJobs.add(id, tag);
    QMetaObject::invokeMethod(d->sassWorker, "disassemble", Qt::QueuedConnection,
                              Q_ARG(quint64, id), Q_ARG(kernelpad::Project, project),
                              Q_ARG(QString, projectDir), Q_ARG(QString, arch));
    return id;
}

bool Engine::cancelDisassembly(const QString& tag) {
    return d->sassJobs.cancel(tag);
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

Engine::Isolation Engine::isolation() const {
    return d->isolation;
}

void Engine::setCaptureConsole(bool on) {
    QMetaObject::invokeMethod(
        d->gpuWorker, [worker = d->gpuWorker, on] { worker->setCaptureConsole(on); },
        Qt::QueuedConnection);
}

} // namespace kernelpad
