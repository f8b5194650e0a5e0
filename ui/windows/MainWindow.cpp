#include "ui/windows/MainWindow.h"

#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/Theme.h"
#include "ui/WheelGuard.h"
#include "ui/Workbench.h"
#include "ui/views/FaultView.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/BufferViewer.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/CompileDiffView.h"
#include "ui/widgets/CompileOptionsPanel.h"
#include "ui/widgets/ConsolePanel.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/widgets/FaultBanner.h"
#include "ui/widgets/FindReplaceBar.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/OccupancyView.h"
#include "ui/widgets/PipelinePanel.h"
#include "ui/widgets/ProfilePanel.h"
#include "ui/widgets/PtxView.h"
#include "ui/widgets/ResourcesPanel.h"
#include "ui/widgets/SassView.h"
#include "ui/widgets/SweepPanel.h"
#include "ui/widgets/TimingChartView.h"
#include "ui/widgets/VerificationPanel.h"
#include "ui/widgets/VersionsPanel.h"
#include "ui/windows/PanelBindings.h"
#include "ui/windows/ViewRegistry.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

namespace kernelpad {

MainWindow::MainWindow(Engine* engine, QWidget* parent)
    : QMainWindow(parent)
    , m_engine(engine)
    , m_document(new ProjectDocument(this))
    , m_workbench(new Workbench(engine, m_document, this))
    , m_recent(new RecentFiles(this)) {
    setObjectName(QStringLiteral("MainWindow"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    installWheelGuard();
    createWidgets();
    createDocks();
    createActions();
    createMenus();
    createStatusBar();
    restoreLayout();
    bindPanels();
    watchWorkbench();
    createWelcome();
    createLessonPane();

    connect(m_document, &ProjectDocument::dirtyChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ProjectDocument::pathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ProjectDocument::autosaveFailed, this,
            [this](const QString& error) { statusBar()->showMessage(error, 10000); });

    Project blank;
    blank.name = tr("Untitled");
    m_document->replace(blank);
    updateTitle();
    updateRunState();
}

MainWindow::~MainWindow() = default;

void MainWindow::bindPanels() {
    bind::editor(m_workbench, m_editor);
    bind::compileOptions(m_workbench, m_options);
    bind::kernelSelector(m_workbench, m_kernelSelector);
    bind::arguments(m_workbench, m_arguments);
    bind::launch(m_workbench, m_launch);
    bind::pipeline(m_workbench, findChild<PipelinePanel*>(QStringLiteral("pipelinePanel")));
    // The result views hear the workbench after the editing panels have followed it.
    m_workbench->addViewer(m_views);
}

void MainWindow::createWidgets() {
    m_editor = new CodeEditor(this);
    m_editor->setObjectName(QStringLiteral("editor"));
    m_findBar = new FindReplaceBar(m_editor, this);

    m_banner = new QFrame(this);
    m_banner->setObjectName(QStringLiteral("driverBanner"));
    m_bannerText = new QLabel(m_banner);
    m_bannerText->setWordWrap(true);
    m_bannerText->setTextFormat(Qt::PlainText);
    auto* bannerDevices = new QPushButton(tr("Device Details…"), m_banner);
    connect(bannerDevices, &QPushButton::clicked, this, &MainWindow::openDeviceDialog);
    auto* bannerLayout = new QHBoxLayout(m_banner);
    bannerLayout->setContentsMargins(10, 6, 10, 6);
    bannerLayout->addWidget(m_bannerText, 1);
    bannerLayout->addWidget(bannerDevices);
    m_banner->hide();

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("resultTabs"));
    m_tabs->setDocumentMode(true);
    createViews();

    auto* editorPane = new QWidget(this);
    auto* editorLayout = new QVBoxLayout(editorPane);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    editorLayout->setSpacing(0);
    editorLayout->addWidget(m_editor, 1);
    editorLayout->addWidget(m_findBar);

    // Vertical: beside the tabs the verification tables would get too little width once the
    // docks take their share (seen at 1280x800).
    m_resultsSplitter = new QSplitter(Qt::Vertical, this);
    m_resultsSplitter->setObjectName(QStringLiteral("resultsSplitter"));
    m_resultsSplitter->setChildrenCollapsible(false);
    m_resultsSplitter->addWidget(m_tabs);
    auto* placeholder = new QLabel(
        tr("The verification is pinned below the results (View ▸ Pin Verification Below Results)."),
        this);
    placeholder->setAlignment(Qt::AlignCenter);
    placeholder->setWordWrap(true);
    placeholder->hide();
    m_verificationPlaceholder = placeholder;

    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_editorSplitter = splitter;
    splitter->setObjectName(QStringLiteral("editorResultsSplitter"));
    splitter->addWidget(editorPane);
    splitter->addWidget(m_resultsSplitter);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);

    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_banner);
    centralLayout->addWidget(splitter, 1);
    setCentralWidget(central);
    // Below the driver banner, above the editor.
    m_views->setBannerArea(centralLayout, 1);
    registerView(
        QStringLiteral("fault"), tr("Kernel Fault"), ViewPlace::Banner,
        [](const ViewContext& context) { return new FaultView(context); }, ViewCreation::AtOnce);

