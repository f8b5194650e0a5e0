#include "ui/views/LessonView.h"

#include "core/engine/Engine.h"
#include "core/engine/EngineTests.h"
#include "ui/LessonExercise.h"
#include "ui/LessonProgress.h"
#include "ui/ProjectDocument.h"
#include "ui/WorkbenchRequest.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/LessonPane.h"

namespace kernelpad {

LessonView::LessonView(const ViewContext& context)
    : m_workbench(context.workbench)
    , m_pane(new LessonPane)
    , m_editor(context.editor) {
    m_pane->setObjectName(QStringLiteral("lessonPane"));
    auto* progress = new LessonProgress(m_pane);
    m_exercise = new LessonExercise(progress, m_pane);
    m_exercise->setObjectName(QStringLiteral("lessonExercise"));
    m_pane->setSourceProvider([editor = m_editor] { return editor ? editor->text() : QString(); });

    ProjectDocument* document = m_workbench->document();
    connect(document, &ProjectDocument::projectReplaced, this, [this] { follow(true); });
    connect(document, &ProjectDocument::pathChanged, this, [this] { follow(false); });
    connect(document, &ProjectDocument::sourceChanged, this, [this] {
        if (m_pane->solutionDiffShown())
            m_pane->showSolutionDiff();
    });
    connect(m_exercise, &LessonExercise::judged, m_pane, &LessonPane::showVerdict);
    connect(m_exercise, &LessonExercise::baselineNeeded, this, &LessonView::timeStarter);
    connect(m_exercise, &LessonExercise::testsNeeded, this, &LessonView::runTests);
    if (Engine* engine = m_workbench->engine())
        connect(engine, &Engine::runFinished, this, [this](quint64 id, const RunResult& result) {
            if (id == 0 || id != m_baselineId)
                return;
            m_baselineId = 0;
            m_exercise->baselineFinished(result);
        });
    connect(m_pane, &LessonPane::useSolutionRequested, this, &LessonView::useSolution);
    connect(m_pane, &LessonPane::nextLessonRequested, this, &LessonView::nextLessonRequested);
}

QWidget* LessonView::widget() const {
    return m_pane;
}

void LessonView::follow(bool replaced) {
    std::optional<Lesson> lesson = lessonForProject(m_workbench->document()->path());
    const QString directory = lesson ? lesson->directory : QString();
    if (directory == m_directory && !replaced)
        return;
    m_directory = directory;
    m_baselineId = 0;
    if (!lesson) {
        m_exercise->setLesson(std::nullopt);
        emit lessonChanged(false);
        return;
    }
    m_pane->setLesson(*lesson);
    m_pane->setNextLesson(nextLessonDirectory(listLessons(lessonsDirectory()), *lesson));
    m_exercise->setLesson(std::move(lesson));
    emit lessonChanged(true);
}

void LessonView::devicesChanged(const Workbench& workbench) {
    m_pane->setDeviceAvailable(!workbench.devicesKnown() ||
                               (workbench.driverError().isEmpty() && workbench.currentDevice()));
}

void LessonView::runFinished(const Workbench&, const RunRecord& run) {
    if (run.sanitized())
        return;
    // A newer run is judged instead: the cases of the older one are not worth finishing.
    if (m_tests && m_tests->isRunning())
        m_tests->cancel();
    m_exercise->runFinished(run.result, run.project);
}

void LessonView::timeStarter(const Project& starter, int deviceOrdinal) {
    Engine* engine = m_workbench->engine();
    if (!engine)
        return;
    m_pane->showChecking(
        tr("Verified. Timing the starter kernel on this device to compare with yours…"));
    // The lesson's folder is the document's (the student's copy holds the whole lesson), so the
    // starter finds its inputs as the student's kernel does.
    RunRequest request = documentRequest(*m_workbench->document(), deviceOrdinal, &starter);
    request.keepOutputs = false;
    if (m_channel == 0)
        m_channel = engine->openChannel();
    m_baselineId = engine->run(request, m_channel);
}

void LessonView::runTests(const Project& project, int deviceOrdinal) {
    Engine* engine = m_workbench->engine();
    if (!engine) {
        TestReport none;
        none.status = RunStatus::DriverUnavailable;
        none.error = tr("no GPU engine in this window");
        m_exercise->testsFinished(none);
        return;
    }
    if (!m_tests) {
        m_tests = new EngineTests(engine, this);
        connect(m_tests, &EngineTests::finished, m_exercise, &LessonExercise::testsFinished);
        connect(m_tests, &EngineTests::progress, this,
                [this](int index, int total, const QString& caseName, const QString&) {
                    if (m_exercise->waitingForTests())
                        m_pane->showChecking(
                            tr("Verified at its own size. Checking the other sizes: %1 (%2 of "
                               "%3)…")
                                .arg(caseName)
                                .arg(index + 1)
                                .arg(total));
                });
    }
    m_pane->showChecking(tr("Verified at its own size. Checking the other sizes…"));
    TestOrder order;
    order.base = documentRequest(*m_workbench->document(), deviceOrdinal, &project);
    m_tests->start(order);
}

void LessonView::useSolution(const QString& source) {
    if (!m_editor)
        return;
    // One undo action: Ctrl+Z brings back everything the student had typed.
    m_editor->beginUndoAction();
    m_editor->selectAll();
    m_editor->replaceSelectedText(source);
    m_editor->endUndoAction();
    m_editor->setCursorPosition(0, 0);
}

} // namespace kernelpad
