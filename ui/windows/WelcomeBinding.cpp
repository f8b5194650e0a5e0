// MainWindow: the welcome page in place of the editor while no project is open, its card
// sources (templates, recent projects, examples by topic), File ▸ New from Template, File ▸
// Close Project and Help ▸ Welcome.

#include "ui/windows/MainWindow.h"

#include "core/project/Examples.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/WelcomePage.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>

namespace kernelpad {

namespace {
constexpr int kStatusMessageMs = 5000;

QVector<WelcomeCard> templateCards(MainWindow* window) {
    QVector<WelcomeCard> cards;
    for (const ExampleInfo& info : listTemplates(templatesDirectory())) {
        WelcomeCard card;
        card.title = info.name;
        card.subtitle = info.description;
        card.path = info.path;
        card.activate = [window, path = info.path] { window->openTemplate(path); };
        cards.append(card);
    }
    return cards;
}

QVector<WelcomeCard> exampleCards(MainWindow* window) {
    QVector<ExampleInfo> examples = listExamples(examplesDirectory());
    // Grouped by topic in the order the topics first appear by name; by name within each.
    std::stable_sort(examples.begin(), examples.end(),
                     [](const ExampleInfo& a, const ExampleInfo& b) { return a.topic < b.topic; });
    QVector<WelcomeCard> cards;
    for (const ExampleInfo& info : examples) {
        WelcomeCard card;
        card.title = info.name;
        card.subtitle = info.description;
        card.topic = info.topic;
        card.path = info.path;
        card.activate = [window, path = info.path] { window->openExample(path); };
        cards.append(card);
    }
    return cards;
}

QVector<WelcomeCard> recentCards(MainWindow* window, RecentFiles* recent) {
    QVector<WelcomeCard> cards;
    for (const QString& path : recent->allFiles()) {
        const QFileInfo file(path);
        WelcomeCard card;
        card.title = file.fileName();
        card.subtitle = QDir::toNativeSeparators(file.absolutePath());
        card.path = path;
        card.missing = !file.exists();
        card.activate = [window, path] { window->openProject(path); };
        card.remove = [recent, path] { recent->remove(path); };
        cards.append(card);
    }
    return cards;
}
} // namespace

void MainWindow::createWelcome() {
    m_welcome = new WelcomePage(this);
    m_welcome->addSection(QStringLiteral("templates"), tr("New from template"),
                          [this] { return templateCards(this); });
    m_welcome->addSection(QStringLiteral("recent"), tr("Recent projects"),
                          [this] { return recentCards(this, m_recent); });
    m_welcome->addSection(QStringLiteral("examples"), tr("Examples"),
                          [this] { return exampleCards(this); });
    createLessonSection();
    orderWelcomeSections();
    connect(m_welcome, &WelcomePage::openRequested, this, &MainWindow::openDialog);
    connect(m_welcome, &WelcomePage::returnRequested, this, &MainWindow::hideWelcome);
    connect(m_recent, &RecentFiles::changed, m_welcome,
            [this] { m_welcome->refreshSection(QStringLiteral("recent")); });

    // The page takes the editor's place; the editor and the results wait behind it.
    m_workspace = takeCentralWidget();
    auto* stack = new QStackedWidget(this);
    stack->setObjectName(QStringLiteral("centralStack"));
    stack->addWidget(m_workspace);
    stack->addWidget(m_welcome);
    setCentralWidget(stack);

    // Whatever replaces the project (open, new, template, example, recovery) opens it.
    connect(m_document, &ProjectDocument::projectReplaced, this, [this] {
        m_projectOpen = true;
        m_closeProjectAction->setEnabled(true);
        hideWelcome();
    });
}

void MainWindow::addWelcomeActions(QMenu* file, QMenu* help) {
    auto* templates = new QMenu(tr("New from &Template"), file);
    templates->setObjectName(QStringLiteral("templatesMenu"));
    templates->setToolTipsVisible(true);
    for (const ExampleInfo& info : listTemplates(templatesDirectory())) {
        QString label = info.name;
        QAction* action =
            templates->addAction(label.replace(QLatin1Char('&'), QStringLiteral("&&")));
        action->setToolTip(info.description);
        action->setStatusTip(info.description);
        connect(action, &QAction::triggered, this,
                [this, path = info.path] { openTemplate(path); });
    }
    if (templates->isEmpty())
        templates->addAction(tr("No templates found"))->setEnabled(false);
    file->insertMenu(m_openAction, templates);

    m_closeProjectAction = new QAction(tr("&Close Project"), this);
    m_closeProjectAction->setObjectName(QStringLiteral("closeProjectAction"));
    m_closeProjectAction->setShortcut(QKeySequence::Close);
    m_closeProjectAction->setStatusTip(tr("Close the project and show the welcome page"));
    connect(m_closeProjectAction, &QAction::triggered, this, [this] { closeProject(); });
    file->insertAction(m_quitAction, m_closeProjectAction);
    file->insertSeparator(m_quitAction);

    auto* welcome = new QAction(tr("&Welcome"), this);
    welcome->setObjectName(QStringLiteral("welcomeAction"));
    welcome->setStatusTip(tr("Show the welcome page: templates, recent projects and examples"));
    connect(welcome, &QAction::triggered, this, &MainWindow::showWelcome);
    help->insertAction(help->actions().value(0), welcome);
    help->insertSeparator(help->actions().value(1));
    addLessonActions(help);
}

bool MainWindow::openTemplate(const QString& path) {
    if (!maybeSave())
        return false;
    QString error;
    const std::optional<Project> project = ProjectDocument::read(path, &error);
    if (!project) {
        showError(tr("Cannot Open Template"),
                  tr("%1 could not be opened:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    // The user's compile preferences, as File ▸ New gives them.
    m_document->replace(Preferences::load().forNewProject(*project), QString(),
                        QFileInfo(path).absolutePath());
    statusBar()->showMessage(
        tr("New project from the template \"%1\": Save As chooses where to keep it")
            .arg(project->name),
        kStatusMessageMs);
    return true;
}

bool MainWindow::closeProject() {
    if (!maybeSave())
        return false;
    Project blank;
    blank.name = tr("Untitled");
    m_document->replace(blank); // opens it (projectReplaced): closed just below
    m_projectOpen = false;
    m_closeProjectAction->setEnabled(false);
    showWelcome();
    return true;
}

void MainWindow::showWelcome() {
    m_welcome->setReturnTarget(m_projectOpen ? m_document->displayName() : QString());
    if (welcomeShown())
        return;
    orderWelcomeSections();
    m_welcome->refresh();
    m_stateBehindWelcome = saveState();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        dock->hide();
    for (QToolBar* toolbar : findChildren<QToolBar*>())
        toolbar->hide();
    auto* stack = static_cast<QStackedWidget*>(centralWidget());
    stack->setCurrentWidget(m_welcome);
    // The first card, so that the keyboard starts on the page.
    for (const QString& id : m_welcome->sectionOrder()) {
        if (const QVector<WelcomeCardButton*> cards = m_welcome->cards(id); !cards.isEmpty()) {
            cards.first()->setFocus(Qt::OtherFocusReason);
            return;
        }
    }
    m_welcome->setFocus(Qt::OtherFocusReason);
}

void MainWindow::hideWelcome() {
    if (!welcomeShown() || !m_projectOpen)
        return;
    static_cast<QStackedWidget*>(centralWidget())->setCurrentWidget(m_workspace);
    restoreState(m_stateBehindWelcome);
    if (m_editor)
        m_editor->setFocus(Qt::OtherFocusReason);
}

bool MainWindow::welcomeShown() const {
    const auto* stack = qobject_cast<QStackedWidget*>(centralWidget());
    return stack && stack->currentWidget() == m_welcome;
}

} // namespace kernelpad
