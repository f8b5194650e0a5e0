#include "core/sweep/SweepForm.h"

#include "core/sweep/SweepSpace.h"

#include <QRegularExpression>

#include <cmath>
#include <memory>

namespace kernelpad {

namespace {

/// The exponent of `value` in `base`, when it is a whole power of it.
std::optional<int> exponentOf(double value, int base) {
    if (base < 2 || value < 1)
        return std::nullopt;
    int e = 0;
    double p = 1;
    while (p < value) {
        p *= base;
        ++e;
    }
    return p == value ? std::optional<int>(e) : std::nullopt;
}

} // namespace

QString sweepValuesText(const SweepValues& values) {
    switch (values.kind) {
    case SweepValues::Kind::List: {
        QStringList parts;
        for (double v : values.list)
            parts.append(SweepSpace::formatValue(v));
        return parts.join(QStringLiteral(", "));
    }
    case SweepValues::Kind::Step:
        return QStringLiteral("%1..%2 step %3")
            .arg(SweepSpace::formatValue(values.from), SweepSpace::formatValue(values.to),
                 SweepSpace::formatValue(values.step));
    case SweepValues::Kind::Powers: {
        const std::optional<int> from = exponentOf(values.from, values.base);
        const std::optional<int> to = exponentOf(values.to, values.base);
        if (from && to)
            return QStringLiteral("powers %1^%2..%1^%3").arg(values.base).arg(*from).arg(*to);
        return QStringLiteral("%1..%2 x%3")
            .arg(SweepSpace::formatValue(values.from), SweepSpace::formatValue(values.to))
            .arg(values.base);
    }
    }
    return {};
}

std::optional<SweepValues> sweepValuesFromText(const QString& text, QString* error) {
    const QString t = text.trimmed();
    if (t.isEmpty()) {
        if (error)
            *error = QStringLiteral("no values (expected \"8, 16, 32\", \"1..64 step 8\" or "
                                    "\"powers 2^5..2^10\")");
        return std::nullopt;
    }
    static const QRegularExpression powers(
        QStringLiteral(R"(^powers\s+(\d+)\s*\^\s*(\d+)\s*\.\.\s*(\d+)\s*\^\s*(\d+)$)"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression stepped(
        QStringLiteral(R"(^(\S+?)\s*\.\.\s*(\S+?)\s+(step\s+|x)(\S+)$)"),
        QRegularExpression::CaseInsensitiveOption);
    if (const QRegularExpressionMatch m = powers.match(t); m.hasMatch()) {
        if (m.captured(1) != m.captured(3)) {
            if (error)
                *error = QStringLiteral("'%1': both ends need the same base (\"powers "
                                        "2^5..2^10\")")
                             .arg(t);
            return std::nullopt;
        }
        const double base = m.captured(1).toDouble();
        return SweepValues::fromText(
            QStringLiteral("%1:%2:x%3")
                .arg(SweepSpace::formatValue(std::pow(base, m.captured(2).toDouble())),
                     SweepSpace::formatValue(std::pow(base, m.captured(4).toDouble())),
                     m.captured(1)),
            error);
    }
    if (const QRegularExpressionMatch m = stepped.match(t); m.hasMatch()) {
        const bool byPowers =
            m.captured(3).trimmed().compare(QStringLiteral("x"), Qt::CaseInsensitive) == 0;
        return SweepValues::fromText(QStringLiteral("%1:%2:%3%4")
                                         .arg(m.captured(1), m.captured(2),
                                              byPowers ? QStringLiteral("x") : QString(),
                                              m.captured(4)),
                                     error);
    }
    if (t.contains(QStringLiteral(".."))) {
        if (error)
            *error = QStringLiteral("'%1': a range is \"1..64 step 8\", \"1..1024 x2\" or "
                                    "\"powers 2^0..2^10\"")
                         .arg(t);
        return std::nullopt;
    }
    return SweepValues::fromText(t, error);
}

std::optional<Project> projectWithRecord(const Project& project, const SweepRecord& record,
                                         QString* error) {
    std::unique_ptr<SweepSpace> space = SweepSpace::create(project, error);
    if (!space)
        return std::nullopt;
    const auto fail = [&](const QString& why) -> std::optional<Project> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(record.key, why);
        return std::nullopt;
    };
    if (record.names != space->names() || record.values.size() != space->names().size())
        return fail(QStringLiteral("not a configuration of this sweep (its tunables are %1)")
                        .arg(space->names().join(QStringLiteral(", "))));
    SweepPoint point;
    for (qsizetype d = 0; d < record.values.size(); ++d) {
        const int index = int(space->values()[d].indexOf(record.values[d]));
        if (index < 0)
            return fail(QStringLiteral("%1 is not one of %2's values")
                            .arg(SweepSpace::formatValue(record.values[d]), record.names[d]));
        point.append(index);
    }
    if (space->indexOf(point) < 0)
        return fail(QStringLiteral("a restriction rules it out"));
    QString why;
    std::optional<Project> out = space->project(point, &why);
    if (!out)
        return fail(why);
    out->sweep = project.sweep;
    return out;
}

} // namespace kernelpad
