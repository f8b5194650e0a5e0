#include "ui/Session.h"

#include "core/compile/KernelSignature.h"
#include "core/engine/Engine.h"
#include "core/io/Trace.h"
#include "core/project/ProjectDiff.h"
#include "ui/ProjectDocument.h"
#include "ui/SessionRequest.h"
#include "ui/models/ArgumentTableModel.h"

#include <utility>

namespace kernelpad {

SessionViewer::~SessionViewer() = default;
void SessionViewer::sessionCleared(const Session&) {}
void SessionViewer::devicesChanged(const Session&) {}
void SessionViewer::compileStarted(const Session&) {}
void SessionViewer::compiled(const Session&) {}
void SessionViewer::resourcesChanged(const Session&) {}
void SessionViewer::runStarted(const Session&) {}
void SessionViewer::runProgress(const Session&, const QString&, int, int) {}
void SessionViewer::runFinished(const Session&, const RunRecord&) {}
void SessionViewer::historyCleared(const Session&) {}
void SessionViewer::profileStarted(const Session&) {}
void SessionViewer::profileFinished(const Session&, const RunRecord*) {}

Session::Session(Engine* engine, ProjectDocument* document, QObject* parent)
    : QObject(parent)
    , m_engine(engine)
    , m_document(document) {
    m_compileTimer.setSingleShot(true);
    m_compileTimer.setInterval(kCompileWhileTypingDelayMs);
    connect(&m_compileTimer, &QTimer::timeout, this, &Session::compile);

    connect(m_document, &ProjectDocument::projectReplaced, this, [this] {
        clear();
        // Compile at once so the kernel list, PTX and argument types are there to look at.
        if (!m_document->project().source.trimmed().isEmpty())
            compile();
    });
    m_liveTimer.setSingleShot(true);
    m_liveTimer.setInterval(kLiveDelayMs);
    connect(&m_liveTimer, &QTimer::timeout, this, &Session::liveCompile);
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
    connect(m_document, &ProjectDocument::kernelChanged, this, &Session::syncArgumentsWithKernel);
    connect(m_document, &ProjectDocument::edited, this, &Session::runStateChanged);

    if (m_engine) {
        connect(m_engine, &Engine::devicesChanged, this, &Session::onDevicesChanged);
        connect(m_engine, &Engine::compiled, this, &Session::onCompiled);
        connect(m_engine, &Engine::resourcesReady, this, &Session::onResources);
        connect(m_engine, &Engine::runProgress, this, &Session::onRunProgress);
        connect(m_engine, &Engine::runFinished, this, &Session::onRunFinished);
        connect(m_engine, &Engine::profileFinished, this, &Session::onProfileFinished);
        connect(m_engine, &Engine::rangeFetched, this,
                [this](quint64 id, const QByteArray& data, const QString& error) {
                    if (m_fetchIds.remove(id))
                        emit rangeFetched(id, data, error);
                });
        m_channel = m_engine->openChannel();
        m_engine->refreshDevices();
    }
}

Session::~Session() = default;

Engine* Session::engine() const {
    return m_engine;
}

template <typename Call> void Session::notify(Call call) {
    // A viewer may remove itself (or another) while being told: walk a copy.
    const QVector<SessionViewer*> viewers = m_viewers;
    for (SessionViewer* viewer : viewers)
        if (m_viewers.contains(viewer))
            call(viewer);
}

void Session::notifyProfile(bool finished, const RunRecord* run) {
    if (finished)
        notify([&](SessionViewer* v) { v->profileFinished(*this, run); });
    else
        notify([this](SessionViewer* v) { v->profileStarted(*this); });
}

void Session::addViewer(SessionViewer* viewer) {
    if (!viewer || m_viewers.contains(viewer))
        return;
    m_viewers.append(viewer);
    if (auto* object = dynamic_cast<QObject*>(viewer))
        connect(object, &QObject::destroyed, this, [this, viewer] { removeViewer(viewer); });
    viewer->sessionCleared(*this);
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

void Session::removeViewer(SessionViewer* viewer) {
    m_viewers.removeAll(viewer);
}

void Session::clear() {
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
    notify([this](SessionViewer* v) { v->sessionCleared(*this); });
    if (m_devicesKnown)
        notify([this](SessionViewer* v) { v->devicesChanged(*this); });
    emit runStateChanged();
}

// --- devices ---

void Session::refreshDevices() {
    if (m_engine)
        m_engine->refreshDevices();
}

const DeviceInfo* Session::currentDevice() const {
    if (m_deviceIndex < 0 || m_deviceIndex >= m_devices.size())
        return nullptr;
    return &m_devices.at(m_deviceIndex);
}

void Session::selectDevice(int index) {
    if (index < 0 || index >= m_devices.size() || index == m_deviceIndex)
        return;
    m_deviceIndex = index;
    onDevicesChanged(m_devices, m_driverError);
    compile();
}

void Session::onDevicesChanged(const QVector<DeviceInfo>& devices, const QString& driverError) {
    m_devices = devices;
    m_driverError = driverError;
    m_devicesKnown = true;
    if (m_deviceIndex >= devices.size())
        m_deviceIndex = 0;
    notify([this](SessionViewer* v) { v->devicesChanged(*this); });
    emit runStateChanged();
}

// --- compiling ---

void Session::setCompileWhileTyping(bool on) {
    m_compileWhileTyping = on;
    if (!on)
        m_compileTimer.stop();
}

void Session::compile() {
    m_compileTimer.stop();
    if (!m_engine)
        return;
    Project project = m_document->project();
    if (m_lineInfoWanted)
        project.options.lineInfo = true;
    const DeviceInfo* device = currentDevice();
    tracePhase("session: compile requested");
    m_compileId = m_engine->compile(project, m_document->directory(), device ? device->ordinal : 0);
    m_lastCompiledSource = project.source;
    m_lastCompiledProject = project;
    notify([this](SessionViewer* v) { v->compileStarted(*this); });
}

void Session::setLineInfoWanted(bool on) {
    m_lineInfoWanted = on;
}

void Session::onCompiled(quint64 id, const CompileResult& result) {
    if (id != m_compileId)
        return; // another window's request, or superseded by a newer compile
    tracePhase("session: compile result arrived");
    m_lastCompile = result;
    if (result.ok)
        followCompiledKernel();
    notify([this](SessionViewer* v) { v->compiled(*this); });
    emit runStateChanged();
    emit compileShown(result);
    liveCompiled(id, result);
}

const KernelInfo* Session::currentKernel() const {
    if (!m_lastCompile || !m_lastCompile->ok)
        return nullptr;
    return m_lastCompile->findKernel(m_document->project().kernel);
}

void Session::followCompiledKernel() {
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

void Session::syncArgumentsWithKernel() {
    const KernelInfo* kernel = currentKernel();
    if (!kernel)
        return;
    QVector<StructType> structs;
    const QVector<ArgumentSpec> synced = argumentsForKernel(
        *kernel, m_lastCompiledSource, m_document->project().arguments, &structs);
    m_structs = structs;
    m_document->setArguments(synced); // nothing happens when nothing changed
}

void Session::onResources(quint64 id, const QString& kernel, const KernelResources& resources) {
    if (id != m_compileId)
        return;
    m_resources = resources;
    m_resourcesKernel = kernel;
    notify([this](SessionViewer* v) { v->resourcesChanged(*this); });
    emit runStateChanged();
}

LaunchLimits Session::launchLimits() const {
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

QString Session::runBlockedReason() const {
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

RunRequest Session::baseRequest(const Project* project) const {
    return documentRequest(*m_document, currentDevice() ? currentDevice()->ordinal : 0, project);
}

bool Session::run(RunRequest request, QString* why) {
    return startRun(std::move(request), why, false);
}

bool Session::startRun(RunRequest request, QString* why, bool live, const Project* project) {
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
    tracePhase("session: run requested");
    m_runId = m_engine->run(request, m_channel);
    emit runRequested(m_runId, request);
    notify([this](SessionViewer* v) { v->runStarted(*this); });
    emit runStateChanged();
    return true;
}

void Session::cancel() {
    // The Engine's cancel stops a profile too; a profile waiting for its run ends with it.
    if (m_engine && (isRunning() || m_profileId != 0))
        m_engine->cancel(m_channel);
}

const RunRecord* Session::lastMeasuredRun() const {
    for (auto it = m_history.crbegin(); it != m_history.crend(); ++it)
        if (!it->sanitized() && it->result.timing.reps() > 0)
            return &*it;
    return nullptr;
}

void Session::clearHistory() {
    m_history.clear();
    clearBaseline();
    notify([this](SessionViewer* v) { v->historyCleared(*this); });
}

void Session::onRunProgress(quint64 id, const QString& stage, int done, int total) {
    // A profile reports its stages through the same signal.
    const bool profiling = id != 0 && id == m_profileId;
    if (!profiling && (id != m_runId || !isRunning()))
        return;
    notify([&](SessionViewer* v) { v->runProgress(*this, stage, done, total); });
}

void Session::onRunFinished(quint64 id, const RunResult& result) {
    if (id != m_runId || !isRunning())
        return;
    tracePhase("session: run result arrived");
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
        notify([this](SessionViewer* v) { v->compiled(*this); });
    }
    RunRecord record;
    record.serial = m_nextSerial++;
    record.project = m_runningProject;
    record.result = result;
    record.finishedAt = QDateTime::currentDateTime();
    record.live = live;
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
    notify([&](SessionViewer* v) { v->runFinished(*this, run); });
    tracePhase("session: run shown");
    if (m_profileAfterRun)
        continueProfile(run);
    emit runStateChanged();
    emit runShown(result);
    if (m_liveRunWaiting)
        startLiveRun();
    else
        runBaselineKernel();
}

quint64 Session::fetchRange(quint64 run, const QString& buffer, qint64 offset, qint64 bytes) {
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

QString Session::runnerName() const {
    return m_engine ? m_engine->runner().displayName() : QString();
}

} // namespace kernelpad
