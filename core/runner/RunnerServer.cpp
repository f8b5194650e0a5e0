// The runner process's loop (kernelpad-cli serve): the ExecutionSession in its own process, so
// that a faulting or hanging kernel can be killed without taking the editor down
// (docs/ARCHITECTURE.md; protocol in core/runner/Protocol.h).

#include "core/runner/RunnerServer.h"

#include "core/io/JsonFields.h"
#include "core/io/Trace.h"
#include "core/launch/BufferInit.h"
#include "core/run/ExecutionSession.h"
#include "core/runner/ConsoleCapture.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerSpec.h"
#include "core/runner/StreamFiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QSet>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <sys/prctl.h>
#include <unistd.h>

namespace kernelpad {
namespace {

/// Writes protocol lines to the private descriptor; progress comes from the run, answers
/// from the loop.
class Output {
public:
    explicit Output(int fd)
        : m_fd(fd) {}
    void send(const RunnerMessage& m) {
        const QByteArray line = encodeRunnerMessage(m);
        std::lock_guard lock(m_mutex);
        writeAll(line.constData(), line.size());
    }
    void writeAll(const char* p, qint64 left) {
        while (left > 0) {
            const ssize_t n = ::write(m_fd, p, size_t(left));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                std::_Exit(kRunnerExitOk); // the client is gone: nobody to answer, free the GPU
            p += n;
            left -= n;
        }
    }
    /// `size` bytes as frames (Protocol.h); each frame is written whole under the lock, so
    /// progress from the run can never land inside one.
    void sendFrames(quint64 id, const QString& stream, qint64 offset, const char* data,
                    qint64 size) {
        qint64 done = 0;
        do {
            const qint64 n = std::min(kMaxFrameBytes, size - done);
            const QByteArray header =
                encodeFrameHeader(FrameHeader{id, stream, offset + done, n, done + n == size});
            std::lock_guard lock(m_mutex);
            writeAll(header.constData(), header.size());
            writeAll(data + done, n);
            done += n;
        } while (done < size);
    }

private:
    int m_fd;
    std::mutex m_mutex; // guards writes to m_fd
};

/// Ends this process when the process that started it ends, even while a kernel hangs.
void dieWithParent() {
    const pid_t parent = ::getppid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) // it ended before the signal was armed
        std::_Exit(kRunnerExitOk);
}

/// Requests read by a reader thread; "cancel" acts at once, everything else is queued.
class Inbox {
public:
    void push(RunnerMessage m) {
        {
            std::lock_guard lock(m_mutex);
            m_queue.push_back(std::move(m));
        }
        m_ready.notify_one();
    }
    RunnerMessage pop() {
        std::unique_lock lock(m_mutex);
        m_ready.wait(lock, [this] { return !m_queue.empty(); });
        RunnerMessage m = std::move(m_queue.front());
        m_queue.pop_front();
        return m;
    }

private:
    std::mutex m_mutex; // guards m_queue
    std::condition_variable m_ready;
    std::deque<RunnerMessage> m_queue;
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

// ---- Streamed buffers (Protocol.h): files in, outputs out, ranges on demand ----

/// The "stream" object of a run or resources request, read on the reader thread.
struct StreamSpec {
    QVector<std::pair<QString, qint64>> files; ///< name and announced size
    qint64 keepBeyondBytes = kDefaultKeepBeyondBytes;
};

std::optional<StreamSpec> readStreamSpec(const QJsonObject& body, QString* error) {
    QJsonObject stream;
    const json::FieldReader top(body, error);
    if (!top.readObject(QStringLiteral("stream"), &stream, json::Presence::Required))
        return std::nullopt;
    const json::FieldReader fields = top.nested(QStringLiteral("stream"), stream);
    StreamSpec spec;
    const bool read =
        fields.readObjects(
            QStringLiteral("files"),
            [&spec, &fields](const json::FieldReader& item) {
                QString name;
                qint64 bytes = 0;
                if (!item.readString(QStringLiteral("name"), &name, json::Presence::Required) ||
                    !item.readWholeNumber(QStringLiteral("bytes"), &bytes, json::Presence::Required,
                                          {0, kMaxBufferBytes}))
                    return false;
                if (!isSafeStreamName(name))
                    return item.fail(
                        item.path(QStringLiteral("name")) +
                        QStringLiteral(": '%1' is not a plain relative name").arg(name.left(64)));
                for (const auto& f : spec.files)
                    if (f.first == name)
                        return item.fail(item.path(QStringLiteral("name")) +
                                         QStringLiteral(": '%1' is listed twice").arg(name));
                if (spec.files.size() >= kMaxStreamedFiles)
                    return item.fail(fields.path(QStringLiteral("files")) +
                                     QStringLiteral(": more than %1 files").arg(kMaxStreamedFiles));
                spec.files.push_back({name, bytes});
                return true;
            },
            json::Presence::Required) &&
        fields.readWholeNumber(QStringLiteral("keepBeyondBytes"), &spec.keepBeyondBytes,
                               json::Presence::Optional, {0, kMaxBufferBytes});
    if (!read)
        return std::nullopt;
    return spec;
}

/// A request whose files are still arriving in frames; written into `dir` as they come.
class IncomingFiles {
public:
    IncomingFiles(RunnerMessage message, const StreamSpec& spec, const QString& dir)
        : m_message(std::move(message))
        , m_dir(dir) {
        for (const auto& [name, bytes] : spec.files)
            m_files[name] = File{bytes, 0, nullptr};
    }
    [[nodiscard]] quint64 id() const { return m_message.id; }
    [[nodiscard]] bool complete() const {
        return std::all_of(m_files.begin(), m_files.end(),
                           [](const auto& f) { return f.second.done; });
    }
    /// Creates the folder and the empty files; false with a message when it cannot.
    bool open(QString* error) {
        for (auto& [name, f] : m_files) {
            const QString path = QDir(m_dir).filePath(name);
            if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
                *error = QStringLiteral("cannot create a folder for '%1' in %2").arg(name, m_dir);
                return false;
            }
            f.file = std::make_unique<QFile>(path);
            if (!f.file->open(QIODevice::WriteOnly)) {
                *error = QStringLiteral("cannot write '%1': %2").arg(path, f.file->errorString());
                return false;
            }
            if (f.bytes == 0)
                f.done = true; // an empty file needs no frame
        }
        return true;
    }
    /// Takes one frame; false with a message naming the field when it breaks the rules.
    bool take(const FrameHeader& h, const QByteArray& data, QString* error) {
        const auto it = m_files.find(h.stream);
        if (it == m_files.end() || it->second.done) {
            *error = QStringLiteral("frame.stream: '%1' was not announced by request %2 or is "
                                    "complete")
                         .arg(h.stream.left(64))
                         .arg(m_message.id);
            return false;
        }
        File& f = it->second;
        if (h.offset != f.received) {
            *error = QStringLiteral("frame.offset: %1 for '%2', expected %3")
                         .arg(h.offset)
                         .arg(h.stream)
                         .arg(f.received);
            return false;
        }
        if (f.received + h.bytes > f.bytes) {
            *error = QStringLiteral("frame.bytes: %1 at offset %2 runs past the %3 bytes "
                                    "announced for '%4'")
                         .arg(h.bytes)
                         .arg(h.offset)
                         .arg(f.bytes)
                         .arg(h.stream);
            return false;
        }
        if (h.last != (f.received + h.bytes == f.bytes)) {
            *error = QStringLiteral("frame.last: %1 at offset %2 of '%3' (%4 bytes announced)")
                         .arg(h.last ? QStringLiteral("true") : QStringLiteral("false"))
                         .arg(h.offset)
                         .arg(h.stream)
                         .arg(f.bytes);
            return false;
        }
        if (f.file->write(data) != data.size()) {
            *error = QStringLiteral("cannot write '%1': %2").arg(h.stream, f.file->errorString());
            return false;
        }
        f.received += h.bytes;
        if (h.last) {
            f.done = true;
            f.file->close();
        }
        return true;
    }
    /// The request, its project folder pointed at the files.
    RunnerMessage release() {
        QJsonObject request = m_message.body.value(QStringLiteral("request")).toObject();
        request.insert(QStringLiteral("projectDir"), m_dir);
        m_message.body.insert(QStringLiteral("request"), request);
        return std::move(m_message);
    }

private:
    struct File {
        qint64 bytes = 0;
        qint64 received = 0;
        std::unique_ptr<QFile> file;
        bool done = false;
    };
    RunnerMessage m_message;
    QString m_dir;
    std::map<QString, File> m_files;
};

/// The outputs of the last streamed run, kept for "fetch" until the next run replaces them.
struct KeptOutputs {
    quint64 run = 0;
    QVector<OutputBuffer> buffers;
};

/// Lists the outputs for the result; the ones at most `keepBeyondBytes` go out as frames
/// after it (streamOutputs), all stay in `kept`.
QJsonArray listStreamedOutputs(const QVector<OutputBuffer>& outputs, qint64 keepBeyondBytes) {
    QJsonArray list;
    for (const OutputBuffer& b : outputs) {
        QJsonObject item{{"name", b.name},
                         {"type", b.type.toJson()},
                         {"count", double(b.count)},
                         {"bytes", double(b.data.size())}};
        item.insert(b.data.size() > keepBeyondBytes ? QStringLiteral("kept")
                                                    : QStringLiteral("stream"),
                    true);
        list.append(item);
    }
    return list;
}

void streamOutputs(Output& out, quint64 id, const QVector<OutputBuffer>& outputs,
                   qint64 keepBeyondBytes) {
    for (const OutputBuffer& b : outputs)
        if (b.data.size() <= keepBeyondBytes)
            out.sendFrames(id, b.name, 0, b.data.constData(), b.data.size());
}

/// Answers a "fetch" from the kept outputs: frames of the range, or an error naming the field.
void answerFetch(Output& out, const RunnerMessage& m, const KeptOutputs& kept) {
    QString error;
    const json::FieldReader fields(m.body, &error);
    constexpr auto required = json::Presence::Required;
    qint64 run = 0, offset = 0, bytes = 0;
    QString name;
    if (fields.readWholeNumber(QStringLiteral("run"), &run, required,
                               {0, kExactDoubleIntegerLimit - 1}) &&
        fields.readString(QStringLiteral("buffer"), &name, required) &&
        fields.readWholeNumber(QStringLiteral("offset"), &offset, required, {0, kMaxBufferBytes}) &&
        fields.readWholeNumber(QStringLiteral("bytes"), &bytes, required, {0, kMaxBufferBytes})) {
        const OutputBuffer* found = nullptr;
        for (const OutputBuffer& b : kept.buffers)
            if (b.name == name)
                found = &b;
        if (quint64(run) != kept.run || kept.run == 0)
            error = QStringLiteral("run: the outputs of run %1 are no longer on the runner%2")
                        .arg(run)
                        .arg(kept.run ? QStringLiteral(" (run %1 replaced them)").arg(kept.run)
                                      : QString());
        else if (!found)
            error = QStringLiteral("buffer: run %1 has no output '%2'").arg(run).arg(name.left(64));
        else if (offset + bytes > found->data.size())
            error = QStringLiteral("offset: %1 + bytes: %2 runs past the end of '%3' (%4 bytes)")
                        .arg(offset)
                        .arg(bytes)
                        .arg(name)
                        .arg(found->data.size());
        else {
            out.sendFrames(m.id, name, offset, found->data.constData() + offset, bytes);
            return;
        }
    }
    out.send(RunnerMessage::make(QStringLiteral("error"), m.id,
                                 {{"message", QStringLiteral("fetch: %1").arg(error)}}));
}

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
    Output out(console->protocolFd());
    out.send(RunnerMessage::make(QStringLiteral("hello"), 0,
                                 {{"version", kRunnerProtocolVersion},
                                  {"kernelpad", kernelpadVersion()},
                                  {"pid", double(QCoreApplication::applicationPid())},
                                  {"outputDir", outputDir.path()}}));

