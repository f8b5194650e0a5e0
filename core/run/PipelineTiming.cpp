#include "core/run/PipelineTiming.h"

#include "core/io/JsonFields.h"
#include "core/io/JsonValues.h"

#include <QJsonArray>

#include <limits>
#include <utility>

namespace kernelpad {

QJsonObject PipelineTiming::toJson() const {
    QJsonArray stepArray;
    for (const StepTiming& s : steps)
        stepArray.append(QJsonObject{{QStringLiteral("kernel"), s.kernel},
                                     {QStringLiteral("repeat"), s.repeat},
                                     {QStringLiteral("timing"), s.stats.toJson()}});
    QJsonObject json{{QStringLiteral("steps"), stepArray},
                     {QStringLiteral("launches"), double(launches)},
                     {QStringLiteral("sequence"), sequence.toJson()},
                     {QStringLiteral("graph"), graph}};
    if (graph) {
        json.insert(QStringLiteral("graphReplay"), graphReplay.toJson());
        json.insert(QStringLiteral("graphInstantiateMs"), json::fromDouble(graphInstantiateMs));
        json.insert(QStringLiteral("savedMs"), json::fromDouble(savedMs()));
    }
    return json;
}

std::optional<PipelineTiming> PipelineTiming::fromJson(const QJsonObject& json, QString* error,
                                                       const QString& path) {
    const json::FieldReader fields(json, error, path);
    constexpr auto required = json::Presence::Required;
    PipelineTiming t;
    const auto readStats = [](const json::FieldReader& parent, const QString& key,
                              TimingStats* out) {
        QJsonObject object;
        if (!parent.readObject(key, &object, json::Presence::Required))
            return false;
        std::optional<TimingStats> stats =
            TimingStats::fromJson(object, parent.error(), parent.path(key));
        if (stats)
            *out = std::move(*stats);
        return stats.has_value();
    };
    if (!fields.readObjects(
            QStringLiteral("steps"),
            [&](const json::FieldReader& step) {
                StepTiming s;
                if (!step.readString(QStringLiteral("kernel"), &s.kernel, required) ||
                    !step.readInt(QStringLiteral("repeat"), &s.repeat, required,
                                  {1, std::numeric_limits<int>::max()}) ||
                    !readStats(step, QStringLiteral("timing"), &s.stats))
                    return false;
                t.steps.append(std::move(s));
                return true;
            },
            required) ||
        !fields.readWholeNumber(QStringLiteral("launches"), &t.launches, required,
                                {0, json::WholeRange{}.max}) ||
        !readStats(fields, QStringLiteral("sequence"), &t.sequence) ||
        !fields.readBool(QStringLiteral("graph"), &t.graph, required))
        return std::nullopt;
    if (t.graph && (!readStats(fields, QStringLiteral("graphReplay"), &t.graphReplay) ||
                    !fields.readNumber(QStringLiteral("graphInstantiateMs"), &t.graphInstantiateMs,
                                       required, json::NullNumber::IsNaN)))
        return std::nullopt;
    return t;
}

} // namespace kernelpad
