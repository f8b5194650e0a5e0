#pragma once
// The lesson pane beside the editor: the lesson's title, topic, level and kind, its text
// (Markdown), the exercise's result after each run, the hints one at a time, the solution as
// a diff against the student's source, and the figures recorded on a GPU where the lesson has
// them. A view only: LessonBinding.cpp feeds it and acts on its requests.

#include "core/project/Lesson.h"
#include "core/run/LessonCheck.h"

#include <QHash>
#include <QWidget>

#include <functional>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTextBrowser;
class QVBoxLayout;

namespace kernelpad {

class LessonPane : public QWidget {
    Q_OBJECT
public:
    explicit LessonPane(QWidget* parent = nullptr);

    /// Shows `lesson`; the hints revealed for it earlier in this pane stay revealed.
    void setLesson(const Lesson& lesson);
    [[nodiscard]] const Lesson& lesson() const { return m_lesson; }
    /// Where "Next lesson" leads (a lesson folder); empty after the last lesson.
    void setNextLesson(const QString& lessonDirectory);
    /// The student's source now, for the solution's diff.
    void setSourceProvider(std::function<QString()> provider) { m_source = std::move(provider); }
    /// Whether a GPU can run the lesson here; without one the recorded figures say so.
    void setDeviceAvailable(bool available);

    /// Reveals the next hint; false when all are shown.
    bool showNextHint();
    [[nodiscard]] int hintsShown() const;
    /// Shows (or refreshes) the solution's diff against the student's source.
    void showSolutionDiff();
    void hideSolutionDiff();
    [[nodiscard]] bool solutionDiffShown() const;
    [[nodiscard]] QString diffText() const;
    /// "2 lines changed, 1 added, 0 removed" for the diff shown.
    [[nodiscard]] QString diffSummary() const;

    /// Between runs: "Timing the starter kernel…".
    void showChecking(const QString& message);
    void showVerdict(const LessonVerdict& verdict);
    void clearResult();
    [[nodiscard]] QString resultText() const;
    [[nodiscard]] QString recordedText() const;

signals:
    void nextLessonRequested(const QString& lessonDirectory);
    /// "Use the solution": replace the editor's text with `source` as one undoable edit.
    void useSolutionRequested(const QString& source);

protected:
    void changeEvent(QEvent* event) override;

private:
    void showHints();
    void showRecorded();
    void styleResult(bool success);
    [[nodiscard]] QString lessonKey() const;

    Lesson m_lesson;
    QString m_nextLesson;
    bool m_deviceAvailable = true;
    std::function<QString()> m_source;
    QHash<QString, int> m_revealed; ///< lesson folder → hints shown
    int m_resultState = -1;         ///< -1 none, 0 failed, 1 complete, 2 checking

    QLabel* m_title = nullptr;
    QLabel* m_meta = nullptr;
    QLabel* m_result = nullptr;
    QPushButton* m_next = nullptr;
    QTextBrowser* m_text = nullptr;
    QLabel* m_recorded = nullptr;
    QVBoxLayout* m_hintList = nullptr;
    QPushButton* m_hintButton = nullptr;
    QPushButton* m_diffButton = nullptr;
    QPushButton* m_useSolution = nullptr;
    QLabel* m_diffSummary = nullptr;
    QPlainTextEdit* m_diff = nullptr;
};

} // namespace kernelpad
