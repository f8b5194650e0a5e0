// MainWindow: projects — new, open, save, recent files, examples, recovery, devices.

#include "ui/windows/MainWindow.h"

#include "core/engine/Engine.h"
#include "core/project/Examples.h"
#include "core/project/ProjectFromSource.h"
#include "core/project/Starter.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/dialogs/DeviceDialog.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/BufferViewer.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileOptionsPanel.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/ResourcesPanel.h"
#include "ui/widgets/TimingChartView.h"
#include "ui/widgets/VerificationPanel.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

namespace kernelpad {

namespace {
const QString kFileFilter = QStringLiteral(
    "KernelPad projects and CUDA sources (*.kpad *.cu *.cuh);;KernelPad projects (*.kpad);;"
    "CUDA sources (*.cu *.cuh);;All files (*)");

/// A bare CUDA source rather than a project file.
bool isCudaSource(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("cu") || suffix == QLatin1String("cuh");
}
constexpr int kStatusMessageMs = 5000;

// A project file must name a kernel (Project::fromJson insists); before the first compile
// the best guess is the first __global__ function of the source.
QString guessKernelName(const QString& source) {
    static const QRegularExpression re(
        QStringLiteral("__global__[^(;{]*?([A-Za-z_][A-Za-z0-9_]*)\\s*\\("));
    const QRegularExpressionMatch m = re.match(source);
    return m.hasMatch() ? m.captured(1) : QStringLiteral("kernel");
}
} // namespace

Project MainWindow::currentProject() const {
    Project p = m_baseProject;
    if (m_editor)
        p.source = m_editor->text();
    if (m_options)
        p.options = m_options->options();
    if (m_kernelSelector)
        p.kernel = m_kernelSelector->currentText().trimmed();
    if (m_arguments)
        p.arguments = m_arguments->model()->arguments();
    if (m_launch) {
        p.launch = m_launch->config();
        p.timing = m_launch->timing();
    }
    return p;
}

void MainWindow::loadProject(const Project& project, const QString& path,
                             const QString& copyDirectory) {
    m_loading = true;
    m_compileTimer->stop();
    m_baseProject = project;
    m_untitledName = project.name;
    m_editor->clearDiagnostics();
    // setText() would drop the undo history of the old project too, which is right here.
    m_editor->setText(project.source);
    m_editor->setModified(false);
    m_editor->setCursorPosition(0, 0);
    m_options->setOptions(project.options);
    m_kernelSelector->clear();
    if (!project.kernel.isEmpty())
        m_kernelSelector->addItem(project.kernel);
    m_kernelSelector->setCurrentText(project.kernel);
    m_arguments->model()->setArguments(project.arguments);
    m_launch->setConfig(project.launch);
    m_launch->setTiming(project.timing);

    m_lastCompile.reset();
    m_lastCompiledSource.clear();
    m_kernelResources.reset();
    m_lastRunProject.reset();
    m_diagnostics->clearDiagnostics();
    m_ptx->clear();
    m_log->clear();
    m_resources->clear();
    m_verification->clear();
    m_buffers->clear();
    m_timing->clearHistory();
    m_compileLabel->clear();
    m_runLabel->clear();
    m_tabs->setTabText(DiagnosticsTab, tr("Diagnostics"));
    m_loading = false;

    if (copyDirectory.isEmpty())
        m_document->reset(path);
    else
        m_document->resetAsCopy(copyDirectory);
    updateTitle();
    updateCoverCount();
    updateLaunchLimits();
    updateRunState();
    // Compile at once so the kernel list, PTX and argument types are there to look at.
    if (!project.source.trimmed().isEmpty())
        compile();
}

bool MainWindow::newProject() {
    if (!maybeSave())
        return false;
    loadProject(Preferences::load().forNewProject(starterProject(tr("Untitled"))));
    return true;
}

bool MainWindow::openProject(const QString& path) {
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
        loadProject(Preferences::load().forNewProject(*made), QString(),
                    QFileInfo(path).absolutePath());
        m_untitledName = QFileInfo(path).fileName();
        updateTitle();
        m_recent->add(path);
        statusBar()->showMessage(tr("Opened %1 as a new project: the argument table follows "
                                    "the kernel's signature; Save keeps it as a .kpad")
                                     .arg(QDir::toNativeSeparators(path)),
                                 kStatusMessageMs);
        return true;
    }
    // Read into a scratch document first: a broken file must leave the open project alone.
    ProjectDocument probe;
    QString error;
    const std::optional<Project> project = probe.load(path, &error);
    if (!project) {
        showError(tr("Cannot Open Project"),
                  tr("%1 could not be opened:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    loadProject(*project, QFileInfo(path).absoluteFilePath());
    m_recent->add(path);
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), kStatusMessageMs);
    return true;
}

bool MainWindow::openExample(const QString& path) {
    if (!maybeSave())
        return false;
    ProjectDocument probe;
    QString error;
    const std::optional<Project> project = probe.load(path, &error);
    if (!project) {
        showError(tr("Cannot Open Example"),
                  tr("%1 could not be opened:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    loadProject(*project, QString(), QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Opened the example \"%1\" as an untitled copy: Save asks where "
                                "to keep your version")
                                 .arg(project->name),
                             kStatusMessageMs);
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
    if (m_document->isUntitled())
        return saveAsDialog();
    return saveAs(m_document->path());
}

bool MainWindow::saveAs(const QString& path) {
    QString target = path;
    if (QFileInfo(target).suffix().isEmpty())
        target += QStringLiteral(".kpad");
    Project project = currentProject();
    if (project.name.isEmpty() || project.name == tr("Untitled"))
        project.name = QFileInfo(target).completeBaseName();
    if (project.kernel.isEmpty())
        project.kernel = guessKernelName(project.source);
    QString error;
    if (!m_document->save(project, target, &error)) {
        // The editor keeps every character; only the file on disk is unchanged.
        showError(tr("Cannot Save Project"),
                  tr("%1 could not be saved:\n%2").arg(QDir::toNativeSeparators(target), error));
        return false;
    }
    m_baseProject = project;
    m_untitledName = project.name;
    m_editor->setModified(false);
    m_recent->add(target);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(target)),
                             kStatusMessageMs);
    return true;
}