    Inbox inbox;
    std::atomic_bool cancel{false};
    std::atomic<quint64> activeRun{0};
    const QString inputRoot = outputDir.path();
    std::thread reader([&] {
        ProtocolReader protocol;
        std::optional<IncomingFiles> incoming; // a streamed request waiting for its files
        char buffer[64 * 1024];
        bool broken = false; // a bad frame header: nothing after it can be read
        while (!broken) {
            const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            for (ProtocolReader::Item& item : protocol.feed(buffer, n)) {
                if (item.frame) {
                    QString frameError;
                    if (!incoming || incoming->id() != item.frame->id)
                        frameError = QStringLiteral("frame.id: no request %1 is waiting for files")
                                         .arg(item.frame->id);
                    else
                        (void)incoming->take(*item.frame, item.data, &frameError);
                    if (!frameError.isEmpty()) {
                        incoming.reset(); // the request is dropped with its files
                        out.send(RunnerMessage::make(QStringLiteral("error"), item.frame->id,
                                                     {{"message", frameError}}));
                    } else if (incoming->complete()) {
                        inbox.push(incoming->release());
                        incoming.reset();
                    }
                    continue;
                }
                if (item.fatal) {
                    out.send(
                        RunnerMessage::make(QStringLiteral("error"), 0, {{"message", item.error}}));
                    broken = true;
                    break;
                }
                QString error = item.error;
                std::optional<RunnerMessage> m = std::move(item.message);
                if (item.tooLong)
                    error = QStringLiteral("a request longer than %1 bytes was refused")
                                .arg(kMaxRunnerMessageBytes);
                if (m && !isRunnerRequestType(m->type)) {
                    error = QStringLiteral("'%1' is not a request").arg(m->type);
                    m.reset();
                }
                if (!m) {
                    out.send(RunnerMessage::make(QStringLiteral("error"), 0, {{"message", error}}));
                    continue;
                }
                if (m->type == QLatin1String("cancel")) {
                    if (m->id == activeRun.load())
                        cancel = true;
                    continue;
                }
                if (m->body.contains(QStringLiteral("stream"))) {
                    // Streamed buffers: the request waits here until its files are in.
                    const std::optional<StreamSpec> spec = readStreamSpec(m->body, &error);
                    const QString dir =
                        QDir(inputRoot).filePath(QStringLiteral("in-%1").arg(m->id));
                    incoming.reset();
                    if (spec) {
                        QDir(dir).removeRecursively();
                        incoming.emplace(std::move(*m), *spec, dir);
                        if (!incoming->open(&error))
                            incoming.reset();
                    }
                    if (!incoming) {
                        QDir(dir).removeRecursively();
                        out.send(RunnerMessage::make(
                            QStringLiteral("error"), m ? m->id : 0,
                            {{"message", QStringLiteral("bad request: %1").arg(error)}}));
                    } else if (incoming->complete()) {
                        inbox.push(incoming->release());
                        incoming.reset();
                    }
                    continue;
                }
                const bool last = m->type == QLatin1String("shutdown");
                inbox.push(std::move(*m));
                if (last)
                    return;
            }
        }
        // The client went away. A run in progress may be a kernel that never ends: waiting for
        // it would keep the GPU for ever, so the process ends now (the driver frees the GPU).
        if (activeRun.load() != 0)
            std::_Exit(kRunnerExitOk);
        inbox.push(RunnerMessage::make(QStringLiteral("shutdown"), 0));
    });

