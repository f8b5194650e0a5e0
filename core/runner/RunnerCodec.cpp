// RunnerCodec: the runner's protocol channel read into messages and frames, the hello checked,
// each answer (progress, result, devices, resources, compile, error) decoded into a value, and
// the client's requests encoded. No process here: RunnerConnection feeds it and acts.
#include "core/runner/RunnerCodec.h"

#include "core/io/JsonFields.h"
#include "core/runner/RunnerHello.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <sys/stat.h>
#include <unistd.h>

namespace kernelpad {

QString RunnerCodec::checkOutputDir(const QString& dir) {
    // The client deletes this folder when the runner ends, so it must be one the runner made
    // for itself: a `kernelpad-runner-*` folder, not a link, owned by this user and closed to
    // everyone else.
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

void RunnerCodec::setPeer(const RunnerSpec& spec, const QString& program, bool streamed) {
    m_spec = spec;
    m_program = program;
    m_streamed = streamed;
}

void RunnerCodec::reset() {
    m_reader = ProtocolReader();
    m_helloSeen = false;
    m_outputDir.clear();
    m_batchStep.clear();
}

void RunnerCodec::fail(Event* e, Problem problem, const QString& error) {
    e->problem = problem;
    e->error = error;
}

QVector<RunnerCodec::Event> RunnerCodec::feed(const char* data, qsizetype size) {
    QVector<Event> events;
    for (ProtocolReader::Item& item : m_reader.feed(data, size)) {
        Event e;
        if (item.tooLong) {
            fail(&e, Problem::TooLong,
                 QStringLiteral("it sent a message longer than %1 bytes")
                     .arg(kMaxRunnerMessageBytes));
        } else if (item.fatal) {
            fail(&e, Problem::BadFrame, item.error);
        } else if (item.frame) {
            e.frame = std::move(item.frame);
            e.data = std::move(item.data);
        } else if (!item.message) {
            // Elsewhere, nothing but the runner should speak first: a shell's greeting or a
            // "command not found" is quoted to the user. Here, a tool wrapped around the runner
            // may print a banner; the channel carries nothing a kernel printed.
            fail(&e, !m_helloSeen && !m_spec.isLocal() ? Problem::Greeting : Problem::Unreadable,
                 item.error);
            e.text = std::move(item.text);
        } else {
            decode(*item.message, &e);
        }
        events.push_back(std::move(e));
    }
    return events;
}

void RunnerCodec::decodeHello(const RunnerMessage& m, Event* e) {
    if (m_helloSeen) {
        fail(e, Problem::Violation, QStringLiteral("a second hello"));
        return;
    }
    m_helloSeen = true;
    QString error;
    const json::FieldReader fields(m.body, &error);
    int version = -1;
    QString dir;
    QString release; // sent since protocol 1's KernelPad 0.1; an older runner leaves it out
    QString step;    // only under a batch system
    if (!fields.readInt(QStringLiteral("version"), &version, json::Presence::Required) ||
        !fields.readString(QStringLiteral("outputDir"), &dir, json::Presence::Required) ||
        !fields.readString(QStringLiteral("kernelpad"), &release, json::Presence::Optional) ||
        !fields.readString(QStringLiteral("batchStep"), &step, json::Presence::Optional)) {
        fail(e, Problem::Violation, QStringLiteral("runner hello: %1").arg(error));
        return;
    }
    // Quoted in messages only: a job id, an array index, a step ("12", "12_3", "12.0").
    static const QRegularExpression stepId(
        QStringLiteral(R"(^[0-9]{1,20}(_[0-9]{1,10})?(\.[0-9]{1,10})?$)"));
    if (stepId.match(step).hasMatch())
        m_batchStep = step;
    if (!m_spec.isLocal()) {
        if (const QString mismatch = describeVersionMismatch(m_spec, version, release);
            !mismatch.isEmpty()) {
            fail(e, Problem::VersionMismatch,
                 QStringLiteral("KernelPad's runner cannot be used: ") + mismatch);
            return;
        }
    }
    if (version != kRunnerProtocolVersion) {
        fail(e, Problem::Violation,
             QStringLiteral("it speaks protocol version %1 and this KernelPad speaks %2: update "
                            "the %3 so both come from the same KernelPad release (%4)")
                 .arg(version)
                 .arg(kRunnerProtocolVersion)
                 .arg(version < kRunnerProtocolVersion ? QStringLiteral("runner")
                                                       : QStringLiteral("KernelPad application"),
                      m_program));
        return;
    }
    // A runner with streamed buffers may be on another computer: its folder is not ours to
    // check or delete. A runner elsewhere always streams, so a folder it names on this
    // computer is never read or removed here.
    if (m_streamed || !m_spec.isLocal())
        return;
    if (const QString problem = checkOutputDir(dir); !problem.isEmpty()) {
        fail(e, Problem::Violation, problem);
        return;
    }
    m_outputDir = dir;
}

bool RunnerCodec::decodeResult(const RunnerMessage& m, Event* e, QString* error) const {
    const json::FieldReader fields(m.body, error);
    constexpr auto required = json::Presence::Required;
    QJsonObject json;
    if (!fields.readObject(QStringLiteral("result"), &json, required)) {
        *error = QStringLiteral("runner result message: %1").arg(*error);
        return false;
    }
    std::optional<RunResult> read = RunResult::fromJson(json, error);
    if (!read) {
        *error = QStringLiteral("runner result: %1").arg(*error);
        return false;
    }
    e->result = std::move(*read);
    // The result's JSON names its outputs without their contents; the contents come as files
    // or frames, listed beside it. Only those are kept, or every output would appear twice.
    e->result.outputs.clear();
    bool read2 = fields.readBool(QStringLiteral("poisoned"), &e->poisoned, required);
    // Streamed outputs are announced to RunnerTransfers, which reads their list from `body`.
    if (read2 && !m_streamed) {
        read2 = fields.readObjects(
            QStringLiteral("outputs"),
            [e](const json::FieldReader& item) {
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
                e->outputFiles.append({std::move(b), file});
                return true;
            },
            required);
    }
    if (!read2)
        *error = QStringLiteral("runner result message: %1").arg(*error);
    return read2;
}

void RunnerCodec::decode(const RunnerMessage& m, Event* e) {
    e->type = m.type;
    e->id = m.id;
    e->body = m.body;
    if (m.type == MessageType::Hello) {
        decodeHello(m, e);
        return;
    }
    if (!m_helloSeen) {
        fail(e, Problem::Violation, QStringLiteral("'%1' before its hello").arg(toString(m.type)));
        return;
    }
    QString error;
    const json::FieldReader fields(m.body, &error);
    constexpr auto required = json::Presence::Required;
    const auto violation = [e, &error](const char* what) {
        fail(e, Problem::Violation, QStringLiteral("%1: %2").arg(QLatin1String(what), error));
    };
    switch (m.type) {
    case MessageType::Progress: {
        QString stageText;
        if (!fields.readString(QStringLiteral("stage"), &stageText, required) ||
            !fields.readInt(QStringLiteral("done"), &e->done, required) ||
            !fields.readInt(QStringLiteral("total"), &e->total, required))
            return violation("runner progress");
        const std::optional<RunStage> stage = runStageFromString(stageText);
        // The watchdog keys on the stage; one it cannot name would go unwatched.
        if (!stage)
            return fail(e, Problem::Violation,
                        QStringLiteral("runner progress: stage: unknown stage '%1'")
                            .arg(stageText.left(64)));
        e->stage = *stage;
        return;
    }
    case MessageType::Result:
        if (!decodeResult(m, e, &error))
            fail(e, Problem::Violation, error);
        return;
    case MessageType::Devices: {
        const bool read = fields.readObjects(
                              QStringLiteral("devices"),
                              [e](const json::FieldReader& item) {
                                  std::optional<DeviceInfo> d = DeviceInfo::fromJson(
                                      item.object(), item.error(), item.where());
                                  if (d)
                                      e->devices.push_back(std::move(*d));
                                  return d.has_value();
                              },
                              required) &&
                          fields.readString(QStringLiteral("error"), &e->deviceError,
                                            json::Presence::NullIsAbsent);
        if (!read)
            violation("runner devices");
        return;
    }
    case MessageType::Resources: {
        QJsonObject json;
        if (!fields.readString(QStringLiteral("kernel"), &e->kernel, required) ||
            !fields.readObject(QStringLiteral("resources"), &json))
            return violation("runner resources");
        // Without "resources" the kernel could not be loaded: its "error" says why.
        if (!fields.has(QStringLiteral("resources")))
            return;
        e->resources =
            KernelResources::fromJson(json, &error, fields.path(QStringLiteral("resources")));
        if (!e->resources)
            violation("runner resources");
        return;
    }
    case MessageType::Compile: {
        QJsonObject json;
        if (!fields.readObject(QStringLiteral("result"), &json, required))
            return violation("runner compile");
        std::optional<CompileResult> result =
            CompileResult::fromJson(json, &error, QStringLiteral("result"));
        if (!result)
            return violation("runner compile");
        e->compile = std::move(*result);
        return;
    }
    case MessageType::Program: {
        QString text;
        if (!fields.readString(QStringLiteral("error"), &e->message) ||
            !fields.readString(QStringLiteral("program"), &text))
            return violation("runner program");
        if (!e->message.isEmpty())
            return; // the runner holds no such program: the message says why
        e->program =
            QByteArray::fromBase64(text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
        if (e->program.isEmpty()) {
            error = QStringLiteral("program: neither an error nor a program in base64");
            return violation("runner program");
        }
        return;
    }
    case MessageType::Error:
        if (!fields.readString(QStringLiteral("message"), &e->message, required))
            violation("runner error");
        return;
    default:
        // Requests and frames never come from the runner as messages; they were ignored
        // before this codec existed and still are.
        return;
    }
}

QByteArray RunnerCodec::encodeRequest(MessageType type, quint64 id, const RunRequest& request) {
    return encodeRunnerMessage(RunnerMessage::make(type, id, {{"request", request.toJson()}}));
}

QByteArray RunnerCodec::encodeRun(quint64 id, const RunRequest& request) {
    return encodeRequest(MessageType::Run, id, request);
}

QByteArray RunnerCodec::encodeCompile(quint64 id, const RunRequest& request,
                                      const QByteArray& program) {
    QJsonObject body{{"request", request.toJson()}};
    if (!program.isEmpty())
        body.insert(QStringLiteral("program"), QString::fromLatin1(program.toBase64()));
    return encodeRunnerMessage(RunnerMessage::make(MessageType::Compile, id, body));
}

QByteArray RunnerCodec::encodeProgram(quint64 id, const RunRequest& request, const QString& arch) {
    return encodeRunnerMessage(RunnerMessage::make(
        MessageType::Program, id, {{"request", request.toJson()}, {"arch", arch}}));
}

QByteArray RunnerCodec::encodeDevices(quint64 id) {
    return encodeRunnerMessage(RunnerMessage::make(MessageType::Devices, id));
}

QByteArray RunnerCodec::encodeCancel(quint64 id) {
    return encodeRunnerMessage(RunnerMessage::make(MessageType::Cancel, id));
}

QByteArray RunnerCodec::encodeShutdown() {
    return encodeRunnerMessage(RunnerMessage::make(MessageType::Shutdown, 0));
}

QByteArray RunnerCodec::encodeFetch(quint64 id, quint64 run, const QString& buffer, qint64 offset,
                                    qint64 bytes) {
    return encodeRunnerMessage(RunnerMessage::make(MessageType::Fetch, id,
                                                   {{"run", double(run)},
                                                    {"buffer", buffer},
                                                    {"offset", double(offset)},
                                                    {"bytes", double(bytes)}}));
}

} // namespace kernelpad
