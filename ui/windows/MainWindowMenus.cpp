// MainWindow: actions, the toolbar and the menus (File, Edit, Build, Device, View, Help).

#include "ui/windows/MainWindow.h"

#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/SettingsHistory.h"
#include "ui/Workbench.h"
#include "ui/dialogs/BaselineDialog.h"
#include "ui/dialogs/DocumentDialog.h"
#include "ui/dialogs/PreferencesDialog.h"
#include "ui/views/TestsView.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/widgets/FindReplaceBar.h"
#include "ui/widgets/SweepPanel.h"
#include "ui/windows/HelpDocuments.h"
#include "ui/windows/ViewRegistry.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenuBar>
#include <QMessageBox>
#include <QSet>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolBar>
#include <QUndoStack>
#include <QUrl>
#include <QVBoxLayout>

#include <functional>

namespace kernelpad {

namespace {
const char kCompileWhileTypingKey[] = "build/compileWhileTyping";
// cuDriverGetVersion gives 1000 × major + 10 × minor.
constexpr int kDriverMajorScale = 1000;
constexpr int kDriverMinorScale = 10;
constexpr int kNoDiagnosticsMessageMs = 3000;
constexpr int kRunRefusedMessageMs = 6000;
constexpr int kShortcutsDialogWidthPx = 520;
constexpr int kShortcutsDialogHeightPx = 560;

/// The installed copy (bin/../share/doc/kernelpad/NAME) when there is one, else the source
/// tree's (SOURCE, relative to the folder of README.md); empty when neither is there.
QString documentPath(const QString& installedName, const QString& sourcePath) {
    QStringList candidates;
    if (QCoreApplication::instance())
        candidates << QApplication::applicationDirPath() +
                          QStringLiteral("/../share/doc/kernelpad/") + installedName;
    candidates << QFileInfo(QStringLiteral(KERNELPAD_README_PATH)).absolutePath() +
                      QLatin1Char('/') + sourcePath;
    for (const QString& candidate : candidates)
        if (QFileInfo(candidate).isFile())
            return QFileInfo(candidate).canonicalFilePath();
    return {};
}

} // namespace

void MainWindow::createActions() {
    auto make = [this](const QString& text, const QKeySequence& key, auto slot) {
        auto* action = new QAction(text, this);
        if (!key.isEmpty())
            action->setShortcut(key);
        connect(action, &QAction::triggered, this, slot);
        return action;
    };
    m_newAction = make(tr("&New"), QKeySequence::New, [this] { newProject(); });
    m_openAction = make(tr("&Open…"), QKeySequence::Open, &MainWindow::openDialog);
    m_saveAction = make(tr("&Save"), QKeySequence::Save, [this] { save(); });
    m_saveAsAction = make(tr("Save &As…"), QKeySequence::SaveAs, [this] { saveAsDialog(); });
    m_quitAction = make(tr("&Quit"), QKeySequence::Quit, &QWidget::close);
    m_compileAction =
        make(tr("&Compile"), QKeySequence(Qt::CTRL | Qt::Key_B), &MainWindow::compile);
    m_runAction = make(tr("&Run"), QKeySequence(), &MainWindow::run);
    m_runAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
    // A disabled action takes no keys: without a device Ctrl+R and F5 did nothing at all. While
    // Run is off, the same keys say why in the status bar instead.
    auto* refusedRun = new QShortcut(this);
    refusedRun->setObjectName(QStringLiteral("runRefusedShortcut"));
    refusedRun->setKeys(m_runAction->shortcuts());
    refusedRun->setEnabled(false);
    connect(m_runAction, &QAction::enabledChanged, refusedRun,
            [refusedRun](bool enabled) { refusedRun->setEnabled(!enabled); });
    connect(refusedRun, &QShortcut::activated, this,
            [this] { statusBar()->showMessage(m_runAction->toolTip(), kRunRefusedMessageMs); });
    m_cancelAction =
        make(tr("C&ancel Run"), QKeySequence(Qt::SHIFT | Qt::Key_F5), &MainWindow::cancel);
    m_cancelAction->setEnabled(false);
    m_memcheckAction =
        make(tr("Run with &Memory Check"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
             [this] { runWithSanitizer(SanitizerTool::Memcheck); });
    m_memcheckAction->setToolTip(
        tr("Run once under compute-sanitizer's memcheck; out-of-bounds and misaligned accesses "
           "are marked at their source line"));
    m_racecheckAction = make(tr("Run with &Race Check"), QKeySequence(),
                             [this] { runWithSanitizer(SanitizerTool::Racecheck); });
    m_initcheckAction = make(tr("Run with &Initialization Check"), QKeySequence(),
                             [this] { runWithSanitizer(SanitizerTool::Initcheck); });
    m_ceilingAction = make(tr("Re-measure Device &Ceiling and Run"), QKeySequence(),
                           &MainWindow::runMeasuringCeiling);
    m_ceilingAction->setToolTip(
        tr("Time a large device-to-device copy again (normally done once per device) and run"));
    m_deviceAction = make(tr("&Device…"), QKeySequence(), &MainWindow::openDeviceDialog);
    createProfileActions();
    createLiveActions();
    m_compileWhileTypingAction = new QAction(tr("Compile While &Typing"), this);
    m_compileWhileTypingAction->setCheckable(true);
    m_compileWhileTypingAction->setChecked(
        QSettings().value(QLatin1String(kCompileWhileTypingKey), true).toBool());
    connect(m_compileWhileTypingAction, &QAction::toggled, this,
            [](bool on) { QSettings().setValue(QLatin1String(kCompileWhileTypingKey), on); });
    m_compileAction->setToolTip(tr("Compile with NVRTC (Ctrl+B)"));
    // Named for scripts and tests (findChild).
    m_compileAction->setObjectName(QStringLiteral("compileAction"));
    m_runAction->setObjectName(QStringLiteral("runAction"));
    m_cancelAction->setObjectName(QStringLiteral("cancelAction"));
    m_memcheckAction->setObjectName(QStringLiteral("memcheckAction"));
    m_compileWhileTypingAction->setObjectName(QStringLiteral("compileWhileTypingAction"));
    m_cancelAction->setToolTip(tr("Stop the run between repetitions (Shift+F5)"));

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(m_newAction);
    toolbar->addAction(m_openAction);
    toolbar->addAction(m_saveAction);
    toolbar->addSeparator();
    toolbar->addAction(m_compileAction);
    toolbar->addAction(m_runAction);
    toolbar->addAction(m_cancelAction);
    toolbar->addAction(m_liveModeAction);
    toolbar->addSeparator();
    toolbar->addAction(m_deviceAction);
}

// A settings change made in one go (a sweep's Apply, a version's Restore) has its own history
// beside the editor's: Ctrl+Z stays the editor's, so these have keys of their own, and each
// names the step it takes back ("Undo Apply sweep configuration bx=8, by=32").
void MainWindow::addSettingsUndoActions(QMenu* edit) {
    QUndoStack* stack = m_document->settingsHistory()->stack();
    QAction* undo = edit->addAction(QString());
    undo->setObjectName(QStringLiteral("undoSettingsAction"));
    undo->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Z));
    QAction* redo = edit->addAction(QString());
    redo->setObjectName(QStringLiteral("redoSettingsAction"));
    redo->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::SHIFT | Qt::Key_Z));
    for (QAction* a : {undo, redo})
        a->setStatusTip(tr("Settings changed in one go (a sweep's Apply, a version's Restore); "
                           "Ctrl+Z undoes typing in the editor"));
    connect(undo, &QAction::triggered, stack, &QUndoStack::undo);
    connect(redo, &QAction::triggered, stack, &QUndoStack::redo);
    const auto escaped = [](QString text) {
        return text.replace(QLatin1Char('&'), QStringLiteral("&&"));
    };
    const auto update = [=] {
        undo->setEnabled(stack->canUndo());
        undo->setText(stack->canUndo() ? tr("Undo %1").arg(escaped(stack->undoText()))
                                       : tr("Undo Se&ttings"));
        redo->setEnabled(stack->canRedo());
        redo->setText(stack->canRedo() ? tr("Redo %1").arg(escaped(stack->redoText()))
                                       : tr("Redo Setti&ngs"));
    };
    connect(stack, &QUndoStack::indexChanged, this, update);
    connect(stack, &QUndoStack::undoTextChanged, this, update);
    connect(stack, &QUndoStack::redoTextChanged, this, update);
    update();
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_newAction);
    file->addAction(m_openAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_examplesMenu = file->addMenu(tr("&Examples"));
    file->addSeparator();
    file->addAction(m_saveAction);
    file->addAction(m_saveAsAction);
    file->addSeparator();
    file->addAction(m_quitAction);
    connect(m_recentMenu, &QMenu::aboutToShow, this, [this] { m_recent->fillMenu(m_recentMenu); });
    connect(m_recent, &RecentFiles::openRequested, this, &MainWindow::openRecent);
    m_recent->fillMenu(m_recentMenu);
    fillExamplesMenu();

    createEditMenu();
    createBuildMenu();
    QMenu* device = menuBar()->addMenu(tr("&Device"));
    device->addAction(m_deviceAction);
    createClockLockAction(device);
    QAction* refresh = device->addAction(tr("&Refresh Devices"));
    connect(refresh, &QAction::triggered, m_workbench, &Workbench::refreshDevices);
    createViewMenu();
    QMenu* help = createHelpMenu();
    addWelcomeActions(file, help);
}

