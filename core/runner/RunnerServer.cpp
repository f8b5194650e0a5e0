// The runner process's loop (kernelpad-cli serve): the ExecutionSession in its own process, so
// that a faulting or hanging kernel can be killed without taking the editor down
// (docs/ARCHITECTURE.md; protocol in core/runner/Protocol.h).

#include "core/runner/RunnerServer.h"

#include "core/cuda/Context.h"
#include "core/cuda/CudaError.h"
#include "core/io/JsonFields.h"
#include "core/io/Trace.h"
#include "core/launch/BufferInit.h"
#include "core/project/RunnerSpec.h"
#include "core/run/BlockingKernel.h"
#include "core/run/DeviceInit.h"
#include "core/run/ExecutionSession.h"
#include "core/run/TelemetryClockLock.h"
#include "core/runner/ConsoleCapture.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerServerPrograms.h"
#include "core/runner/RunnerServerStreams.h"
#include "core/runner/StreamFiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/prctl.h>
#include <unistd.h>

namespace kernelpad {
namespace {

/// Ends this process when the process that started it ends, even while a kernel hangs.
void dieWithParent() {
    const pid_t parent = ::getppid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) // it ended before the signal was armed
        std::_Exit(kRunnerExitOk);
}

/// The Slurm job step this runner runs in ("12.0" under srun, "12" in a batch script), or empty:
/// the client names it when Slurm ends the runner (core/runner/RunnerConnectionBatch.h).
QString slurmStep() {
    const QString job = qEnvironmentVariable("SLURM_JOB_ID");
    if (job.isEmpty())
        return {};
    const QString step = qEnvironmentVariable("SLURM_STEP_ID");
    return step.isEmpty() ? job : QStringLiteral("%1.%2").arg(job, step);
}

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

/// Requests read by a reader thread; "cancel" acts at once, everything else is queued.
class Inbox {
public:
    void push(RunnerMessage m) {
        {
            std::lock_guard lock(m_mutex);
            m_queue.emplace_back(std::move(m), std::chrono::steady_clock::now());
        }
        m_ready.notify_one();
    }
    /// The next request and how long it waited here (a run queued behind another).
    RunnerMessage pop(double* waitedMs) {
        std::unique_lock lock(m_mutex);
        m_ready.wait(lock, [this] { return !m_queue.empty(); });
        RunnerMessage m = std::move(m_queue.front().first);
        *waitedMs = msSince(m_queue.front().second);
        m_queue.pop_front();
        return m;
    }

private:
    std::mutex m_mutex; // guards m_queue
    std::condition_variable m_ready;
    std::deque<std::pair<RunnerMessage, std::chrono::steady_clock::time_point>> m_queue;
};

QJsonArray writeOutputs(const QDir& dir, quint64 id, QVector<OutputBuffer>& outputs,
                        QString* error) {
    QJsonArray list;
    for (int k = 0; k < outputs.size(); ++k) {
        OutputBuffer& b = outputs[k];
        const QString name = QStringLiteral("%1-%2.bin").arg(id).arg(k);
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(b.data) != b.data.size()) {
            *error = QStringLiteral("could not write output buffer '%1' to %2: %3")
                         .arg(b.name, f.fileName(), f.errorString());
            return {};
        }
        list.append(QJsonObject{{"name", b.name},
                                {"type", b.type.toJson()},
                                {"count", double(b.count)},
                                {"file", name},
                                {"bytes", double(b.data.size())}});
        b.data.clear();
    }
    return list;
}

/// What the reader thread and the loop share.
struct Channel {
    Channel(serve::Output& output, CompileCache& programs)
        : out(output)
        , cache(programs) {}
    serve::Output& out;
    CompileCache& cache; ///< the session's compile cache (thread-safe): "program" reads it
    Inbox inbox;
    std::atomic_bool cancel{false};
    std::atomic<quint64> activeRun{0}; ///< the run in progress, 0 between runs
};

/// The reader thread: requests from stdin into the inbox. "cancel" acts at once; a streamed
/// request waits here until its files are in; anything unreadable is answered with an error.
class RequestReader {
public:
    RequestReader(Channel& channel, QString inputRoot)
        : m_channel(channel)
        , m_inputRoot(std::move(inputRoot)) {}

