#pragma once
// Which lessons this user has completed, kept in QSettings ("lessons/done/<id>") so that the
// welcome page, Help ▸ Lessons and the lesson pane agree. A lesson's id is its folder's name
// ("04-coalescing"), which stays the same when the lessons are installed elsewhere.

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

class QSettings;

namespace kernelpad {

struct Lesson;

/// One completed lesson: when, and what the student's kernel measured then.
struct LessonCompletion {
    QDateTime when;  ///< UTC
    QString summary; ///< "0.0653 ms, 6.2× faster than the starter"; may be empty
};

/// Reads and writes the progress of every lesson; changed() tells every instance's listeners
/// (through one shared notifier) so that open windows refresh their marks.
class LessonProgress : public QObject {
    Q_OBJECT
public:
    explicit LessonProgress(QObject* parent = nullptr);

    [[nodiscard]] static QString lessonId(const Lesson& lesson); ///< the folder's name
    [[nodiscard]] static QString lessonId(const QString& lessonDirectory);

    [[nodiscard]] bool isDone(const QString& id) const;
    [[nodiscard]] std::optional<LessonCompletion> completion(const QString& id) const;
    /// Ids of every completed lesson, sorted.
    [[nodiscard]] QStringList doneIds() const;
    /// Records `id` as completed now (a later completion replaces the earlier one).
    void markDone(const QString& id, const QString& summary);
    /// Forgets one lesson's completion ("start over").
    void reset(const QString& id);
    /// Forgets every lesson's completion.
    void resetAll();

signals:
    void changed();
};

} // namespace kernelpad
