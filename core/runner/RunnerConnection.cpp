#include "core/runner/RunnerConnection.h"
// The process: started, watched and stopped here; the runner's answers are decoded by
// RunnerCodec and acted on in RunnerConnectionAnswers.cpp; streamed files and outputs travel
// through RunnerTransfers.

#include "core/io/JsonFields.h"
#include "core/io/SafeFile.h"
#include "core/io/Trace.h"
#include "core/launch/BufferInit.h"
#include "core/runner/RunnerConnectionBatch.h"
#include "core/runner/RunnerHello.h"
#include "core/runner/StreamFiles.h"
#include "core/runner/WarmRunnerWire.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kernelpad {

QString toString(StopReason reason) {
    switch (reason) {
    case StopReason::None:
        return {};
    case StopReason::Switch:
        return QStringLiteral("switch");
    case StopReason::Cancel:
        return QStringLiteral("cancel");
    case StopReason::Protocol:
        return QStringLiteral("protocol");
    case StopReason::Poisoned:
        return QStringLiteral("poisoned");
    case StopReason::Timeout:
        return QStringLiteral("timeout");
    case StopReason::Start:
        return QStringLiteral("start");
    case StopReason::Shutdown:
        return QStringLiteral("shutdown");
    }
    return {};
}

namespace {

/// How long a runner gets to stop between repetitions after "cancel" before it is killed.
constexpr int kCancelGraceMs = 1000;
constexpr int kStderrLinesKept = 12;
/// After "shutdown", time for the runner to exit (and a tool around it to write its report).
constexpr int kShutdownGraceMs = 30000;
/// How long the destructor lets the "shutdown" line take to reach the runner's input pipe.
constexpr int kShutdownWriteMs = 100;

/// The kernel's own clock may run this far past its limit before the runner is stopped: the
/// progress message that starts it leaves the runner just before the launch (the message must
/// come within 0.5 s of the limit).
constexpr int kKernelLimitSlackMs = 250;

QString describeExit(int exitCode, QProcess::ExitStatus status) {
    return status == QProcess::CrashExit ? QStringLiteral("it crashed")
                                         : QStringLiteral("it exited with code %1").arg(exitCode);
}

} // namespace

RunnerConnection::RunnerConnection(QObject* parent)
    : QObject(parent) {
    m_program = findRunner();
    m_arguments = {QStringLiteral("serve")};
    // $KERNELPAD_RUNNER_SPEC (kernelpad-cli --runner sets it) sends every runner of this
    // process elsewhere; a bad value was reported where it was set, and is ignored here.
    QString ignored;
    if (const std::optional<RunnerSpec> spec = RunnerSpec::fromEnvironment(&ignored))
        (void)setSpec(*spec, &ignored);
    // The environment turns streaming on for a local runner; it never turns it off for the
    // runner elsewhere that setSpec() chose above (that one shares no folder with this side).
    if (qEnvironmentVariableIntValue("KERNELPAD_STREAM_BUFFERS") == 1)
        m_streamBuffers = true;
    bool set = false;
    const qint64 keep = qEnvironmentVariable("KERNELPAD_STREAM_KEEP_BYTES").toLongLong(&set);
    if (set && keep >= 0)
        m_transfers.setKeepBeyondBytes(keep);
    m_watchdog.setSingleShot(true);
    connect(&m_watchdog, &QTimer::timeout, this, &RunnerConnection::onWatchdog);
    m_helloTimer.setSingleShot(true);
    connect(&m_helloTimer, &QTimer::timeout, this, [this] {
        if (m_process && !m_codec.helloSeen())
            startFailed(
                QStringLiteral("KernelPad's runner on %1 did not say hello within %2 s, so "
                               "it was stopped (%3 %4)")
                    .arg(m_spec.isLocal() ? QStringLiteral("this computer") : m_spec.displayName())
                    .arg(m_spec.effectiveHelloLimitMs() / 1000.0)
                    .arg(m_program, m_arguments.join(QLatin1Char(' '))));
    });
}

RunnerConnection::~RunnerConnection() {
    if (m_process) {
        QProcess* p = std::exchange(m_process, nullptr);
        p->disconnect(this);
        if (p->state() == QProcess::NotRunning) {
            delete p;
        } else {
            // A runner between runs is told to exit; one in a run may be inside a kernel that
            // never returns, and a sanitizer's report has no reader any more: those are killed.
            if (m_active || m_ownGroup)
                killProcess(p);
            else
                askToExit(p);
            letGo(p);
        }
    }
    if (!m_outputDir.isEmpty())
        QDir(m_outputDir).removeRecursively();
}