    /// Reads until "shutdown" or the end of stdin.
    void run() {
        char buffer[64 * 1024];
        Next next = Next::Read;
        while (next == Next::Read) {
            const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            for (ProtocolReader::Item& item : m_protocol.feed(buffer, n)) {
                next = onItem(item);
                if (next != Next::Read)
                    break; // after a bad frame header nothing can be read
            }
        }
        if (next == Next::Shutdown)
            return;
        // The client went away. A run in progress may be a kernel that never ends: waiting for
        // it would keep the GPU for ever, so the process ends now (the driver frees the GPU).
        if (m_channel.activeRun.load() != 0) {
            restoreLockedClocks(); // _Exit skips std::atexit (NVML, not the driver: safe)
            std::_Exit(kRunnerExitOk);
        }
        m_channel.inbox.push(RunnerMessage::make(MessageType::Shutdown, 0));
    }

private:
    enum class Next { Read, Shutdown, Broken };

    Next onItem(ProtocolReader::Item& item) {
        serve::Output& out = m_channel.out;
        if (item.frame) {
            onFrame(item);
            return Next::Read;
        }
        if (item.fatal) {
            out.send(RunnerMessage::make(MessageType::Error, 0, {{"message", item.error}}));
            return Next::Broken;
        }
        QString error = item.error;
        std::optional<RunnerMessage> m = std::move(item.message);
        if (item.tooLong)
            error = QStringLiteral("a request longer than %1 bytes was refused")
                        .arg(kMaxRunnerMessageBytes);
        if (m && !isRunnerRequestType(m->type)) {
            error = QStringLiteral("'%1' is not a request").arg(toString(m->type));
            m.reset();
        }
        if (!m) {
            out.send(RunnerMessage::make(MessageType::Error, 0, {{"message", error}}));
            return Next::Read;
        }
        if (m->type == MessageType::Cancel) {
            if (m->id == m_channel.activeRun.load())
                m_channel.cancel = true;
            return Next::Read;
        }
        if (m->type == MessageType::Program) { // at once, not behind a run: it never compiles
            serve::answerProgram(out, *m, m_channel.cache);
            return Next::Read;
        }
        if (m->body.contains(QStringLiteral("stream"))) {
            onStreamedRequest(std::move(*m));
            return Next::Read;
        }
        const bool last = m->type == MessageType::Shutdown;
        m_channel.inbox.push(std::move(*m));
        return last ? Next::Shutdown : Next::Read;
    }

    /// A frame of the streamed request waiting for its files.
    void onFrame(const ProtocolReader::Item& item) {
        QString frameError;
        if (!m_incoming || m_incoming->id() != item.frame->id)
            frameError =
                QStringLiteral("frame.id: no request %1 is waiting for files").arg(item.frame->id);
        else
            (void)m_incoming->take(*item.frame, item.data, &frameError);
        if (!frameError.isEmpty()) {
            m_incoming.reset(); // the request is dropped with its files
            m_channel.out.send(
                RunnerMessage::make(MessageType::Error, item.frame->id, {{"message", frameError}}));
        } else if (m_incoming->complete()) {
            m_channel.inbox.push(m_incoming->release());
            m_incoming.reset();
        }
    }

    /// Streamed buffers: the request waits here until its files are in.
    void onStreamedRequest(RunnerMessage m) {
        QString error;
        const std::optional<serve::StreamSpec> spec = serve::readStreamSpec(m.body, &error);
        const quint64 id = m.id;
        const QString dir = QDir(m_inputRoot).filePath(QStringLiteral("in-%1").arg(id));
        m_incoming.reset();
        if (spec) {
            QDir(dir).removeRecursively();
            m_incoming.emplace(std::move(m), *spec, dir);
            if (!m_incoming->open(&error))
                m_incoming.reset();
        }
        if (!m_incoming) {
            QDir(dir).removeRecursively();
            m_channel.out.send(
                RunnerMessage::make(MessageType::Error, id,
                                    {{"message", QStringLiteral("bad request: %1").arg(error)}}));
        } else if (m_incoming->complete()) {
            m_channel.inbox.push(m_incoming->release());
            m_incoming.reset();
        }
    }

    Channel& m_channel;
    const QString m_inputRoot;
    ProtocolReader m_protocol;
    std::optional<serve::IncomingFiles> m_incoming; ///< a streamed request waiting for files
};

/// The loop: one request at a time on the session, answered on the channel.
class RequestServer {
public:
    RequestServer(Channel& channel, ConsoleCapture& console, const QString& outputDir)
        : m_channel(channel)
        , m_out(channel.out)
        , m_console(console)
        , m_cache(channel.cache)
        , m_session(&m_cache)
        , m_dir(outputDir) {}

