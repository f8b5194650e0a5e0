// RunnerConnection's codec: the runner's protocol channel read into messages, the hello
// checked, and each answer (progress, result, devices, resources, compile, error) turned into
// a value and a signal. A message that breaks the protocol stops the runner.
#include "core/runner/RunnerConnection.h"

#include "core/io/JsonFields.h"
#include "core/io/SafeFile.h"
#include "core/io/Trace.h"
#include "core/launch/BufferInit.h"
#include "core/runner/RunnerHello.h"
#include "core/runner/StreamFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>

#include <sys/stat.h>
#include <unistd.h>

namespace kernelpad {
namespace {

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

} // namespace

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
    m_stopReason = StopReason::Protocol;
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
    if (m.type == MessageType::Hello) {
        acceptHello(m);
        return;
    }
    if (!m_helloSeen) {
        protocolViolation(QStringLiteral("'%1' before its hello").arg(toString(m.type)));
        return;
    }
    QString error;
    const json::FieldReader fields(m.body, &error);
    constexpr auto required = json::Presence::Required;
    if (m.type == MessageType::Progress) {
        if (!m_active || m.id != m_active->id)
            return;
        QString stageText;
        int done = 0, total = 0;
        if (!fields.readString(QStringLiteral("stage"), &stageText, required) ||
            !fields.readInt(QStringLiteral("done"), &done, required) ||
            !fields.readInt(QStringLiteral("total"), &total, required)) {
            protocolViolation(QStringLiteral("runner progress: %1").arg(error));
            return;
        }
        const std::optional<RunStage> stage = runStageFromString(stageText);
        if (!stage) {
            // The watchdog keys on the stage; one it cannot name would go unwatched.
            protocolViolation(QStringLiteral("runner progress: stage: unknown stage '%1'")
                                  .arg(stageText.left(64)));
            return;
        }
        if (m_stopReason == StopReason::None)
            armKernelWatchdog(*stage);
        emit runProgress(m.id, toString(*stage), done, total);
    } else if (m.type == MessageType::Result) {
        onResult(m);
    } else if (m.type == MessageType::Devices) {
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
    } else if (m.type == MessageType::Resources) {
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
    } else if (m.type == MessageType::Compile) {
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
    } else if (m.type == MessageType::Error) {
        QString message;
        if (!fields.readString(QStringLiteral("message"), &message, required)) {
            protocolViolation(QStringLiteral("runner error: %1").arg(error));
            return;
        }
        if (m_compilesPending.removeOne(m.id)) {
            CompileResult refused;
            refused.log = message;
            emit compiled(m.id, refused);
        } else if (m_transfers.endFetch(m.id)) {
            emit fetched(m.id, {}, message);
        } else if (m_active && m.id == m_active->id) {
            finishActive(RunStatus::BadInput, message);
        } else {
            qWarning("KernelPad runner: %s", qPrintable(message));
        }
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
        std::optional<RunnerTransfers::Delivery> ready;
        if (!fields.readBool(QStringLiteral("poisoned"), &poisonedRunner, required) ||
            !m_transfers.announceOutputs(fields, m.id, m_active->outputBounds, std::move(result),
                                         poisonedRunner, &ready, &error)) {
            protocolViolation(QStringLiteral("runner result message: %1").arg(error));
            return;
        }
        if (ready)
            deliverResult(ready->id, ready->result, ready->poisoned);
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

} // namespace kernelpad