void RunnerConnection::askToExit(QProcess* p) {
    p->write(RunnerCodec::encodeShutdown());
    // This thread may never run its event loop again: hand the line to the pipe now (a pipe
    // with room takes it at once), then end the runner's input, which alone also ends it.
    p->waitForBytesWritten(kShutdownWriteMs);
    p->closeWriteChannel();
}

void RunnerConnection::killProcess(QProcess* p) const {
    if (m_ownGroup && p->processId() > 0)
        ::kill(-pid_t(p->processId()), SIGKILL); // the whole group: compute-sanitizer and runner
    p->kill();
}

void RunnerConnection::letGo(QProcess* p) {
    // Nobody waits for the exit: a runner's last act is the driver tearing its CUDA context
    // down, which can take seconds, and waiting for it kept the process of a closed window
    // alive for about 2 s. QProcess's destructor waits for its process, so it is
    // not destroyed here. The
    // process finishes by itself (it exits with _Exit after "shutdown", or was killed; it
    // also dies with the thread that started it, PR_SET_PDEATHSIG), and its QProcess moves
    // to the application's thread, which reaps it and deletes it then; a process that ends
    // first leaves it behind.
    p->setParent(nullptr);
    if (QCoreApplication* app = QCoreApplication::instance(); app && p->thread() != app->thread())
        p->moveToThread(app->thread());
    connect(p, &QProcess::finished, p, &QObject::deleteLater);
}

QString RunnerConnection::findRunner(QStringList* searched) {
    QStringList candidates;
    const QString fromEnv = qEnvironmentVariable("KERNELPAD_RUNNER");
    if (!fromEnv.isEmpty())
        candidates << fromEnv;
    if (QCoreApplication::instance()) {
        const QString appDir = QCoreApplication::applicationDirPath();
        candidates << appDir + QStringLiteral("/kernelpad-cli")
                   << appDir + QStringLiteral("/../app/kernelpad-cli");
    }
#ifdef KERNELPAD_RUNNER_BUILD_PATH
    candidates << QStringLiteral(KERNELPAD_RUNNER_BUILD_PATH);
#endif
    if (searched)
        *searched = candidates;
    for (const QString& c : candidates)
        if (QFileInfo(c).isExecutable())
            return QFileInfo(c).absoluteFilePath();
    return {};
}

void RunnerConnection::setCommand(const QString& program, const QStringList& arguments) {
    m_program = program;
    m_arguments = arguments;
    m_spec = RunnerSpec::local();
}

bool RunnerConnection::setSpec(const RunnerSpec& spec, QString* error) {
    QString program;
    QStringList arguments;
    if (!spec.command(findRunner(), &program, &arguments, error))
        return false;
    if (m_process && (program != m_program || arguments != m_arguments)) {
        // Another runner: the one running now is stopped (a run in it ends as a crash would).
        m_stopReason = StopReason::Switch;
        stopProcess();
        finishActive(RunStatus::Cancelled,
                     QStringLiteral("The runner was switched to %1 during the run; run again.")
                         .arg(spec.displayName()));
    }
    m_program = program;
    m_arguments = arguments;
    m_spec = spec;
    // A runner elsewhere shares no folder with this computer: the project's files go to it,
    // and its outputs come back, over the protocol stream (Protocol.h, "Streamed buffers").
    if (!spec.isLocal())
        m_streamBuffers = true;
    // The runner's own keep limit (Preferences ▸ Runners); the environment still overrides it.
    m_transfers.setKeepBeyondBytes(spec.effectiveKeepBeyondBytes());
    return true;
}

qint64 RunnerConnection::pid() const {
    return m_process && m_process->state() == QProcess::Running ? m_process->processId() : 0;
}

