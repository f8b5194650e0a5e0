#pragma once
// kernelpad-cli sweep: a project's parameter sweep (its "sweep" section, core/sweep) in one
// warm runner, results appended to a JSON-lines file and printed as a sorted table.

#include <QStringList>

namespace kernelpad::cli {

/// `sweep FILE.kpad [--json|--csv] [--strategy exhaustive|random|local] [--budget N]
/// [--seed S] [--fast|--accurate|--budget-ms MS] [--results FILE] [--fresh]
/// [--set NAME=VALUES ...] [--device N] [--reps N]`. The timing budget options replace the
/// sweep section's "timingBudget" (SweepBudget.h); --budget stays the strategy's count.
/// The results file is the window's (sweepResultsPath: in the cache folder, keyed by the
/// project's canonical path), so either resumes the other's sweep; --fresh starts it over
/// (removing only a results file KernelPad wrote). --results FILE names another file, read
/// and appended by the same rules (its header, no symbolic link, a regular file of one link).
/// Exit codes:
/// 0 when a configuration passed, 2 when none did, 3 without a CUDA device (a compile-only
/// evaluation is no sweep), 4 for bad input.
int runSweep(const QStringList& args);

} // namespace kernelpad::cli