void MainWindow::createEditMenu() {
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    auto editorAction = [this, edit](const QString& text, const QKeySequence& key, auto slot) {
        QAction* a = edit->addAction(text);
        a->setShortcut(key);
        // Only while the editor has focus, so that Ctrl+C in a table copies the table.
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        m_editor->addAction(a);
        connect(a, &QAction::triggered, m_editor, slot);
        return a;
    };
    editorAction(tr("&Undo"), QKeySequence::Undo, &QsciScintilla::undo);
    editorAction(tr("&Redo"), QKeySequence::Redo, &QsciScintilla::redo);
    addSettingsUndoActions(edit);
    edit->addSeparator();
    editorAction(tr("Cu&t"), QKeySequence::Cut, &QsciScintilla::cut);
    editorAction(tr("&Copy"), QKeySequence::Copy, &QsciScintilla::copy);
    editorAction(tr("&Paste"), QKeySequence::Paste, &QsciScintilla::paste);
    edit->addSeparator();
    edit->addAction(m_editor->toggleCommentAction());
    edit->addSeparator();
    QAction* find = edit->addAction(tr("&Find…"));
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, m_findBar, &FindReplaceBar::showFind);
    QAction* replace = edit->addAction(tr("&Replace…"));
    replace->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
    connect(replace, &QAction::triggered, m_findBar, &FindReplaceBar::showReplace);
    QAction* next = edit->addAction(tr("Find &Next"));
    next->setShortcut(QKeySequence::FindNext);
    connect(next, &QAction::triggered, m_findBar, &FindReplaceBar::findNext);
    QAction* previous = edit->addAction(tr("Find Pre&vious"));
    previous->setShortcut(QKeySequence::FindPrevious);
    connect(previous, &QAction::triggered, m_findBar, &FindReplaceBar::findPrevious);
    edit->addSeparator();
    edit->addAction(PreferencesDialog::createAction(this));
}

