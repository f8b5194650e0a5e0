#pragma once
// A project's tests in the words of exercise mode: the case that failed and what it got wrong
// ("n = 33: element 32 never written"), and a lesson's verdict once its own-size run was
// judged (core/run/LessonCheck.h) and its "tests" cases ran (core/engine/EngineTests.h).

#include "core/engine/TestRun.h"
#include "core/project/Lesson.h"
#include "core/run/LessonCheck.h"

#include <QString>

namespace kernelpad {

/// Why `result` failed, led by its name: "n = 33: element 32 never written", "n = 33:
/// element 32 is 0.0, expected 1.5, and 3 more elements are wrong", "n = 33: out: 4 bytes
/// written past the end (element 33)". An element "never written" still holds the pattern
/// every output is filled with before the launch (kPoisonByte). Empty when it passed.
[[nodiscard]] QString caseFailureText(const TestCaseResult& result);

/// The project exercise mode tests: `ran` (the student's source and settings, as it ran) with
/// the lesson's own "tests" section, which the student's copy cannot loosen.
[[nodiscard]] Project lessonTestProject(const Lesson& lesson, const Project& ran);

/// Exercise mode's verdict once the lesson's cases ran: `ownSize` (a Complete verdict of the
/// run at the project's own size) stays Complete when every case passed, with the number of
/// sizes in its summary; it becomes Failed naming the first failed case, or why the cases
/// could not run; NotJudged when the test run was cancelled (a newer run replaces it).
[[nodiscard]] LessonVerdict judgeLessonTests(const LessonVerdict& ownSize,
                                             const TestReport& report);

} // namespace kernelpad
