#include "core/run/RunTypes.h"

#include "core/io/JsonValues.h"

#include <QJsonArray>
#include <QJsonValue>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace kernelpad {

using json::nullIfEmpty;
using json::readDouble;
using json::readInt64;
constexpr auto jsonDouble = json::fromDouble;

namespace {

int readInt(const QJsonObject& json, const QString& key) {
    return json.value(key).toInt();
}

constexpr std::array<std::pair<RunStatus, const char*>, 8> kStatusNames{{
    {RunStatus::Ok, "ok"},
    {RunStatus::CompileError, "compile-error"},
    {RunStatus::VerificationFailed, "verification-failed"},
    {RunStatus::CudaError, "cuda-error"},
    {RunStatus::DriverUnavailable, "driver-unavailable"},
    {RunStatus::BadInput, "bad-input"},
    {RunStatus::Cancelled, "cancelled"},
    {RunStatus::Timeout, "timeout"},
}};

} // namespace

QString runStatusName(RunStatus s) {
    for (const auto& [status, name] : kStatusNames)
        if (status == s)
            return QString::fromLatin1(name);
    return QStringLiteral("unknown");
}

std::optional<RunStatus> runStatusFromName(const QString& name) {
    for (const auto& [status, text] : kStatusNames)
        if (name == QLatin1String(text))
            return status;
    return std::nullopt;
}

QJsonObject RunRequest::toJson() const {
    QJsonObject json{{QStringLiteral("project"), project.toJson()},
                     {QStringLiteral("projectDir"), projectDir},
                     {QStringLiteral("device"), device},
                     {QStringLiteral("keepOutputs"), keepOutputs}};
    if (repetitions)
        json.insert(QStringLiteral("repetitions"), *repetitions);
    if (sanitizer != SanitizerTool::None)
        json.insert(QStringLiteral("sanitizer"), sanitizerToolName(sanitizer));
    if (measureCeiling)
        json.insert(QStringLiteral("measureCeiling"), true);
    return json;
}

std::optional<RunRequest> RunRequest::fromJson(const QJsonObject& json, QString* error) {
    const auto fail = [error](const QString& message) -> std::optional<RunRequest> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    const QJsonValue project = json.value(QStringLiteral("project"));
    if (!project.isObject())
        return fail(QStringLiteral("project: missing or not an object"));
    QString projectError;
    std::optional<Project> parsed = Project::fromJson(project.toObject(), &projectError);
    if (!parsed)
        return fail(QStringLiteral("project: %1").arg(projectError));

    RunRequest request;
    request.project = std::move(*parsed);
    const QJsonValue dir = json.value(QStringLiteral("projectDir"));
    if (!dir.isUndefined() && !dir.isString())
        return fail(QStringLiteral("projectDir: must be a string"));
    request.projectDir = dir.toString();

    const QJsonValue device = json.value(QStringLiteral("device"));
    if (!device.isUndefined()) {
        if (!device.isDouble() || device.toDouble() != device.toInt() || device.toInt() < 0)
            return fail(QStringLiteral("device: must be an ordinal >= 0"));
        request.device = device.toInt();
    }
    const QJsonValue reps = json.value(QStringLiteral("repetitions"));
    if (!reps.isUndefined() && !reps.isNull()) {
        if (!reps.isDouble() || reps.toDouble() != reps.toInt() || reps.toInt() < 1)
            return fail(QStringLiteral("repetitions: must be an integer >= 1"));
        request.repetitions = reps.toInt();
    }
    const QJsonValue keep = json.value(QStringLiteral("keepOutputs"));
    if (!keep.isUndefined()) {
        if (!keep.isBool())
            return fail(QStringLiteral("keepOutputs: must be true or false"));
        request.keepOutputs = keep.toBool();
    }
    const QJsonValue ceiling = json.value(QStringLiteral("measureCeiling"));
    if (!ceiling.isUndefined()) {
        if (!ceiling.isBool())
            return fail(QStringLiteral("measureCeiling: must be true or false"));
        request.measureCeiling = ceiling.toBool();
    }
    const QJsonValue tool = json.value(QStringLiteral("sanitizer"));
    if (!tool.isUndefined() && !tool.isNull()) {
        const std::optional<SanitizerTool> parsedTool = sanitizerToolFromName(tool.toString());
        if (!tool.isString() || !parsedTool)
            return fail(QStringLiteral("sanitizer: must be one of none, memcheck, racecheck, "
                                       "initcheck (got %1)")
                            .arg(tool.isString() ? QStringLiteral("'%1'").arg(tool.toString())
                                                 : QStringLiteral("a non-string")));
        request.sanitizer = *parsedTool;
    }
    return request;
}