bool RunnerConnection::start(QString* error) {
    if (m_process && m_process->state() != QProcess::NotRunning)
        return true;
    if (m_program.isEmpty()) {
        QStringList searched;
        (void)findRunner(&searched);
        *error = QStringLiteral("KernelPad's runner (kernelpad-cli) was not found; looked in: %1")
                     .arg(searched.join(QStringLiteral(", ")));
        return false;
    }
    m_process = new QProcess(this);
    m_codec.setPeer(m_spec, m_program, m_streamBuffers);
    m_codec.reset();
    m_stderrTail.clear();
    m_stopReason = StopReason::None;
    connect(m_process, &QProcess::readyReadStandardOutput, this, &RunnerConnection::onReadyRead);
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        const QStringList lines =
            QString::fromUtf8(m_process->readAllStandardError()).split('\n', Qt::SkipEmptyParts);
        m_stderrTail += lines;
        // The runner's phase trace belongs with the caller's (core/io/Trace.h).
        if (traceEnabled())
            for (const QString& line : lines)
                if (line.startsWith(QLatin1String(kTracePrefix)))
                    std::fprintf(stderr, "%s\n", qPrintable(line));
        while (m_stderrTail.size() > kStderrLinesKept)
            m_stderrTail.removeFirst();
    });
    connect(m_process, &QProcess::finished, this, &RunnerConnection::onFinished);
    const bool ownGroup = m_ownGroup;
    m_process->setChildProcessModifier([ownGroup] {
        // Its own process group, so that killing compute-sanitizer also kills the runner it
        // started (a hung kernel would otherwise keep the GPU busy behind an orphan).
        if (ownGroup)
            ::setsid();
        // If this process dies, the runner (and a hung kernel's hold on the GPU) dies with it.
        // The signal follows the thread that forked: the client's thread lives as long as it.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    });
    // While warm runners run (`kernelpad-cli runners start`), this computer's runner is
    // `attach`: a spare whose driver and contexts are ready, or `serve` itself when none fits.
    const bool warm = m_spec.isLocal() && m_arguments == QStringList{QStringLiteral("serve")} &&
                      warm::daemonSocketPresent();
    m_process->start(m_program, warm ? QStringList{QStringLiteral("attach")} : m_arguments);
    m_helloTimer.start(m_spec.effectiveHelloLimitMs());
    if (!m_process->waitForStarted(5000)) {
        m_helloTimer.stop();
        *error = QStringLiteral("KernelPad's runner %1 could not be started: %2")
                     .arg(m_program, m_process->errorString());
        m_process->deleteLater();
        m_process = nullptr;
        return false;
    }
    ++m_startCount;
    return true;
}

bool RunnerConnection::sendStreamed(MessageType type, quint64 id, const RunRequest& request,
                                    QString* error) {
    bool wrote = false;
    const bool sent = m_transfers.writeRequest(
        type, id, request,
        [this, &wrote](const QByteArray& bytes) {
            wrote = true;
            if (m_process)
                m_process->write(bytes);
        },
        error);
    if (!sent && wrote)
        stopProcess(); // its request waits for bytes that will never come
    return sent;
}

void RunnerConnection::fetch(quint64 id, quint64 run, const QString& buffer, qint64 offset,
                             qint64 bytes) {
    QString error;
    if (!m_streamBuffers)
        error = QStringLiteral("this runner does not keep outputs (streamed buffers are off)");
    else if (error = RunnerTransfers::rangeProblem(offset, bytes); !error.isEmpty())
        ;
    else if (!m_process || !m_codec.helloSeen())
        error = QStringLiteral("the runner that kept run %1's outputs has ended").arg(run);
    else
        error = m_transfers.beginFetch(id, buffer, offset, bytes);
    if (!error.isEmpty()) {
        QTimer::singleShot(0, this, [this, id, error] { emit fetched(id, {}, error); });
        return;
    }
    send(RunnerCodec::encodeFetch(id, run, buffer, offset, bytes));
}

void RunnerConnection::dropTransfers(const QString& why) {
    for (quint64 id : m_transfers.dropAll())
        emit fetched(id, {}, why);
}

void RunnerConnection::send(const QByteArray& line) {
    if (m_process)
        m_process->write(line);
}

void RunnerConnection::run(quint64 id, const RunRequest& request) {
    QString error;
    if (m_active) {
        RunResult busy;
        busy.status = RunStatus::BadInput;
        busy.error = QStringLiteral("a run is already in progress");
        emit runFinished(id, busy);
        return;
    }
    if (!start(&error)) {
        RunResult failed;
        failed.status = RunStatus::CudaError;
        failed.error = error;
        emit runFinished(id, failed);
        return;
    }
    m_active = ActiveRun{id, request.project.kernel, request.project.timing.timeLimitMs,
                         streamedOutputBounds(request)};
    m_watchdog.start(m_preparationLimitMs + request.project.timing.timeLimitMs);
    m_kernelClock.invalidate();
    m_kernelUsedMs = 0;
    if (m_streamBuffers) {
        if (!sendStreamed(MessageType::Run, id, request, &error))
            finishActive(RunStatus::BadInput, error);
        return;
    }
    send(RunnerCodec::encodeRun(id, request));
    tracePhase("client: run request sent");
}

void RunnerConnection::requestDevices(quint64 id) {
    QString error;
    if (!start(&error)) {
        emit devicesChanged({}, error);
        return;
    }
    m_devicesPending = true;
    send(RunnerCodec::encodeDevices(id));
}

void RunnerConnection::requestResources(quint64 id, const RunRequest& request) {
    QString error;
    if (start(&error) && m_streamBuffers) {
        if (!sendStreamed(MessageType::Resources, id, request, &error))
            qWarning("KernelPad runner: %s", qPrintable(error));
    } else if (m_process) {
        send(RunnerCodec::encodeRequest(MessageType::Resources, id, request));
    }
}

void RunnerConnection::cancel() {
    if (!m_active || m_stopReason == StopReason::Cancel)
        return;
    // Ask first: between repetitions the runner stops by itself and stays warm. A kernel that
    // never returns cannot hear this; the watchdog then kills the runner.
    m_stopReason = StopReason::Cancel;
    send(RunnerCodec::encodeCancel(m_active->id));
    m_watchdog.start(kCancelGraceMs);
}

void RunnerConnection::deliverResult(quint64 id, const RunResult& result, bool poisoned) {
    m_active.reset();
    m_stopReason = StopReason::None;
    if (poisoned) {
        // The runner exits by itself after a sticky error: its end is expected.
        m_stopReason = StopReason::Poisoned;
        emit this->poisoned();
    }
    tracePhase("client: outputs read");
    emit runFinished(id, result);
}

void RunnerConnection::armKernelWatchdog(RunStage stage) {
    // The time limit is the kernel's: it runs while the runner launches and waits (the
    // verifying launch, warm-up, timing, the pipeline's timing) and pauses while the host
    // checks the outputs.
    if (isKernelStage(stage)) {
        if (!m_kernelClock.isValid())
            m_kernelClock.start();
        const qint64 leftMs = m_active->timeLimitMs - m_kernelUsedMs - m_kernelClock.elapsed();
        m_watchdog.start(int(std::max<qint64>(leftMs, 0)) + kKernelLimitSlackMs);
    } else if (m_kernelClock.isValid()) {
        m_kernelUsedMs += m_kernelClock.elapsed();
        m_kernelClock.invalidate();
        const qint64 leftMs = m_active->timeLimitMs - m_kernelUsedMs;
        m_watchdog.start(int(std::max<qint64>(leftMs, 0)) + kWatchdogGraceMs);
    }
}

void RunnerConnection::finishActive(RunStatus status, const QString& message) {
    if (!m_active)
        return;
    m_watchdog.stop();
    m_transfers.dropPendingOutputs(); // a result half received is never shown as complete
    RunResult r;
    r.status = status;
    r.error = message;
    const quint64 id = m_active->id;
    m_active.reset();
    emit runFinished(id, r);
}

void RunnerConnection::onWatchdog() {
    if (!m_active)
        return;
    const QString kernel = m_active->kernel;
    const int limitMs = m_active->timeLimitMs;
    if (m_stopReason == StopReason::Cancel) {
        stopProcess();
        finishActive(
            RunStatus::Cancelled,
            QStringLiteral(
                "Cancelled: '%1' was still running, so the runner was stopped; the GPU is being "
                "freed and a fresh runner will serve the next run. Your source is unchanged.")
                .arg(kernel));
    } else {
        m_stopReason = StopReason::Timeout;
        stopProcess();
        finishActive(
            RunStatus::Timeout,
            QStringLiteral(
                "'%1' did not finish within its time limit of %2 s, so the runner was stopped; "
                "the GPU is being freed and a fresh runner will serve the next run. Your source "
                "is unchanged. If the kernel needs longer, raise the time limit.")
                .arg(kernel)
                .arg(limitMs / 1000.0));
    }
    emit killed(m_stopReason);
}

void RunnerConnection::waitForExitOrStop(int ms) {
    if (m_process && !m_process->waitForFinished(ms))
        stopProcess();
}

void RunnerConnection::stopProcess() {
    if (!m_process)
        return;
    QProcess* p = m_process;
    m_process = nullptr;
    p->disconnect(this);
    killProcess(p);
    dropTransfers(QStringLiteral("KernelPad's runner was stopped before the range arrived"));
    // A process killed with a hung kernel takes seconds to exit while the driver tears its
    // context down; nobody waits for that (the message and the next runner go out now).
    if (p->state() == QProcess::NotRunning)
        p->deleteLater();
    else
        connect(p, &QProcess::finished, p, &QObject::deleteLater);
    if (!m_outputDir.isEmpty())
        QDir(m_outputDir).removeRecursively();
    m_outputDir.clear();
}

void RunnerConnection::startFailed(const QString& message) {
    qWarning("%s", qPrintable(message));
    m_helloTimer.stop();
    m_stopReason = StopReason::Start;
    stopProcess();
    finishActive(RunStatus::CudaError, message);
    if (std::exchange(m_devicesPending, false))
        emit devicesChanged({}, message);
    failPendingCompiles(message);
}

void RunnerConnection::onFinished(int exitCode, QProcess::ExitStatus status) {
    const QString why = describeExit(exitCode, status);
    dropTransfers(
        QStringLiteral("KernelPad's runner ended (%1) before the range arrived").arg(why));
    const QString tail = m_stderrTail.join(QLatin1Char('\n'));
    // A runner under srun may have been ended by Slurm (scancel, a time limit): said so, with
    // Slurm's own lines, rather than as a crash or a failed start.
    const std::optional<BatchSystemEnd> batch = findBatchSystemEnd(tail, m_codec.batchStep());
    m_helloTimer.stop();
    if (!m_codec.helloSeen() && m_stopReason == StopReason::None &&
        (!m_spec.isLocal() || !m_active)) {
        // It never became a runner: ssh could not connect, the program is missing, ... (a
        // local runner that dies in a run is reported as a crash below, as it always was)
        if (m_process) {
            m_process->readAllStandardError(); // the tail has it already
            m_process->deleteLater();
            m_process = nullptr;
        }
        const QString message = batch ? batch->unansweredMessage(why)
                                      : describeRunnerStartFailure(m_spec, why, tail, QString());
        m_stopReason = StopReason::Start;
        finishActive(RunStatus::CudaError, message);
        if (std::exchange(m_devicesPending, false))
            emit devicesChanged({}, message);
        failPendingCompiles(message);
        m_stopReason = StopReason::None;
        return;
    }
    if (m_process) {
        m_process->deleteLater();
        m_process = nullptr;
    }
    if (!m_outputDir.isEmpty())
        QDir(m_outputDir).removeRecursively();
    m_outputDir.clear();
    if (m_active) {
        const QString kernel = m_active->kernel;
        finishActive(
            RunStatus::CudaError,
            batch ? batch->runMessage(kernel, why)
                  : QStringLiteral("KernelPad's runner stopped unexpectedly while running '%1' "
                                   "(%2). A fresh runner will serve the next run; your source is "
                                   "unchanged.%3")
                        .arg(kernel, why,
                             tail.isEmpty() ? QString()
                                            : QStringLiteral("\nIts last messages:\n") + tail));
        emit crashed(batch ? batch->summary() : why);
    }
    const QString ended =
        batch ? batch->unansweredMessage(why)
              : QStringLiteral("KernelPad's runner ended before it answered (%1)").arg(why);
    failPendingCompiles(ended);
    if (std::exchange(m_devicesPending, false))
        emit devicesChanged({}, ended);
    if (m_stopReason == StopReason::Shutdown) {
        m_stopReason = StopReason::None;
        emit exited();
    }
}

void RunnerConnection::shutdown() {
    if (!m_process) {
        QTimer::singleShot(0, this, &RunnerConnection::exited);
        return;
    }
    m_stopReason = StopReason::Shutdown;
    send(RunnerCodec::encodeShutdown());
    m_process->closeWriteChannel();
    QTimer::singleShot(kShutdownGraceMs, this, [this] {
        if (m_stopReason != StopReason::Shutdown)
            return; // it ended in time
        m_stopReason = StopReason::None;
        stopProcess();
        emit exited();
    });
}

} // namespace kernelpad