void MainWindow::createBuildMenu() {
    QMenu* build = menuBar()->addMenu(tr("&Build"));
    build->addAction(m_compileAction);
    build->addAction(m_compileWhileTypingAction);
    build->addAction(m_liveModeAction);
    build->addSeparator();
    build->addAction(m_runAction);
    build->addAction(m_memcheckAction);
    build->addAction(m_racecheckAction);
    build->addAction(m_initcheckAction);
    build->addAction(m_ceilingAction);
    addProfileMenu(build);
    build->addAction(m_cancelAction);
    build->addSeparator();
    // The sweep runs from its dock, which shows its progress, results and any refusal.
    QAction* runSweep = build->addAction(tr("Run S&weep"));
    runSweep->setObjectName(QStringLiteral("runSweepAction"));
    connect(runSweep, &QAction::triggered, this, [this] {
        if (auto* dock = findChild<QDockWidget*>(QStringLiteral("sweepDock"))) {
            dock->show();
            dock->raise();
        }
        if (auto* panel = findChild<SweepPanel*>(QStringLiteral("sweepPanel")))
            panel->runSweep();
    });
    // The tests run from their tab, which shows each case as it finishes.
    QAction* runTests = build->addAction(tr("Run &Tests"));
    runTests->setObjectName(QStringLiteral("runTestsAction"));
    connect(runTests, &QAction::triggered, this, [this] {
        if (auto* tests = qobject_cast<TestsView*>(m_views->ensureView(QStringLiteral("tests"))))
            tests->runTests();
    });
    build->addSeparator();
    build->addAction(m_setBaselineAction);
    build->addMenu(m_baselineKernelMenu);
    build->addAction(m_clearBaselineAction);
    // The library call (cuBLAS, CUB) the kernel is timed against, beside the baseline kernel.
    QAction* libraryBaseline = build->addAction(tr("&Library Baseline…"));
    libraryBaseline->setObjectName(QStringLiteral("libraryBaselineAction"));
    connect(libraryBaseline, &QAction::triggered, this,
            [this] { BaselineDialog::edit(m_document, this); });
    build->addSeparator();
    QAction* nextError = build->addAction(tr("&Next Diagnostic"));
    nextError->setShortcut(QKeySequence(Qt::Key_F8));
    connect(nextError, &QAction::triggered, this, [this] { jumpToDiagnostic(1); });
    QAction* previousError = build->addAction(tr("&Previous Diagnostic"));
    previousError->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
    connect(previousError, &QAction::triggered, this, [this] { jumpToDiagnostic(-1); });
}