QJsonObject KernelResources::toJson() const {
    return QJsonObject{{QStringLiteral("registers"), registers},
                       {QStringLiteral("staticSharedBytes"), staticSharedBytes},
                       {QStringLiteral("localBytes"), localBytes},
                       {QStringLiteral("constBytes"), constBytes},
                       {QStringLiteral("maxThreadsPerBlock"), maxThreadsPerBlock},
                       {QStringLiteral("ptxVersion"), ptxVersion},
                       {QStringLiteral("binaryVersion"), binaryVersion},
                       {QStringLiteral("occupancyBlocksPerSm"), occupancyBlocksPerSm},
                       {QStringLiteral("occupancy"), jsonDouble(occupancy)}};
}

KernelResources KernelResources::fromJson(const QJsonObject& json) {
    KernelResources r;
    r.registers = readInt(json, QStringLiteral("registers"));
    r.staticSharedBytes = readInt(json, QStringLiteral("staticSharedBytes"));
    r.localBytes = readInt(json, QStringLiteral("localBytes"));
    r.constBytes = readInt(json, QStringLiteral("constBytes"));
    r.maxThreadsPerBlock = readInt(json, QStringLiteral("maxThreadsPerBlock"));
    r.ptxVersion = readInt(json, QStringLiteral("ptxVersion"));
    r.binaryVersion = readInt(json, QStringLiteral("binaryVersion"));
    r.occupancyBlocksPerSm = readInt(json, QStringLiteral("occupancyBlocksPerSm"));
    r.occupancy = readDouble(json, QStringLiteral("occupancy"));
    return r;
}

int RunResult::sanitizerErrorCount() const {
    int reported = 0;
    for (const SanitizerReport& r : sanitizer)
        if (r.severity == Diagnostic::Severity::Error)
            reported += r.count;
    return std::max(reported, sanitizerErrors);
}

bool RunResult::verified() const {
    return std::all_of(verification.cbegin(), verification.cend(),
                       [](const BufferVerification& v) { return v.passed; });
}

QJsonObject RunResult::toJson(bool withPtx) const {
    QJsonArray checks;
    for (const BufferVerification& v : verification)
        checks.append(v.toJson());
    // Output contents travel separately (files or a binary channel): JSON would triple them.
    QJsonArray outs;
    for (const OutputBuffer& o : outputs)
        outs.append(QJsonObject{{QStringLiteral("name"), o.name},
                                {QStringLiteral("type"), o.type.toJson()},
                                {QStringLiteral("count"), double(o.count)}});
    QJsonObject json{{QStringLiteral("status"), runStatusName(status)},
                     {QStringLiteral("error"), nullIfEmpty(error)},
                     {QStringLiteral("compile"), compile.toJson(withPtx)},
                     {QStringLiteral("device"), device.toJson()},
                     {QStringLiteral("kernelLowered"), kernelLowered},
                     {QStringLiteral("launch"), launch.toJson()},
                     {QStringLiteral("resources"), resources.toJson()},
                     {QStringLiteral("timing"), timing.toJson()},
                     {QStringLiteral("verification"), checks},
                     {QStringLiteral("outputs"), outs},
                     {QStringLiteral("totalMs"), jsonDouble(totalMs)}};
    json.insert(QStringLiteral("stdout"), console.text);
    json.insert(QStringLiteral("stdoutBytes"), double(console.totalBytes));
    json.insert(QStringLiteral("stdoutLaterBytes"), double(console.laterBytes));
    if (jit.used)
        json.insert(QStringLiteral("jit"), jit.toJson());
    if (sanitizerTool != SanitizerTool::None) {
        QJsonArray reports;
        for (const SanitizerReport& r : sanitizer)
            reports.append(r.toJson());
        json.insert(QStringLiteral("sanitizerTool"), sanitizerToolName(sanitizerTool));
        json.insert(QStringLiteral("sanitizer"), reports);
        json.insert(QStringLiteral("sanitizerErrors"), sanitizerErrors);
        json.insert(QStringLiteral("sanitizerNote"), nullIfEmpty(sanitizerNote));
    }
    return json;
}

