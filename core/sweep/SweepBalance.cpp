#include "core/sweep/SweepBalance.h"

#include <QJsonArray>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace kernelpad {

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
    return json;
}

} // namespace kernelpad
