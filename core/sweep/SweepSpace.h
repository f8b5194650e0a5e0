#pragma once
// The configurations of a project's sweep: every combination of the tunables' values, less
// those a restriction removes (counted per restriction), and the pure mapping of one
// configuration to the project that runs it.

#include "core/project/Project.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

namespace kernelpad {

class SweepFormula;

/// One configuration: for each tunable, the index of its value.
using SweepPoint = QVector<int>;

/// How many configurations one restriction rules out (each counted on its own, so a
/// configuration two restrictions refuse counts for both).
struct RestrictionCount {
    QString restriction;
    qint64 removed = 0;
};

/// A sweep's space over one project. Built once; then read-only and cheap to query.
class SweepSpace {
public:
    /// More combinations than this is a space to narrow, not to enumerate.
    static constexpr qint64 kMaxConfigurations = 1000000;

    ~SweepSpace();
    SweepSpace(const SweepSpace&) = delete;
    SweepSpace& operator=(const SweepSpace&) = delete;

    /// The space of `project.sweep`; nullopt-like null with `error` naming the field
    /// ("sweep.restrictions[1]: Unexpected token ..."), also for a project without a sweep.
    static std::unique_ptr<SweepSpace> create(const Project& project, QString* error);

    [[nodiscard]] const SweepSpec& spec() const { return m_project.sweep; }
    [[nodiscard]] QStringList names() const { return m_names; } ///< the tunables' names
    [[nodiscard]] const QVector<QVector<double>>& values() const { return m_values; }
    /// Every combination, restrictions ignored.
    [[nodiscard]] qint64 fullSize() const { return m_fullSize; }
    /// The configurations the restrictions keep, in enumeration order (the last tunable
    /// varies fastest).
    [[nodiscard]] const QVector<SweepPoint>& points() const { return m_points; }
    [[nodiscard]] qsizetype size() const { return m_points.size(); }
    [[nodiscard]] const QVector<RestrictionCount>& restrictionCounts() const { return m_counts; }
    /// The index in points() of `point`, or -1 when it is outside the space or restricted.
    [[nodiscard]] int indexOf(const SweepPoint& point) const { return m_index.value(point, -1); }

    /// The tunables' values of a configuration, in names() order.
    [[nodiscard]] QVector<double> valuesOf(const SweepPoint& point) const;
    /// "bx=32,by=8": names and values, the identity of a configuration in a results file.
    [[nodiscard]] QString key(const SweepPoint& point) const;

    /// The project that runs `point` (a pure function of the project and the point): block
    /// dimensions, defines, scalar values, grid, shared memory and kernel name set, the sweep
    /// section dropped. nullopt with `error` when the configuration cannot launch ("grid[0]:
    /// (n + bx - 1) / bx gives 0, below 1"; "block: 2048 threads per block ... exceed ...").
    [[nodiscard]] std::optional<Project> project(const SweepPoint& point, QString* error) const;

    /// A value as a define, a scalar and a key write it: integers without a point ("16"),
    /// others with the digits a double needs.
    [[nodiscard]] static QString formatValue(double value);

private:
    SweepSpace();
    /// Every variable formulas may use, for `point`: the tunables, then bx, by, bz and the
    /// numeric scalar arguments that are not swept.
    [[nodiscard]] QVector<double> variables(const SweepPoint& point) const;

    Project m_project;
    QStringList m_names;
    QVector<QVector<double>> m_values;
    QStringList m_variableNames; ///< m_names, then the fixed ones
    QVector<double> m_fixed;     ///< the values of the fixed variables
    qint64 m_fullSize = 0;
    QVector<SweepPoint> m_points;
    QHash<SweepPoint, int> m_index;
    QVector<RestrictionCount> m_counts;
    // Formulas are compiled once; evaluating one changes only its variables' storage, which
    // is why project() is const but these are mutable. Not thread-safe, like muParser.
    mutable std::vector<std::unique_ptr<SweepFormula>> m_grid;
    mutable std::unique_ptr<SweepFormula> m_shared;
};

} // namespace kernelpad
