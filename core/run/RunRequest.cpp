#include "core/run/RunRequest.h"

#include "core/io/JsonFields.h"

#include <QJsonValue>

#include <limits>

namespace kernelpad {

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
    if (lockClocks)
        json.insert(QStringLiteral("lockClocks"), true);
    return json;
}

std::optional<RunRequest> RunRequest::fromJson(const QJsonObject& json, QString* error) {
    const auto fail = [error](const QString& message) -> std::optional<RunRequest> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    const json::FieldReader fields(json, error);
    QJsonObject project;
    if (!fields.readObject(QStringLiteral("project"), &project, json::Presence::Required))
        return std::nullopt;
    QString projectError;
    std::optional<Project> parsed = Project::fromJson(project, &projectError);
    if (!parsed)
        return fail(QStringLiteral("project: %1").arg(projectError));

    RunRequest request;
    request.project = std::move(*parsed);
    if (!fields.readString(QStringLiteral("projectDir"), &request.projectDir) ||
        !fields.readInt(QStringLiteral("device"), &request.device, json::Presence::Optional,
                        {0, std::numeric_limits<int>::max()}) ||
        !fields.readInt(QStringLiteral("repetitions"), &request.repetitions,
                        json::Presence::NullIsAbsent, {1, std::numeric_limits<int>::max()}) ||
        !fields.readBool(QStringLiteral("keepOutputs"), &request.keepOutputs) ||
        !fields.readBool(QStringLiteral("measureCeiling"), &request.measureCeiling) ||
        !fields.readBool(QStringLiteral("lockClocks"), &request.lockClocks))
        return std::nullopt;
    const QJsonValue tool = json.value(QStringLiteral("sanitizer"));
    if (!tool.isUndefined() && !tool.isNull()) {
        const std::optional<SanitizerTool> parsedTool = sanitizerToolFromName(tool.toString());
        if (!tool.isString() || !parsedTool)
            return fail(QStringLiteral("sanitizer: must be one of none, memcheck, racecheck, "
                                       "initcheck (got %1)")
                            .arg(tool.isString() ? QStringLiteral("'%1'").arg(tool.toString())
                                                 : json::typeName(tool)));
        request.sanitizer = *parsedTool;
    }
    return request;
}

} // namespace kernelpad
