#include "core/run/BaselineResult.h"

#include "core/io/JsonFields.h"
#include "core/io/JsonValues.h"

namespace kernelpad {
namespace {

/// Ratios under this are written with three decimals, so that 0.04× and 0.045× differ.
constexpr double kSmallRatio = 0.1;

} // namespace

QString formatRatio(double ratio) {
    return QString::number(ratio, 'f', ratio < kSmallRatio ? 3 : 2) + QStringLiteral("×");
}

double BaselineResult::ratio(double kernelMedianMs) const {
    if (!measured() || !(kernelMedianMs > 0))
        return 0;
    return timing.medianMs / kernelMedianMs;
}

QString BaselineResult::ratioText(double kernelMedianMs) const {
    const double r = ratio(kernelMedianMs);
    return r > 0 ? QStringLiteral("%1 %2").arg(formatRatio(r), library) : QString();
}

QJsonObject BaselineResult::toJson(double kernelMedianMs) const {
    return QJsonObject{{QStringLiteral("library"), library},
                       {QStringLiteral("call"), call},
                       {QStringLiteral("timing"), timing.toJson()},
                       {QStringLiteral("check"), check.toJson()},
                       {QStringLiteral("error"), json::nullIfEmpty(error)},
                       {QStringLiteral("ratio"), json::fromDouble(ratio(kernelMedianMs))}};
}

std::optional<BaselineResult> BaselineResult::fromJson(const QJsonObject& json, QString* error,
                                                       const QString& path) {
    const json::FieldReader fields(json, error, path);
    constexpr auto required = json::Presence::Required;
    BaselineResult r;
    QJsonObject timing, check;
    if (!fields.readString(QStringLiteral("library"), &r.library, required) ||
        !fields.readString(QStringLiteral("call"), &r.call, required) ||
        !fields.readString(QStringLiteral("error"), &r.error, json::Presence::NullIsAbsent) ||
        !fields.readObject(QStringLiteral("timing"), &timing, required) ||
        !fields.readObject(QStringLiteral("check"), &check, required))
        return std::nullopt;
    std::optional<TimingStats> stats =
        TimingStats::fromJson(timing, error, fields.path(QStringLiteral("timing")));
    if (!stats)
        return std::nullopt;
    std::optional<BufferVerification> verification =
        BufferVerification::fromJson(check, error, fields.path(QStringLiteral("check")));
    if (!verification)
        return std::nullopt;
    r.timing = std::move(*stats);
    r.check = std::move(*verification);
    return r;
}

} // namespace kernelpad
