#include "core/sweep/SweepBalance.h"

#include <QJsonArray>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <map>

namespace kernelpad {
namespace {

QJsonObject stagesJson(const QVector<StageTime>& stages) {
    QJsonObject json;
    for (const StageTime& s : stages) // a stage reported twice (the baseline's timing) adds up
        json.insert(s.stage, json.value(s.stage).toDouble() + s.ms);
    return json;
}

/// {stage: {"median", "total"}} over the configurations' stages, a missing one counting 0.
QJsonObject stageSummary(const QVector<QJsonObject>& perConfiguration) {
    std::map<QString, std::vector<double>> values;
    for (const QJsonObject& stages : perConfiguration)
        for (auto it = stages.begin(); it != stages.end(); ++it)
            values[it.key()];
    for (const QJsonObject& stages : perConfiguration)
        for (auto& [stage, list] : values)
            list.push_back(stages.value(stage).toDouble());
    QJsonObject json;
    for (auto& [stage, list] : values) {
        double total = 0;
        for (double v : list)
            total += v;
        const size_t mid = list.size() / 2;
        std::nth_element(list.begin(), list.begin() + long(mid), list.end());
        double median = list[mid];
        if (list.size() % 2 == 0) // the lower middle is the largest of the lower half
            median = (median + *std::max_element(list.begin(), list.begin() + long(mid))) / 2;
        json.insert(stage, QJsonObject{{QStringLiteral("median"), median},
                                       {QStringLiteral("total"), total}});
    }
    return json;
}

} // namespace

ConfigurationTime ConfigurationTime::of(const QString& key, const QString& device, double wallMs,
                                        const QVector<StageTime>& stages) {
    ConfigurationTime t{key, device, wallMs, {}, {}};
    double named = 0;
    for (const StageTime& s : stages) {
        (s.client ? t.client : t.runner).append(s);
        named += s.ms;
    }
    t.client.append(
        StageTime{QStringLiteral("the way there and back"), std::max(0.0, wallMs - named), true});
    return t;
}

QJsonObject ConfigurationTime::toJson() const {
    return QJsonObject{{QStringLiteral("key"), key},
                       {QStringLiteral("device"), device},
                       {QStringLiteral("wallMs"), wallMs},
                       {QStringLiteral("runnerMs"), stagesJson(runner)},
                       {QStringLiteral("clientMs"), stagesJson(client)}};
}

double SweepBalance::sharePercent(const DeviceBusy& d) const {
    if (!(wallMs > 0) || !std::isfinite(d.busyMs))
        return 0;
    return std::clamp(100.0 * d.busyMs / wallMs, 0.0, 100.0);
}

QString SweepBalance::text() const {
    if (isEmpty())
        return {};
    QStringList parts;
    for (const DeviceBusy& d : devices)
        parts.append(
            QStringLiteral("%1 busy %2 %").arg(d.device).arg(std::lround(sharePercent(d))));
    return QStringLiteral("%1 of %2 s")
        .arg(parts.join(QStringLiteral(", ")))
        .arg(wallMs / 1000.0, 0, 'f', 2);
}

QJsonObject SweepBalance::toJson() const {
    QJsonArray list;
    for (const DeviceBusy& d : devices)
        list.append(QJsonObject{{QStringLiteral("device"), d.device},
                                {QStringLiteral("busyMs"), d.busyMs},
                                {QStringLiteral("busyPercent"), sharePercent(d)},
                                {QStringLiteral("configurations"), d.configurations}});
    QJsonObject json{{QStringLiteral("wallMs"), wallMs},
                     {QStringLiteral("followUpMs"), followUpMs},
                     {QStringLiteral("devices"), list}};
    if (!orderedBy.isEmpty())
        json.insert(QStringLiteral("orderedBy"), orderedBy);
    QJsonArray times;
    QVector<QJsonObject> runner;
    QVector<QJsonObject> client;
    QVector<QJsonObject> wall;
    for (const ConfigurationTime& c : configurations) {
        const QJsonObject one = c.toJson();
        times.append(one);
        runner.append(one.value(QStringLiteral("runnerMs")).toObject());
        client.append(one.value(QStringLiteral("clientMs")).toObject());
        wall.append(QJsonObject{{QStringLiteral("wall"), c.wallMs}});
    }
    json.insert(QStringLiteral("configurations"), times);
    json.insert(
        QStringLiteral("stagesMs"),
        QJsonObject{{QStringLiteral("runner"), stageSummary(runner)},
                    {QStringLiteral("client"), stageSummary(client)},
                    {QStringLiteral("wall"), stageSummary(wall).value(QStringLiteral("wall"))}});
    return json;
}

QString SweepBalance::stagesText() const {
    if (configurations.isEmpty())
        return {};
    const QJsonObject summary = toJson().value(QStringLiteral("stagesMs")).toObject();
    const auto side = [&](const QString& name, bool client) {
        QStringList seen; // in the order the runs passed through them
        for (const ConfigurationTime& c : configurations)
            for (const StageTime& t : client ? c.client : c.runner)
                if (!seen.contains(t.stage))
                    seen.append(t.stage);
        QStringList parts;
        const QJsonObject stages = summary.value(name).toObject();
        for (const QString& stage : seen)
            parts.append(QStringLiteral("%1 %2").arg(stage).arg(
                stages.value(stage).toObject().value(QStringLiteral("median")).toDouble(), 0, 'f',
                1));
        return parts.join(QStringLiteral(", "));
    };
    QString text = QStringLiteral("per configuration, median: %1 ms handed over to answered")
                       .arg(summary.value(QStringLiteral("wall"))
                                .toObject()
                                .value(QStringLiteral("median"))
                                .toDouble(),
                            0, 'f', 1);
    if (const QString runner = side(QStringLiteral("runner"), false); !runner.isEmpty())
        text += QStringLiteral("; runner: ") + runner;
    return text + QStringLiteral("; this side: ") + side(QStringLiteral("client"), true) +
           QStringLiteral(" ms");
}

} // namespace kernelpad