void MainWindow::createViewMenu() {
    menuBar()->addMenu(m_viewMenu);
    m_verificationPinnedAction = m_viewMenu->addAction(tr("&Pin Verification Below Results"));
    m_verificationPinnedAction->setCheckable(true);
    connect(m_verificationPinnedAction, &QAction::toggled, this,
            &MainWindow::setVerificationPinned);
    // Compiler Explorer's matching colours, kept in Preferences (SassResultView follows them).
    QAction* lineColours = m_viewMenu->addAction(tr("Line &Colours"));
    lineColours->setObjectName(QStringLiteral("lineColoursAction"));
    lineColours->setCheckable(true);
    lineColours->setChecked(Preferences::load().lineColours);
    connect(lineColours, &QAction::toggled, this, [](bool on) {
        Preferences preferences = Preferences::load();
        preferences.lineColours = on;
        preferences.apply();
    });
    connect(PreferencesNotifier::instance(), &PreferencesNotifier::changed, lineColours,
            [lineColours] { lineColours->setChecked(Preferences::load().lineColours); });
    QAction* clearHistory = m_viewMenu->addAction(tr("Clear Timing &History"));
    connect(clearHistory, &QAction::triggered, m_workbench, &Workbench::clearHistory);
    m_viewMenu->addSeparator();
    QMenu* zoom = m_viewMenu->addMenu(tr("&Zoom"));
    zoom->addAction(m_editor->zoomInAction());
    zoom->addAction(m_editor->zoomOutAction());
    zoom->addAction(m_editor->zoomResetAction());
    QAction* resetLayoutAction = m_viewMenu->addAction(tr("Reset &Layout"));
    connect(resetLayoutAction, &QAction::triggered, this, &MainWindow::resetLayout);
}

QMenu* MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* shortcuts = help->addAction(tr("&Keyboard Shortcuts"));
    connect(shortcuts, &QAction::triggered, this, &MainWindow::showShortcuts);
    QAction* guide = help->addAction(tr("KernelPad &User Guide"));
    guide->setObjectName(QStringLiteral("userGuideAction"));
    guide->setStatusTip(tr("Show the user guide: a tour of the window, its docks and menus"));
    connect(guide, &QAction::triggered, this, [this] { showDocument(userGuidePath()); });
    QAction* readme = help->addAction(tr("KernelPad &README"));
    readme->setObjectName(QStringLiteral("readmeAction"));
    readme->setStatusTip(tr("Show the README: what KernelPad is, how to build it and where the "
                            "documentation is"));
    connect(readme, &QAction::triggered, this, [this] { showDocument(readmePath()); });
    help->addSeparator();
    QAction* about = help->addAction(tr("&About KernelPad"));
    about->setMenuRole(QAction::AboutRole);
    connect(about, &QAction::triggered, this,
            [this] { QMessageBox::about(this, tr("About KernelPad"), aboutText()); });
    return help;
}

void MainWindow::showDocument(const QString& path) {
    if (!m_documentDialog) {
        m_documentDialog = new DocumentDialog(this);
        m_documentDialog->setObjectName(QStringLiteral("documentDialog"));
    }
    QString error;
    if (!m_documentDialog->open(path, &error)) {
        statusBar()->showMessage(error, kNoDiagnosticsMessageMs);
        return;
    }
    m_documentDialog->show();
    m_documentDialog->raise();
    m_documentDialog->activateWindow();
}

