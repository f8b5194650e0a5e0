// kernelpad-cli serve: the executor in its own process, so that a faulting or hanging kernel
// can be killed without taking the editor down (DESIGN.md; protocol in core/runner/Protocol.h).

#include "app/cli/CliCommands.h"

#include "core/run/Executor.h"
#include "core/runner/Protocol.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

namespace kernelpad::cli {
namespace {

/// Writes protocol lines to stdout; progress comes from the run, answers from the loop.
class Output {
public:
    void send(const RunnerMessage& m)
    {
        const QByteArray line = encodeRunnerMessage(m);
        std::lock_guard lock(m_mutex);
        std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
        std::fflush(stdout);
    }

private:
    std::mutex m_mutex; // guards stdout
};

/// Requests read by a reader thread; "cancel" acts at once, everything else is queued.
class Inbox {
public:
    void push(RunnerMessage m)
    {
        {
            std::lock_guard lock(m_mutex);
            m_queue.push_back(std::move(m));
        }
        m_ready.notify_one();
    }
    RunnerMessage pop()
    {
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

QJsonArray writeOutputs(const QDir& dir, quint64 id, QVector<OutputBuffer>& outputs, QString* error)
{
    QJsonArray list;
    for (int k = 0; k < outputs.size(); ++k) {
        OutputBuffer& b = outputs[k];
        const QString name = QStringLiteral("%1-%2.bin").arg(id).arg(k);
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(b.data) != b.data.size()) {
            *error = QStringLiteral("could not write output buffer '%1' to %2: %3").arg(b.name, f.fileName(), f.errorString());
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

int runServe(const QStringList& args)
{
    if (!args.isEmpty()) {
        QTextStream(stderr) << "kernelpad-cli serve takes no arguments\n";
        return kExitBadInput;
    }
    QTemporaryDir outputDir(QDir::temp().filePath(QStringLiteral("kernelpad-runner-XXXXXX")));
    if (!outputDir.isValid()) {
        QTextStream(stderr) << "kernelpad-cli serve: cannot create a private temporary directory: "
                            << outputDir.errorString() << '\n';
        return kExitBadInput;
    }
    QFile::setPermissions(outputDir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    Output out;
    out.send(RunnerMessage::make(QStringLiteral("hello"), 0,
                                 {{"version", kRunnerProtocolVersion},
                                  {"pid", double(QCoreApplication::applicationPid())},
                                  {"outputDir", outputDir.path()}}));

    Inbox inbox;
    std::atomic_bool cancel{false};
    std::atomic<quint64> activeRun{0};
    std::thread reader([&] {
        std::string line;
        while (std::getline(std::cin, line)) {
            QString error;
            std::optional<RunnerMessage> m = decodeRunnerMessage(QByteArray::fromStdString(line), &error);
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
        inbox.push(RunnerMessage::make(QStringLiteral("shutdown"), 0)); // the client went away
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
            out.send(RunnerMessage::make(QStringLiteral("devices"), m.id,
                                         {{"devices", list}, {"error", error.isEmpty() ? QJsonValue() : QJsonValue(error)}}));
            continue;
        }
        QString error;
        const std::optional<RunRequest> request = RunRequest::fromJson(m.body.value("request").toObject(), &error);
        if (!request) {
            out.send(RunnerMessage::make(QStringLiteral("error"), m.id, {{"message", QStringLiteral("bad request: %1").arg(error)}}));
            continue;
        }
        if (m.type == QLatin1String("resources")) {
            const QString arch = request->project.options.arch.value_or(QString());
            QString why;
            QString resolvedArch = arch;
            if (resolvedArch.isEmpty()) {
                const QVector<DeviceInfo> devices = session.devices(&why);
                resolvedArch = request->device < devices.size() ? devices[request->device].arch() : QString::fromLatin1(kDefaultArch);
            }
            const CompileResult compiled = compileProject(request->project, request->projectDir, resolvedArch, &cache);
            const std::optional<KernelResources> r = compiled.ok
                ? session.kernelResources(compiled, request->project.kernel, request->project.launch, request->device, &why)
                : std::nullopt;
            QJsonObject body{{"kernel", request->project.kernel}};
            if (r)
                body.insert("resources", r->toJson());
            else
                body.insert("error", compiled.ok ? why : QStringLiteral("the source does not compile"));
            out.send(RunnerMessage::make(QStringLiteral("resources"), m.id, body));
            continue;
        }
        // "run"
        cancel = false;
        activeRun = m.id;
        RunResult result = session.run(*request, cancel, [&](const QString& stage, int done, int total) {
            out.send(RunnerMessage::make(QStringLiteral("progress"), m.id,
                                         {{"stage", stage}, {"done", done}, {"total", total}}));
        });
        activeRun = 0;
        const QJsonArray outputs = writeOutputs(dir, m.id, result.outputs, &error);
        if (!error.isEmpty() && result.error.isEmpty())
            result.error = error;
        out.send(RunnerMessage::make(QStringLiteral("result"), m.id,
                                     {{"result", result.toJson(true)}, {"outputs", outputs}, {"poisoned", session.isPoisoned()}}));
        if (session.isPoisoned())
            break; // a sticky error: this process must not touch the GPU again (GPU.md)
    }
    if (reader.joinable()) {
        // The reader blocks in getline until stdin closes; detach so a poisoned runner can exit.
        reader.detach();
    }
    outputDir.remove();
    std::fflush(stdout);
    // Skip static destructors that could call into a poisoned driver.
    std::_Exit(kExitOk);
}

} // namespace kernelpad::cli
