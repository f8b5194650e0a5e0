#pragma once
// The student's copies of lessons: lessons ship read-only (installed under
// share/kernelpad/lessons), so a student works in a copy of the lesson's folder kept in a
// writable place, made on first use and restored from the shipped folder on "start over".

#include <QString>

#include <optional>

namespace kernelpad {

/// Where the copies live: <QStandardPaths::AppDataLocation>/lessons, one folder per lesson
/// named as the shipped one ("04-coalescing").
[[nodiscard]] QString lessonWorkspaceDirectory();

/// True when `lessonDirectory` is a copy in the workspace rather than a shipped lesson.
[[nodiscard]] bool isLessonCopy(const QString& lessonDirectory);

/// The student's copy of the shipped lesson in `lessonDirectory`: made by copying the whole
/// folder when there is none yet; an existing copy is returned as it is, with the student's
/// edits. `created` (optional) says whether it was made now. Fails with a message naming the
/// file that could not be copied.
[[nodiscard]] std::optional<QString> lessonCopy(const QString& lessonDirectory, QString* error,
                                                bool* created = nullptr);

/// "Start over": replaces the student's copy of the shipped lesson in `lessonDirectory` with
/// a fresh copy. The old copy is removed only once the new one is whole.
[[nodiscard]] bool restoreLessonCopy(const QString& lessonDirectory, QString* error);

} // namespace kernelpad
