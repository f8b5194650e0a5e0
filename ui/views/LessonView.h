#pragma once
// The lesson pane, a dock beside the editor while the open project is a lesson (core
// lessonForProject()), and exercise mode behind it: each run of the lesson is judged
// (LessonExercise), a speed lesson's starter is timed on the Engine once per device as the
// baseline, a run right at its own size has the lesson's "tests" cases run on the Engine
// (core/engine/EngineTests.h) before it completes the lesson, and "Use the solution" replaces
// the editor's text as one undoable edit. Whether the dock shows is the window's (it hears
// lessonChanged()).

#include "ui/ResultView.h"

#include <QPointer>

namespace kernelpad {

class CodeEditor;
class EngineTests;
class LessonExercise;
class LessonPane;

class LessonView : public ResultView {
    Q_OBJECT
public:
    explicit LessonView(const ViewContext& context);
    [[nodiscard]] QWidget* widget() const override;

    void devicesChanged(const Workbench& workbench) override;
    void runFinished(const Workbench& workbench, const RunRecord& run) override;

signals:
    /// The open project became a lesson (`isLesson`), another lesson, or no lesson.
    void lessonChanged(bool isLesson);
    /// The pane's "Next lesson": the next lesson's folder in the course.
    void nextLessonRequested(const QString& lessonDirectory);

private:
    /// After the document was replaced or saved elsewhere: the lesson it is, if any.
    void follow(bool replaced);
    void timeStarter(const Project& starter, int deviceOrdinal);
    void runTests(const Project& project, int deviceOrdinal);
    void useSolution(const QString& source);

    Workbench* m_workbench;
    LessonPane* m_pane;
    LessonExercise* m_exercise;
    EngineTests* m_tests = nullptr; ///< made at the first test run, on its own Engine channel
    QPointer<CodeEditor> m_editor;
    QString m_directory;      ///< the lesson shown, empty for an ordinary project
    quint64 m_baselineId = 0; ///< the Engine's id of the starter's baseline run in flight
    /// The lesson's own queue at the Engine: its baseline run never replaces the window's
    /// queued run, nor the reverse.
    quint64 m_channel = 0;
};

} // namespace kernelpad
