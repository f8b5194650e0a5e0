#pragma once
// A project's tests as results: each case (core/project/TestSpec.h) mapped to the run
// request that runs it, and the table of cases × checks its runs give. The checks are a list
// that grows: caseChecks() is the one place that turns a case's runs into checks. EngineTests
// runs the requests through the Engine.

#include "core/project/Project.h"
#include "core/run/RunTypes.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

/// How one check of one case ended. A warning does not fail the case.
enum class CheckOutcome { Passed, Failed, Warning, Skipped };
/// "passed", "failed", "warning", "skipped".
[[nodiscard]] QString checkOutcomeName(CheckOutcome outcome);

/// One check of one case: "verify", "determinism", ...
struct TestCheck {
    QString name;
    CheckOutcome outcome = CheckOutcome::Skipped;
    QString message;
    /// The first mismatches or differing elements ("out[32]: got 0, expected 33").
    QStringList details;

    [[nodiscard]] QJsonObject toJson() const;
};

/// A case's runs turned into checks.
struct TestCaseResult {
    QString name;   ///< the case's display name ("n = 33")
    QString launch; ///< "grid 2x1x1, block 32x1x1"
    QVector<TestCheck> checks;
    /// The first run; its outputs are kept only when a check failed (for the buffer viewer).
    RunResult run;

    [[nodiscard]] bool failed() const;
    [[nodiscard]] const TestCheck* find(const QString& check) const;
    [[nodiscard]] QJsonObject toJson() const;
};

/// Every case of a test run, or why none could run.
struct TestReport {
    QString project; ///< the project's name (or its file's)
    /// What the run assumed ("the project has no \"tests\" section: its own size is the
    /// single case").
    QString note;
    QVector<TestCaseResult> cases;
    /// Ok, or why the test run stopped before its cases (CompileError, DriverUnavailable,
    /// BadInput, Cancelled) with `error` saying it.
    RunStatus status = RunStatus::Ok;
    QString error;

    /// The names of every check in the cases, in order of first appearance (the columns).
    [[nodiscard]] QStringList checkNames() const;
    [[nodiscard]] int count(CheckOutcome outcome) const;
    /// No error and no failed check (warnings pass).
    [[nodiscard]] bool passed() const;
    [[nodiscard]] QJsonObject toJson() const;
};

/// One case ready to run.
struct PlannedCase {
    QString name;
    RunRequest request;
    bool determinism = false;
    /// The second run compiles with kReversedBlocksDefine ("determinism": "reversed").
    bool reversedBlocks = false;
    QString error; ///< the case cannot run ("grid[0]: ... gives 0"); `request` is unset
};

/// The request of `plan`'s second run: its own, or with kReversedBlocksDefine=1 added to the
/// defines when the blocks run in reverse order.
[[nodiscard]] RunRequest secondRunRequest(const PlannedCase& plan);
/// What the determinism check adds about the second run of `plan`: empty for a plain second
/// run, else that its blocks ran in reverse order, or that the kernel does not read the define
/// (so only the hardware's scheduling differed).
[[nodiscard]] QString secondRunNote(const PlannedCase& plan);

/// The cases of `base.project` (its tests expanded, or its own size as the single case, with
/// `*note` saying so), each as a request built from `base`: scalars, grid and block set as
/// the case says, timed once (a test checks, it does not measure), outputs kept.
/// `onlyCase`, when not empty, keeps the case of that name; none matching is an error in
/// `*error` naming the cases there are.
[[nodiscard]] QVector<PlannedCase> planTestCases(const RunRequest& base, const QString& onlyCase,
                                                 QString* note, QString* error);

/// The project that runs `testCase` (values, block and grid formulas applied through the
/// sweep's mapping, core/sweep/SweepSpace.h); nullopt with `*error` naming the field.
[[nodiscard]] std::optional<Project> testCaseProject(const Project& project,
                                                     const TestCase& testCase, QString* error);

/// Every check of one case from its run and, when determinism was checked, its second run
/// (`again`, of which `againNote` says how it ran: secondRunNote()); `determinismSkipped` says
/// why there is none. The one place a check is added.
[[nodiscard]] QVector<TestCheck> caseChecks(const RunResult& run, const RunResult* again,
                                            const QString& determinismSkipped,
                                            const QString& againNote = {});

/// The "determinism" check: the output buffers of two runs compared bit for bit.
[[nodiscard]] TestCheck determinismCheck(const RunResult& first, const RunResult& second);

/// "grid 2x1x1, block 32x1x1".
[[nodiscard]] QString launchText(const LaunchConfig& launch);

} // namespace kernelpad

Q_DECLARE_METATYPE(kernelpad::TestCaseResult)
Q_DECLARE_METATYPE(kernelpad::TestReport)
