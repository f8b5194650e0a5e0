#include "core/runner/RunnerPool.h"

#include "core/io/Trace.h"
#include "core/runner/RunnerClient.h"

#include <QTimer>

#include <algorithm>
#include <utility>

namespace kernelpad {

RunnerPool::RunnerPool(const QVector<PoolEntry>& entries, QObject* parent)
    : QObject(parent)
    , m_namesRunners(namesRunners(entries)) {
    m_clock.start();
    m_runners.resize(entries.size());
    for (int i = 0; i < entries.size(); ++i) {
        m_runners[i].entry = entries[i];
        makeClient(i);
    }
}

RunnerPool::RunnerPool(const QVector<int>& devices, QObject* parent)
    : RunnerPool(localEntries(devices), parent) {}

RunnerPool::~RunnerPool() = default; // the clients, children, stop their processes

QVector<int> RunnerPool::allDevices(const QVector<DeviceInfo>& devices) {
    QVector<int> ordinals;
    ordinals.reserve(devices.size());
    for (const DeviceInfo& d : devices)
        ordinals.push_back(d.ordinal);
    return ordinals;
}

QVector<PoolEntry> RunnerPool::entriesOf(const RunnerSpec& runner,
                                         const QVector<DeviceInfo>& devices) {
    QVector<PoolEntry> entries;
    entries.reserve(devices.size());
    for (const DeviceInfo& d : devices)
        entries.push_back(PoolEntry{runner, d.ordinal, d.name});
    return entries;
}

QVector<PoolEntry> RunnerPool::localEntries(const QVector<int>& devices) {
    QVector<PoolEntry> entries;
    entries.reserve(devices.size());
    for (int ordinal : devices)
        entries.push_back(PoolEntry{RunnerSpec::local(), ordinal, QString()});
    return entries;
}

QString RunnerPool::deviceLabel(const QString& name, int ordinal) {
    return name.isEmpty() ? QStringLiteral("device %1").arg(ordinal)
                          : QStringLiteral("%1 (device %2)").arg(name).arg(ordinal);
}

QString RunnerPool::deviceLabel(const RunnerSpec& runner, const QString& name, int ordinal,
                                bool named) {
    const QString device = deviceLabel(name, ordinal);
    return named ? runner.displayName() + QStringLiteral(": ") + device : device;
}

bool RunnerPool::namesRunners(const QVector<PoolEntry>& entries) {
    for (const PoolEntry& e : entries)
        if (!e.spec.isLocal() || !(e.spec == entries.first().spec))
            return true;
    return false;
}

void RunnerPool::makeClient(int index) {
    Runner& r = m_runners[index];
    r.client = new RunnerClient(this);
    if (m_commandSet) {
        r.client->setCommand(m_program, m_arguments);
    } else if (!r.entry.spec.isLocal()) {
        // A spec that cannot be used (an empty host) keeps its runner out from the start: the
        // client's own runner, this computer's, must not take its jobs instead.
        QString error;
        if (!r.client->setSpec(r.entry.spec, &error)) {
            delete r.client;
            r.client = nullptr;
            r.lastLoss = error;
            return;
        }
    }
    if (m_preparationLimitMs >= 0)
        r.client->setPreparationLimitMs(m_preparationLimitMs);
    connect(
        r.client, &RunnerClient::runFinished, this,
        [this, index](quint64 id, const RunResult& result) { onRunFinished(index, id, result); });
    // RunnerConnection says a process died right after the run's answer (runFinished, then
    // crashed or killed), in the same call: the answer is settled a turn of the event loop
    // later, when it is known which of the two it was.
    connect(r.client, &RunnerClient::programReady, this,
            [this](quint64 id, const QByteArray& program) { onProgramReady(id, program); });
    connect(r.client, &RunnerClient::compiled, this, &RunnerPool::onCompiled);
    connect(r.client, &RunnerClient::runnerRestarted, this, [this, index](const QString& why) {
        Runner& runner = m_runners[index];
        if (runner.answer)
            runner.restartReason = why.isEmpty() ? QStringLiteral("it ended") : why;
    });
}

void RunnerPool::setCommand(const QString& program, const QStringList& arguments) {
    m_program = program;
    m_arguments = arguments;
    m_commandSet = true;
    for (Runner& r : m_runners) {
        r.entry.spec = RunnerSpec::local();
        if (r.client)
            r.client->setCommand(program, arguments);
    }
    m_namesRunners = false;
}

bool RunnerPool::runnerStreams(int runner) const {
    const Runner& r = m_runners.at(runner);
    return r.client && r.client->streamBuffers();
}

qint64 RunnerPool::runnerKeepBeyondBytes(int runner) const {
    const Runner& r = m_runners.at(runner);
    return r.client ? r.client->keepBeyondBytes() : -1;
}

void RunnerPool::setPreparationLimitMs(int ms) {
    m_preparationLimitMs = ms;
    for (Runner& r : m_runners)
        if (r.client)
            r.client->setPreparationLimitMs(ms);
}

void RunnerPool::setDevices(const QVector<DeviceInfo>& devices) {
    m_devices = devices;
}

void RunnerPool::warmUp() {
    for (Runner& r : m_runners)
        if (r.client)
            r.client->warmUp();
}

void RunnerPool::nameDevices(const QVector<PoolEntry>& entries) {
    for (qsizetype i = 0; i < m_runners.size() && i < entries.size(); ++i)
        if (m_runners[i].entry.device == entries[i].device)
            m_runners[i].entry.deviceName = entries[i].deviceName;
}

void RunnerPool::warmUpDrivers() {
    for (Runner& r : m_runners)
        if (r.client) {
            r.client->warmUp();
            r.client->requestDevices(0);
        }
}

int RunnerPool::busyRunners() const {
    int busy = 0;
    for (const Runner& r : m_runners)
        busy += r.job.has_value();
    return busy;
}

int RunnerPool::liveRunners() const {
    int live = 0;
    for (const Runner& r : m_runners)
        live += r.client != nullptr;
    return live;
}

qint64 RunnerPool::runnerPid(int runner) const {
    const Runner& r = m_runners.at(runner);
    return r.client ? r.client->runnerPid() : 0;
}

void RunnerPool::submit(quint64 tag, const RunRequest& request, int runner) {
    m_active = true;
    m_queue.push_back(Job{tag, request, 0, -1, QString(), m_clock.nsecsElapsed(),
                          runner >= 0 && runner < m_runners.size() ? runner : -1});
    if (liveRunners() == 0) {
        // Answered on the next turn of the event loop, as a runner's answer would be.
        QMetaObject::invokeMethod(this, &RunnerPool::failAllPending, Qt::QueuedConnection);
        return;
    }
    dispatch();
}

void RunnerPool::cancelAll() {
    const QVector<Job> dropped = std::exchange(m_queue, {});
    for (const Job& job : dropped) {
        RunResult r;
        r.status = RunStatus::Cancelled;
        r.error = QStringLiteral("Cancelled before it ran.");
        answer(job, r, -1, -1);
    }
    for (Runner& r : m_runners) {
        if (r.job && r.client && !r.answer) {
            r.cancelling = true;
            r.client->cancel();
        }
    }
    checkDrained();
}

void RunnerPool::precompile(int runner, const RunRequest& request) {
    if (runner < 0 || runner >= m_runners.size() || !m_runners[runner].client)
        return;
    RunRequest compile = request;
    compile.device = m_runners[runner].entry.device; // its arch, as a run there compiles for
    m_runners[runner].client->requestCompile(++m_nextRunId, compile);
}

quint64 RunnerPool::handOver(int donor, int runner, const RunRequest& request,
                             const QString& arch) {
    const quint64 id = ++m_nextRunId;
    if (runner < 0 || runner >= m_runners.size() || !m_runners[runner].client)
        return id; // out: nothing to take it
    if (donor < 0 || donor >= m_runners.size() || donor == runner || !m_runners[donor].client) {
        m_askedFor.insert(id, HandOver{id, runner, -1, request});
        onProgramReady(id, {}); // no donor: compiled there
        return id;
    }
    m_askedFor.insert(id, HandOver{id, runner, donor, request});
    ++m_runners[runner].awaitingPrograms;
    RunRequest asked = request;
    asked.device = m_runners[donor].entry.device;
    m_runners[donor].client->requestProgram(id, asked, arch);
    // A donor that never answers must not hold the taker's jobs for ever.
    QTimer::singleShot(kHandOverWaitMs, this, [this, id] {
        if (!m_askedFor.contains(id))
            return;
        tracePhase("pool: no program from the donor in time, the taker compiles");
        onProgramReady(id, {});
    });
    return id;
}

void RunnerPool::onProgramReady(quint64 id, const QByteArray& program) {
    if (!m_askedFor.contains(id))
        return;
    const HandOver h = m_askedFor.take(id);
    Runner& r = m_runners[h.runner];
    if (h.donor >= 0)
        r.awaitingPrograms = std::max(0, r.awaitingPrograms - 1);
    if (r.client) {
        // Without a program (the donor holds none, or was lost) the runner compiles it itself.
        RunRequest compile = h.request;
        compile.device = r.entry.device; // its arch, as a run there compiles for
        const quint64 compileId = ++m_nextRunId;
        m_taking.insert(compileId, h);
        r.client->requestCompile(compileId, compile, program);
    }
    dispatch(); // the jobs that waited for it go to the runner behind it
}

void RunnerPool::dropHandOversFrom(int donor) {
    const QList<HandOver> asked = m_askedFor.values();
    for (const HandOver& h : asked)
        if (h.donor == donor)
            onProgramReady(h.id, {});
}

void RunnerPool::onCompiled(quint64 id, const CompileResult& result) {
    if (!m_taking.contains(id))
        return; // a precompile's, or one of the client's own
    const HandOver h = m_taking.take(id);
    emit handedOver(h.id, h.runner, result.ok && result.cacheHit);
}

bool RunnerPool::mayRun(const Job& job, int runner) const {
    if (job.onlyRunner >= 0 && job.onlyRunner != runner && m_runners[job.onlyRunner].client)
        return false;
    if (job.avoidRunner != runner)
        return true;
    // A job whose runner died goes to the others; to the same one only when none is left.
    for (int i = 0; i < m_runners.size(); ++i)
        if (i != runner && m_runners[i].client)
            return false;
    return true;
}

void RunnerPool::dispatch() {
    // A work queue: each idle runner takes the first job it may run, so a slower device
    // simply takes fewer.
    for (int i = 0; i < m_runners.size() && !m_queue.isEmpty(); ++i) {
        const Runner& r = m_runners[i];
        if (!r.client || r.job || r.awaitingPrograms > 0)
            continue;
        for (int k = 0; k < m_queue.size(); ++k) {
            if (mayRun(m_queue[k], i)) {
                Job job = m_queue.takeAt(k);
                start(i, std::move(job));
                break;
            }
        }
    }
}

void RunnerPool::start(int runner, Job job) {
    Runner& r = m_runners[runner];
    job.request.device = r.entry.device;
    r.runId = ++m_nextRunId;
    r.answer.reset();
    r.restartReason.clear();
    r.cancelling = false;
    r.sentNs = m_clock.nsecsElapsed();
    const RunRequest request = job.request;
    r.job = std::move(job);
    r.client->run(r.runId, request); // may answer at once (a runner that cannot start)
}

void RunnerPool::onRunFinished(int runner, quint64 id, const RunResult& result) {
    Runner& r = m_runners[runner];
    if (!r.job || id != r.runId || r.answer)
        return;
    r.answer = result;
    r.answeredNs = m_clock.nsecsElapsed();
    QMetaObject::invokeMethod(
        this, [this, runner] { settle(runner); }, Qt::QueuedConnection);
}

void RunnerPool::settle(int runner) {
    Runner& r = m_runners[runner];
    if (!r.job || !r.answer)
        return;
    Job job = std::move(*r.job);
    RunResult result = std::move(*r.answer);
    const auto msBetween = [](qint64 from, qint64 to) { return double(to - from) / 1e6; };
    result.stagesMs +=
        {StageTime{QStringLiteral("waiting in the pool"), msBetween(job.queuedNs, r.sentNs), true},
         StageTime{QStringLiteral("settling the answer"),
                   msBetween(r.answeredNs, m_clock.nsecsElapsed()), true}};
    r.job.reset();
    r.answer.reset();
    const QString restartReason = std::exchange(r.restartReason, QString());
    const bool cancelling = std::exchange(r.cancelling, false);
    // A kernel fault is the job's answer: the runner reported it (faultCode) and, when the
    // error is sticky, RunnerClient has already replaced it. The runner is lost when its
    // process died under the job: it was restarted after the answer, or (it could not start)
    // none runs now.
    const bool died = !restartReason.isEmpty() ||
                      (result.status == RunStatus::CudaError && result.faultCode == 0 && r.client &&
                       r.client->runnerPid() == 0);
    const int device = r.entry.device;
    if (died && !cancelling && result.faultCode == 0)
        lose(runner, std::move(job), result.error.isEmpty() ? restartReason : result.error);
    else
        answer(job, result, runner, device);
    if (liveRunners() == 0)
        failAllPending();
    else
        dispatch();
    checkDrained();
}

void RunnerPool::lose(int runner, Job job, const QString& reason) {
    Runner& r = m_runners[runner];
    ++r.losses;
    r.lastLoss = reason;
    QString what;
    if (r.losses > m_maxRestarts) {
        what = QStringLiteral("Runner %1 (%2) was lost %3 times, so it stays out of the pool; "
                              "the others go on. The last time: %4")
                   .arg(runner)
                   .arg(deviceLabel(r.entry.spec, QString(), r.entry.device, m_namesRunners))
                   .arg(r.losses)
                   .arg(reason);
        r.client->disconnect(this);
        r.client->deleteLater(); // its process is told to exit or killed
        r.client = nullptr;
        dropHandOversFrom(runner);
    } else {
        what = QStringLiteral("Runner %1 (%2) was lost and started again (restart %3 of %4): %5")
                   .arg(runner)
                   .arg(deviceLabel(r.entry.spec, QString(), r.entry.device, m_namesRunners))
                   .arg(r.losses)
                   .arg(m_maxRestarts)
                   .arg(reason);
        r.client->warmUp();
    }
    emit runnerLost(runner, what);
    if (job.losses == 0) {
        // Once more, first in line, on another runner.
        job.losses = 1;
        job.avoidRunner = runner;
        job.firstLoss = QStringLiteral("%1: %2").arg(runnerLabel(runner), reason);
        job.queuedNs = m_clock.nsecsElapsed();
        job.onlyRunner = -1; // the runner it was for is the one lost
        m_queue.prepend(std::move(job));
        return;
    }
    // A configuration that takes down two runners is answered, not tried again: one poisoned
    // job must not empty the pool.
    RunResult failed;
    failed.status = RunStatus::CudaError;
    failed.error =
        QStringLiteral("This job stopped two runners, %1 and then %2, so it was not "
                       "run a third time. The first time, %3; the second time: %4")
            .arg(runnerLabel(job.avoidRunner), runnerLabel(runner), job.firstLoss, reason);
    answer(job, failed, runner, r.entry.device);
}

QString RunnerPool::runnerLabel(int runner) const {
    if (runner < 0 || runner >= m_runners.size())
        return QStringLiteral("no runner");
    const PoolEntry& entry = m_runners[runner].entry;
    return QStringLiteral("runner %1 (%2)")
        .arg(runner)
        .arg(deviceLabel(entry.spec, entry.deviceName, entry.device, m_namesRunners));
}

void RunnerPool::answer(const Job& job, const RunResult& result, int runner, int device) {
    if (runner >= 0)
        ++m_runners[runner].answered;
    const int dev = device >= 0 ? device : job.request.device;
    emit finished(job.tag, result, runner, dev, nameOf(result, runner, dev));
}

QString RunnerPool::nameOf(const RunResult& result, int runner, int device) const {
    const RunnerSpec spec = runner >= 0 ? m_runners[runner].entry.spec : RunnerSpec::local();
    // A job answered without running has no runner: it names only the device.
    const bool named = m_namesRunners && runner >= 0;
    if (!result.device.name.isEmpty())
        return deviceLabel(spec, result.device.name, result.device.ordinal, named);
    if (runner >= 0 && !m_runners[runner].entry.deviceName.isEmpty())
        return deviceLabel(spec, m_runners[runner].entry.deviceName, device, named);
    for (const DeviceInfo& d : m_devices)
        if (d.ordinal == device && !named)
            return deviceLabel(d.name, device);
    return deviceLabel(spec, QString(), device, named);
}

void RunnerPool::failAllPending() {
    if (m_queue.isEmpty() || liveRunners() > 0)
        return;
    QStringList losses;
    for (int i = 0; i < m_runners.size(); ++i)
        if (!m_runners[i].lastLoss.isEmpty())
            losses << QStringLiteral("runner %1: %2").arg(i).arg(m_runners[i].lastLoss);
    const QString message =
        m_runners.isEmpty()
            ? QStringLiteral("The runner pool has no runners (its device list is empty), so "
                             "this job was not run.")
            : QStringLiteral("Every runner of the pool was lost %1 times and stays out, so this "
                             "job was not run. %2")
                  .arg(m_maxRestarts + 1)
                  .arg(losses.isEmpty()
                           ? QString()
                           : QStringLiteral("Last losses: ") + losses.join(QStringLiteral("; ")));
    const QVector<Job> failed = std::exchange(m_queue, {});
    for (const Job& job : failed) {
        RunResult r;
        r.status = RunStatus::CudaError;
        r.error = message;
        answer(job, r, -1, -1);
    }
    checkDrained();
}

void RunnerPool::checkDrained() {
    if (!m_active || !m_queue.isEmpty() || busyRunners() > 0)
        return;
    m_active = false;
    emit drained();
}

} // namespace kernelpad