    /// A warm spare's start ($KERNELPAD_WARM_DEVICES, set by the warm-runner daemon,
    /// core/runner/WarmRunnerDaemon.h): the driver is initialised and the primary context of
    /// each listed device ("all" or "0,1") retained now, so the first request finds them made.
    /// Then one line on stderr tells the daemon that this runner is ready, with the devices as
    /// this session lists them (the command line's device names come from it): stderr, since
    /// the protocol must stay what any client sees from a cold runner.
    void warmUp(const QString& which) {
        QString error;
        const QVector<DeviceInfo> devices = m_session.devices(&error);
        QJsonArray listed;
        for (const DeviceInfo& d : devices)
            listed.append(d.toJson());
        QJsonArray warmed;
        try {
            for (const QString& item : which.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                if (!error.isEmpty())
                    break;
                bool ok = false;
                const int ordinal = item.trimmed().toInt(&ok);
                for (const DeviceInfo& d : devices)
                    if (item.trimmed() == QLatin1String("all") || (ok && d.ordinal == ordinal)) {
                        m_warm.emplace_back(Device(d.ordinal));
                        warmed.append(d.ordinal);
                    }
                if (ok && (ordinal < 0 || ordinal >= devices.size()))
                    error = QStringLiteral("there is no device %1 (%2 listed)")
                                .arg(ordinal)
                                .arg(devices.size());
            }
        } catch (const CudaError& e) {
            error = e.message();
        } catch (const DriverUnavailable& e) {
            error = QString::fromUtf8(e.what());
        }
        tracePhase("warm: contexts ready");
        // The kernels a run may need besides the project's (its inputs' generator, the
        // timing's blocking kernel) go through NVRTC once per arch: ahead, not in a command's
        // first run (over a second without a disk cache). A failure here is the run's to report.
        QStringList archs;
        for (const DeviceInfo& d : devices)
            if (warmed.contains(d.ordinal) && !archs.contains(d.arch()))
                archs << d.arch();
        for (const QString& arch : archs) {
            (void)DeviceInit::compileFor(&m_cache, arch);
            (void)BlockingKernel::compileFor(&m_cache, arch);
        }
        tracePhase("warm: helper kernels compiled");
        QJsonObject said{{"devices", listed}, {"warmed", warmed}};
        if (!error.isEmpty())
            said.insert(QStringLiteral("error"), error);
        std::fprintf(stderr, "kernelpad-warm: ready %s\n",
                     QJsonDocument(said).toJson(QJsonDocument::Compact).constData());
        std::fflush(stderr);
    }

    /// Serves until "shutdown" or a sticky CUDA error.
    void serve() {
        for (;;) {
            double waitedMs = 0;
            const RunnerMessage m = m_channel.inbox.pop(&waitedMs);
            if (m.type == MessageType::Shutdown)
                return;
            if (m.type == MessageType::Fetch) {
                serve::answerFetch(m_out, m, m_kept);
                continue;
            }
            if (m.type == MessageType::Devices) {
                answerDevices(m);
                continue;
            }
            std::optional<serve::StreamSpec> stream;
            const auto readStart = std::chrono::steady_clock::now();
            const std::optional<RunRequest> request = readRequest(m, &stream);
            if (!request)
                continue;
            if (m.type == MessageType::Run) {
                const QVector<StageTime> before{
                    {QStringLiteral("waiting in the runner"), waitedMs},
                    {QStringLiteral("reading the request"), msSince(readStart)}};
                if (!answerRun(m, *request, stream, before))
                    return; // a sticky error: this process must not touch the GPU again: after
                            // an illegal address even a reset context fails
                continue;
            }
            if (m.type == MessageType::Compile)
                answerCompile(m, *request);
            else
                answerResources(m, *request);
            removeInputs(*request, stream);
        }
    }

private:
    /// Streamed buffers: the request's own folder (IncomingFiles::release) goes once it is
    /// answered.
    static void removeInputs(const RunRequest& request,
                             const std::optional<serve::StreamSpec>& stream) {
        if (stream)
            QDir(request.projectDir).removeRecursively();
    }

    void answerDevices(const RunnerMessage& m) {
        QString error;
        QJsonArray list;
        for (const DeviceInfo& d : m_session.devices(&error))
            list.append(d.toJson());
        m_out.send(RunnerMessage::make(
            MessageType::Devices, m.id,
            {{"devices", list}, {"error", error.isEmpty() ? QJsonValue() : QJsonValue(error)}}));
    }

