#pragma once
// A lesson: a folder with a starter project whose "lesson" section says what the exercise
// is (lesson.kpad), its text (lesson.md) and usually its solution (solution.cu). The format
// is described in docs/lessons.md.

#include "core/project/Project.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

enum class LessonLevel { Beginner, Intermediate, Advanced };
/// Correctness: the starter fails verification and the solution passes. Speed: both pass and
/// the solution is at least `requiredSpeedup` times faster.
enum class LessonKind { Correctness, Speed };

[[nodiscard]] QString lessonLevelName(LessonLevel level); ///< "beginner", ...
[[nodiscard]] QString lessonKindName(LessonKind kind);    ///< "correctness", "speed"

/// One kernel's measured figures in a recorded result.
struct LessonFigures {
    double medianMs = 0;
    std::optional<double> bandwidthGBs;
    std::optional<double> gflops;
};

/// What the lesson's kernels achieved on a real GPU, written by whoever measured them; a
/// lesson without one shows no figures rather than invented ones.
struct LessonRecord {
    QString device; ///< as the driver names it: "NVIDIA H100 80GB HBM3"
    QString date;   ///< ISO date of the measurement: "2026-11-24"
    LessonFigures solution;
    std::optional<LessonFigures> starter;
    std::optional<double> speedup; ///< starter median / solution median
};

/// A loaded, validated lesson.
struct Lesson {
    static constexpr const char* kProjectFile = "lesson.kpad";
    static constexpr const char* kTextFile = "lesson.md";

    QString directory; ///< absolute path of the lesson's folder
    QString title;
    QString topic;
    LessonLevel level = LessonLevel::Beginner;
    int order = 0; ///< position in the course, from 1
    LessonKind kind = LessonKind::Correctness;
    QStringList hints; ///< shown one at a time, in this order
    QString solutionSource;
    /// The file the solution was read from ("solution.cu"), empty when it is inline.
    QString solutionFile;
    std::optional<double> requiredSpeedup; ///< speed lessons only
    /// The least ratio to the project's library baseline (its time over the kernel's) a run
    /// must reach: 0.5 is "at least half as fast as cuBLAS".
    std::optional<double> minBaselineRatio;
    std::optional<LessonRecord> recorded; ///< empty until measured
    Project project;                      ///< the starter, as the student opens it
    QString text;                         ///< lesson.md, Markdown

    [[nodiscard]] QString projectPath() const;
    [[nodiscard]] QString textPath() const;
    /// The starter project with the solution's source in place of the starter's.
    [[nodiscard]] Project solutionProject() const;

    /// The headings lesson.md must have, in this order (after a "# " title line).
    [[nodiscard]] static QStringList requiredHeadings();
    /// Reads and validates the lesson in `dir`; fails with a message naming the file and the
    /// field ("03-image-2d/lesson.kpad: lesson.level: expected one of ...").
    static std::optional<Lesson> load(const QString& dir, QString* error);
};

/// Every lesson folder under `dir` (the sub-folders holding a lesson.kpad), sorted by order
/// then folder name. A folder that does not load is left out with its message in `problems`,
/// as is an order number that two lessons share (both are kept).
[[nodiscard]] QVector<Lesson> listLessons(const QString& dir, QStringList* problems = nullptr);

/// The lessons folder: $KERNELPAD_LESSONS, then next to the executable
/// (<appdir>/../share/kernelpad/lessons, <appdir>/lessons), then the source tree's
/// resources/lessons. Empty when none of them exists.
[[nodiscard]] QString lessonsDirectory();
/// The folders lessonsDirectory() tries, in order, so that "no lessons" can say where it looked.
[[nodiscard]] QStringList lessonsSearchPaths();

/// The lesson a project file belongs to: `projectPath` is a lesson.kpad whose folder
/// Lesson::load accepts. Nullopt for any other project (and for an untitled one, "").
[[nodiscard]] std::optional<Lesson> lessonForProject(const QString& projectPath);

/// The folder of the lesson after `current` in the course `lessons` (listLessons()): the one
/// after the lesson with the same folder name, else the first with a higher order. Empty
/// after the last lesson.
[[nodiscard]] QString nextLessonDirectory(const QVector<Lesson>& lessons, const Lesson& current);

} // namespace kernelpad
