#include "core/run/RunResult.h"

#include "core/io/JsonFields.h"
#include "core/io/JsonValues.h"

#include <QJsonArray>
#include <QJsonValue>

#include <algorithm>
#include <limits>
#include <utility>

namespace kernelpad {

using json::nullIfEmpty;
constexpr auto jsonDouble = json::fromDouble;

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
    if (faultCode != 0)
        json.insert(QStringLiteral("faultCode"), faultCode);
    if (!stagesMs.isEmpty()) {
        QJsonArray stages;
        for (const StageTime& s : stagesMs) {
            QJsonObject stage{{QStringLiteral("stage"), s.stage},
                              {QStringLiteral("ms"), jsonDouble(s.ms)}};
            if (s.client)
                stage.insert(QStringLiteral("client"), true);
            stages.append(stage);
        }
        json.insert(QStringLiteral("stagesMs"), stages);
    }
    if (!guards.isEmpty()) {
        QJsonArray hits;
        for (const GuardFinding& g : guards)
            hits.append(g.toJson());
        json.insert(QStringLiteral("guards"), hits);
    }
    if (jit.used)
        json.insert(QStringLiteral("jit"), jit.toJson());
    if (!pipeline.isEmpty())
        json.insert(QStringLiteral("pipeline"), pipeline.toJson());
    if (!baseline.isEmpty())
        json.insert(QStringLiteral("baseline"), baseline.toJson(timing.medianMs));
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

namespace {

constexpr auto kRequired = json::Presence::Required;
constexpr json::WholeRange kByteCount{0, json::WholeRange{}.max};

/// Reads the object under `key` with T::fromJson, its messages under the key's path.
template <typename T>
bool readPart(const json::FieldReader& fields, const QString& key, T* out,
              json::Presence presence = kRequired) {
    QJsonObject object;
    if (!fields.readObject(key, &object, presence))
        return false;
    if (!fields.has(key))
        return true;
    std::optional<T> part = T::fromJson(object, fields.error(), fields.path(key));
    if (part)
        *out = std::move(*part);
    return part.has_value();
}

/// As readPart, for the launch-side readers whose messages carry no path of their own
/// (LaunchConfig, ValueType): their message is put under the key's path.
template <typename T>
bool readPathless(const json::FieldReader& fields, const QString& key, T* out) {
    QJsonObject object;
    if (!fields.readObject(key, &object, kRequired))
        return false;
    QString inner;
    std::optional<T> part = T::fromJson(object, &inner);
    if (!part)
        return fields.fail(fields.path(key) + QLatin1Char('.') + inner);
    *out = std::move(*part);
    return true;
}

/// The sanitizer's part, present when the run went through compute-sanitizer.
bool readSanitizer(const json::FieldReader& fields, RunResult* r) {
    QStringList tools;
    for (const auto tool : {SanitizerTool::None, SanitizerTool::Memcheck, SanitizerTool::Racecheck,
                            SanitizerTool::Initcheck})
        tools << sanitizerToolName(tool);
    QString tool = sanitizerToolName(SanitizerTool::None);
    if (!fields.readChoice(QStringLiteral("sanitizerTool"), tools, &tool))
        return false;
    r->sanitizerTool = sanitizerToolFromName(tool).value_or(SanitizerTool::None);
    // Written together with the tool's name, and only then.
    const json::Presence presence =
        fields.has(QStringLiteral("sanitizerTool")) ? kRequired : json::Presence::Optional;
    return fields.readObjects(
               QStringLiteral("sanitizer"),
               [r](const json::FieldReader& item) {
                   std::optional<SanitizerReport> report =
                       SanitizerReport::fromJson(item.object(), item.error(), item.where());
                   if (report)
                       r->sanitizer.append(std::move(*report));
                   return report.has_value();
               },
               presence) &&
           // -1: the tool's log had no summary.
           fields.readInt(QStringLiteral("sanitizerErrors"), &r->sanitizerErrors, presence,
                          {-1, std::numeric_limits<int>::max()}) &&
           fields.readString(QStringLiteral("sanitizerNote"), &r->sanitizerNote,
                             json::Presence::NullIsAbsent);
}

} // namespace

std::optional<RunResult> RunResult::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader fields(json, error);
    RunResult r;
    // An unknown status is an error, not "ok": a newer runner's failure must not read as
    // success.
    QString status;
    if (!fields.readChoice(QStringLiteral("status"), runStatusNames(), &status, kRequired))
        return std::nullopt;
    r.status = runStatusFromName(status).value_or(RunStatus::BadInput);
    if (!fields.readString(QStringLiteral("error"), &r.error, json::Presence::NullIsAbsent) ||
        !readPart(fields, QStringLiteral("compile"), &r.compile) ||
        !readPart(fields, QStringLiteral("device"), &r.device) ||
        !fields.readString(QStringLiteral("kernelLowered"), &r.kernelLowered, kRequired) ||
        !readPathless(fields, QStringLiteral("launch"), &r.launch) ||
        !readPart(fields, QStringLiteral("resources"), &r.resources) ||
        !readPart(fields, QStringLiteral("timing"), &r.timing))
        return std::nullopt;
    if (!fields.readObjects(
            QStringLiteral("verification"),
            [&r](const json::FieldReader& item) {
                std::optional<BufferVerification> v =
                    BufferVerification::fromJson(item.object(), item.error(), item.where());
                if (v)
                    r.verification.append(std::move(*v));
                return v.has_value();
            },
            kRequired) ||
        !fields.readObjects(
            QStringLiteral("outputs"),
            [&r](const json::FieldReader& item) {
                OutputBuffer out;
                if (!item.readString(QStringLiteral("name"), &out.name, kRequired) ||
                    !readPathless(item, QStringLiteral("type"), &out.type) ||
                    !item.readWholeNumber(QStringLiteral("count"), &out.count, kRequired,
                                          kByteCount))
                    return false;
                r.outputs.append(std::move(out));
                return true;
            },
            kRequired))
        return std::nullopt;
    if (!fields.readNumber(QStringLiteral("totalMs"), &r.totalMs, kRequired,
                           json::NullNumber::IsNaN) ||
        !readSanitizer(fields, &r) ||
        !fields.readString(QStringLiteral("stdout"), &r.console.text, kRequired) ||
        !fields.readWholeNumber(QStringLiteral("stdoutBytes"), &r.console.totalBytes, kRequired,
                                kByteCount) ||
        !fields.readWholeNumber(QStringLiteral("stdoutLaterBytes"), &r.console.laterBytes,
                                kRequired, kByteCount) ||
        // Written only for a module loaded from PTX, and only for a pipeline.
        !readPart(fields, QStringLiteral("jit"), &r.jit, json::Presence::Optional) ||
        !readPart(fields, QStringLiteral("pipeline"), &r.pipeline, json::Presence::Optional) ||
        !readPart(fields, QStringLiteral("baseline"), &r.baseline, json::Presence::Optional))
        return std::nullopt;
    r.console.text.truncate(int(kMaxConsoleBytes));
    r.console.totalBytes = std::max(r.console.totalBytes, qint64(r.console.text.size()));
    // Written only for a kernel fault, and only when a guard was hit.
    if (!fields.readInt(QStringLiteral("faultCode"), &r.faultCode, json::Presence::Optional,
                        {0, std::numeric_limits<int>::max()}) ||
        !fields.readObjects(QStringLiteral("guards"),
                            [&r](const json::FieldReader& item) {
                                std::optional<GuardFinding> g = GuardFinding::fromJson(
                                    item.object(), item.error(), item.where());
                                if (g)
                                    r.guards.append(std::move(*g));
                                return g.has_value();
                            }) ||
        !fields.readObjects(QStringLiteral("stagesMs"), [&r](const json::FieldReader& item) {
            StageTime s;
            if (!item.readString(QStringLiteral("stage"), &s.stage, kRequired) ||
                !item.readNumber(QStringLiteral("ms"), &s.ms, kRequired) ||
                !item.readBool(QStringLiteral("client"), &s.client))
                return false;
            r.stagesMs.append(std::move(s));
            return true;
        }))
        return std::nullopt;
    return r;
}

} // namespace kernelpad
