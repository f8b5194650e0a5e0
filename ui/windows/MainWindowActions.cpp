// MainWindow: projects — new, open, save, recent files, examples, recovery, devices.

#include "ui/windows/MainWindow.h"

#include "core/engine/Engine.h"
#include "core/project/Examples.h"
#include "core/project/Lesson.h"
#include "core/project/ProjectFromSource.h"
#include "core/project/PtxProject.h"
#include "core/project/Starter.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/Workbench.h"
#include "ui/dialogs/DeviceDialog.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/PtxView.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

namespace kernelpad {

namespace {
const QString kFileFilter =
    QStringLiteral("KernelPad projects and kernel sources (*.kpad *.cu *.cuh *.ptx *.ll *.nvvm);;"
                   "KernelPad projects (*.kpad);;CUDA sources (*.cu *.cuh);;PTX (*.ptx);;"
                   "NVVM IR (*.ll *.nvvm);;All files (*)");

/// A bare CUDA, PTX or NVVM IR source rather than a project file.
bool isCudaSource(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("cu") || suffix == QLatin1String("cuh") ||
           languageOfFile(path) != SourceLanguage::Cuda;
}
constexpr int kActionsStatusMessageMs = 5000;
} // namespace

bool MainWindow::newProject() {
    if (!maybeSave())
        return false;
    m_document->replace(Preferences::load().forNewProject(starterProject(tr("Untitled"))));
    return true;
}

bool MainWindow::saveAsPtxProject() {
    auto* view = qobject_cast<PtxView*>(viewWidget(QStringLiteral("ptx")));
    const QString ptx = view ? view->ptx() : QString();
    if (ptx.isEmpty()) {
        showError(tr("Cannot Make a PTX Project"), tr("There is no PTX yet: compile first."));
        return false;
    }
    if (!maybeSave())
        return false;
    const Project& current = m_document->project();
    const std::optional<CompileResult>& compiled = m_workbench->lastCompile();
    const QString lowered = compiled ? compiled->loweredName(current.kernel) : QString();
    const Project made = ptxProjectFrom(current, ptx, lowered);
    // Untitled, beside the project it came from (relative paths still resolve there).
    m_document->replace(made, QString(), m_document->directory());
    m_document->setUntitledName(made.sourceName);
    statusBar()->showMessage(tr("Made a PTX project of %1: edit the PTX and run it; Save keeps "
                                "it as a .kpad")
                                 .arg(made.sourceName),
                             kActionsStatusMessageMs);
    return true;
}

bool MainWindow::openProject(const QString& path) {
    // What KernelPad ships, or a file that cannot be saved over, opens as an untitled copy
    // however it is opened (File ▸ Open, Recent, the command line): Save asks where. A
    // shipped lesson opens the student's own copy of it, as its card does.
    if (!isCudaSource(path) && QFileInfo::exists(path) &&
        !ProjectDocument::protectedReason(path).isEmpty()) {
        const QFileInfo file(path);
        const bool opened = shippedKind(path) == ShippedKind::Lesson &&
                                    file.fileName() == QLatin1String(Lesson::kProjectFile)
                                ? openLesson(file.absolutePath())
                                : openExample(path);
        if (opened)
            m_recent->add(path);
        return opened;
    }
    if (!maybeSave())
        return false;
    if (isCudaSource(path)) {
        // A new, untitled project around the source (Save asks where to keep the .kpad); its
        // includes resolve beside the file, and the title names it.
        QString why;
        const std::optional<Project> made = projectFromSourceFile(path, QString(), &why);
        if (!made) {
            showError(tr("Cannot Open Source"),
                      tr("%1 could not be opened:\n%2").arg(QDir::toNativeSeparators(path), why));
            return false;
        }
        m_document->replace(Preferences::load().forNewProject(*made), QString(),
                            QFileInfo(path).absolutePath());
        m_document->setUntitledName(QFileInfo(path).fileName());
        m_recent->add(path);
        statusBar()->showMessage(
            (made->language == SourceLanguage::Cuda
                 ? tr("Opened %1 as a new project: the argument table follows the kernel's "
                      "signature; Save keeps it as a .kpad")
                 : tr("Opened %1 as a new project: the argument table is guessed from the "
                      ".entry's .param types (check it); Save keeps it as a .kpad"))
                .arg(QDir::toNativeSeparators(path)),
            kActionsStatusMessageMs);
        return true;
    }
    // A broken file leaves the open project alone.
    QString error;
    if (!m_document->open(path, &error)) {
        showError(tr("Cannot Open Project"),
                  tr("%1 could not be opened:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    m_recent->add(path);
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)),
                             kActionsStatusMessageMs);
    return true;
}

bool MainWindow::openExample(const QString& path) {
    if (!maybeSave())
        return false;
    QString error;
    const std::optional<Project> project = ProjectDocument::read(path, &error);
    if (!project) {
        showError(tr("Cannot Open Example"),
                  tr("%1 could not be opened:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    const QString reason = ProjectDocument::protectedReason(path);
    const QString origin =
        tr("%1 %2").arg(reason.isEmpty() ? tr("the example") : reason, QFileInfo(path).fileName());
    // Relative inputs (an .npy beside it) still resolve in the folder it came from.
    m_document->replace(*project, QString(), QFileInfo(path).absolutePath());
    m_document->setCopyOf(origin);
    statusBar()->showMessage(tr("Opened \"%1\" as an untitled copy of %2: Save asks where to "
                                "keep your version")
                                 .arg(project->name, origin),
                             kActionsStatusMessageMs);
    return true;
}

void MainWindow::openDialog() {
    const QString dir = m_document->isUntitled() ? QString() : m_document->directory();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Project"), dir, kFileFilter);
    if (!path.isEmpty())
        openProject(path);
}

void MainWindow::openRecent(const QString& path) {
    if (!QFileInfo::exists(path)) {
        m_recent->remove(path);
        showError(tr("Cannot Open Project"), tr("%1 no longer exists.").arg(path));
        return;
    }
    openProject(path);
}

bool MainWindow::save() {
    // A file that became read-only since it was opened is not written over either.
    if (m_document->isUntitled() || !ProjectDocument::protectedReason(m_document->path()).isEmpty())
        return saveAsDialog();
    return saveAs(m_document->path());
}

bool MainWindow::saveAs(const QString& path) {
    QString error;
    if (!m_document->save(path, &error)) {
        // The editor keeps every character; only the file on disk is unchanged.
        showError(tr("Cannot Save Project"),
                  tr("%1 could not be saved:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    m_editor->setModified(false);
    m_recent->add(m_document->path());
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(m_document->path())),
                             kActionsStatusMessageMs);
    return true;
}

bool MainWindow::saveAsDialog() {
    if (!m_promptsEnabled) {
        // No modal dialogs in this mode (tests, scripted use): there is nowhere to ask.
        m_lastError = tr("Save As needs a file name, and dialogs are off");
        return false;
    }
    const QString untitledName = m_document->untitledName();
    const QString untitled =
        isCudaSource(untitledName) ? QFileInfo(untitledName).completeBaseName() : untitledName;
    // In the folder the project came from when the user may save there (a .cu's), never in
    // a shipped or read-only one.
    const QString fileName =
        m_document->isUntitled()
            ? (untitled.isEmpty() ? tr("kernel") : untitled) + QStringLiteral(".kpad")
            : QFileInfo(m_document->path()).fileName();
    const QString suggestion = QDir(m_document->saveDirectory()).filePath(fileName);
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save Project"), suggestion, kFileFilter);
    return !path.isEmpty() && saveAs(path);
}

bool MainWindow::maybeSave() {
    if (!m_document->isDirty())
        return true;
    UnsavedChoice choice = m_unsavedChoice;
    if (m_promptsEnabled) {
        QMessageBox box(QMessageBox::Warning, tr("Unsaved Changes"),
                        tr("%1 has unsaved changes.")
                            .arg(windowTitle()
                                     .remove(QStringLiteral("[*]"))
                                     .section(QStringLiteral(" — "), 0, 0)),
                        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
        box.setInformativeText(tr("Do you want to save them?"));
        box.setDefaultButton(QMessageBox::Save);
        const int answer = box.exec();
        choice = answer == QMessageBox::Save      ? UnsavedChoice::Save
                 : answer == QMessageBox::Discard ? UnsavedChoice::Discard
                                                  : UnsavedChoice::Cancel;
    }
    switch (choice) {
    case UnsavedChoice::Save:
        return save();
    case UnsavedChoice::Discard:
        m_document->removeRecovery();
        return true;
    case UnsavedChoice::Cancel:
        return false;
    }
    return false;
}

int MainWindow::restoreRecovery() {
    const QVector<RecoveryEntry> entries = ProjectDocument::findRecoveryFiles();
    if (entries.isEmpty())
        return 0;
    if (m_promptsEnabled) {
        QStringList lines;
        for (const RecoveryEntry& e : entries) {
            const QString name = e.originalPath.isEmpty()
                                     ? (e.project.name.isEmpty() ? tr("Untitled") : e.project.name)
                                     : QDir::toNativeSeparators(e.originalPath);
            lines << tr("• %1 (autosaved %2)")
                         .arg(name,
                              QLocale().toString(e.savedAt.toLocalTime(), QLocale::ShortFormat));
        }
        QMessageBox box(QMessageBox::Question, tr("Recover Unsaved Work"),
                        tr("KernelPad did not close cleanly last time. Unsaved work was found:"),
                        QMessageBox::NoButton, this);
        box.setInformativeText(lines.join(QLatin1Char('\n')));
        QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
        QPushButton* discard = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
        box.addButton(tr("Decide Later"), QMessageBox::RejectRole);
        box.setDefaultButton(restore);
        box.exec();
        if (box.clickedButton() == discard) {
            for (const RecoveryEntry& e : entries)
                QFile::remove(e.recoveryPath);
            return 0;
        }
        if (box.clickedButton() != restore)
            return 0;
    }
    for (int i = 0; i < entries.size(); ++i) {
        const RecoveryEntry& e = entries.at(i);
        MainWindow* target = this;
        if (i > 0) {
            target = new MainWindow(m_engine, nullptr);
            target->setAttribute(Qt::WA_DeleteOnClose);
            target->setPromptsEnabled(m_promptsEnabled);
            target->show();
        }
        target->m_document->adoptRecovery(e);
        target->statusBar()->showMessage(
            tr("Restored unsaved work from %1")
                .arg(QLocale().toString(e.savedAt.toLocalTime(), QLocale::ShortFormat)),
            kActionsStatusMessageMs * 2);
    }
    return int(entries.size());
}

void MainWindow::fillExamplesMenu() {
    m_examplesMenu->clear();
    const QVector<ExampleInfo> examples = listExamples(examplesDirectory());
    for (const ExampleInfo& example : examples) {
        QString label = example.name;
        QAction* action =
            m_examplesMenu->addAction(label.replace(QLatin1Char('&'), QStringLiteral("&&")));
        action->setToolTip(example.description);
        action->setStatusTip(example.description);
        const QString path = example.path;
        connect(action, &QAction::triggered, this, [this, path] { openExample(path); });
    }
    m_examplesMenu->setToolTipsVisible(true);
    if (examples.isEmpty()) {
        QAction* none = m_examplesMenu->addAction(tr("No examples found"));
        none->setEnabled(false);
    }
}

void MainWindow::openDeviceDialog() {
    DeviceDialog dialog(m_workbench->devices(), m_workbench->deviceIndex(),
                        m_workbench->driverError(), this);
    if (m_engine)
        dialog.setRunner(m_engine->runner());
    if (dialog.exec() == QDialog::Accepted)
        m_workbench->selectDevice(dialog.selectedIndex());
}

void MainWindow::showError(const QString& title, const QString& message) {
    m_lastError = message;
    statusBar()->showMessage(message.section(QLatin1Char('\n'), 0, 0) + QLatin1Char(' ') +
                                 message.section(QLatin1Char('\n'), 1),
                             kActionsStatusMessageMs * 2);
    if (m_promptsEnabled)
        QMessageBox::warning(this, title, message);
}

} // namespace kernelpad
