#pragma once
// Exercise mode for one window: judges each run of the open lesson (core judgeLessonRun()),
// for a speed lesson asks for the starter to be timed once per device as the baseline,
// keeping its median for as long as the window lives, then has the lesson's "tests" cases
// run (its other sizes, core judgeLessonTests()) before it records a completion in
// LessonProgress.

#include "core/engine/TestRunLesson.h"
#include "core/project/Lesson.h"
#include "core/run/LessonCheck.h"
#include "core/run/RunResult.h"

#include <QHash>
#include <QObject>

#include <optional>

namespace kernelpad {

class LessonProgress;

class LessonExercise : public QObject {
    Q_OBJECT
public:
    explicit LessonExercise(LessonProgress* progress, QObject* parent = nullptr);

    /// The open project's lesson; nullopt for an ordinary project. Forgets a run waiting for
    /// its baseline, never the baselines measured.
    void setLesson(std::optional<Lesson> lesson);
    [[nodiscard]] const std::optional<Lesson>& lesson() const { return m_lesson; }

    /// A run of the lesson's project (`ran`, as it ran) ended: judged() follows, at once or,
    /// for a speed lesson without a baseline on this device, after baselineNeeded() has been
    /// answered through baselineFinished(); a run right at its own size is judged complete
    /// only after testsNeeded() has been answered through testsFinished().
    void runFinished(const RunResult& result, const Project& ran);
    /// The starter's run asked for by baselineNeeded() ended.
    void baselineFinished(const RunResult& result);
    [[nodiscard]] bool waitingForBaseline() const { return m_pending.has_value(); }
    /// The test run asked for by testsNeeded() ended. A cancelled one is ignored: the run that
    /// cancelled it asks again.
    void testsFinished(const TestReport& report);
    [[nodiscard]] bool waitingForTests() const { return m_untested.has_value(); }
    /// The starter's median on `device` (RunResult::device's name), if measured.
    [[nodiscard]] std::optional<double> starterMedianMs(const QString& device) const;

signals:
    /// Complete or Failed; a completion is already recorded in the progress.
    void judged(const kernelpad::LessonVerdict& verdict);
    /// Time `starter` on `deviceOrdinal` and hand its result to baselineFinished().
    void baselineNeeded(const kernelpad::Project& starter, int deviceOrdinal);
    /// Run the "tests" cases of `project` (the student's, with the lesson's tests) on
    /// `deviceOrdinal` and hand the report to testsFinished().
    void testsNeeded(const kernelpad::Project& project, int deviceOrdinal);

private:
    /// A Complete verdict waits for the lesson's other sizes; any other is published.
    void judgedAtOwnSize(const LessonVerdict& verdict);
    void publish(const LessonVerdict& verdict);
    [[nodiscard]] QString baselineKey(const QString& device) const;

    LessonProgress* m_progress;
    std::optional<Lesson> m_lesson;
    std::optional<RunResult> m_pending; ///< the student's run waiting for the baseline
    std::optional<Project> m_ran;       ///< the project of the run being judged
    int m_ranOn = 0;                    ///< the device ordinal it ran on
    /// Right at its own size, waiting for the lesson's other sizes.
    std::optional<LessonVerdict> m_untested;
    QHash<QString, double> m_baselines; ///< lesson id + device name → starter median, ms
};

} // namespace kernelpad
