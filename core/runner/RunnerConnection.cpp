#include "core/runner/RunnerConnection.h"

#include "core/compile/KernelSignature.h"
#include "core/io/JsonFields.h"
#include "core/io/SafeFile.h"
#include "core/io/Trace.h"
#include "core/launch/BufferInit.h"
#include "core/runner/StreamFiles.h"

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

/// Why `dir` cannot be the runner's output folder, or empty when it can. The client deletes
/// this folder when the runner ends, so it must be one the runner made for itself: a
/// `kernelpad-runner-*` folder, not a link, owned by this user and closed to everyone else.
QString checkOutputDir(const QString& dir) {
    if (dir.isEmpty() || !QDir::isAbsolutePath(dir) || QDir::cleanPath(dir) != dir)
        return QStringLiteral("its output folder '%1' is not a clean absolute path").arg(dir);
    if (!QFileInfo(dir).fileName().startsWith(QLatin1String("kernelpad-runner-")))
        return QStringLiteral("its output folder '%1' is not a kernelpad-runner-* folder").arg(dir);
    // The runner this side started makes it in the temporary folder the two share (the runner
    // inherits $TMPDIR); a folder anywhere else is not one this side expects.
    const QString temp = QDir::cleanPath(QDir::tempPath());
    if (QFileInfo(dir).path() != temp &&
        QFileInfo(dir).path() != QFileInfo(temp).canonicalFilePath())
        return QStringLiteral("its output folder '%1' is not in this computer's temporary folder "
                              "%2")
            .arg(dir, temp);
    struct stat st {};
    if (::lstat(QFile::encodeName(dir).constData(), &st) != 0 || !S_ISDIR(st.st_mode))
        return QStringLiteral("its output folder '%1' is not a folder").arg(dir);
    if (st.st_uid != ::geteuid() || (st.st_mode & 0777) != 0700)
        return QStringLiteral("its output folder '%1' is not private to this user (owner %2, "
                              "mode %3)")
            .arg(dir)
            .arg(st.st_uid)
            .arg(st.st_mode & 0777, 4, 8, QLatin1Char('0'));
    return {};
}

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
        m_keepBeyondBytes = keep;
    m_watchdog.setSingleShot(true);
    connect(&m_watchdog, &QTimer::timeout, this, &RunnerConnection::onWatchdog);
    m_helloTimer.setSingleShot(true);
    connect(&m_helloTimer, &QTimer::timeout, this, [this] {
        if (m_process && !m_helloSeen)
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
    p->write(encodeRunnerMessage(RunnerMessage::make(QStringLiteral("shutdown"), 0)));
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
        m_stopReason = QStringLiteral("switch");
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
    m_keepBeyondBytes = spec.effectiveKeepBeyondBytes();
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
    m_reader = ProtocolReader();
    m_helloSeen = false;
    m_stderrTail.clear();
    m_stopReason.clear();
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
    m_process->start(m_program, m_arguments);
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

void RunnerConnection::send(const RunnerMessage& message) {
    if (m_process)
        m_process->write(encodeRunnerMessage(message));
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
        if (!sendStreamed(QStringLiteral("run"), id, request, &error))
            finishActive(RunStatus::BadInput, error);
        return;
    }
    send(RunnerMessage::make(QStringLiteral("run"), id, {{"request", request.toJson()}}));
    tracePhase("client: run request sent");
}

void RunnerConnection::requestDevices(quint64 id) {
    QString error;
    if (!start(&error)) {
        emit devicesChanged({}, error);
        return;
    }
    m_devicesPending = true;
    send(RunnerMessage::make(QStringLiteral("devices"), id));
}

void RunnerConnection::requestResources(quint64 id, const RunRequest& request) {
    QString error;
    if (start(&error) && m_streamBuffers) {
        if (!sendStreamed(QStringLiteral("resources"), id, request, &error))
            qWarning("KernelPad runner: %s", qPrintable(error));
    } else if (m_process) {
        send(RunnerMessage::make(QStringLiteral("resources"), id, {{"request", request.toJson()}}));
    }
}

void RunnerConnection::requestCompile(quint64 id, const RunRequest& request) {
    QString error;
    m_compilesPending.push_back(id);
    if (!start(&error)) {
        failPendingCompiles(error);
        return;
    }
    // A compile needs no kernel but a request's project names one (Project::fromJson): a plain
    // .cu names its first __global__ function, which adds no name expression (only a template
    // instantiation does), so the compile is the same.
    RunRequest sent = request;
    if (sent.project.kernel.trimmed().isEmpty()) {
        const QStringList names = KernelSignature::kernelNames(sent.project.source);
        sent.project.kernel = names.isEmpty() ? QStringLiteral("kernel") : names.first();
    }
    send(RunnerMessage::make(QStringLiteral("compile"), id, {{"request", sent.toJson()}}));
}

void RunnerConnection::failPendingCompiles(const QString& why) {
    for (const quint64 id : std::exchange(m_compilesPending, {})) {
        CompileResult failed;
        failed.log = why;
        emit compiled(id, failed);
    }
}

void RunnerConnection::cancel() {
    if (!m_active || m_stopReason == QLatin1String("cancel"))
        return;
    // Ask first: between repetitions the runner stops by itself and stays warm. A kernel that
    // never returns cannot hear this; the watchdog then kills the runner.
    m_stopReason = QStringLiteral("cancel");
    send(RunnerMessage::make(QStringLiteral("cancel"), m_active->id));
    m_watchdog.start(kCancelGraceMs);
}

void RunnerConnection::onReadyRead() {
    const QByteArray bytes = m_process->readAllStandardOutput();
    for (ProtocolReader::Item& item : m_reader.feed(bytes.constData(), bytes.size())) {
        if (item.tooLong) {
            protocolViolation(QStringLiteral("it sent a message longer than %1 bytes")
                                  .arg(kMaxRunnerMessageBytes));
            return;
        }
        if (item.fatal) {
            protocolViolation(item.error);
            return;
        }
        if (item.frame) {
            onFrame(*item.frame, item.data);
            if (!m_process)
                return;
            continue;
        }
        const std::optional<RunnerMessage>& m = item.message;
        if (!m && !m_helloSeen && !m_spec.isLocal()) {
            // Elsewhere, nothing but the runner should speak first: a shell's greeting or a
            // "command not found" is quoted to the user.
            startFailed(describeRunnerStartFailure(m_spec, QString(),
                                                   m_stderrTail.join(QLatin1Char('\n')),
                                                   QString::fromUtf8(item.text)));
            return;
        }
        if (!m) {
            // Not a message (a tool wrapped around the runner may print a banner); the
            // protocol channel carries nothing a kernel printed, so nothing here is trusted.
            qWarning("KernelPad runner sent an unreadable line (%s)", qPrintable(item.error));
            continue;
        }
        onMessage(*m);
        if (!m_process)
            return; // the message ended this runner
    }
}

QString RunnerConnection::protocolViolation(const QString& what) {
    const QString message =
        QStringLiteral("KernelPad's runner broke the protocol (%1), so it was stopped; a fresh "
                       "runner will serve the next run. Your source is unchanged.")
            .arg(what);
    qWarning("%s", qPrintable(message));
    m_stopReason = QStringLiteral("protocol");
    stopProcess();
    finishActive(RunStatus::CudaError, message);
    failPendingCompiles(message);
    return message;
}

bool RunnerConnection::acceptHello(const RunnerMessage& m) {
    if (m_helloSeen) {
        protocolViolation(QStringLiteral("a second hello"));
        return false;
    }
    m_helloSeen = true;
    QString error;
    const json::FieldReader fields(m.body, &error);
    int version = -1;
    QString dir;
    if (!fields.readInt(QStringLiteral("version"), &version, json::Presence::Required) ||
        !fields.readString(QStringLiteral("outputDir"), &dir, json::Presence::Required)) {
        protocolViolation(QStringLiteral("runner hello: %1").arg(error));
        return false;
    }
    QString release; // sent since protocol 1's KernelPad 0.1; an older runner leaves it out
    if (!fields.readString(QStringLiteral("kernelpad"), &release, json::Presence::Optional)) {
        protocolViolation(QStringLiteral("runner hello: %1").arg(error));
        return false;
    }
    if (!m_spec.isLocal()) {
        if (const QString mismatch = describeVersionMismatch(m_spec, version, release);
            !mismatch.isEmpty()) {
            startFailed(QStringLiteral("KernelPad's runner cannot be used: ") + mismatch);
            return false;
        }
    }
    if (version != kRunnerProtocolVersion) {
        protocolViolation(
            QStringLiteral("it speaks protocol version %1 and this KernelPad speaks %2: update "
                           "the %3 so both come from the same KernelPad release (%4)")
                .arg(version)
                .arg(kRunnerProtocolVersion)
                .arg(version < kRunnerProtocolVersion ? QStringLiteral("runner")
                                                      : QStringLiteral("KernelPad application"),
                     m_program));
        return false;
    }
    m_helloTimer.stop();
    // A runner with streamed buffers may be on another computer: its folder is not ours to
    // check or delete. A runner elsewhere always streams (setStreamBuffers), so a folder it
    // names on this computer is never read or removed here.
    if (m_streamBuffers || !m_spec.isLocal())
        return true;
    const QString problem = checkOutputDir(dir);
    if (!problem.isEmpty()) {
        protocolViolation(problem);
        return false;
    }
    m_outputDir = dir;
    return true;
}

void RunnerConnection::onMessage(const RunnerMessage& m) {
    if (m.type == QLatin1String("hello")) {
        acceptHello(m);
        return;
    }
    if (!m_helloSeen) {
        protocolViolation(QStringLiteral("'%1' before its hello").arg(m.type));
        return;
    }
    QString error;
    const json::FieldReader fields(m.body, &error);
    constexpr auto required = json::Presence::Required;
    if (m.type == QLatin1String("progress")) {
        if (!m_active || m.id != m_active->id)
            return;
        QString stage;
        int done = 0, total = 0;
        if (!fields.readString(QStringLiteral("stage"), &stage, required) ||
            !fields.readInt(QStringLiteral("done"), &done, required) ||
            !fields.readInt(QStringLiteral("total"), &total, required)) {
            protocolViolation(QStringLiteral("runner progress: %1").arg(error));
            return;
        }
        if (m_stopReason.isEmpty())
            armKernelWatchdog(stage);
        emit runProgress(m.id, stage, done, total);
    } else if (m.type == QLatin1String("result")) {
        onResult(m);
    } else if (m.type == QLatin1String("devices")) {
        QVector<DeviceInfo> devices;
        QString listError; // the runner's own: no driver, no device
        const bool read =
            fields.readObjects(
                QStringLiteral("devices"),
                [&devices](const json::FieldReader& item) {
                    std::optional<DeviceInfo> d =
                        DeviceInfo::fromJson(item.object(), item.error(), item.where());
                    if (d)
                        devices.push_back(std::move(*d));
                    return d.has_value();
                },
                required) &&
            fields.readString(QStringLiteral("error"), &listError, json::Presence::NullIsAbsent);
        if (!read) {
            // Whoever asked for the list is told why it did not come.
            emit devicesChanged({},
                                protocolViolation(QStringLiteral("runner devices: %1").arg(error)));
            return;
        }
        m_devicesPending = false;
        emit devicesChanged(devices, listError);
    } else if (m.type == QLatin1String("resources")) {
        QString kernel;
        QJsonObject json;
        if (!fields.readString(QStringLiteral("kernel"), &kernel, required) ||
            !fields.readObject(QStringLiteral("resources"), &json)) {
            protocolViolation(QStringLiteral("runner resources: %1").arg(error));
            return;
        }
        // Without "resources" the kernel could not be loaded: its "error" says why, and the
        // panel keeps what it showed.
        if (!fields.has(QStringLiteral("resources")))
            return;
        const std::optional<KernelResources> resources =
            KernelResources::fromJson(json, &error, fields.path(QStringLiteral("resources")));
        if (!resources) {
            protocolViolation(QStringLiteral("runner resources: %1").arg(error));
            return;
        }
        emit resourcesReady(m.id, kernel, *resources);
    } else if (m.type == QLatin1String("compile")) {
        QJsonObject json;
        if (!fields.readObject(QStringLiteral("result"), &json, required)) {
            protocolViolation(QStringLiteral("runner compile: %1").arg(error));
            return;
        }
        std::optional<CompileResult> result =
            CompileResult::fromJson(json, &error, QStringLiteral("result"));
        if (!result) {
            protocolViolation(QStringLiteral("runner compile: %1").arg(error));
            return;
        }
        if (m_compilesPending.removeOne(m.id))
            emit compiled(m.id, *result);
    } else if (m.type == QLatin1String("error")) {
        QString message;
        if (!fields.readString(QStringLiteral("message"), &message, required)) {
            protocolViolation(QStringLiteral("runner error: %1").arg(error));
            return;
        }
        if (m_compilesPending.removeOne(m.id)) {
            CompileResult refused;
            refused.log = message;
            emit compiled(m.id, refused);
        } else if (const auto f = m_fetches.constFind(m.id); f != m_fetches.constEnd()) {
            m_fetches.erase(f);
            emit fetched(m.id, {}, message);
        } else if (m_active && m.id == m_active->id) {
            finishActive(RunStatus::BadInput, message);
        } else {
            qWarning("KernelPad runner: %s", qPrintable(message));
        }
    }
}

void RunnerConnection::onResult(const RunnerMessage& m) {
    if (!m_active || m.id != m_active->id)
        return;
    tracePhase("client: result message read");
    m_watchdog.stop();
    QString error;
    const json::FieldReader fields(m.body, &error);
    constexpr auto required = json::Presence::Required;
    QJsonObject json;
    if (!fields.readObject(QStringLiteral("result"), &json, required)) {
        protocolViolation(QStringLiteral("runner result message: %1").arg(error));
        return;
    }
    std::optional<RunResult> read = RunResult::fromJson(json, &error);
    if (!read) {
        protocolViolation(QStringLiteral("runner result: %1").arg(error));
        return;
    }
    RunResult result = std::move(*read);
    // The result's JSON names its outputs without their contents; the contents come as files,
    // listed beside it. Only those are kept, or every output would appear twice, once empty.
    result.outputs.clear();
    if (m_streamBuffers) {
        bool poisonedRunner = false;
        if (!fields.readBool(QStringLiteral("poisoned"), &poisonedRunner, required) ||
            !readStreamedOutputs(fields, m.id, &result, &error)) {
            protocolViolation(QStringLiteral("runner result message: %1").arg(error));
            return;
        }
        if (m_pendingOutputs && m_pendingOutputs->streams.isEmpty())
            deliverResult(m.id, std::exchange(m_pendingOutputs, std::nullopt)->result,
                          poisonedRunner);
        else if (m_pendingOutputs)
            m_pendingOutputs->poisoned = poisonedRunner;
        return;
    }
    const QDir dir(m_outputDir);
    QVector<std::pair<OutputBuffer, QString>> listed; // each buffer and its file's name
    bool poisoned = false;
    const bool readListing =
        fields.readObjects(
            QStringLiteral("outputs"),
            [&listed](const json::FieldReader& item) {
                OutputBuffer b;
                QString file;
                QJsonObject type;
                QString typeError;
                if (!item.readString(QStringLiteral("name"), &b.name, json::Presence::Required) ||
                    !item.readObject(QStringLiteral("type"), &type, json::Presence::Required) ||
                    !item.readWholeNumber(QStringLiteral("count"), &b.count,
                                          json::Presence::Required) ||
                    !item.readString(QStringLiteral("file"), &file, json::Presence::Required))
                    return false;
                std::optional<ValueType> t = ValueType::fromJson(type, &typeError);
                if (!t)
                    return item.fail(item.path(QStringLiteral("type")) + QLatin1Char('.') +
                                     typeError);
                b.type = *t;
                listed.append({std::move(b), file});
                return true;
            },
            required) &&
        fields.readBool(QStringLiteral("poisoned"), &poisoned, required);
    if (!readListing) {
        protocolViolation(QStringLiteral("runner result message: %1").arg(error));
        return;
    }
    for (auto& [b, name] : listed) {
        const double declared = b.count * double(b.type.sizeBytes());
        // Only a bare file name inside the runner's own folder, a regular file of exactly the
        // buffer's size, is read.
        const QString file = dir.filePath(QFileInfo(name).fileName());
        if (m_outputDir.isEmpty() || b.count < 0 || declared > double(kMaxBufferBytes))
            continue;
        QString ignored;
        std::optional<QByteArray> data =
            readRegularFile(file, ReadLimits{qint64(declared), false}, &ignored);
        QFile::remove(file);
        if (data && data->size() == qint64(declared)) {
            b.data = std::move(*data);
            result.outputs.push_back(std::move(b));
        }
    }
    deliverResult(m.id, result, poisoned);
}

void RunnerConnection::deliverResult(quint64 id, const RunResult& result, bool poisoned) {
    m_active.reset();
    m_stopReason.clear();
    if (poisoned) {
        // The runner exits by itself after a sticky error: its end is expected.
        m_stopReason = QStringLiteral("poisoned");
        emit this->poisoned();
    }
    tracePhase("client: outputs read");
    emit runFinished(id, result);
}

void RunnerConnection::armKernelWatchdog(const QString& stage) {
    // The time limit is the kernel's: it runs while the runner launches and waits (the
    // verifying launch, warm-up, timing) and pauses while the host checks the outputs.
    const bool onGpu = stage == QLatin1String("verifying launch") ||
                       stage == QLatin1String("warming up") || stage == QLatin1String("timing");
    if (onGpu) {
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
    m_pendingOutputs.reset(); // a result half received is never shown as complete
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
    if (m_stopReason == QLatin1String("cancel")) {
        stopProcess();
        finishActive(
            RunStatus::Cancelled,
            QStringLiteral(
                "Cancelled: '%1' was still running, so the runner was stopped; the GPU is being "
                "freed and a fresh runner will serve the next run. Your source is unchanged.")
                .arg(kernel));
    } else {
        m_stopReason = QStringLiteral("timeout");
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
    m_stopReason = QStringLiteral("start");
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
    m_helloTimer.stop();
    if (!m_helloSeen && m_stopReason.isEmpty() && (!m_spec.isLocal() || !m_active)) {
        // It never became a runner: ssh could not connect, the program is missing, ... (a
        // local runner that dies in a run is reported as a crash below, as it always was)
        if (m_process) {
            m_process->readAllStandardError(); // the tail has it already
            m_process->deleteLater();
            m_process = nullptr;
        }
        const QString message = describeRunnerStartFailure(m_spec, why, tail, QString());
        m_stopReason = QStringLiteral("start");
        finishActive(RunStatus::CudaError, message);
        if (std::exchange(m_devicesPending, false))
            emit devicesChanged({}, message);
        failPendingCompiles(message);
        m_stopReason.clear();
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
            QStringLiteral(
                "KernelPad's runner stopped unexpectedly while running '%1' (%2). A fresh runner "
                "will serve the next run; your source is unchanged.%3")
                .arg(kernel, why,
                     tail.isEmpty() ? QString() : QStringLiteral("\nIts last messages:\n") + tail));
        emit crashed(why);
    }
    const QString ended =
        QStringLiteral("KernelPad's runner ended before it answered (%1)").arg(why);
    failPendingCompiles(ended);
    if (std::exchange(m_devicesPending, false))
        emit devicesChanged({}, ended);
    if (m_stopReason == QLatin1String("shutdown")) {
        m_stopReason.clear();
        emit exited();
    }
}

void RunnerConnection::shutdown() {
    if (!m_process) {
        QTimer::singleShot(0, this, &RunnerConnection::exited);
        return;
    }
    m_stopReason = QStringLiteral("shutdown");
    send(RunnerMessage::make(QStringLiteral("shutdown"), 0));
    m_process->closeWriteChannel();
    QTimer::singleShot(kShutdownGraceMs, this, [this] {
        if (m_stopReason != QLatin1String("shutdown"))
            return; // it ended in time
        m_stopReason.clear();
        stopProcess();
        emit exited();
    });
}

// ---- Streamed buffers (Protocol.h) ----

bool RunnerConnection::sendStreamed(const QString& type, quint64 id, const RunRequest& request,
                                    QString* error) {
    RunRequest copy = request;
    const std::optional<QVector<StreamedFile>> files = collectStreamedFiles(&copy, error);
    if (!files)
        return false;
    // The runner resolves every path in its own folder; this computer's is none of its business.
    copy.projectDir.clear();
    QJsonArray list;
    for (const StreamedFile& f : *files)
        list.append(QJsonObject{{"name", f.name}, {"bytes", double(f.bytes)}});
    send(RunnerMessage::make(
        type, id,
        {{"request", copy.toJson()},
         {"stream",
          QJsonObject{{"files", list}, {"keepBeyondBytes", double(m_keepBeyondBytes)}}}}));
    for (const StreamedFile& f : *files) {
        QFile file;
        if (!openStreamedFile(f, &file, error)) {
            stopProcess(); // its request waits for bytes that will never come
            return false;
        }
        qint64 sent = 0;
        do {
            const QByteArray chunk = file.read(std::min(kMaxFrameBytes, f.bytes - sent));
            if (chunk.size() != std::min(kMaxFrameBytes, f.bytes - sent)) {
                *error = QStringLiteral("'%1' changed while it was sent to the runner").arg(f.path);
                stopProcess();
                return false;
            }
            if (m_process) {
                m_process->write(encodeFrameHeader(
                    FrameHeader{id, f.name, sent, chunk.size(), sent + chunk.size() == f.bytes}));
                m_process->write(chunk);
            }
            sent += chunk.size();
        } while (sent < f.bytes);
    }
    return true;
}

bool RunnerConnection::readStreamedOutputs(const json::FieldReader& fields, quint64 id,
                                           RunResult* result, QString* error) {
    PendingOutputs pending;
    pending.id = id;
    const qint64 keepBeyond = m_keepBeyondBytes;
    const QHash<QString, qint64> bounds =
        m_active ? m_active->outputBounds : QHash<QString, qint64>();
    const bool read = fields.readObjects(
        QStringLiteral("outputs"),
        [&](const json::FieldReader& item) {
            OutputBuffer b;
            QJsonObject type;
            QString typeError;
            qint64 bytes = 0;
            bool streamed = false, kept = false;
            if (!item.readString(QStringLiteral("name"), &b.name, json::Presence::Required) ||
                !item.readObject(QStringLiteral("type"), &type, json::Presence::Required) ||
                !item.readWholeNumber(QStringLiteral("count"), &b.count, json::Presence::Required,
                                      {0, kMaxBufferBytes}) ||
                !item.readWholeNumber(QStringLiteral("bytes"), &bytes, json::Presence::Required,
                                      {0, kMaxBufferBytes}) ||
                !item.readBool(QStringLiteral("stream"), &streamed) ||
                !item.readBool(QStringLiteral("kept"), &kept))
                return false;
            std::optional<ValueType> t = ValueType::fromJson(type, &typeError);
            if (!t)
                return item.fail(item.path(QStringLiteral("type")) + QLatin1Char('.') + typeError);
            b.type = *t;
            if (bytes != b.sizeBytes())
                return item.fail(item.path(QStringLiteral("bytes")) +
                                 QStringLiteral(": %1 is not count × element size (%2)")
                                     .arg(bytes)
                                     .arg(b.sizeBytes()));
            if (streamed == kept)
                return item.fail(item.path(QStringLiteral("stream")) +
                                 QStringLiteral(": an output either streams or is kept"));
            if (!isSafeStreamName(b.name) || pending.streams.contains(b.name) ||
                std::any_of(result->outputs.cbegin(), result->outputs.cend(),
                            [&b](const OutputBuffer& o) { return o.name == b.name; }))
                return item.fail(
                    item.path(QStringLiteral("name")) +
                    QStringLiteral(": '%1' is not a unique plain name").arg(b.name.left(64)));
            // Only what the request asked for: its buffers, globals and textures, each at
            // most its own size.
            if (!bounds.contains(b.name))
                return item.fail(
                    item.path(QStringLiteral("name")) +
                    QStringLiteral(": '%1' is no buffer of the request").arg(b.name.left(64)));
            if (bytes > bounds.value(b.name))
                return item.fail(item.path(QStringLiteral("bytes")) +
                                 QStringLiteral(": %1 is more than the %2 bytes of '%3'")
                                     .arg(bytes)
                                     .arg(bounds.value(b.name))
                                     .arg(b.name));
            if (kept) {
                b.keptRun = id;
            } else {
                // This side holds at most what it allowed to stream, and allocates it only as
                // its frames arrive (onFrame).
                if (bytes > keepBeyond)
                    return item.fail(item.path(QStringLiteral("bytes")) +
                                     QStringLiteral(": %1 is beyond the %2 allowed to stream")
                                         .arg(bytes)
                                         .arg(keepBeyond));
                pending.streams.insert(b.name, result->outputs.size());
                pending.expected.insert(b.name, bytes);
            }
            result->outputs.push_back(std::move(b));
            return true;
        },
        json::Presence::Required);
    if (!read)
        return false;
    // Empty outputs need no bytes but still arrive as one empty frame each.
    pending.result = std::move(*result);
    m_pendingOutputs = std::move(pending);
    (void)error;
    return true;
}

void RunnerConnection::onFrame(const FrameHeader& h, const QByteArray& data) {
    // Rules shared by result streams and fetched ranges: in order, within what was asked.
    // `into` grows as frames arrive, up to `expected` bytes.
    const auto take = [&](QByteArray& into, qint64 base, qint64 expected) -> bool {
        const qint64 received = into.size();
        if (h.offset - base != received) {
            protocolViolation(QStringLiteral("frame.offset: %1 for '%2', expected %3")
                                  .arg(h.offset)
                                  .arg(h.stream)
                                  .arg(base + received));
            return false;
        }
        if (h.bytes != data.size() || received + h.bytes > expected) {
            protocolViolation(QStringLiteral("frame.bytes: %1 at offset %2 runs past the %3 bytes "
                                             "of '%4'")
                                  .arg(h.bytes)
                                  .arg(h.offset)
                                  .arg(expected)
                                  .arg(h.stream));
            return false;
        }
        if (h.last != (received + h.bytes == expected)) {
            protocolViolation(QStringLiteral("frame.last: %1 at offset %2 of '%3'")
                                  .arg(h.last ? QStringLiteral("true") : QStringLiteral("false"))
                                  .arg(h.offset)
                                  .arg(h.stream));
            return false;
        }
        into.append(data);
        return true;
    };
    if (auto f = m_fetches.find(h.id); f != m_fetches.end()) {
        if (h.stream != f->buffer) {
            protocolViolation(QStringLiteral("frame.stream: '%1' answers a fetch of '%2'")
                                  .arg(h.stream, f->buffer));
            return;
        }
        if (!take(f->data, f->offset, f->bytes))
            return;
        if (h.last) {
            const QByteArray bytes = std::move(f->data);
            m_fetches.erase(f);
            emit fetched(h.id, bytes, {});
        }
        return;
    }
    if (!m_pendingOutputs || h.id != m_pendingOutputs->id ||
        !m_pendingOutputs->streams.contains(h.stream)) {
        protocolViolation(QStringLiteral("frame.stream: '%1' of request %2 was not announced")
                              .arg(h.stream.left(64))
                              .arg(h.id));
        return;
    }
    PendingOutputs& p = *m_pendingOutputs;
    const int index = p.streams.value(h.stream);
    if (!take(p.result.outputs[index].data, 0, p.expected.value(h.stream)))
        return;
    if (h.last)
        p.streams.remove(h.stream);
    if (p.streams.isEmpty()) {
        PendingOutputs done = std::move(*std::exchange(m_pendingOutputs, std::nullopt));
        deliverResult(done.id, done.result, done.poisoned);
    }
}

void RunnerConnection::fetch(quint64 id, quint64 run, const QString& buffer, qint64 offset,
                             qint64 bytes) {
    QString error;
    if (!m_streamBuffers)
        error = QStringLiteral("this runner does not keep outputs (streamed buffers are off)");
    else if (offset < 0 || bytes < 0 || bytes > kMaxBufferBytes)
        error = QStringLiteral("bytes: %1 at offset %2 is not a range of a buffer")
                    .arg(bytes)
                    .arg(offset);
    else if (!m_process || !m_helloSeen)
        error = QStringLiteral("the runner that kept run %1's outputs has ended").arg(run);
    else if (m_fetches.contains(id))
        error = QStringLiteral("fetch %1 is already waiting").arg(id);
    if (!error.isEmpty()) {
        QTimer::singleShot(0, this, [this, id, error] { emit fetched(id, {}, error); });
        return;
    }
    m_fetches.insert(id, PendingFetch{buffer, offset, bytes, {}});
    send(RunnerMessage::make(QStringLiteral("fetch"), id,
                             {{"run", double(run)},
                              {"buffer", buffer},
                              {"offset", double(offset)},
                              {"bytes", double(bytes)}}));
}

void RunnerConnection::dropTransfers(const QString& why) {
    m_pendingOutputs.reset();
    const QList<quint64> ids = m_fetches.keys();
    m_fetches.clear();
    for (quint64 id : ids)
        emit fetched(id, {}, why);
}

} // namespace kernelpad
