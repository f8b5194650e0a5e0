#include "core/sweep/SweepSpace.h"

#include "core/io/JsonFields.h"
#include "core/launch/LaunchValidation.h"
#include "core/sweep/SweepFormula.h"

#include <QRegularExpression>

#include <algorithm>
#include <climits>
#include <cmath>

namespace kernelpad {

namespace {

const QStringList kBlockNames{QStringLiteral("bx"), QStringLiteral("by"), QStringLiteral("bz")};

QRegularExpression placeholderPattern() {
    static const QRegularExpression placeholder(QStringLiteral(R"(\{([A-Za-z_]\w*)\})"));
    return placeholder;
}

/// A formula's value as a whole number, rounded down as C's integer division would for the
/// positive values grids and sizes have; nullopt for NaN, infinity or beyond int.
std::optional<qint64> wholeValue(double value) {
    if (!std::isfinite(value) || std::fabs(value) >= double(kExactDoubleIntegerLimit))
        return std::nullopt;
    return qint64(std::floor(value));
}

} // namespace

SweepSpace::SweepSpace() = default;
SweepSpace::~SweepSpace() = default;

QString SweepSpace::formatValue(double value) {
    if (value == std::floor(value) && std::fabs(value) < double(kExactDoubleIntegerLimit))
        return QString::number(qint64(value));
    return QString::number(value, 'g', 17);
}

std::unique_ptr<SweepSpace> SweepSpace::create(const Project& project, QString* error) {
    const auto fail = [error](const QString& message) -> std::unique_ptr<SweepSpace> {
        if (error)
            *error = message;
        return nullptr;
    };
    if (project.sweep.isEmpty())
        return fail(QStringLiteral("sweep: the project has no \"sweep\" section (give its "
                                   "tunables there or with --set NAME=VALUES)"));
    std::unique_ptr<SweepSpace> space(new SweepSpace);
    space->m_project = project;
    space->m_fullSize = 1;
    for (const SweepTunable& tunable : project.sweep.tunables) {
        space->m_names.append(tunable.name);
        space->m_values.append(tunable.values.expand());
        space->m_fullSize *= space->m_values.last().size();
        if (space->m_fullSize > kMaxConfigurations)
            return fail(QStringLiteral("sweep: more than %1 configurations; narrow the ranges "
                                       "or sweep fewer tunables")
                            .arg(kMaxConfigurations));
    }
    space->m_variableNames = space->m_names;
    for (int axis = 0; axis < 3; ++axis) {
        if (space->m_variableNames.contains(kBlockNames[axis]))
            continue;
        space->m_variableNames.append(kBlockNames[axis]);
        space->m_fixed.append(project.launch.block[size_t(axis)]);
    }
    for (const ArgumentSpec& argument : project.arguments) {
        bool numeric = false;
        const double value = argument.value.toDouble(&numeric);
        if (!argument.isScalar() || !numeric || space->m_variableNames.contains(argument.name))
            continue;
        space->m_variableNames.append(argument.name);
        space->m_fixed.append(value);
    }

    const SweepSpec& spec = project.sweep;
    const auto compileFormula = [&](const QString& text, const QString& path,
                                    QString* message) -> std::unique_ptr<SweepFormula> {
        auto formula = std::make_unique<SweepFormula>();
        if (QString bad = formula->compile(text, space->m_variableNames); !bad.isEmpty()) {
            *message = QStringLiteral("%1: %2 (in \"%3\"; names: %4)")
                           .arg(path, bad, text, space->m_variableNames.join(QStringLiteral(", ")));
            return nullptr;
        }
        return formula;
    };
    QString message;
    if (spec.grid) {
        for (int axis = 0; axis < 3; ++axis) {
            auto formula =
                compileFormula((*spec.grid)[size_t(axis)],
                               json::indexPath(QStringLiteral("sweep.grid"), axis), &message);
            if (!formula)
                return fail(message);
            space->m_grid.push_back(std::move(formula));
        }
    }
    if (!spec.sharedMemBytes.isEmpty()) {
        space->m_shared =
            compileFormula(spec.sharedMemBytes, QStringLiteral("sweep.sharedMemBytes"), &message);
        if (!space->m_shared)
            return fail(message);
    }
    for (auto it = placeholderPattern().globalMatch(spec.kernel); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (!space->m_names.contains(name))
            return fail(QStringLiteral("sweep.kernel: {%1} names no tunable (tunables: %2)")
                            .arg(name, space->m_names.join(QStringLiteral(", "))));
    }
    std::vector<std::unique_ptr<SweepFormula>> restrictions;
    for (qsizetype i = 0; i < spec.restrictions.size(); ++i) {
        auto formula =
            compileFormula(spec.restrictions[i],
                           json::indexPath(QStringLiteral("sweep.restrictions"), i), &message);
        if (!formula)
            return fail(message);
        restrictions.push_back(std::move(formula));
        space->m_counts.append(RestrictionCount{spec.restrictions[i], 0});
    }

    // Odometer enumeration, the last tunable fastest.
    const int dims = int(space->m_values.size());
    SweepPoint point(dims, 0);
    for (qint64 n = 0; n < space->m_fullSize; ++n) {
        const QVector<double> vars = space->variables(point);
        bool kept = true;
        for (size_t r = 0; r < restrictions.size(); ++r) {
            const double verdict = restrictions[r]->evaluate(vars);
            if (!(verdict != 0.0) || std::isnan(verdict)) { // NaN: refused, not kept
                ++space->m_counts[qsizetype(r)].removed;
                kept = false;
            }
        }
        if (kept) {
            space->m_index.insert(point, int(space->m_points.size()));
            space->m_points.append(point);
        }
        for (int d = dims - 1; d >= 0; --d) {
            if (++point[d] < space->m_values[d].size())
                break;
            point[d] = 0;
        }
    }
    return space;
}

QVector<double> SweepSpace::valuesOf(const SweepPoint& point) const {
    QVector<double> out;
    out.reserve(point.size());
    for (qsizetype d = 0; d < point.size(); ++d)
        out.append(m_values[d][point[d]]);
    return out;
}

QVector<double> SweepSpace::variables(const SweepPoint& point) const {
    return valuesOf(point) + m_fixed;
}

QString SweepSpace::key(const SweepPoint& point) const {
    QStringList parts;
    for (qsizetype d = 0; d < point.size(); ++d)
        parts.append(m_names[d] + QLatin1Char('=') + formatValue(m_values[d][point[d]]));
    return parts.join(QLatin1Char(','));
}

std::optional<Project> SweepSpace::project(const SweepPoint& point, QString* error) const {
    const auto fail = [error](const QString& message) -> std::optional<Project> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    Project out = m_project;
    out.sweep = SweepSpec{};
    const SweepSpec& spec = m_project.sweep;
    const QVector<double> values = valuesOf(point);
    for (qsizetype d = 0; d < values.size(); ++d) {
        const SweepTunable& tunable = spec.tunables[d];
        const double value = values[d];
        const QString text = formatValue(value);
        switch (tunable.role) {
        case SweepTunable::Role::Block: {
            const std::optional<qint64> whole = wholeValue(value);
            if (!whole || double(*whole) != value || *whole < 1 || *whole > qint64(INT_MAX))
                return fail(QStringLiteral("block.%1: %2 is not a whole number >= 1")
                                .arg(QLatin1Char("xyz"[tunable.axis]))
                                .arg(text));
            out.launch.block[size_t(tunable.axis)] = int(*whole);
            break;
        }
        case SweepTunable::Role::Define: {
            // The sweep's value replaces any -D of the same name the project has.
            const QString prefix = tunable.name + QLatin1Char('=');
            out.options.defines.erase(
                std::remove_if(out.options.defines.begin(), out.options.defines.end(),
                               [&](const QString& existing) {
                                   return existing == tunable.name || existing.startsWith(prefix);
                               }),
                out.options.defines.end());
            out.options.defines.append(prefix + text);
            break;
        }
        case SweepTunable::Role::Scalar:
            for (ArgumentSpec& argument : out.arguments)
                if (argument.name == tunable.name)
                    argument.value = text;
            break;
        case SweepTunable::Role::Parameter:
            break;
        }
    }
    const QVector<double> vars = variables(point);
    for (size_t axis = 0; axis < m_grid.size(); ++axis) {
        const std::optional<qint64> whole = wholeValue(m_grid[axis]->evaluate(vars));
        if (!whole || *whole < 1 || *whole > qint64(INT_MAX))
            return fail(QStringLiteral("grid[%1]: %2 gives %3, outside 1 .. %4")
                            .arg(axis)
                            .arg((*spec.grid)[axis],
                                 whole ? QString::number(*whole) : QStringLiteral("no number"))
                            .arg(INT_MAX));
        out.launch.grid[axis] = int(*whole);
    }
    if (m_shared) {
        const std::optional<qint64> whole = wholeValue(m_shared->evaluate(vars));
        if (!whole || *whole < 0 || *whole > qint64(INT_MAX))
            return fail(QStringLiteral("sharedMemBytes: %1 gives %2, outside 0 .. %3")
                            .arg(spec.sharedMemBytes,
                                 whole ? QString::number(*whole) : QStringLiteral("no number"))
                            .arg(INT_MAX));
        out.launch.sharedMemBytes = int(*whole);
    }
    if (!spec.kernel.isEmpty()) {
        QString kernel = spec.kernel;
        for (qsizetype d = 0; d < values.size(); ++d)
            kernel.replace(QLatin1Char('{') + m_names[d] + QLatin1Char('}'),
                           formatValue(values[d]));
        out.kernel = kernel;
    }
    // The limits every device has; the runner checks the device's own and the kernel's, and
    // shared memory there, since a kernel may opt in to more than the generic 48 KiB.
    LaunchLimits limits = genericLaunchLimits();
    limits.maxSharedPerBlockBytes = 0;
    limits.maxSharedPerBlockOptinBytes = 0;
    if (QString bad = validateLaunch(out.launch, limits); !bad.isEmpty())
        return fail(bad);
    return out;
}

} // namespace kernelpad
