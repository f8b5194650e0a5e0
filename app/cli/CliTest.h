#pragma once
// kernelpad-cli test: a project's tests (its "tests" section, core/project/TestSpec.h) run
// case by case through the Engine, printed as a table of cases × checks, as JSON, or written
// as JUnit XML for CI.

#include "core/engine/TestRun.h"

#include <QString>
#include <QStringList>
#include <QTextStream>

namespace kernelpad::cli {

/// `test FILE.kpad [--junit FILE.xml] [--json] [--case NAME] [--device N] [--in-process]`.
/// Exit codes: 0 when every check passed (warnings and skipped checks pass), 2 when one
/// failed (as run's failed verification), 1 for a compile error, 3 without a CUDA device,
/// 4 for bad input (the project, an option, a --case no case has, an unwritable --junit).
int runTest(const QStringList& args);

/// One line per case with each check, the messages and first mismatches of the checks that
/// did not pass under it, then the counts.
void printTestReport(QTextStream& out, const TestReport& report);

/// The report as JUnit XML: one <testsuite> for the project, one <testcase> per case and
/// check ("n = 33: verify", classname PROJECT.CASE), so that CI lists a non-deterministic
/// case apart from a wrong one; a failed check is a <failure>, a skipped one <skipped>, a
/// warning passes with its message in <system-out>; a test run that stopped before its
/// cases is one <testcase> with an <error>. Every text is escaped, control characters
/// written as \uXXXX (XML 1.0 cannot carry them).
[[nodiscard]] QByteArray junitXml(const TestReport& report, double seconds);

} // namespace kernelpad::cli
