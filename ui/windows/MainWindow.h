#pragma once
// KernelPad's main window: the editor in the centre, compile options, arguments and launch
// settings in docks, results in tabs below. The window holds layout, actions and menus; the
// project is the ProjectDocument's and everything else the Workbench's, which the editing
// panels follow through their bindings and the result views (ui/views) through the window's
// ViewRegistry (docs/ARCHITECTURE.md, "The window").

#include "core/profile/ProfileReport.h"
#include "core/project/Project.h"
#include "core/run/RunTypes.h"
#include "ui/windows/ViewPlace.h"

#include <QMainWindow>
#include <QPointer>

#include <functional>

class QAction;
class QActionGroup;
class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QSplitter;
class QTabWidget;
class QToolButton;

namespace kernelpad {

class ArgumentTableView;
class DocumentDialog;
class CodeEditor;
class CompileOptionsPanel;
class Engine;
class FindReplaceBar;
class LaunchPanel;
class LessonProgress;
struct WelcomeCard;
class LessonPane;
class ProjectDocument;
class WelcomePage;
class RecentFiles;
class ResultView;
struct ViewContext;
class ViewRegistry;
class Workbench;
struct RunRecord;

/// One project per window. The Engine is owned by the caller (main.cpp or a test) and may
/// be shared by several windows; each window only listens to the request ids it made.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Answer to "save your changes?", asked before closing or replacing unsaved work.
    enum class UnsavedChoice { Save, Discard, Cancel };
    /// The tabs below the editor, in order.
    enum ResultTab {
        LogTab,
        DiagnosticsTab,
        PtxTab,
        SassTab,
        DiffTab,
        ResourcesTab,
        OccupancyTab,
        TimingTab,
        VerificationTab,
        BuffersTab,
        ConsoleTab,
        ProfileTab
    };

    explicit MainWindow(Engine* engine, QWidget* parent = nullptr);
    ~MainWindow() override;

    [[nodiscard]] ProjectDocument* document() const { return m_document; }
    [[nodiscard]] Workbench* workbench() const { return m_workbench; }

    // --- projects (MainWindowActions.cpp) ---
    /// Opens a shipped example as an untitled copy: Save asks where, so the installed file is
    /// never overwritten; its relative paths still resolve in the examples folder.
    bool openExample(const QString& path);
    /// Opens a .kpad file (or a .cu/.cuh source as a new project), asking first about unsaved
    /// work; errors name the file and the field.
    bool openProject(const QString& path);
    bool newProject();
    /// Replaces the project (asking about unsaved work first) with an untitled PTX project made
    /// of the PTX view's PTX, with the same arguments and launch (core ptxProjectFrom()).
    bool saveAsPtxProject();
    bool save();
    bool saveAs(const QString& path);
    /// Offers to restore recovery files left by a crash: the newest comes back in this
    /// window, others in new windows. Without prompts they are restored silently. Returns
    /// how many were restored.
    int restoreRecovery();
    /// Asks about unsaved work; false when the user cancelled.
    bool maybeSave();

    // --- the welcome page (WelcomeBinding.cpp) ---
    /// Opens a template (resources/templates) as a new, untitled project: nothing is written
    /// until Save As.
    bool openTemplate(const QString& path);
    /// File ▸ Close Project: asks about unsaved work, then shows the welcome page with no
    /// project behind it. False when the user cancelled.
    bool closeProject();
    /// Help ▸ Welcome: the welcome page over the open project (Escape goes back to it).
    void showWelcome();
    [[nodiscard]] bool welcomeShown() const;

    // --- lessons (LessonOpen.cpp) ---
    /// Opens a lesson (its shipped folder, or the student's copy) from the student's writable
    /// copy (lessonWorkspaceDirectory()): made on the first open, reopened with its edits
    /// later. Asks about unsaved work first.
    bool openLesson(const QString& lessonDirectory);
    /// "Start over": asks, then replaces the student's copy with the shipped lesson and forgets
    /// its completion; the copy is reopened when it is the open project.
    bool startOverLesson(const QString& lessonDirectory);
    /// Help ▸ Lessons ▸ Show All Lessons: the welcome page at its lessons.
    void showLessons();
    /// The shipped lesson whose copy is the open project; empty when it is not a lesson.
    [[nodiscard]] QString openLessonDirectory() const;

    // --- build and run (MainWindowRun.cpp) ---
    void compile();
    void run();
    /// Runs once under compute-sanitizer with `tool`; its reports are marked in the editor
    /// like compile diagnostics.
    void runWithSanitizer(SanitizerTool tool = SanitizerTool::Memcheck);
    /// Runs after timing the device's copy ceiling again (the share of it is in the chart).
    void runMeasuringCeiling();
    void cancel();

    // --- profiling (MainWindowProfile.cpp) ---
    /// Build ▸ Profile: one launch under Nsight Compute with profileSet(), kept with its run.
    void profile();
    /// Build ▸ Profile Set (kept in the settings).
    [[nodiscard]] ProfileSet profileSet() const;
    void setProfileSet(ProfileSet set);