    applyTheme();
}

void MainWindow::createStatusBar() {
    m_deviceLabel = new QLabel(this);
    m_compileLabel = new QLabel(this);
    m_compileLabel->setObjectName(QStringLiteral("compileStatus"));
    m_runLabel = new QLabel(this);
    m_reasonLabel = new QLabel(this);
    m_reasonLabel->setObjectName(QStringLiteral("runBlockedLabel"));
    m_progressLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(160);
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_progressLabel->hide();
    // Beside the Run button, not in the status bar, where transient messages would hide it.
    m_reasonLabel->setContentsMargins(12, 0, 6, 0);
    if (auto* toolbar = findChild<QToolBar*>(QStringLiteral("mainToolbar")))
        toolbar->addWidget(m_reasonLabel);
    else
        statusBar()->addWidget(m_reasonLabel, 1);
    statusBar()->addPermanentWidget(m_progressLabel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_runLabel);
    statusBar()->addPermanentWidget(m_compileLabel);
    statusBar()->addPermanentWidget(m_deviceLabel);
    m_deviceLabel->setText(tr("Looking for CUDA devices…"));
    applyTheme();
}

void MainWindow::setCompileWhileTyping(bool on) {
    m_compileWhileTypingAction->setChecked(on); // the action tells the workbench
}

bool MainWindow::verificationPinned() const {
    const QWidget* verification = viewWidget(QStringLiteral("verification"));
    return verification && verification->parentWidget() == m_resultsSplitter;
}

void MainWindow::setVerificationPinned(bool on) {
    QWidget* verification = viewWidget(QStringLiteral("verification"));
    if (!verification || on == verificationPinned())
        return;
    const bool wasCurrent = m_tabs->currentIndex() == VerificationTab;
    // Swap what the Verification tab holds so that the ResultTab indices stay valid.
    m_tabs->removeTab(VerificationTab);
    if (on) {
        m_tabs->insertTab(VerificationTab, m_verificationPlaceholder, tr("Verification"));
        m_resultsSplitter->addWidget(verification);
        verification->show();
        // Charts need about 230 px of height and the verification table about 150: give the
        // results three fifths of the window's height, the tabs three fifths of that. Before
        // the window is laid out the splitters have no size yet: split once they have.
        m_resultsSplitter->setStretchFactor(0, 3);
        m_resultsSplitter->setStretchFactor(1, 2);
        auto split = [editor = QPointer<QSplitter>(m_editorSplitter),
                      results = QPointer<QSplitter>(m_resultsSplitter)] {
            if (!editor || !results || results->count() != 2)
                return;
            const int total = editor->height();
            editor->setSizes({total * 2 / 5, total - total * 2 / 5});
            const int height = total - total * 2 / 5;
            results->setSizes({height * 3 / 5, height - height * 3 / 5});
        };
        if (isVisible() && m_editorSplitter->height() > 0)
            split();
        else
            QTimer::singleShot(0, m_resultsSplitter, split);
        if (wasCurrent)
            m_tabs->setCurrentIndex(TimingTab);
    } else {
        m_verificationPlaceholder->hide();
        m_verificationPlaceholder->setParent(this);
        m_tabs->insertTab(VerificationTab, verification, tr("Verification"));
    }
    if (m_verificationPinnedAction && m_verificationPinnedAction->isChecked() != on) {
        const QSignalBlocker blocker(m_verificationPinnedAction);
        m_verificationPinnedAction->setChecked(on);
    }
}

void MainWindow::updateTitle() {
    // A lesson is named by its title: every lesson's file is lesson.kpad.
    const QString lesson = m_document->project().lesson.value(QStringLiteral("title")).toString();
    setWindowTitle(
        tr("%1[*] — KernelPad")
            .arg(lesson.isEmpty() ? m_document->displayName() : tr("%1 (lesson)").arg(lesson)));
    setWindowModified(m_document->isDirty());
}

void MainWindow::applyTheme() {
    const Theme theme = Theme::forPalette(palette());
    m_banner->setStyleSheet(
        QStringLiteral("#driverBanner { background: %1; border-bottom: 1px solid %2; }"
                       "#driverBanner QLabel { color: %3; }")
            .arg(theme.bannerPaper.name(), theme.warningColor.name(), theme.bannerText.name()));
    if (m_reasonLabel)
        m_reasonLabel->setStyleSheet(QStringLiteral("color: %1;").arg(theme.warningColor.name()));
}

void MainWindow::changeEvent(QEvent* event) {
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_banner)
        applyTheme();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    m_workbench->cancel();
    // A clean close: the recovery file is no longer needed.
    m_document->removeRecovery();
    saveLayout();
    event->accept();
}

} // namespace kernelpad