qint64 ConsoleOutput::droppedBytes() const {
    return std::max<qint64>(0, totalBytes - text.toUtf8().size());
}

RunResult RunResult::fromJson(const QJsonObject& json) {
    RunResult r;
    // An unknown status is not "ok": a newer runner's failure must not read as success.
    r.status = runStatusFromName(json.value(QStringLiteral("status")).toString())
                   .value_or(RunStatus::BadInput);
    r.error = json.value(QStringLiteral("error")).toString();
    if (r.error.isEmpty() && !runStatusFromName(json.value(QStringLiteral("status")).toString()))
        r.error = QStringLiteral("unknown run status '%1'")
                      .arg(json.value(QStringLiteral("status")).toString());
    r.compile = CompileResult::fromJson(json.value(QStringLiteral("compile")).toObject());
    r.device = DeviceInfo::fromJson(json.value(QStringLiteral("device")).toObject());
    r.kernelLowered = json.value(QStringLiteral("kernelLowered")).toString();
    if (auto launch =
            LaunchConfig::fromJson(json.value(QStringLiteral("launch")).toObject(), nullptr))
        r.launch = *launch;
    r.resources = KernelResources::fromJson(json.value(QStringLiteral("resources")).toObject());
    r.timing = TimingStats::fromJson(json.value(QStringLiteral("timing")).toObject());
    for (const QJsonValue& item : json.value(QStringLiteral("verification")).toArray())
        r.verification.append(BufferVerification::fromJson(item.toObject()));
    for (const QJsonValue& item : json.value(QStringLiteral("outputs")).toArray()) {
        const QJsonObject o = item.toObject();
        OutputBuffer out;
        out.name = o.value(QStringLiteral("name")).toString();
        if (auto type = ValueType::fromJson(o.value(QStringLiteral("type")).toObject(), nullptr))
            out.type = *type;
        out.count = readInt64(o, QStringLiteral("count"));
        r.outputs.append(out);
    }
    r.totalMs = readDouble(json, QStringLiteral("totalMs"));
    r.sanitizerTool =
        sanitizerToolFromName(
            json.value(QStringLiteral("sanitizerTool")).toString(QStringLiteral("none")))
            .value_or(SanitizerTool::None);
    const QJsonArray reports = json.value(QStringLiteral("sanitizer")).toArray();
    for (int k = 0; k < reports.size(); ++k) {
        QString why;
        if (std::optional<SanitizerReport> report =
                SanitizerReport::fromJson(reports[k].toObject(), &why))
            r.sanitizer.append(*report);
        else if (r.error.isEmpty())
            // A report the runner sent but this side cannot read must not vanish silently.
            r.error = QStringLiteral("sanitizer[%1].%2").arg(k).arg(why);
    }
    r.sanitizerErrors = json.value(QStringLiteral("sanitizerErrors")).toInt(0);
    r.sanitizerNote = json.value(QStringLiteral("sanitizerNote")).toString();
    r.console.text = json.value(QStringLiteral("stdout")).toString().left(int(kMaxConsoleBytes));
    r.console.totalBytes =
        std::max(readInt64(json, QStringLiteral("stdoutBytes")), qint64(r.console.text.size()));
    r.console.laterBytes = std::max<qint64>(0, readInt64(json, QStringLiteral("stdoutLaterBytes")));
    r.jit = JitLog::fromJson(json.value(QStringLiteral("jit")).toObject());
    return r;
}

} // namespace kernelpad
