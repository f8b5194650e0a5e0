// The runner process's loop (kernelpad-cli serve): the ExecutionSession in its own process, so
// that a faulting or hanging kernel can be killed without taking the editor down (DESIGN.md;
// protocol in core/runner/Protocol.h).

#include "core/runner/RunnerServer.h"

#include "core/io/JsonFields.h"
#include "core/io/Trace.h"
#include "core/run/ExecutionSession.h"
#include "core/runner/ConsoleCapture.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerSpec.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTextStream>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
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
        const char* p = line.constData();
        qsizetype left = line.size();
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
    std::thread reader([&] {
        LineSplitter splitter;
        char buffer[64 * 1024];
        for (;;) {
            const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            for (const LineSplitter::Line& line : splitter.feed(buffer, n)) {
                QString error;
                std::optional<RunnerMessage> m;
                if (line.tooLong)
                    error = QStringLiteral("a request longer than %1 bytes was refused")
                                .arg(kMaxRunnerMessageBytes);
                else
                    m = decodeRunnerMessage(line.bytes, &error);
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
    for (;;) {
        const RunnerMessage m = inbox.pop();
        if (m.type == QLatin1String("shutdown"))
            break;
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
        const std::optional<RunRequest> request =
            hasRequest ? RunRequest::fromJson(requestJson, &error) : std::nullopt;
        if (!request) {
            out.send(
                RunnerMessage::make(QStringLiteral("error"), m.id,
                                    {{"message", QStringLiteral("bad request: %1").arg(error)}}));
            continue;
        }
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
            continue;
        }
        // "run"
        tracePhase("runner: run request read");
        cancel = false;
        activeRun = m.id;
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
        const QJsonArray outputs = writeOutputs(dir, m.id, result.outputs, &error);
        if (!error.isEmpty() && result.error.isEmpty())
            result.error = error;
        out.send(RunnerMessage::make(QStringLiteral("result"), m.id,
                                     {{"result", result.toJson(true)},
                                      {"outputs", outputs},
                                      {"poisoned", session.isPoisoned()}}));
        tracePhase("runner: result sent");
        if (session.isPoisoned())
            break; // a sticky error: this process must not touch the GPU again (GPU.md)
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
