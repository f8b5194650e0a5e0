#include "core/run/PipelineTiming.h"

#include "core/io/JsonValues.h"

#include <QJsonArray>

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

PipelineTiming PipelineTiming::fromJson(const QJsonObject& json) {
    PipelineTiming t;
    for (const QJsonValue& item : json.value(QStringLiteral("steps")).toArray()) {
        const QJsonObject o = item.toObject();
        StepTiming s;
        s.kernel = o.value(QStringLiteral("kernel")).toString();
        s.repeat = o.value(QStringLiteral("repeat")).toInt(1);
        s.stats = TimingStats::fromJson(o.value(QStringLiteral("timing")).toObject());
        t.steps.append(std::move(s));
    }
    t.launches = json::readInt64(json, QStringLiteral("launches"));
    t.sequence = TimingStats::fromJson(json.value(QStringLiteral("sequence")).toObject());
    t.graph = json.value(QStringLiteral("graph")).toBool();
    if (t.graph) {
        t.graphReplay = TimingStats::fromJson(json.value(QStringLiteral("graphReplay")).toObject());
        t.graphInstantiateMs = json::readDouble(json, QStringLiteral("graphInstantiateMs"));
    }
    return t;
}

} // namespace kernelpad