    /// The request `m` carries; a streamed one names only the files sent with it, in a folder
    /// of this runner's own. Nothing, answered with an error naming the field, when it is bad.
    std::optional<RunRequest> readRequest(const RunnerMessage& m,
                                          std::optional<serve::StreamSpec>* stream) {
        QString error;
        QJsonObject requestJson;
        const bool hasRequest =
            json::FieldReader(m.body, &error)
                .readObject(QStringLiteral("request"), &requestJson, json::Presence::Required);
        std::optional<RunRequest> request =
            hasRequest ? RunRequest::fromJson(requestJson, &error) : std::nullopt;
        if (request && m.body.contains(QStringLiteral("stream"))) {
            *stream = serve::readStreamSpec(m.body, &error);
            QSet<QString> names;
            for (const auto& f : *stream ? (*stream)->files : QVector<std::pair<QString, qint64>>())
                names.insert(f.first);
            const QString problem = *stream ? checkStreamedPaths(*request, names) : error;
            if (!problem.isEmpty()) {
                error = problem;
                QDir(request->projectDir).removeRecursively();
                stream->reset();
                request.reset();
            }
        }
        if (!request)
            m_out.send(
                RunnerMessage::make(MessageType::Error, m.id,
                                    {{"message", QStringLiteral("bad request: %1").arg(error)}}));
        return request;
    }

    /// The request's arch, else its device's, else the default.
    QString resolveArch(const RunRequest& request, QString* why) {
        const QString arch = request.project.options.arch.value_or(QString());
        if (!arch.isEmpty())
            return arch;
        const QVector<DeviceInfo> devices = m_session.devices(why);
        return request.device < devices.size() ? devices[request.device].arch()
                                               : QString::fromLatin1(kDefaultArch);
    }

    void answerCompile(const RunnerMessage& m, const RunRequest& request) {
        QString why;
        const QString arch = resolveArch(request, &why);
        // Another runner's program for the same compile is taken instead of compiling again.
        QString refused;
        const bool taken = serve::takeProgram(m, request, arch, m_cache, &refused);
        const CompileResult compiled =
            compileProject(request.project, request.projectDir, arch, &m_cache);
        QJsonObject body{{"result", compiled.toJson()}, {"programTaken", taken}};
        if (!refused.isEmpty())
            body.insert(QStringLiteral("programNote"), refused);
        m_out.send(RunnerMessage::make(MessageType::Compile, m.id, body));
    }

    void answerResources(const RunnerMessage& m, const RunRequest& request) {
        QString why;
        const CompileResult compiled = compileProject(request.project, request.projectDir,
                                                      resolveArch(request, &why), &m_cache);
        const std::optional<KernelResources> r =
            compiled.ok ? m_session.kernelResources(compiled, request.project.kernel,
                                                    request.project.launch, request.device, &why)
                        : std::nullopt;
        QJsonObject body{{"kernel", request.project.kernel}};
        if (r)
            body.insert("resources", r->toJson());
        else
            body.insert("error", compiled.ok ? why : QStringLiteral("the source does not compile"));
        m_out.send(RunnerMessage::make(MessageType::Resources, m.id, body));
    }

    /// Runs the request and answers with its result and outputs; false when the session is
    /// poisoned (the loop ends).
    bool answerRun(const RunnerMessage& m, const RunRequest& request,
                   const std::optional<serve::StreamSpec>& stream, QVector<StageTime> stages) {
        tracePhase("runner: run request read");
        // Where the time goes, for a sweep's breakdown: a stage lasts until the next begins.
        auto stageStart = std::chrono::steady_clock::now();
        QString current = QStringLiteral("starting the run");
        const auto nextStage = [&](const QString& next) {
            if (next == current)
                return;
            stages.append(StageTime{current, msSince(stageStart)});
            stageStart = std::chrono::steady_clock::now();
            current = next;
        };
        m_channel.cancel = false;
        m_channel.activeRun = m.id;
        m_kept = serve::KeptOutputs(); // the next run replaces what the last one kept
        (void)m_console.take(); // output from before this run (a library's chatter) is not its
        // The verified launch's output is taken when the host starts checking it ("verifying",
        // right after that launch's synchronisation); later launches print the same again.
        std::optional<ConsoleOutput> firstLaunch;
        RunResult result =
            m_session.run(request, m_channel.cancel, [&](RunStage stage, int done, int total) {
                if (!firstLaunch && stage == RunStage::Verifying)
                    firstLaunch = m_console.take();
                nextStage(toString(stage));
                m_out.send(RunnerMessage::make(
                    MessageType::Progress, m.id,
                    {{"stage", toString(stage)}, {"done", done}, {"total", total}}));
            });
        nextStage(QStringLiteral("writing the result"));
        m_channel.activeRun = 0;
        const ConsoleOutput rest = m_console.take();
        if (firstLaunch) {
            result.console = *firstLaunch;
            result.console.laterBytes = rest.totalBytes;
        } else {
            result.console = rest; // the run ended before its output was checked
        }
        removeInputs(request, stream);
        if (stream)
            sendStreamedResult(m.id, result, stream->keepBeyondBytes, &stages, stageStart);
        else
            sendResult(m.id, result, &stages, stageStart);
        tracePhase("runner: result sent");
        return !m_session.isPoisoned();
    }

