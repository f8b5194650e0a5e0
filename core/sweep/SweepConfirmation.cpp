#include "core/sweep/SweepConfirmation.h"

#include "core/io/JsonFields.h"

#include <QJsonArray>

namespace kernelpad {

namespace {

/// |fraction| in per cent with one decimal, as AbVerdict::text() writes it.
QString confirmationPercent(double fraction) {
    return QString::number(std::abs(fraction) * 100.0, 'f', 1);
}

QJsonValue confirmationNumber(double value) {
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

} // namespace

SweepConfirmation SweepConfirmation::fromAb(const AbResult& result, const QString& against,
                                            SweepObjective objective) {
    SweepConfirmation c;
    c.against = against;
    c.device = result.device;
    c.blocks = result.blocks;
    c.devices = result.devices;
    c.oneDeviceReason = result.oneDeviceReason;
    if (objective != SweepObjective::Time)
        c.objective = sweepObjectiveName(objective);
    const AbVerdict& v = result.verdict;
    switch (result.status) {
    case AbResult::Status::Verdict:
        c.verdict = v.kind == AbVerdict::Kind::Faster   ? kFaster
                    : v.kind == AbVerdict::Kind::Slower ? kSlower
                                                        : kNoDifference;
        c.ratio = v.ratio;
        c.low = v.low;
        c.high = v.high;
        c.caveat = v.caveat;
        break;
    case AbResult::Status::Refused:
        c.verdict = kRefused;
        c.reason = v.reason;
        c.caveat = v.caveat;
        break;
    case AbResult::Status::Error:
    case AbResult::Status::Cancelled:
        c.verdict = kError;
        c.reason = result.error.isEmpty() ? QStringLiteral("no message") : result.error;
        break;
    }
    return c;
}

SweepConfirmation SweepConfirmation::notApplicable(const QString& against, const QString& tunables,
                                                   SweepObjective objective) {
    SweepConfirmation c;
    c.against = against;
    c.verdict = kNotApplicable;
    c.reason =
        QStringLiteral("the configurations differ in %1, so their inputs differ").arg(tunables);
    if (objective != SweepObjective::Time)
        c.objective = sweepObjectiveName(objective);
    return c;
}

QString SweepConfirmation::text(const QString& bestKey) const {
    QString line;
    // Said first, as part of the claim: a verdict of several devices pools their A/Bs.
    const QString where =
        devices.size() > 1 ? QStringLiteral(" on %1 devices").arg(devices.size()) : QString();
    if (verdict == kFaster || verdict == kSlower) {
        // Per cent of the runner-up's time: 1 - best/runner-up, its interval 1 - high to 1 - low.
        const bool faster = verdict == kFaster;
        line = QStringLiteral("%1: %2 is %3 % %4 than %5 (95 % interval %6\u2013%7 %)")
                   .arg((faster ? QStringLiteral("confirmed") : QStringLiteral("not confirmed")) +
                            where,
                        bestKey, confirmationPercent(ratio - 1.0),
                        faster ? QStringLiteral("faster") : QStringLiteral("slower"), against,
                        confirmationPercent(faster ? 1.0 - high : low - 1.0),
                        confirmationPercent(faster ? 1.0 - low : high - 1.0));
        if (!faster)
            line += QStringLiteral(" in an interleaved A/B: the runner-up may be the better one");
    } else if (verdict == kNoDifference) {
        line = QStringLiteral("no detectable difference%1 from %2 at \u00b1%3 %: either will do")
                   .arg(where, against, QString::number((high - low) * 50.0, 'f', 1));
    } else if (verdict == kNotApplicable) {
        line = QStringLiteral("not confirmed: an A/B does not apply (%1)").arg(reason);
    } else if (verdict == kRefused) {
        line = QStringLiteral("not confirmed: the A/B against %1 gives no verdict: %2")
                   .arg(against, reason);
    } else {
        line = QStringLiteral("not confirmed: the A/B against %1 failed: %2").arg(against, reason);
    }
    if (!caveat.isEmpty())
        line += QStringLiteral("; ") + caveat;
    if (!oneDeviceReason.isEmpty())
        line += QStringLiteral("; on one device: %1").arg(oneDeviceReason);
    if (!objective.isEmpty())
        line +=
            QStringLiteral(" (the A/B compares times; the sweep's objective is %1)").arg(objective);
    return line;
}

QJsonObject SweepConfirmation::toJson() const {
    QJsonObject json{
        {QStringLiteral("against"), against},
        {QStringLiteral("verdict"), verdict},
        {QStringLiteral("ratio"), confirmationNumber(ratio)},
        {QStringLiteral("interval"), QJsonArray{confirmationNumber(low), confirmationNumber(high)}},
        {QStringLiteral("device"), device},
        {QStringLiteral("blocks"), blocks}};
    if (!reason.isEmpty())
        json.insert(QStringLiteral("reason"), reason);
    if (!caveat.isEmpty())
        json.insert(QStringLiteral("caveat"), caveat);
    if (!objective.isEmpty())
        json.insert(QStringLiteral("objective"), objective);
    if (!devices.isEmpty()) {
        QJsonArray each;
        for (const AbDeviceEstimate& e : devices)
            each.append(e.toJson());
        json.insert(QStringLiteral("devices"), each);
    }
    if (!oneDeviceReason.isEmpty())
        json.insert(QStringLiteral("oneDeviceReason"), oneDeviceReason);
    return json;
}

std::optional<SweepConfirmation> SweepConfirmation::fromJson(const QJsonObject& json,
                                                             const QString& path, QString* error) {
    const json::FieldReader fields(json, error, path);
    SweepConfirmation c;
    QVector<double> interval;
    if (!fields.readString(QStringLiteral("against"), &c.against, json::Presence::Required) ||
        !fields.readChoice(QStringLiteral("verdict"),
                           {kFaster, kSlower, kNoDifference, kRefused, kError, kNotApplicable},
                           &c.verdict, json::Presence::Required) ||
        !fields.readNumber(QStringLiteral("ratio"), &c.ratio, json::Presence::Optional,
                           json::NullNumber::IsNaN) ||
        !fields.readNumbers(QStringLiteral("interval"), &interval, json::Presence::Optional,
                            json::NullNumber::IsNaN) ||
        !fields.readString(QStringLiteral("device"), &c.device) ||
        !fields.readInt(QStringLiteral("blocks"), &c.blocks, json::Presence::Optional,
                        {0, std::numeric_limits<int>::max()}) ||
        !fields.readString(QStringLiteral("reason"), &c.reason) ||
        !fields.readString(QStringLiteral("caveat"), &c.caveat) ||
        !fields.readString(QStringLiteral("objective"), &c.objective) ||
        !fields.readString(QStringLiteral("oneDeviceReason"), &c.oneDeviceReason))
        return std::nullopt;
    const QJsonValue devices = json.value(QStringLiteral("devices"));
    if (!devices.isUndefined() && !devices.isArray()) {
        fields.fail(QStringLiteral("%1: expected an array of devices")
                        .arg(fields.path(QStringLiteral("devices"))));
        return std::nullopt;
    }
    const QJsonArray each = devices.toArray();
    for (qsizetype i = 0; i < each.size(); ++i) {
        const QString at =
            QStringLiteral("%1[%2]").arg(fields.path(QStringLiteral("devices"))).arg(i);
        if (!each.at(i).isObject()) {
            fields.fail(QStringLiteral("%1: expected an object").arg(at));
            return std::nullopt;
        }
        std::optional<AbDeviceEstimate> e =
            AbDeviceEstimate::fromJson(each.at(i).toObject(), at, error);
        if (!e)
            return std::nullopt;
        c.devices.append(*e);
    }
    if (!interval.isEmpty() && interval.size() != 2) {
        fields.fail(QStringLiteral("%1: expected [low, high]")
                        .arg(fields.path(QStringLiteral("interval"))));
        return std::nullopt;
    }
    if (interval.size() == 2) {
        c.low = interval[0];
        c.high = interval[1];
    }
    // A verdict without its ratio and interval would print as nonsense.
    if (c.hasVerdict() &&
        !(std::isfinite(c.ratio) && std::isfinite(c.low) && std::isfinite(c.high))) {
        fields.fail(QStringLiteral("%1: a verdict needs its ratio and interval")
                        .arg(fields.path(QStringLiteral("verdict"))));
        return std::nullopt;
    }
    return c;
}

} // namespace kernelpad
