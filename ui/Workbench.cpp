#include "ui/Workbench.h"

#include "core/compile/KernelSignature.h"
#include "core/engine/Engine.h"
#include "core/io/Trace.h"
#include "core/project/ProjectDiff.h"
#include "ui/ProjectDocument.h"
#include "ui/WorkbenchRequest.h"
#include "ui/models/ArgumentTableModel.h"

#include <utility>

namespace kernelpad {

WorkbenchViewer::~WorkbenchViewer() = default;
void WorkbenchViewer::workbenchCleared(const Workbench&) {}
void WorkbenchViewer::devicesChanged(const Workbench&) {}
void WorkbenchViewer::compileStarted(const Workbench&) {}
void WorkbenchViewer::compiled(const Workbench&) {}
void WorkbenchViewer::resourcesChanged(const Workbench&) {}
void WorkbenchViewer::runStarted(const Workbench&) {}
void WorkbenchViewer::runProgress(const Workbench&, const QString&, int, int) {}
void WorkbenchViewer::runFinished(const Workbench&, const RunRecord&) {}
void WorkbenchViewer::historyCleared(const Workbench&) {}
void WorkbenchViewer::profileStarted(const Workbench&) {}
void WorkbenchViewer::profileFinished(const Workbench&, const RunRecord*) {}

Workbench::Workbench(Engine* engine, ProjectDocument* document, QObject* parent)
    : QObject(parent)
    , m_engine(engine)
    , m_document(document) {
    m_compileTimer.setSingleShot(true);
    m_compileTimer.setInterval(kCompileWhileTypingDelayMs);
    connect(&m_compileTimer, &QTimer::timeout, this, &Workbench::compile);

    connect(m_document, &ProjectDocument::projectReplaced, this, [this] {
        clear();
        // Compile at once so the kernel list, PTX and argument types are there to look at.
        if (!m_document->project().source.trimmed().isEmpty())
            compile();
    });
    m_liveTimer.setSingleShot(true);
    m_liveTimer.setInterval(kLiveDelayMs);
    connect(&m_liveTimer, &QTimer::timeout, this, &Workbench::liveCompile);
    const auto compileEdited = [this] {
        if (m_liveMode)
            liveEdited(); // its own, shorter pause replaces compile-while-typing's
        else if (m_compileWhileTyping)
            m_compileTimer.start();
    };
    connect(m_document, &ProjectDocument::sourceChanged, this, compileEdited);
    // An option (Max registers, a define, an extra flag) changes the code as much as an edit
    // of the source does: the views follow it after the same pause.
    connect(m_document, &ProjectDocument::optionsChanged, this, compileEdited);
    // Panels that depend on the kernel (its limits, its parameter types) follow the document.
    connect(m_document, &ProjectDocument::kernelChanged, this, &Workbench::syncArgumentsWithKernel);
    connect(m_document, &ProjectDocument::edited, this, &Workbench::runStateChanged);

    if (m_engine) {
        connect(m_engine, &Engine::devicesChanged, this, &Workbench::onDevicesChanged);
        connect(m_engine, &Engine::compiled, this, &Workbench::onCompiled);
        connect(m_engine, &Engine::resourcesReady, this, &Workbench::onResources);
        connect(m_engine, &Engine::runProgress, this, &Workbench::onRunProgress);
        connect(m_engine, &Engine::runFinished, this, &Workbench::onRunFinished);
        connect(m_engine, &Engine::profileFinished, this, &Workbench::onProfileFinished);
        connect(m_engine, &Engine::sassReady, this, &Workbench::onSassReady);
        connect(m_engine, &Engine::rangeFetched, this,
                [this](quint64 id, const QByteArray& data, const QString& error) {
                    if (m_fetchIds.remove(id))
                        emit rangeFetched(id, data, error);
                });
        m_channel = m_engine->openChannel();
        m_engine->refreshDevices();
    }
}

Workbench::~Workbench() = default;

Engine* Workbench::engine() const {
    return m_engine;
}

template <typename Call> void Workbench::notify(Call call) {
    // A viewer may remove itself (or another) while being told: walk a copy.
    const QVector<WorkbenchViewer*> viewers = m_viewers;
    for (WorkbenchViewer* viewer : viewers)
        if (m_viewers.contains(viewer))
            call(viewer);
}

void Workbench::notifyProfile(bool finished, const RunRecord* run) {
    if (finished)
        notify([&](WorkbenchViewer* v) { v->profileFinished(*this, run); });
    else
        notify([this](WorkbenchViewer* v) { v->profileStarted(*this); });
}

void Workbench::addViewer(WorkbenchViewer* viewer) {
    if (!viewer || m_viewers.contains(viewer))
        return;
    m_viewers.append(viewer);
    if (auto* object = dynamic_cast<QObject*>(viewer))
        connect(object, &QObject::destroyed, this, [this, viewer] { removeViewer(viewer); });
    showStateTo(viewer);
}

void Workbench::showStateTo(WorkbenchViewer* viewer) const {
    viewer->workbenchCleared(*this);
    if (m_devicesKnown)
        viewer->devicesChanged(*this);
    if (m_lastCompile)
        viewer->compiled(*this);
    if (m_resources)
        viewer->resourcesChanged(*this);
    for (const RunRecord& run : m_history)
        viewer->runFinished(*this, run);
    if (isRunning())
        viewer->runStarted(*this);
    if (isProfiling())
        viewer->profileStarted(*this);
    else if (m_lastProfile)
        viewer->profileFinished(*this, nullptr);
}

void Workbench::removeViewer(WorkbenchViewer* viewer) {
    m_viewers.removeAll(viewer);
}

void Workbench::clear() {
    m_compileTimer.stop();
    m_liveTimer.stop();
    m_liveCompileId = 0;
    m_liveRunWaiting = false;
    m_baselineKernelRun.reset();
    clearBaseline();
    setBaselineKernel(QString()); // the new project's kernels are others
    m_lastCompile.reset();
    m_lastCompiledSource.clear();
    m_lastCompiledProject = Project();
    m_structs.clear();
    m_resources.reset();
    m_resourcesKernel.clear();
    m_history.clear();
    m_lastProfile.reset();
    notify([this](WorkbenchViewer* v) { v->workbenchCleared(*this); });
    if (m_devicesKnown)
        notify([this](WorkbenchViewer* v) { v->devicesChanged(*this); });
    emit runStateChanged();
}

// --- devices ---

void Workbench::refreshDevices() {
    if (m_engine)
        m_engine->refreshDevices();
}

const DeviceInfo* Workbench::currentDevice() const {
    if (m_deviceIndex < 0 || m_deviceIndex >= m_devices.size())
        return nullptr;
    return &m_devices.at(m_deviceIndex);
}

void Workbench::selectDevice(int index) {
    if (index < 0 || index >= m_devices.size() || index == m_deviceIndex)
        return;
    m_deviceIndex = index;
    onDevicesChanged(m_devices, m_driverError);
    compile();
}

void Workbench::onDevicesChanged(const QVector<DeviceInfo>& devices, const QString& driverError) {
    m_devices = devices;
    m_driverError = driverError;
    m_devicesKnown = true;
    if (m_deviceIndex >= devices.size())
        m_deviceIndex = 0;
    notify([this](WorkbenchViewer* v) { v->devicesChanged(*this); });
    emit runStateChanged();
}

// --- compiling ---

void Workbench::setCompileWhileTyping(bool on) {
    m_compileWhileTyping = on;
    if (!on)
        m_compileTimer.stop();
}

void Workbench::compile() {
    m_compileTimer.stop();
    if (!m_engine)
        return;
    Project project = m_document->project();
    if (m_lineInfoWanted)
        project.options.lineInfo = true;
    const DeviceInfo* device = currentDevice();
    tracePhase("workbench: compile requested");
    m_compileId = m_engine->compile(project, m_document->directory(), device ? device->ordinal : 0);
    m_lastCompiledSource = project.source;
    m_lastCompiledProject = project;
    notify([this](WorkbenchViewer* v) { v->compileStarted(*this); });
}

void Workbench::setLineInfoWanted(bool on) {
    m_lineInfoWanted = on;
}

void Workbench::onCompiled(quint64 id, const CompileResult& result) {
    if (id != m_compileId)
        return; // another window's request, or superseded by a newer compile
    tracePhase("workbench: compile result arrived");
    m_lastCompile = result;
    if (result.ok)
        followCompiledKernel();
    notify([this](WorkbenchViewer* v) { v->compiled(*this); });
    emit runStateChanged();
    emit compileShown(result);
    liveCompiled(id, result);
}

const KernelInfo* Workbench::currentKernel() const {
    if (!m_lastCompile || !m_lastCompile->ok)
        return nullptr;
    return m_lastCompile->findKernel(m_document->project().kernel);
}

void Workbench::followCompiledKernel() {
    const QString previous = m_document->project().kernel;
    QStringList names;
    for (const KernelInfo& k : m_lastCompile->kernels)
        names << k.name;
    // Keep a template name expression the user typed; otherwise follow a renamed kernel.
    if (!names.contains(previous) && !names.isEmpty() &&
        (previous.isEmpty() || !previous.contains(QLatin1Char('<'))))
        m_document->setKernel(names.first()); // syncs the arguments through kernelChanged
    else
        syncArgumentsWithKernel();
}

void Workbench::syncArgumentsWithKernel() {
    const KernelInfo* kernel = currentKernel();
    if (!kernel)
        return;
    QVector<StructType> structs;
    const QVector<ArgumentSpec> synced = argumentsForKernel(
        *kernel, m_lastCompiledSource, m_document->project().arguments, &structs);
    m_structs = structs;
    m_document->setArguments(synced); // nothing happens when nothing changed
}

void Workbench::onResources(quint64 id, const QString& kernel, const KernelResources& resources) {
    if (id != m_compileId)
        return;
    m_resources = resources;
    m_resourcesKernel = kernel;
    notify([this](WorkbenchViewer* v) { v->resourcesChanged(*this); });
    emit runStateChanged();
}

LaunchLimits Workbench::launchLimits() const {
    const DeviceInfo* device = currentDevice();
    LaunchLimits limits = device ? LaunchLimits::forDevice(*device) : genericLaunchLimits();
    const QString kernel = m_document->project().kernel;
    if (m_resources && m_resourcesKernel == kernel) {
        limits.kernelMaxThreadsPerBlock = m_resources->maxThreadsPerBlock;
        limits.kernelStaticSharedBytes = m_resources->staticSharedBytes;
        limits.kernelName = m_resourcesKernel;
    }
    // The kernel's own bounds come with the compile, so they are checked without a driver.
    if (const KernelInfo* info = currentKernel()) {
        limits.kernelMaxntid = info->maxntid;
        limits.kernelReqntid = info->reqntid;
        limits.kernelName = kernel;
    }
    return limits;
}

// --- running ---

QString Workbench::runBlockedReason() const {
    if (isRunning())
        return tr("A run is in progress");
    if (isProfiling())
        return tr("A profile is in progress");
    if (!m_devicesKnown)
        return tr("Looking for CUDA devices…");
    if (!m_driverError.isEmpty())
        return tr("No CUDA driver: compile-only mode");
    if (m_devices.isEmpty())
        return tr("No CUDA device found");
    const Project& project = m_document->project();
    if (project.kernel.isEmpty())
        return tr("No kernel selected: compile to list the kernels");
    if (m_lastCompile && !m_lastCompile->ok && m_lastCompiledSource == project.source)
        return tr("The source has compile errors");
    if (const QString problem = project.options.validate(); !problem.isEmpty())
        return tr("Compile options: %1").arg(problem);
    if (const QString problem = validateLaunch(project.launch, launchLimits()); !problem.isEmpty())
        return tr("Launch: %1").arg(problem);
    if (const QString problem = project.timing.validate(); !problem.isEmpty())
        return tr("Timing: %1").arg(problem);
    const QStringList problems = ArgumentTableModel::problemsOf(project.arguments);
    if (!problems.isEmpty()) {
        return problems.size() == 1 ? tr("Arguments: %1").arg(problems.first())
                                    : tr("Arguments: %1 (and %2 more)")
                                          .arg(problems.first())
                                          .arg(problems.size() - 1);
    }
    return QString();
}

RunRequest Workbench::baseRequest(const Project* project) const {
    RunRequest request =
        documentRequest(*m_document, currentDevice() ? currentDevice()->ordinal : 0, project);
    request.lockClocks = m_lockClocks;
    return request;
}

bool Workbench::run(RunRequest request, QString* why) {
    return startRun(std::move(request), why, false);
}

bool Workbench::startRun(RunRequest request, QString* why, bool live, const Project* project) {
    QString reason = m_engine ? runBlockedReason() : tr("No engine");
    if (!reason.isEmpty()) {
        if (why)
            *why = reason;
        return false;
    }
    m_compileTimer.stop();
    // The caller's own fields (keepOutputs, sanitizer, repetitions) stay; the project, its
    // folder and the device come from the one builder.
    const RunRequest built = baseRequest(project);
    request.project = built.project;
    request.projectDir = built.projectDir;
    request.device = built.device;
    request.lockClocks = built.lockClocks;
    m_runningProject = request.project;
    m_lastCompiledSource = request.project.source;
    m_lastCompiledProject = request.project;
    // The runner then loads the CUBIN the SASS view shows, and finds the compile-while-typing
    // result in the disk cache; the run's record keeps the document's options.
    if (m_lineInfoWanted)
        request.project.options.lineInfo = true;
    if (live)
        request.project.timing =
            liveTiming(request.project.timing, previousMedianMs(request.project.kernel));
    m_runIsLive = live;
    tracePhase("workbench: run requested");
    m_runId = m_engine->run(request, m_channel);
    emit runRequested(m_runId, request);
    notify([this](WorkbenchViewer* v) { v->runStarted(*this); });
    emit runStateChanged();
    return true;
}

void Workbench::cancel() {
    // The Engine's cancel stops a profile too; a profile waiting for its run ends with it.
    if (m_engine && (isRunning() || m_profileId != 0))
        m_engine->cancel(m_channel);
}

const RunRecord* Workbench::lastMeasuredRun() const {
    for (auto it = m_history.crbegin(); it != m_history.crend(); ++it)
        if (!it->sanitized() && it->result.timing.reps() > 0)
            return &*it;
    return nullptr;
}

void Workbench::clearHistory() {
    m_history.clear();
    clearBaseline();
    notify([this](WorkbenchViewer* v) { v->historyCleared(*this); });
}

void Workbench::onRunProgress(quint64 id, const QString& stage, int done, int total) {
    // A profile reports its stages through the same signal.
    const bool profiling = id != 0 && id == m_profileId;
    if (!profiling && (id != m_runId || !isRunning()))
        return;
    notify([&](WorkbenchViewer* v) { v->runProgress(*this, stage, done, total); });
}

void Workbench::onRunFinished(quint64 id, const RunResult& result) {
    if (id != m_runId || !isRunning())
        return;
    tracePhase("workbench: run result arrived");
    m_runId = 0;
    if (dropSupersededLiveRun(result) || keepBaselineKernelRun(result))
        return;
    const bool live = std::exchange(m_runIsLive, false);
    const bool compiled = !result.compile.log.isEmpty() || !result.compile.ptx.isEmpty() ||
                          !result.compile.diagnostics.isEmpty() || !result.compile.error.isEmpty();
    if (compiled) {
        m_lastCompile = result.compile;
        if (result.compile.ok)
            followCompiledKernel();
        notify([this](WorkbenchViewer* v) { v->compiled(*this); });
    }
    RunRecord record;
    record.serial = m_nextSerial++;
    record.project = m_runningProject;
    record.result = result;
    record.finishedAt = QDateTime::currentDateTime();
    record.live = live;
    attachKnownSass(record); // its compile may have been disassembled while it ran
    if (!record.sanitized()) {
        const RunRecord* previous = lastMeasuredRun();
        record.changes = describeProjectChanges(
            previous ? std::optional<Project>(previous->project) : std::nullopt, m_runningProject);
    }
    // Output buffers can be large: only the newest run keeps them.
    for (RunRecord& older : m_history)
        older.result.outputs.clear();
    m_history.append(std::move(record));
    const RunRecord& run = m_history.constLast();
    notify([&](WorkbenchViewer* v) { v->runFinished(*this, run); });
    tracePhase("workbench: run shown");
    if (m_profileAfterRun)
        continueProfile(run);
    emit runStateChanged();
    emit runShown(result);
    if (m_liveRunWaiting)
        startLiveRun();
    else
        runBaselineKernel();
}

quint64 Workbench::fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes) {
    if (!m_engine) {
        // Ids the Engine never hands out, so that this answer cannot be taken for one of its.
        static quint64 nextLocalId = quint64(1) << 63;
        const quint64 id = nextLocalId++;
        QMetaObject::invokeMethod(
            this, [this, id] { emit rangeFetched(id, {}, tr("No engine")); }, Qt::QueuedConnection);
        return id;
    }
    const quint64 id = m_engine->fetchRange(run, buffer, offset, bytes);
    m_fetchIds.insert(id);
    return id;
}

QString Workbench::runnerName() const {
    return m_engine ? m_engine->runner().displayName() : QString();
}

} // namespace kernelpad
