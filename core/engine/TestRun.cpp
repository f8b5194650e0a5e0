#include "core/engine/TestRun.h"

#include "core/launch/ScalarCodec.h"
#include "core/sweep/SweepSpace.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

namespace kernelpad {

namespace {

/// Mismatches or differing elements a failed check lists.
constexpr int kTestDetailLines = 5;

QString dimsText(const std::array<int, 3>& d) {
    return QStringLiteral("%1x%2x%3").arg(d[0]).arg(d[1]).arg(d[2]);
}

/// The sweep that maps `testCase` onto the project: each value a scalar of one value, the
/// block's axes of one value (its formulas evaluated with the case's values), the grid
/// formulas. Nullopt with `*error` when a block formula gives no block.
std::optional<SweepSpec> caseSweep(const Project& project, const TestCase& testCase,
                                   QString* error) {
    SweepSpec sweep;
    const TestSpec& tests = project.tests;
    const std::optional<std::array<QString, 3>> formulas =
        testCase.block ? testCase.block : tests.block;
    if (formulas) {
        const std::optional<std::array<int, 3>> block =
            evaluateTestBlock(*formulas, project.arguments, testCase.values, error);
        if (!block)
            return std::nullopt;
        for (int axis = 0; axis < 3; ++axis) {
            SweepValues values;
            values.list = {double((*block)[size_t(axis)])};
            sweep.tunables.append(SweepTunable{SweepTunable::Role::Block,
                                               QStringLiteral("b%1").arg(QLatin1Char("xyz"[axis])),
                                               axis, values});
        }
    }
    for (const TestValue& v : testCase.values) {
        SweepValues values;
        values.list = {v.value};
        sweep.tunables.append(SweepTunable{SweepTunable::Role::Scalar, v.name, 0, values});
    }
    sweep.grid = testCase.grid ? testCase.grid : tests.grid;
    return sweep;
}

/// "out[32]: got 0, expected 33 (never written)" for the first mismatches of a buffer.
QStringList mismatchLines(const BufferVerification& v) {
    QStringList lines;
    for (const Mismatch& m : v.firstMismatches) {
        if (lines.size() >= kTestDetailLines)
            break;
        lines << QStringLiteral("%1[%2]: got %3, expected %4")
                     .arg(v.buffer)
                     .arg(m.index)
                     .arg(m.got, 0, 'g', 9)
                     .arg(m.expected, 0, 'g', 9);
    }
    return lines;
}

TestCheck verifyCheck(const RunResult& run) {
    TestCheck check{QStringLiteral("verify"), CheckOutcome::Passed, {}, {}};
    if (run.status != RunStatus::Ok && run.status != RunStatus::VerificationFailed) {
        check.outcome = CheckOutcome::Failed;
        check.message =
            QStringLiteral("the run failed (%1): %2")
                .arg(runStatusName(run.status), run.error.section(QLatin1Char('\n'), 0, 0));
        return check;
    }
    QStringList failed, passed;
    for (const BufferVerification& v : run.verification) {
        if (v.method == QLatin1String("guard bytes"))
            continue; // the canary check's (guardCheck)
        if (v.passed) {
            passed << QStringLiteral("%1: %2 elements match").arg(v.buffer).arg(v.checked);
            continue;
        }
        if (!v.error.isEmpty()) {
            failed << QStringLiteral("%1: not verified: %2").arg(v.buffer, v.error);
            continue;
        }
        QString text = QStringLiteral("%1: %2 of %3 elements wrong")
                           .arg(v.buffer)
                           .arg(v.mismatches)
                           .arg(v.checked);
        if (v.unwritten > 0)
            text += QStringLiteral(" (%1 never written)").arg(v.unwritten);
        failed << text;
        check.details << mismatchLines(v);
    }
    if (!failed.isEmpty()) {
        check.outcome = CheckOutcome::Failed;
        check.message = failed.join(QStringLiteral("; "));
    } else if (passed.isEmpty()) {
        check.outcome = CheckOutcome::Skipped;
        check.message = QStringLiteral("no output is verified (give an output buffer a "
                                       "\"verify\")");
    } else {
        check.message = passed.join(QStringLiteral("; "));
    }
    return check;
}

/// How two contents of one output buffer differ.
struct BufferDifference {
    qint64 differing = 0;
    double largest = 0; ///< ULP for floating-point types, the absolute difference for integers
    bool inUlp = false;
    QStringList firstLines;
};

BufferDifference compareOutput(const OutputBuffer& a, const OutputBuffer& b) {
    BufferDifference diff;
    const int size = a.type.sizeBytes();
    if (size <= 0)
        return diff;
    const bool scalar = !a.type.isStruct() && a.type.scalar != ScalarType::Float4E2M1x2;
    const ScalarType type = a.type.scalar;
    diff.inUlp = scalar && !detail::isIntegerType(type);
    const qint64 count = std::min(a.data.size(), b.data.size()) / size;
    for (qint64 i = 0; i < count; ++i) {
        const char* x = a.data.constData() + i * size;
        const char* y = b.data.constData() + i * size;
        if (std::memcmp(x, y, size_t(size)) == 0)
            continue;
        ++diff.differing;
        if (!scalar)
            continue;
        double xi = 0, yi = 0;
        const double xr = detail::loadScalar(type, x, &xi);
        const double yr = detail::loadScalar(type, y, &yi);
        for (const auto& [p, q] : {std::pair{xr, yr}, std::pair{xi, yi}}) {
            const double step = diff.inUlp ? detail::ulpOf(type, p) : 1.0;
            const double d = std::fabs(p - q) / (step > 0 ? step : 1.0);
            if (std::isfinite(d))
                diff.largest = std::max(diff.largest, d);
        }
        if (diff.firstLines.size() < kTestDetailLines)
            diff.firstLines << QStringLiteral("%1[%2]: %3 then %4")
                                   .arg(a.name)
                                   .arg(i)
                                   .arg(detail::formatScalar(type, x),
                                        detail::formatScalar(type, y));
    }
    return diff;
}

} // namespace

QString checkOutcomeName(CheckOutcome outcome) {
    switch (outcome) {
    case CheckOutcome::Passed:
        return QStringLiteral("passed");
    case CheckOutcome::Failed:
        return QStringLiteral("failed");
    case CheckOutcome::Warning:
        return QStringLiteral("warning");
    case CheckOutcome::Skipped:
        return QStringLiteral("skipped");
    }
    return {};
}

QString launchText(const LaunchConfig& launch) {
    return QStringLiteral("grid %1, block %2").arg(dimsText(launch.grid), dimsText(launch.block));
}

std::optional<Project> testCaseProject(const Project& project, const TestCase& testCase,
                                       QString* error) {
    const QString where = QStringLiteral("tests: case '%1': ").arg(testCase.displayName());
    Project withCase = project;
    QString message;
    std::optional<SweepSpec> sweep = caseSweep(project, testCase, &message);
    if (!sweep) {
        if (error)
            *error = where + (testCase.block ? QString() : QStringLiteral("tests.")) + message;
        return std::nullopt;
    }
    withCase.sweep = std::move(*sweep);
    if (withCase.sweep.tunables.isEmpty()) {
        if (!withCase.sweep.grid)
            return project; // the project's own launch and values
        // A grid formula alone still needs one configuration to evaluate in.
        SweepValues one;
        one.list = {0};
        withCase.sweep.tunables.append(
            SweepTunable{SweepTunable::Role::Parameter, QStringLiteral("kp_case"), 0, one});
    }
    const std::unique_ptr<SweepSpace> space = SweepSpace::create(withCase, &message);
    std::optional<Project> out =
        space ? space->project(SweepPoint(withCase.sweep.tunables.size(), 0), &message)
              : std::nullopt;
    if (!out) {
        if (error)
            *error = where +
                     QString(message).replace(QStringLiteral("sweep."), QStringLiteral("tests."));
        return std::nullopt;
    }
    out->sweep = project.sweep;
    out->tests = TestSpec{};
    return out;
}

QVector<PlannedCase> planTestCases(const RunRequest& base, const QString& onlyCase, QString* note,
                                   QString* error) {
    const Project& project = base.project;
    QVector<TestCase> cases = project.tests.expand(project.arguments, project.launch.block[0]);
    if (cases.isEmpty()) {
        cases.append(TestCase{});
        if (note)
            *note = QStringLiteral("the project has no \"tests\" section: its own size is the "
                                   "single case");
    }
    QVector<PlannedCase> planned;
    QStringList names;
    for (const TestCase& testCase : std::as_const(cases)) {
        names << testCase.displayName();
        if (!onlyCase.isEmpty() && testCase.displayName() != onlyCase)
            continue;
        PlannedCase plan;
        plan.name = testCase.displayName();
        std::optional<Project> mapped = testCaseProject(project, testCase, &plan.error);
        if (mapped) {
            plan.request = base;
            plan.request.project = std::move(*mapped);
            // One timed launch: the verified launch before it is what the checks read.
            plan.request.project.timing.adaptive = false;
            plan.request.project.timing.warmupLaunches = 0;
            plan.request.repetitions = 1;
            plan.request.keepOutputs = true;
            plan.request.measureCeiling = false;
            plan.determinism = project.tests.checksDeterminism(project.arguments);
            plan.reversedBlocks = plan.determinism && project.tests.reversedBlocks;
        }
        planned.append(std::move(plan));
    }
    if (planned.isEmpty() && error)
        *error = QStringLiteral("--case: no case is named '%1' (the cases: %2)")
                     .arg(onlyCase, names.join(QStringLiteral(", ")));
    return planned;
}

TestCheck determinismCheck(const RunResult& first, const RunResult& second) {
    TestCheck check{QStringLiteral("determinism"), CheckOutcome::Passed, {}, {}};
    QStringList differing, same;
    for (const OutputBuffer& a : first.outputs) {
        const auto b = std::find_if(second.outputs.cbegin(), second.outputs.cend(),
                                    [&](const OutputBuffer& o) { return o.name == a.name; });
        if (b == second.outputs.cend() || a.isKept() || b->isKept() ||
            a.data.size() != b->data.size()) {
            check.outcome = CheckOutcome::Skipped;
            check.message =
                QStringLiteral("%1: the second run's contents are not here to compare").arg(a.name);
            return check;
        }
        const BufferDifference diff = compareOutput(a, *b);
        if (diff.differing == 0) {
            same << a.name;
            continue;
        }
        QString text = QStringLiteral("%1: not deterministic: %2 elements differ")
                           .arg(a.name)
                           .arg(diff.differing);
        if (diff.largest > 0)
            text += diff.inUlp ? QStringLiteral(", up to %1 ULP").arg(diff.largest, 0, 'g', 4)
                               : QStringLiteral(", by up to %1").arg(diff.largest, 0, 'g', 17);
        differing << text;
        check.details << diff.firstLines;
    }
    if (!differing.isEmpty()) {
        check.outcome = CheckOutcome::Failed;
        check.message = differing.join(QStringLiteral("; "));
    } else if (same.isEmpty()) {
        check.outcome = CheckOutcome::Skipped;
        check.message = QStringLiteral("the kernel has no output buffer to compare");
    } else {
        check.message = QStringLiteral("two runs gave the same bits (%1)").arg(same.join(", "));
    }
    return check;
}

/// Guard bytes round every buffer (core/verify/GuardCheck.h): a write outside one fails.
TestCheck canaryCheck(const RunResult& run) {
    TestCheck check{QStringLiteral("canary"), CheckOutcome::Passed, {}, {}};
    if (run.status != RunStatus::Ok && run.status != RunStatus::VerificationFailed) {
        check.outcome = CheckOutcome::Skipped;
        check.message = QStringLiteral("the run did not finish");
        return check;
    }
    QStringList hits;
    for (const GuardFinding& f : run.guards)
        hits << f.message();
    if (!hits.isEmpty()) {
        check.outcome = CheckOutcome::Failed;
        check.message = hits.join(QStringLiteral("; "));
    } else {
        check.message = QStringLiteral("no byte written outside a buffer");
    }
    return check;
}

/// A passing check that an all-zero (or unchanged) output would pass too proves little.
TestCheck zerosCheck(const RunResult& run) {
    TestCheck check{QStringLiteral("zeros"), CheckOutcome::Passed, {}, {}};
    if (std::any_of(run.verification.cbegin(), run.verification.cend(),
                    [](const BufferVerification& v) { return !v.passed; }) ||
        (run.status != RunStatus::Ok && run.status != RunStatus::VerificationFailed)) {
        check.outcome = CheckOutcome::Skipped;
        check.message = QStringLiteral("a check failed already");
        return check;
    }
    QStringList warnings;
    for (const BufferVerification& v : run.verification)
        warnings << v.warnings;
    if (!warnings.isEmpty()) {
        check.outcome = CheckOutcome::Warning;
        check.message = warnings.join(QStringLiteral("; "));
    } else if (run.verification.isEmpty()) {
        check.outcome = CheckOutcome::Skipped;
        check.message = QStringLiteral("no output is verified");
    } else {
        check.message = QStringLiteral("an all-zero output would fail every check");
    }
    return check;
}

RunRequest secondRunRequest(const PlannedCase& plan) {
    RunRequest request = plan.request;
    if (!plan.reversedBlocks)
        return request;
    const QString name = QLatin1String(kReversedBlocksDefine);
    QStringList& defines = request.project.options.defines;
    defines.erase(std::remove_if(defines.begin(), defines.end(),
                                 [&](const QString& d) {
                                     return d == name || d.startsWith(name + QLatin1Char('='));
                                 }),
                  defines.end());
    defines.append(name + QStringLiteral("=1"));
    return request;
}

QString secondRunNote(const PlannedCase& plan) {
    if (!plan.reversedBlocks)
        return {};
    const QString name = QLatin1String(kReversedBlocksDefine);
    if (!plan.request.project.source.contains(name))
        return QStringLiteral("the second run defined %1, but the kernel does not read it, so "
                              "its blocks ran in the usual order")
            .arg(name);
    return QStringLiteral("the second run with the blocks in reverse order, through %1").arg(name);
}

QVector<TestCheck> caseChecks(const RunResult& run, const RunResult* again,
                              const QString& determinismSkipped, const QString& againNote) {
    QVector<TestCheck> checks{verifyCheck(run), canaryCheck(run), zerosCheck(run)};
    if (again) {
        TestCheck check = determinismCheck(run, *again);
        if (!againNote.isEmpty() && check.outcome != CheckOutcome::Skipped)
            check.message += QStringLiteral(" (%1)").arg(againNote);
        checks << check;
    } else
        checks << TestCheck{
            QStringLiteral("determinism"), CheckOutcome::Skipped, determinismSkipped, {}};
    return checks;
}

QJsonObject TestCheck::toJson() const {
    QJsonObject json{{QStringLiteral("check"), name},
                     {QStringLiteral("outcome"), checkOutcomeName(outcome)},
                     {QStringLiteral("message"), message}};
    if (!details.isEmpty())
        json.insert(QStringLiteral("details"), QJsonArray::fromStringList(details));
    return json;
}

bool TestCaseResult::failed() const {
    return std::any_of(checks.cbegin(), checks.cend(),
                       [](const TestCheck& c) { return c.outcome == CheckOutcome::Failed; });
}

const TestCheck* TestCaseResult::find(const QString& check) const {
    for (const TestCheck& c : checks)
        if (c.name == check)
            return &c;
    return nullptr;
}

QJsonObject TestCaseResult::toJson() const {
    QJsonArray checksJson;
    for (const TestCheck& c : checks)
        checksJson.append(c.toJson());
    return {{QStringLiteral("name"), name},
            {QStringLiteral("launch"), launch},
            {QStringLiteral("passed"), !failed()},
            {QStringLiteral("checks"), checksJson}};
}

QStringList TestReport::checkNames() const {
    QStringList names;
    for (const TestCaseResult& c : cases)
        for (const TestCheck& check : c.checks)
            if (!names.contains(check.name))
                names << check.name;
    return names;
}

int TestReport::count(CheckOutcome outcome) const {
    int n = 0;
    for (const TestCaseResult& c : cases)
        n += int(std::count_if(c.checks.cbegin(), c.checks.cend(),
                               [outcome](const TestCheck& t) { return t.outcome == outcome; }));
    return n;
}

bool TestReport::passed() const {
    return status == RunStatus::Ok && error.isEmpty() && count(CheckOutcome::Failed) == 0;
}

QJsonObject TestReport::toJson() const {
    QJsonArray casesJson;
    for (const TestCaseResult& c : cases)
        casesJson.append(c.toJson());
    QJsonObject json{{QStringLiteral("project"), project},
                     {QStringLiteral("passed"), passed()},
                     {QStringLiteral("status"), runStatusName(status)},
                     {QStringLiteral("cases"), casesJson}};
    QJsonObject counts;
    for (CheckOutcome o :
         {CheckOutcome::Passed, CheckOutcome::Failed, CheckOutcome::Warning, CheckOutcome::Skipped})
        counts.insert(checkOutcomeName(o), count(o));
    json.insert(QStringLiteral("checks"), counts);
    if (!note.isEmpty())
        json.insert(QStringLiteral("note"), note);
    if (!error.isEmpty())
        json.insert(QStringLiteral("error"), error);
    return json;
}

} // namespace kernelpad
