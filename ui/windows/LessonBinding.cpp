// MainWindow: the lesson pane's dock, beside the editor and shown while the open project is a
// lesson, and its View menu toggle. What the pane shows and exercise mode behind it are its
// view's (ui/views/LessonView.h).

#include "ui/windows/MainWindow.h"

#include "ui/views/LessonView.h"
#include "ui/windows/ViewRegistry.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QTimer>

namespace kernelpad {

void MainWindow::createLessonPane() {
    // A view made with the window: it follows the document to know whether it is a lesson.
    auto* dock = static_cast<QDockWidget*>(registerView(
        QStringLiteral("lesson"), tr("Lesson"), ViewPlace::LeftDock,
        [](const ViewContext& context) { return new LessonView(context); }, ViewCreation::AtOnce));
    auto* view = qobject_cast<LessonView*>(m_views->view(QStringLiteral("lesson")));
    dock->hide();
    QAction* toggle = dock->toggleViewAction();
    toggle->setText(tr("Lesson")); // as the other docks' toggles: no mnemonic ("Reset &Layout")
    toggle->setEnabled(false);
    m_viewMenu->insertAction(m_verificationPinnedAction, toggle); // after the other docks

    connect(view, &LessonView::lessonChanged, dock, [dock, toggle](bool isLesson) {
        toggle->setEnabled(isLesson);
        dock->setVisible(isLesson);
        if (!isLesson)
            return;
        // The welcome page puts the docks back as they were once it is gone, after the project
        // is replaced; showing the pane again after that keeps it beside the lesson.
        QTimer::singleShot(0, dock, [dock, toggle] {
            if (toggle->isEnabled())
                dock->show();
        });
    });
    connect(view, &LessonView::nextLessonRequested, this, &MainWindow::nextLessonRequested);
    // "Next lesson" opens the student's copy of it, as a card on the welcome page does.
    // Queued: the pane that asked is rebuilt for the next lesson, and the directory is copied.
    connect(
        this, &MainWindow::nextLessonRequested, this,
        [this](const QString& lessonDirectory) { openLesson(lessonDirectory); },
        Qt::QueuedConnection);
}

} // namespace kernelpad