    // --- result views (MainWindowViews.cpp) ---
    /// Adds a result panel: `factory` makes its view (ui/ResultView.h) when its tab or dock is
    /// first shown (or at once); the window then tells it every Workbench event. Returns the
    /// tab page or dock that holds it; null when `id` is taken.
    QWidget* registerView(const QString& id, const QString& title, ViewPlace place,
                          const std::function<ResultView*(const ViewContext&)>& factory,
                          ViewCreation creation = ViewCreation::WhenShown);
    [[nodiscard]] ViewRegistry* views() const { return m_views; }

    // --- options for tests and scripted use ---
    /// Off: no modal dialogs; errors go to lastError() and the status bar, the unsaved-work
    /// question gets unsavedChoice(), recovery files are restored without asking.
    void setPromptsEnabled(bool enabled) { m_promptsEnabled = enabled; }
    void setUnsavedChoice(UnsavedChoice choice) { m_unsavedChoice = choice; }
    [[nodiscard]] QString lastError() const { return m_lastError; }
    /// Compile shortly after each edit (on by default; the Build menu toggles it).
    void setCompileWhileTyping(bool on);
    /// Shows the verification panel pinned below the result tabs instead of in its own tab,
    /// so that the timing and whether the output is right are seen together (View menu;
    /// screenshots).
    void setVerificationPinned(bool on);
    [[nodiscard]] bool verificationPinned() const;

    // --- View and Help menus (MainWindowMenus.cpp) ---
    /// Puts the docks back where a fresh window has them, at their default sizes.
    void resetLayout();
    /// Help ▸ About: the versions of KernelPad, Qt, NVRTC (from the last compile) and the
    /// driver (from the device list), as rich text.
    [[nodiscard]] QString aboutText() const;
    /// The README that Help ▸ README shows: the installed one, else the build tree's; empty
    /// when neither is there.
    [[nodiscard]] static QString readmePath();
    /// Help ▸ Keyboard Shortcuts: (action, keys) for every menu action that has keys.
    [[nodiscard]] QVector<QPair<QString, QString>> shortcutList() const;

signals:
    /// The lesson pane's "Next lesson", after a lesson was completed: the next lesson's
    /// folder in the course (listLessons() order).
    void nextLessonRequested(const QString& lessonDirectory);

protected:
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // MainWindow.cpp: construction
    void createWidgets();
    void createDocks();
    void createActions();
    /// Device > Lock Clocks, and its refusal reported when a run brings one back.
    void createClockLockAction(QMenu* device);
    void createMenus();
    // MainWindowMenus.cpp: the menus after File, in menu-bar order
    void createEditMenu();
    void createBuildMenu();
    void createViewMenu();
    [[nodiscard]] QMenu* createHelpMenu();
    /// Help ▸ README and User Guide: the Markdown file at `path` in the window's document
    /// viewer, or why not in the status bar.
    void showDocument(const QString& path);
    /// Edit ▸ Undo/Redo of the document's settings history (MainWindowMenus.cpp).
    void addSettingsUndoActions(QMenu* edit);
    void createStatusBar();
    /// Binds the editing panels to the document and the workbench (PanelBindings.h), then lets
    /// the result views hear the workbench.
    void bindPanels();
    /// Registers the result views, in the order of their tabs (MainWindowViews.cpp).
    void createViews();
    /// The widget of the view `id`, null until the view is made.
    [[nodiscard]] QWidget* viewWidget(const QString& id) const;
    void restoreLayout();
    void saveLayout();
    /// The free area of the window's screen (primary screen before it is shown).
    [[nodiscard]] QRect screenRect() const;
    /// Fills the screen's free area (a fresh start, or a saved layout that does not fit).
    void fitToScreen();
    void applyDefaultDockSizes();
    /// Sizes the dock column to m_dockShare of the window's width (at least its minimum).
    void fitDockColumn();
    void updateTitle();
    void applyTheme();

    // MainWindowActions.cpp: files
    void openDialog();
    bool saveAsDialog();
    void openRecent(const QString& path);
    void fillExamplesMenu();
    void openDeviceDialog();
    void showError(const QString& title, const QString& message);

    // MainWindowMenus.cpp: help and navigation
    void showShortcuts();
    /// F8 / Shift+F8: the next (step 1) or previous (-1) diagnostic, shown in the editor.
    void jumpToDiagnostic(int step);

    // WelcomeBinding.cpp
    void createWelcome();
    /// File ▸ New from Template, File ▸ Close Project and Help ▸ Welcome, put in their menus.
    void addWelcomeActions(QMenu* file, QMenu* help);
    void hideWelcome();

    // LessonOpen.cpp
    void createLessonSection();
    /// Help ▸ Lessons, after Help ▸ Welcome.
    void addLessonActions(QMenu* help);
    void fillLessonsMenu();
    [[nodiscard]] QVector<WelcomeCard> lessonCards();
    void orderWelcomeSections();
    /// Yes/Cancel; without prompts, yes.
    bool confirm(const QString& title, const QString& question);
    // LessonBinding.cpp: the lesson pane's dock (its view is ui/views/LessonView.h)
    void createLessonPane();

