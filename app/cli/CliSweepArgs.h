#pragma once
// kernelpad-cli sweep's command line: the options read into SweepArgs, and those that change
// the project's sweep section (--set, --strategy, --budget, --seed, --fast, --accurate,
// --budget-ms) written into it.

#include "core/project/Project.h"
#include "core/project/RunnerSpec.h"
#include "core/project/SweepBudget.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad::cli {

/// What `kernelpad-cli sweep` was asked.
struct SweepArgs {
    QString project;
    bool json = false;
    bool csv = false;
    bool fresh = false; ///< --fresh: start the results file over instead of resuming it
    /// Without --no-confirm: the best is confirmed by an A/B against the runner-up.
    bool confirm = true;
    std::optional<QString> strategy;
    std::optional<int> budget; ///< --budget: configurations evaluated at most
    std::optional<qint64> seed;
    /// --fast, --accurate or --budget-ms N: how long each configuration is timed.
    std::optional<SweepTimingBudget> timingBudget;
    QString results;
    QStringList sets;
    int device = 0;
    bool deviceGiven = false;
    /// --devices: "all" or ordinals ("0,1"; "0,0" is two runners on device 0).
    QString devices;
    std::optional<int> repetitions;
    /// --runner, each time it is given (main passes them on, the first also in
    /// $KERNELPAD_RUNNER_SPEC): two or more spread the sweep over every device of each.
    QVector<RunnerSpec> runners;
};

/// The command line; nullopt with `error` naming the option.
[[nodiscard]] std::optional<SweepArgs> parseSweepArgs(const QStringList& args, QString* error);

/// The command line's --set, --strategy, --budget, --seed and timing budget written into
/// `project`; false with `*error` when one does not apply.
bool applySweepOverrides(const SweepArgs& a, Project* project, QString* error);

} // namespace kernelpad::cli
