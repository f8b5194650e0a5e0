// RunnerConnection's answers: what RunnerCodec decoded from the runner acted on (signals, the
// watchdog, the outputs read from the runner's folder or handed to the transfers), and the
// codec's errors turned into stop reasons; compile and program requests, whose answers these are.
// No parsing here.
#include "core/runner/RunnerConnection.h"

#include "core/compile/KernelSignature.h"
#include "core/io/SafeFile.h"
#include "core/io/Trace.h"
#include "core/launch/BufferInit.h"
#include "core/runner/RunnerHello.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <utility>

namespace kernelpad {

void RunnerConnection::requestCompile(quint64 id, const RunRequest& request,
                                      const QByteArray& program) {
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
    send(RunnerCodec::encodeCompile(id, sent, program));
}

void RunnerConnection::requestProgram(quint64 id, const RunRequest& request, const QString& arch) {
    QString error;
    m_programsPending.push_back(id);
    if (!start(&error)) {
        failPendingCompiles(error);
        return;
    }
    send(RunnerCodec::encodeProgram(id, request, arch));
}

void RunnerConnection::failPendingCompiles(const QString& why) {
    for (const quint64 id : std::exchange(m_compilesPending, {})) {
        CompileResult failed;
        failed.log = why;
        emit compiled(id, failed);
    }
    for (const quint64 id : std::exchange(m_programsPending, {}))
        emit programReady(id, {}, why);
}

void RunnerConnection::onReadyRead() {
    const QByteArray bytes = m_process->readAllStandardOutput();
    // Streaming may be switched on after start() (setStreamBuffers); the codec reads by it.
    m_codec.setPeer(m_spec, m_program, m_streamBuffers);
    for (const RunnerCodec::Event& event : m_codec.feed(bytes.constData(), bytes.size())) {
        onEvent(event);
        if (!m_process)
            return; // the event ended this runner
    }
}

QString RunnerConnection::protocolViolation(const QString& what) {
    const QString message =
        QStringLiteral("KernelPad's runner broke the protocol (%1), so it was stopped; a fresh "
                       "runner will serve the next run. Your source is unchanged.")
            .arg(what);
    qWarning("%s", qPrintable(message));
    m_stopReason = StopReason::Protocol;
    stopProcess();
    finishActive(RunStatus::CudaError, message);
    failPendingCompiles(message);
    return message;
}

void RunnerConnection::onEvent(const RunnerCodec::Event& e) {
    using Problem = RunnerCodec::Problem;
    switch (e.problem) {
    case Problem::None:
        break;
    case Problem::Unreadable:
        // Not a message (a tool wrapped around the runner may print a banner); nothing in it
        // is trusted.
        qWarning("KernelPad runner sent an unreadable line (%s)", qPrintable(e.error));
        return;
    case Problem::Greeting:
        startFailed(describeRunnerStartFailure(
            m_spec, QString(), m_stderrTail.join(QLatin1Char('\n')), QString::fromUtf8(e.text)));
        return;
    case Problem::VersionMismatch:
        startFailed(e.error);
        return;
    case Problem::TooLong:
    case Problem::BadFrame:
    case Problem::Violation: {
        const bool devices = e.type == MessageType::Devices && !e.frame;
        const QString message = protocolViolation(e.error);
        if (devices)
            emit devicesChanged({}, message); // whoever asked is told why it did not come
        return;
    }
    }
    if (e.frame) {
        onFrame(*e.frame, e.data);
        return;
    }
    switch (e.type) {
    case MessageType::Hello:
        m_helloTimer.stop();
        m_outputDir = m_codec.outputDir();
        break;
    case MessageType::Progress:
        if (!m_active || e.id != m_active->id)
            return;
        if (m_stopReason == StopReason::None)
            armKernelWatchdog(e.stage);
        emit runProgress(e.id, toString(e.stage), e.done, e.total);
        break;
    case MessageType::Result:
        onResult(e);
        break;
    case MessageType::Devices:
        m_devicesPending = false;
        emit devicesChanged(e.devices, e.deviceError);
        break;
    case MessageType::Resources:
        // Without resources the kernel could not be loaded; the panel keeps what it showed.
        if (e.resources)
            emit resourcesReady(e.id, e.kernel, *e.resources);
        break;
    case MessageType::Compile:
        if (m_compilesPending.removeOne(e.id))
            emit compiled(e.id, e.compile);
        break;
    case MessageType::Program:
        if (m_programsPending.removeOne(e.id))
            emit programReady(e.id, e.program, e.message);
        break;
    case MessageType::Error:
        onError(e.id, e.message);
        break;
    default:
        break;
    }
}

void RunnerConnection::onError(quint64 id, const QString& message) {
    if (m_programsPending.removeOne(id)) {
        emit programReady(id, {}, message);
    } else if (m_compilesPending.removeOne(id)) {
        CompileResult refused;
        refused.log = message;
        emit compiled(id, refused);
    } else if (m_transfers.endFetch(id)) {
        emit fetched(id, {}, message);
    } else if (m_active && id == m_active->id) {
        finishActive(RunStatus::BadInput, message);
    } else {
        qWarning("KernelPad runner: %s", qPrintable(message));
    }
}

void RunnerConnection::onFrame(const FrameHeader& header, const QByteArray& data) {
    RunnerTransfers::FrameOutcome outcome = m_transfers.onFrame(header, data);
    if (!outcome.violation.isEmpty()) {
        protocolViolation(outcome.violation);
        return;
    }
    if (outcome.fetchedId)
        emit fetched(*outcome.fetchedId, outcome.fetched, {});
    if (outcome.delivered)
        deliverResult(outcome.delivered->id, outcome.delivered->result,
                      outcome.delivered->poisoned);
}

void RunnerConnection::onResult(const RunnerCodec::Event& e) {
    if (!m_active || e.id != m_active->id)
        return;
    tracePhase("client: result message read");
    m_watchdog.stop();
    RunResult result = e.result;
    if (m_streamBuffers) {
        QString error;
        const json::FieldReader fields(e.body, &error);
        std::optional<RunnerTransfers::Delivery> ready;
        if (!m_transfers.announceOutputs(fields, e.id, m_active->outputBounds, std::move(result),
                                         e.poisoned, &ready, &error)) {
            protocolViolation(QStringLiteral("runner result message: %1").arg(error));
            return;
        }
        if (ready)
            deliverResult(ready->id, ready->result, ready->poisoned);
        return;
    }
    const QDir dir(m_outputDir);
    for (const auto& [listed, name] : e.outputFiles) {
        OutputBuffer b = listed;
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
    deliverResult(e.id, result, e.poisoned);
}

} // namespace kernelpad
