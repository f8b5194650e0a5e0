// MainWindow: the lesson pane, a dock beside the editor shown while the open project is a
// lesson (core lessonForProject()), and exercise mode behind it: each run of the lesson is
// judged (LessonExercise), a speed lesson's starter is timed on the Engine once per device
// as the baseline, and "Use the solution" replaces the editor's text as one undoable edit.

#include "ui/windows/MainWindow.h"

#include "core/engine/Engine.h"
#include "ui/LessonExercise.h"
#include "ui/LessonProgress.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/WorkbenchRequest.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/LessonPane.h"
#include "ui/windows/PanelBindings.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QTimer>

#include <memory>

namespace kernelpad {

namespace {
/// What the pane's binding remembers between calls.
struct LessonState {
    QString directory;      ///< the lesson shown, empty for an ordinary project
    quint64 baselineId = 0; ///< the Engine's id of the starter's baseline run in flight
    /// The lesson's own queue at the Engine: its baseline run never replaces the window's
    /// queued run, nor the reverse.
    quint64 channel = 0;
};
} // namespace

void MainWindow::createLessonPane() {
    auto* dock = new QDockWidget(tr("Lesson"), this);
    dock->setObjectName(QStringLiteral("lessonDock"));
    auto* pane = new LessonPane(dock);
    pane->setObjectName(QStringLiteral("lessonPane"));
    dock->setWidget(pane);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    dock->hide();
    QAction* toggle = dock->toggleViewAction();
    toggle->setText(tr("Lesson")); // as the other docks' toggles: no mnemonic ("Reset &Layout")
    toggle->setEnabled(false);
    m_viewMenu->insertAction(m_verificationPinnedAction, toggle); // after the other docks

    auto* progress = new LessonProgress(pane);
    auto* exercise = new LessonExercise(progress, pane);
    exercise->setObjectName(QStringLiteral("lessonExercise"));
    auto state = std::make_shared<LessonState>();
    QPointer<CodeEditor> editor = m_editor;
    pane->setSourceProvider([editor] { return editor ? editor->text() : QString(); });

    // The welcome page puts the docks back as they were once it is gone, after the project is
    // replaced; showing the pane again after that keeps it beside the lesson.
    const auto showForLesson = [dock, state] {
        if (!state->directory.isEmpty())
            dock->show();
    };
    const auto follow = [this, dock, pane, exercise, toggle, state, showForLesson](bool replaced) {
        std::optional<Lesson> lesson = lessonForProject(m_document->path());
        const QString directory = lesson ? lesson->directory : QString();
        if (directory == state->directory && !replaced)
            return;
        state->directory = directory;
        state->baselineId = 0;
        toggle->setEnabled(lesson.has_value());
        if (!lesson) {
            exercise->setLesson(std::nullopt);
            dock->hide();
            return;
        }
        pane->setLesson(*lesson);
        pane->setNextLesson(nextLessonDirectory(listLessons(lessonsDirectory()), *lesson));
        exercise->setLesson(std::move(lesson));
        dock->show();
        QTimer::singleShot(0, dock, showForLesson);
    };
    connect(m_document, &ProjectDocument::projectReplaced, pane, [follow] { follow(true); });
    connect(m_document, &ProjectDocument::pathChanged, pane, [follow] { follow(false); });
    connect(m_document, &ProjectDocument::sourceChanged, pane, [pane] {
        if (pane->solutionDiffShown())
            pane->showSolutionDiff();
    });

    PanelViewer* viewer = makeViewer(pane);
    viewer->onDevices = [pane](const Workbench& workbench) {
        pane->setDeviceAvailable(!workbench.devicesKnown() ||
                                 (workbench.driverError().isEmpty() && workbench.currentDevice()));
    };
    viewer->onRunFinished = [exercise](const Workbench&, const RunRecord& run) {
        if (!run.sanitized())
            exercise->runFinished(run.result, run.project);
    };
    m_workbench->addViewer(viewer);

    connect(exercise, &LessonExercise::judged, pane, &LessonPane::showVerdict);
    connect(exercise, &LessonExercise::baselineNeeded, pane,
            [this, pane, state](const Project& starter, int deviceOrdinal) {
                if (!m_engine)
                    return;
                pane->showChecking(tr("Verified. Timing the starter kernel on this device to "
                                      "compare with yours…"));
                // The lesson's folder is the document's (the student's copy holds the whole
                // lesson), so the starter finds its inputs as the student's kernel does.
                RunRequest request = documentRequest(*m_document, deviceOrdinal, &starter);
                request.keepOutputs = false;
                if (state->channel == 0)
                    state->channel = m_engine->openChannel();
                state->baselineId = m_engine->run(request, state->channel);
            });
    if (m_engine)
        connect(m_engine, &Engine::runFinished, pane,
                [exercise, state](quint64 id, const RunResult& result) {
                    if (id == 0 || id != state->baselineId)
                        return;
                    state->baselineId = 0;
                    exercise->baselineFinished(result);
                });

    connect(pane, &LessonPane::useSolutionRequested, this, [editor](const QString& source) {
        if (!editor)
            return;
        // One undo action: Ctrl+Z brings back everything the student had typed.
        editor->beginUndoAction();
        editor->selectAll();
        editor->replaceSelectedText(source);
        editor->endUndoAction();
        editor->setCursorPosition(0, 0);
    });
    connect(pane, &LessonPane::nextLessonRequested, this, &MainWindow::nextLessonRequested);
    // "Next lesson" opens the student's copy of it, as a card on the welcome page does.
    // Queued: the pane that asked is rebuilt for the next lesson, and the directory is copied.
    connect(
        this, &MainWindow::nextLessonRequested, this,
        [this](const QString& lessonDirectory) { openLesson(lessonDirectory); },
        Qt::QueuedConnection);
}

} // namespace kernelpad