    CompileCache cache;
    ExecutionSession session(&cache);
    const QDir dir(outputDir.path());
    KeptOutputs kept;
    for (;;) {
        const RunnerMessage m = inbox.pop();
        if (m.type == QLatin1String("shutdown"))
            break;
        if (m.type == QLatin1String("fetch")) {
            answerFetch(out, m, kept);
            continue;
        }
        if (m.type == QLatin1String("devices")) {
            QString error;
            QJsonArray list;
            for (const DeviceInfo& d : session.devices(&error))
                list.append(d.toJson());
            out.send(RunnerMessage::make(
                QStringLiteral("devices"), m.id,
                {{"devices", list},
                 {"error", error.isEmpty() ? QJsonValue() : QJsonValue(error)}}));
            continue;
        }
        QString error;
        QJsonObject requestJson;
        const bool hasRequest =
            json::FieldReader(m.body, &error)
                .readObject(QStringLiteral("request"), &requestJson, json::Presence::Required);
        std::optional<RunRequest> request =
            hasRequest ? RunRequest::fromJson(requestJson, &error) : std::nullopt;
        // Streamed buffers: the request names only the files sent with it, in a folder of
        // this runner's own (IncomingFiles::release), removed once the request is answered.
        std::optional<StreamSpec> stream;
        if (request && m.body.contains(QStringLiteral("stream"))) {
            stream = readStreamSpec(m.body, &error);
            QSet<QString> names;
            for (const auto& f : stream ? stream->files : QVector<std::pair<QString, qint64>>())
                names.insert(f.first);
            const QString problem = stream ? checkStreamedPaths(*request, names) : error;
            if (!problem.isEmpty()) {
                error = problem;
                QDir(request->projectDir).removeRecursively();
                stream.reset();
                request.reset();
            }
        }
        if (!request) {
            out.send(
                RunnerMessage::make(QStringLiteral("error"), m.id,
                                    {{"message", QStringLiteral("bad request: %1").arg(error)}}));
            continue;
        }
        const auto removeInputs = [&] {
            if (stream)
                QDir(request->projectDir).removeRecursively();
        };
        const auto resolveArch = [&](QString* why) {
            const QString arch = request->project.options.arch.value_or(QString());
            if (!arch.isEmpty())
                return arch;
            const QVector<DeviceInfo> devices = session.devices(why);
            return request->device < devices.size() ? devices[request->device].arch()
                                                    : QString::fromLatin1(kDefaultArch);
        };
        if (m.type == QLatin1String("compile")) {
            QString why;
            const CompileResult compiled =
                compileProject(request->project, request->projectDir, resolveArch(&why), &cache);
            out.send(RunnerMessage::make(QStringLiteral("compile"), m.id,
                                         {{"result", compiled.toJson()}}));
            removeInputs();
            continue;
        }
        if (m.type == QLatin1String("resources")) {
            QString why;
            const CompileResult compiled =
                compileProject(request->project, request->projectDir, resolveArch(&why), &cache);
            const std::optional<KernelResources> r =
                compiled.ok
                    ? session.kernelResources(compiled, request->project.kernel,
                                              request->project.launch, request->device, &why)
                    : std::nullopt;
            QJsonObject body{{"kernel", request->project.kernel}};
            if (r)
                body.insert("resources", r->toJson());
            else
                body.insert("error",
                            compiled.ok ? why : QStringLiteral("the source does not compile"));
            out.send(RunnerMessage::make(QStringLiteral("resources"), m.id, body));
            removeInputs();
            continue;
        }
        // "run"
        tracePhase("runner: run request read");
        cancel = false;
        activeRun = m.id;
        kept = KeptOutputs();  // the next run replaces what the last one kept
        (void)console->take(); // output from before this run (a library's chatter) is not its
        // The verified launch's output is taken when the host starts checking it ("verifying",
        // right after that launch's synchronisation); later launches print the same again.
        std::optional<ConsoleOutput> firstLaunch;
        RunResult result =
            session.run(*request, cancel, [&](const QString& stage, int done, int total) {
                if (!firstLaunch && stage == QLatin1String("verifying"))
                    firstLaunch = console->take();
                out.send(RunnerMessage::make(QStringLiteral("progress"), m.id,
                                             {{"stage", stage}, {"done", done}, {"total", total}}));
            });
        activeRun = 0;
        const ConsoleOutput rest = console->take();
        if (firstLaunch) {
            result.console = *firstLaunch;
            result.console.laterBytes = rest.totalBytes;
        } else {
            result.console = rest; // the run ended before its output was checked
        }
        removeInputs();
        if (stream) {
            // Streamed: the small outputs follow the result as frames; every output stays
            // here for "fetch" until the next run.
            out.send(RunnerMessage::make(
                QStringLiteral("result"), m.id,
                {{"result", result.toJson(true)},
                 {"outputs", listStreamedOutputs(result.outputs, stream->keepBeyondBytes)},
                 {"poisoned", session.isPoisoned()}}));
            streamOutputs(out, m.id, result.outputs, stream->keepBeyondBytes);
            kept = KeptOutputs{m.id, std::move(result.outputs)};
            tracePhase("runner: result sent");
            if (session.isPoisoned())
                break;
            continue;
        }
        const QJsonArray outputs = writeOutputs(dir, m.id, result.outputs, &error);
        if (!error.isEmpty() && result.error.isEmpty())
            result.error = error;
        out.send(RunnerMessage::make(QStringLiteral("result"), m.id,
                                     {{"result", result.toJson(true)},
                                      {"outputs", outputs},
                                      {"poisoned", session.isPoisoned()}}));
        tracePhase("runner: result sent");
        if (session.isPoisoned())
            break; // a sticky error: this process must not touch the GPU again: after an illegal
                   // address even a reset context fails
    }
    if (reader.joinable()) {
        // The reader blocks in getline until stdin closes; detach so a poisoned runner can exit.
        reader.detach();
    }
    outputDir.remove();
    // Skip static destructors that could call into a poisoned driver.
    std::_Exit(kRunnerExitOk);
}

} // namespace kernelpad