bool MainWindow::saveAsDialog() {
    if (!m_promptsEnabled) {
        // No modal dialogs in this mode (tests, scripted use): there is nowhere to ask.
        m_lastError = tr("Save As needs a file name, and dialogs are off");
        return false;
    }
    const QString untitled = isCudaSource(m_untitledName)
                                 ? QFileInfo(m_untitledName).completeBaseName()
                                 : m_untitledName;
    QString suggestion = m_document->isUntitled() ? (untitled.isEmpty() ? tr("kernel") : untitled) +
                                                        QStringLiteral(".kpad")
                                                  : m_document->path();
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
        target->loadProject(e.project, QString());
        target->m_document->adoptRecovery(e);
        target->updateTitle();
        target->statusBar()->showMessage(
            tr("Restored unsaved work from %1")
                .arg(QLocale().toString(e.savedAt.toLocalTime(), QLocale::ShortFormat)),
            kStatusMessageMs * 2);
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
    DeviceDialog dialog(m_devices, m_deviceIndex, m_driverError, this);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedIndex() < 0)
        return;
    if (dialog.selectedIndex() != m_deviceIndex) {
        m_deviceIndex = dialog.selectedIndex();
        onDevicesChanged(m_devices, m_driverError);
        compile();
    }
}

void MainWindow::showError(const QString& title, const QString& message) {
    m_lastError = message;
    statusBar()->showMessage(message.section(QLatin1Char('\n'), 0, 0) + QLatin1Char(' ') +
                                 message.section(QLatin1Char('\n'), 1),
                             kStatusMessageMs * 2);
    if (m_promptsEnabled)
        QMessageBox::warning(this, title, message);
}

} // namespace kernelpad
