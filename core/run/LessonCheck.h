#pragma once
// Exercise mode's verdict on one run of a lesson project: whether the student's kernel
// completes the lesson, judged by the run's own verification and, for a speed lesson, its
// median against the starter's measured on the same device. Shared by the window's lesson
// pane and anything else that checks lessons.

#include "core/project/Lesson.h"
#include "core/run/RunResult.h"

#include <QString>

#include <optional>

namespace kernelpad {

struct LessonVerdict {
    enum class State {
        Complete,      ///< the lesson is done: `summary` says what the run measured
        Failed,        ///< `failure` says what failed, a sentence the student can act on
        NeedsBaseline, ///< a speed lesson whose starter has not been timed on this device yet
        NotJudged,     ///< a cancelled or sanitized run says nothing about the exercise
    };
    State state = State::NotJudged;
    /// "0.0653 ms, 812.3 GB/s, 6.2× faster than the starter": the measured result (also set
    /// on a failed speed lesson, for the record).
    QString summary;
    QString failure;
    std::optional<double> speedup; ///< starter median / this run's median
};

/// Judges `result`. `starterMedianMs` is the starter's median on the device that ran
/// `result`; a speed lesson needs it (NeedsBaseline without it), a correctness lesson ignores
/// it.
[[nodiscard]] LessonVerdict judgeLessonRun(const Lesson& lesson, const RunResult& result,
                                           std::optional<double> starterMedianMs);

/// The run's median in ms when it is a valid baseline for a speed lesson (it ran, verified,
/// and was timed); nullopt otherwise.
[[nodiscard]] std::optional<double> baselineMedianMs(const RunResult& result);

/// "Recorded on NVIDIA H100 80GB HBM3, 2026-11-24: solution 0.0653 ms (6.2× the starter)".
[[nodiscard]] QString lessonRecordText(const LessonRecord& record);

/// "6.2×": a speedup or a required one with one decimal ("1.5×", "4×" for a whole number).
[[nodiscard]] QString speedupText(double speedup);

} // namespace kernelpad
