#include "core/runner/RunnerServerPrograms.h"

#include "core/compile/CompileCache.h"
#include "core/compile/DiskCompileCache.h"
#include "core/io/JsonFields.h"
#include "core/io/Trace.h"
#include "core/run/ExecutionSession.h"
#include "core/run/RunTypes.h"
#include "core/runner/RunnerServerStreams.h"

namespace kernelpad::serve {

void answerProgram(Output& out, const RunnerMessage& m, CompileCache& cache) {
    QString error;
    QJsonObject requestJson;
    QString arch;
    const json::FieldReader fields(m.body, &error);
    std::optional<RunRequest> request;
    if (fields.readObject(QStringLiteral("request"), &requestJson, json::Presence::Required) &&
        fields.readString(QStringLiteral("arch"), &arch, json::Presence::Required))
        request = RunRequest::fromJson(requestJson, &error);
    if (request && arch.isEmpty())
        error = QStringLiteral("arch: empty");
    if (!request || !error.isEmpty()) {
        out.send(RunnerMessage::make(MessageType::Program, m.id,
                                     {{"error", QStringLiteral("bad request: %1").arg(error)}}));
        return;
    }
    const QByteArray key = compileCacheKey(request->project, request->projectDir, arch);
    const std::optional<CompileResult> held = cache.find(key);
    if (!held || held->cubin.isEmpty()) {
        out.send(RunnerMessage::make(
            MessageType::Program, m.id,
            {{"error", QStringLiteral("this runner holds no compiled program of '%1' for %2")
                           .arg(request->project.sourceName, arch)}}));
        return;
    }
    const QByteArray entry = DiskCompileCache::encodeEntry(key, *held);
    out.send(RunnerMessage::make(MessageType::Program, m.id,
                                 {{"program", QString::fromLatin1(entry.toBase64())}}));
    tracePhase("runner: program handed out");
}

bool takeProgram(const RunnerMessage& m, const RunRequest& request, const QString& arch,
                 CompileCache& cache, QString* why) {
    const QJsonValue value = m.body.value(QStringLiteral("program"));
    if (value.isUndefined())
        return false;
    const QByteArray bytes = QByteArray::fromBase64(value.toString().toLatin1(),
                                                    QByteArray::AbortOnBase64DecodingErrors);
    const QByteArray key = compileCacheKey(request.project, request.projectDir, arch);
    std::optional<CompileResult> program = DiskCompileCache::decodeEntry(bytes, key);
    if (!program) {
        *why = QStringLiteral("the program handed over was not this compile (another arch, "
                              "compiler, header or source, or damaged): compiled here");
        return false;
    }
    cache.insertInMemory(key, *program); // never on disk: this computer's NVRTC did not make it
    tracePhase("runner: program taken");
    return true;
}

} // namespace kernelpad::serve