    /// Streamed: the small outputs follow the result as frames; every output stays here for
    /// "fetch" until the next run.
    void sendStreamedResult(quint64 id, RunResult& result, qint64 keepBeyondBytes,
                            QVector<StageTime>* stages,
                            std::chrono::steady_clock::time_point since) {
        stages->append(StageTime{QStringLiteral("writing the result"), msSince(since)});
        result.stagesMs = *stages;
        m_out.send(RunnerMessage::make(
            MessageType::Result, id,
            {{"result", result.toJson(true)},
             {"outputs", serve::listStreamedOutputs(result.outputs, keepBeyondBytes)},
             {"poisoned", m_session.isPoisoned()}}));
        serve::streamOutputs(m_out, id, result.outputs, keepBeyondBytes);
        m_kept = serve::KeptOutputs{id, std::move(result.outputs)};
    }

    /// The outputs as files in the runner's private folder, named in the result.
    void sendResult(quint64 id, RunResult& result, QVector<StageTime>* stages,
                    std::chrono::steady_clock::time_point since) {
        QString error;
        const QJsonArray outputs = writeOutputs(m_dir, id, result.outputs, &error);
        if (!error.isEmpty() && result.error.isEmpty())
            result.error = error;
        // The result's own JSON and its pipe are left out: the client sees them in its round trip.
        stages->append(StageTime{QStringLiteral("writing the result"), msSince(since)});
        result.stagesMs = *stages;
        m_out.send(RunnerMessage::make(MessageType::Result, id,
                                       {{"result", result.toJson(true)},
                                        {"outputs", outputs},
                                        {"poisoned", m_session.isPoisoned()}}));
    }

    Channel& m_channel;
    serve::Output& m_out;
    ConsoleCapture& m_console;
    CompileCache& m_cache;
    ExecutionSession m_session;
    QDir m_dir; ///< the runner's private folder for output files
    serve::KeptOutputs m_kept;
    std::vector<Context> m_warm; ///< contexts retained by warmUp(), for the process's life
};

} // namespace

int runRunnerServer() {
    QTemporaryDir outputDir(QDir::temp().filePath(QStringLiteral("kernelpad-runner-XXXXXX")));
    if (!outputDir.isValid()) {
        QTextStream(stderr) << "kernelpad-cli serve: cannot create a private temporary directory: "
                            << outputDir.errorString() << '\n';
        return kRunnerExitNoTempDir;
    }
    QFile::setPermissions(outputDir.path(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    dieWithParent();
    std::signal(SIGPIPE, SIG_IGN); // a vanished client is seen as a failed write instead
    QString captureError;
    const std::unique_ptr<ConsoleCapture> console =
        ConsoleCapture::start(kMaxConsoleBytes, &captureError);
    if (!console) {
        QTextStream(stderr) << "kernelpad-cli serve: " << captureError << '\n';
        return kRunnerExitNoCapture;
    }
    serve::Output out(console->protocolFd());
    QJsonObject hello{{"version", kRunnerProtocolVersion},
                      {"kernelpad", kernelpadVersion()},
                      {"pid", double(QCoreApplication::applicationPid())},
                      {"outputDir", outputDir.path()}};
    if (const QString step = slurmStep(); !step.isEmpty())
        hello.insert(QStringLiteral("batchStep"), step);
    out.send(RunnerMessage::make(MessageType::Hello, 0, hello));
    CompileCache cache;
    Channel channel(out, cache);
    RequestReader reader(channel, outputDir.path());
    std::thread readerThread([&reader] { reader.run(); });
    // Never destroyed: std::_Exit below ends the process without calling into the driver
    // (a poisoned one may crash in any call).
    RequestServer server(channel, *console, outputDir.path());
    if (const QString warm = qEnvironmentVariable("KERNELPAD_WARM_DEVICES"); !warm.isEmpty())
        server.warmUp(warm);
    server.serve();
    // The reader blocks in read() until stdin closes; detach so a poisoned runner can exit.
    readerThread.detach();
    outputDir.remove();
    // Skip static destructors that could call into a poisoned driver; Device > Lock Clocks'
    // lock is undone first (through NVML, which a poisoned context does not affect).
    restoreLockedClocks();
    std::_Exit(kRunnerExitOk);
}

} // namespace kernelpad
