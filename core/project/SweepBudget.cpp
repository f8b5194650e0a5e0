#include "core/project/SweepBudget.h"

#include "core/io/JsonFields.h"

#include <algorithm>
#include <cmath>

namespace kernelpad {

QString SweepTimingBudget::name() const {
    switch (kind) {
    case Kind::Fast:
        return QStringLiteral("fast");
    case Kind::Milliseconds:
        return QStringLiteral("%1 ms").arg(ms);
    case Kind::Accurate:
        break;
    }
    return QStringLiteral("accurate");
}

TimingSpec SweepTimingBudget::apply(const TimingSpec& spec) const {
    TimingSpec out = spec;
    switch (kind) {
    case Kind::Accurate:
        break;
    case Kind::Fast:
        out.adaptive = false;
        out.warmupLaunches = kFastWarmupLaunches;
        out.repetitions = kFastRepetitions;
        break;
    case Kind::Milliseconds:
        // The stopping rule stays: a kernel whose noise settles early stops early.
        out.adaptive = true;
        out.maxTimeMs = ms;
        out.minTimeMs = std::min(spec.minTimeMs, ms);
        // The watchdog keeps the headroom over the timing that the project gave it.
        out.timeLimitMs = std::max(spec.timeLimitMs, spec.timeLimitMs - spec.maxTimeMs + ms);
        break;
    }
    return out;
}

QJsonValue SweepTimingBudget::toJson() const {
    switch (kind) {
    case Kind::Fast:
        return QStringLiteral("fast");
    case Kind::Milliseconds:
        return ms;
    case Kind::Accurate:
        break;
    }
    return QJsonValue(QJsonValue::Null);
}

std::optional<SweepTimingBudget> SweepTimingBudget::fromJson(const QJsonValue& json,
                                                             const QString& path, QString* error) {
    const auto fail = [&](const QString& got) -> std::optional<SweepTimingBudget> {
        if (error)
            *error = QStringLiteral("%1: expected \"fast\", \"accurate\" or a whole number of "
                                    "milliseconds from 1 to %2, got %3")
                         .arg(path)
                         .arg(kMaxMs)
                         .arg(got);
        return std::nullopt;
    };
    if (json.isString()) {
        const QString text = json.toString();
        if (text == QLatin1String("fast"))
            return fast();
        if (text == QLatin1String("accurate"))
            return SweepTimingBudget{};
        return fail(QStringLiteral("'%1'").arg(text));
    }
    if (json.isDouble()) {
        const double value = json.toDouble();
        if (value != std::floor(value) || value < 1 || value > kMaxMs)
            return fail(QString::number(value, 'g', 17));
        return milliseconds(int(value));
    }
    return fail(json::typeName(json));
}

} // namespace kernelpad
