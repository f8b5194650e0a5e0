#pragma once
// A project's parameter sweep: the tunables (block dimensions,
// -D defines, scalar argument values such as n, plain parameters for name expressions), the
// formulas that follow them (grid, dynamic shared memory, the kernel's name expression), the
// restrictions, the search strategy and the objective. JSON: the project's "sweep" section,
// written only when it has tunables. core/sweep enumerates, maps and evaluates it.
//
//   "sweep": {
//     "block": {"x": {"from": 1, "to": 1024, "powersOf": 2}, "y": [1, 2, 4]},   // bx, by
//     "grid": ["(n + bx - 1) / bx", "1", "1"],
//     "defines": {"TILE": [8, 16, 32]},             // -DTILE=16
//     "scalars": {"n": {"from": 1024, "to": 1048576, "powersOf": 2}},
//     "parameters": {"UNROLL": [1, 2, 4]},          // for "kernel" and the formulas
//     "kernel": "transpose<{TILE}>",
//     "sharedMemBytes": "TILE * (TILE + 1) * 4",
//     "restrictions": ["bx*by <= 1024", "TILE % 4 == 0"],
//     "strategy": {"kind": "local", "budget": 50, "seed": 7},
//     "objective": "time",                   // or "bandwidth", "baseline" (the ratio)
//     "timingBudget": "fast"                 // or "accurate" (the default), or ms (SweepBudget.h)
//   }

#include "core/launch/ArgumentSpec.h"
#include "core/project/SweepBudget.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QVector>

#include <array>
#include <optional>

namespace kernelpad {

/// The values one tunable takes: a list, or a range by a step or by powers. JSON: an array of
/// numbers, {"from": 0, "to": 64, "step": 8} or {"from": 1, "to": 1024, "powersOf": 2}.
struct SweepValues {
    /// More values than this in one tunable is a typo, not a sweep.
    static constexpr int kMaxValues = 100000;

    enum class Kind { List, Step, Powers };
    Kind kind = Kind::List;
    QVector<double> list; ///< List: the values in the order given
    double from = 0, to = 0;
    double step = 1; ///< Step: from, from+step, ... up to and including `to`
    int base = 2;    ///< Powers: from, from*base, from*base^2, ... up to and including `to`

    /// Every value, in order.
    [[nodiscard]] QVector<double> expand() const;
    [[nodiscard]] QJsonValue toJson() const;
    /// `path` names the value in messages ("sweep.block.x").
    static std::optional<SweepValues> fromJson(const QJsonValue& json, const QString& path,
                                               QString* error);
    /// The command line's form (kernelpad-cli sweep --set): "1,2,4", "0:64:8" (from:to:step)
    /// or "1:1024:x2" (from:to, powers of 2).
    static std::optional<SweepValues> fromText(const QString& text, QString* error);
    friend bool operator==(const SweepValues& a, const SweepValues& b) {
        return a.toJson() == b.toJson();
    }
};

/// One swept quantity and where its value goes.
struct SweepTunable {
    enum class Role {
        Block,     ///< block.x/y/z, named bx, by, bz in formulas
        Define,    ///< -DNAME=value
        Scalar,    ///< the value of the project's scalar argument of this name
        Parameter, ///< only in formulas and {NAME} in the kernel's name expression
    };
    Role role = Role::Parameter;
    QString name;
    int axis = 0; ///< Block: 0, 1, 2
    SweepValues values;
};

/// How the space is searched: every configuration, a seeded random sample, or a local search
/// (core/sweep/SweepStrategy.h documents each).
struct SweepStrategySpec {
    enum class Kind { Exhaustive, Random, Local };
    Kind kind = Kind::Exhaustive;
    int budget = 0;   ///< configurations evaluated at most; 0: the whole space
    quint64 seed = 1; ///< Random, Local: same seed, same order
    friend bool operator==(const SweepStrategySpec& a, const SweepStrategySpec& b) {
        return a.kind == b.kind && a.budget == b.budget && a.seed == b.seed;
    }
};
[[nodiscard]] QString strategyKindName(SweepStrategySpec::Kind kind);
[[nodiscard]] std::optional<SweepStrategySpec::Kind> strategyKindFromName(const QString& name);

/// What "best" means: the lowest median time, the highest bandwidth, the highest ratio to
/// the project's library baseline (its time over the kernel's: "baseline"), the least energy
/// per launch (NVML's counter, core/run/Telemetry.h: "energy") or the lowest energy-delay
/// product (energy per launch times the median time: "edp").
enum class SweepObjective { Time, Bandwidth, Baseline, Energy, Edp };
/// The JSON name of an objective: "time", "bandwidth", "baseline", "energy", "edp".
[[nodiscard]] QString sweepObjectiveName(SweepObjective objective);

/// A project's "sweep" section.
struct SweepSpec {
    QVector<SweepTunable> tunables; ///< block first, then defines, scalars, parameters
    /// The grid as formulas over the tunables and the integer scalars, rounded down; absent:
    /// the project's grid.
    std::optional<std::array<QString, 3>> grid;
    QString sharedMemBytes; ///< a formula; empty: the project's
    QString kernel;         ///< a name expression with {NAME} placeholders; empty: the project's
    QStringList restrictions;
    SweepStrategySpec strategy;
    SweepObjective objective = SweepObjective::Time;
    SweepTimingBudget timingBudget; ///< how long each configuration is timed

    [[nodiscard]] bool isEmpty() const { return tunables.isEmpty(); }
    [[nodiscard]] const SweepTunable* find(const QString& name) const;
    [[nodiscard]] QStringList names() const;
    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the section; `arguments` are the project's (a swept scalar must be one of its
    /// scalar arguments). Messages name the field under "sweep" ("sweep.block.x[2]: ...").
    static std::optional<SweepSpec>
    fromJson(const QJsonObject& json, const QVector<ArgumentSpec>& arguments, QString* error);
    friend bool operator==(const SweepSpec& a, const SweepSpec& b) {
        return a.toJson() == b.toJson();
    }
};

} // namespace kernelpad
