#include "core/run/RunRequest.h"

#include <QJsonValue>

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

} // namespace kernelpad