void MainWindow::jumpToDiagnostic(int step) {
    auto* diagnostics = qobject_cast<DiagnosticsList*>(viewWidget(QStringLiteral("diagnostics")));
    if (!diagnostics || !diagnostics->activateAdjacent(step)) {
        statusBar()->showMessage(tr("No diagnostics"), kNoDiagnosticsMessageMs);
        return;
    }
    m_tabs->setCurrentIndex(DiagnosticsTab);
}

QString MainWindow::aboutText() const {
    const QString appVersion = QApplication::applicationVersion().isEmpty()
                                   ? tr("unknown")
                                   : QApplication::applicationVersion();
    // NVRTC's version comes from the core with each compile: the UI never asks NVRTC.
    const std::optional<CompileResult>& compile = m_workbench->lastCompile();
    QString nvrtc = tr("known after the first compile");
    if (compile && !compile->nvrtcVersion.isEmpty())
        nvrtc = compile->nvrtcVersion;
    else if (compile && compile->compilerMissing)
        nvrtc = tr("NVRTC not found on this computer");
    const QVector<DeviceInfo>& devices = m_workbench->devices();
    QString driver = tr("none found (compile-only)");
    if (!devices.isEmpty() && devices.first().driverVersion > 0) {
        const int v = devices.first().driverVersion;
        driver = QStringLiteral("%1.%2")
                     .arg(v / kDriverMajorScale)
                     .arg(v % kDriverMajorScale / kDriverMinorScale);
    } else if (!m_workbench->devicesKnown()) {
        driver = tr("still looking");
    }
    return tr("<h3>KernelPad %1</h3>"
              "<p>A playground for CUDA kernels: edit, compile with NVRTC, run and time.</p>"
              "<table><tr><td>Qt</td><td>%2</td></tr>"
              "<tr><td>NVRTC</td><td>%3</td></tr>"
              "<tr><td>CUDA driver</td><td>%4</td></tr></table>"
              "<p>%5</p>")
        .arg(appVersion.toHtmlEscaped(), QString::fromLatin1(qVersion()), nvrtc.toHtmlEscaped(),
             driver.toHtmlEscaped(),
             userGuidePath().isEmpty()
                 ? tr("The user guide (docs/user-guide.md in the sources) gives a tour.")
                 : tr("The <a href=\"%1\">User Guide</a> gives a tour.")
                       .arg(QUrl::fromLocalFile(userGuidePath()).toString(QUrl::FullyEncoded)));
}

QString MainWindow::readmePath() {
    return documentPath(QStringLiteral("README.md"), QStringLiteral("README.md"));
}

QString userGuidePath() {
    return documentPath(QStringLiteral("user-guide.md"), QStringLiteral("docs/user-guide.md"));
}

QVector<QPair<QString, QString>> MainWindow::shortcutList() const {
    QVector<QPair<QString, QString>> rows;
    const QList<QMenu*> menus = menuBar()->findChildren<QMenu*>();
    QSet<const QAction*> seen;
    std::function<void(const QMenu*)> walk = [&](const QMenu* menu) {
        for (const QAction* action : menu->actions()) {
            if (action->menu()) {
                walk(action->menu());
                continue;
            }
            if (action->shortcuts().isEmpty() || seen.contains(action))
                continue;
            seen.insert(action);
            QStringList keys;
            for (const QKeySequence& key : action->shortcuts())
                keys << key.toString(QKeySequence::NativeText);
            rows.append({QString(action->text()).remove(QLatin1Char('&')),
                         keys.join(QStringLiteral(", "))});
        }
    };
    for (const QAction* top : menuBar()->actions())
        if (top->menu())
            walk(top->menu());
    return rows;
}

void MainWindow::showShortcuts() {
    const QVector<QPair<QString, QString>> rows = shortcutList();
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Keyboard Shortcuts"));
    auto* table = new QTableWidget(int(rows.size()), 2, &dialog);
    table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int i = 0; i < rows.size(); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(rows.at(i).first));
        table->setItem(i, 1, new QTableWidgetItem(rows.at(i).second));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog.resize(kShortcutsDialogWidthPx, kShortcutsDialogHeightPx);
    dialog.exec();
}

} // namespace kernelpad