    // MainWindowRun.cpp: what the window itself shows of the workbench (the status bar, the
    // banner, which tab is in front, which actions are enabled)
    void watchWorkbench();
    void showDevices();
    void showCompileStatus();
    void showRunFinished(const RunRecord& run);
    /// The "Last run" label and the status bar's message of `run` (a run that measured and
    /// was no sanitizer run): the text of each, empty where showRunFinished() sets none.
    [[nodiscard]] std::pair<QString, QString> runFinishedTexts(const RunRecord& run) const;
    /// A run's SASS came after it ended: the sentence of the run shown is made again when it
    /// compares that run (MainWindowRun.cpp).
    void refreshRunVerdict(quint64 serial);
    /// Live mode's toggle and the baseline's actions (MainWindowLive.cpp).
    void createLiveActions();
    void updateBaselineActions();
    void fillBaselineKernelMenu();
    void updateRunState();
    void startRun(RunRequest request);

    // MainWindowProfile.cpp
    void createProfileActions();
    void addProfileMenu(QMenu* build);
    void watchProfiles();
    void updateProfileState();

    QPointer<Engine> m_engine;
    ProjectDocument* m_document = nullptr;
    Workbench* m_workbench = nullptr;
    RecentFiles* m_recent = nullptr;

    // The window's parts, for layout, actions and menus; what they show comes from their
    // bindings (bindPanels()). QPointer: a dock's contents may be gone before the window.
    QPointer<CodeEditor> m_editor;
    FindReplaceBar* m_findBar = nullptr;
    QWidget* m_banner = nullptr;
    QLabel* m_bannerText = nullptr;
    QPointer<QComboBox> m_kernelSelector;
    QPointer<CompileOptionsPanel> m_options;
    QPointer<ArgumentTableView> m_arguments;
    QPointer<LaunchPanel> m_launch;
    QPointer<QTabWidget> m_tabs;
    ViewRegistry* m_views = nullptr;              ///< the result views (MainWindowViews.cpp)
    QSplitter* m_editorSplitter = nullptr;        ///< the editor above, the results below
    QSplitter* m_resultsSplitter = nullptr;       ///< the tabs, and the verification when pinned
    QWidget* m_verificationPlaceholder = nullptr; ///< in the Verification tab while pinned

    QLabel* m_deviceLabel = nullptr;
    QLabel* m_compileLabel = nullptr;
    QLabel* m_runLabel = nullptr;
    quint64 m_shownRunSerial = 0; ///< the run whose sentence the label and message show
    QString m_shownRunMessage;    ///< the status bar's message for it
    QLabel* m_reasonLabel = nullptr;
    QLabel* m_progressLabel = nullptr;
    QProgressBar* m_progress = nullptr;

    QAction* m_newAction = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_saveAction = nullptr;
    QAction* m_saveAsAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_compileAction = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_memcheckAction = nullptr;
    QAction* m_racecheckAction = nullptr;
    QAction* m_initcheckAction = nullptr;
    QAction* m_ceilingAction = nullptr;
    QAction* m_deviceAction = nullptr;
    QAction* m_lockClocksAction = nullptr; ///< Device > Lock Clocks (MainWindowClocks.cpp)
    QAction* m_compileWhileTypingAction = nullptr;
    QAction* m_liveModeAction = nullptr;
    QAction* m_setBaselineAction = nullptr;
    QAction* m_clearBaselineAction = nullptr;
    QMenu* m_baselineKernelMenu = nullptr;
    QAction* m_verificationPinnedAction = nullptr;
    QAction* m_profileAction = nullptr;
    QActionGroup* m_profileSetGroup = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_examplesMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QPointer<DocumentDialog> m_documentDialog; ///< Help's README and user guide, made once
    WelcomePage* m_welcome = nullptr;
    QWidget* m_workspace = nullptr;  ///< the editor and the results, behind the welcome page
    QByteArray m_stateBehindWelcome; ///< the docks and toolbar as the project had them
    bool m_projectOpen = true;       ///< false after Close Project, until one opens
    QAction* m_closeProjectAction = nullptr;
    LessonProgress* m_lessonProgress = nullptr;
    QPointer<QComboBox> m_lessonLevelFilter;
    QMenu* m_lessonsMenu = nullptr;
    QAction* m_showLessonsAction = nullptr;
    QAction* m_startOverAction = nullptr;
    QAction* m_resetProgressAction = nullptr;
    QByteArray m_defaultState; ///< the docks as built, for View ▸ Reset Layout
    double m_dockShare = 0;    ///< the dock column's share of the width; applyDefaultDockSizes()

    bool m_promptsEnabled = true;
    UnsavedChoice m_unsavedChoice = UnsavedChoice::Discard;
    QString m_lastError;
};

} // namespace kernelpad
