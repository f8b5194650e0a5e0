// MainWindow: the lessons. Their cards on the welcome page (by topic, in course order, with
// the level, the kind, the done mark and the recorded figure), Help ▸ Lessons, and opening a
// lesson from the student's writable copy of it (core/project/LessonWorkspace).

#include "ui/windows/MainWindow.h"

#include "core/project/Lesson.h"
#include "core/project/LessonWorkspace.h"
#include "ui/LessonProgress.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/widgets/WelcomePage.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>

namespace kernelpad {

namespace {

constexpr int kLessonStatusMessageMs = 5000;
const QString kLessonsSection = QStringLiteral("lessons");

/// "NVIDIA H100 80GB HBM3" → "H100": the card has room for the chip, not the board.
QString shortDeviceName(const QString& device) {
    QString name = device;
    if (name.startsWith(QLatin1String("NVIDIA ")))
        name = name.mid(7);
    const QString chip = name.section(QLatin1Char(' '), 0, 0);
    return chip.isEmpty() ? device : chip;
}

/// "H100: 0.0653 ms, 6.2×" (with GB/s or GFLOP/s when recorded); empty when not measured.
QString recordedFigure(const Lesson& lesson) {
    if (!lesson.recorded)
        return {};
    const LessonRecord& record = *lesson.recorded;
    QStringList parts{
        MainWindow::tr("%1 ms").arg(QString::number(record.solution.medianMs, 'g', 3))};
    if (record.solution.gflops)
        parts << MainWindow::tr("%1 GFLOP/s").arg(QString::number(*record.solution.gflops, 'f', 0));
    else if (record.solution.bandwidthGBs)
        parts << MainWindow::tr("%1 GB/s").arg(
            QString::number(*record.solution.bandwidthGBs, 'f', 0));
    if (record.speedup)
        parts << MainWindow::tr("%1×").arg(QString::number(*record.speedup, 'f', 1));
    return MainWindow::tr("%1: %2").arg(shortDeviceName(record.device),
                                        parts.join(QStringLiteral(", ")));
}

QString kindLabel(LessonKind kind) {
    return kind == LessonKind::Speed ? MainWindow::tr("Speed") : MainWindow::tr("Correctness");
}

QString doneLabel(const LessonProgress& progress, const Lesson& lesson) {
    const std::optional<LessonCompletion> done =
        progress.completion(LessonProgress::lessonId(lesson));
    if (!done)
        return {};
    return MainWindow::tr("✓ done %1")
        .arg(QLocale().toString(done->when.toLocalTime().date(), QLocale::ShortFormat));
}

} // namespace

QVector<WelcomeCard> MainWindow::lessonCards() {
    QVector<WelcomeCard> cards;
    const QString dir = lessonsDirectory();
    if (dir.isEmpty()) {
        WelcomeCard card;
        card.title = tr("No lessons found");
        card.problem =
            tr("Looked in %1")
                .arg(QDir::toNativeSeparators(lessonsSearchPaths().join(QStringLiteral(", "))));
        return {card};
    }
    const int levelFilter = m_lessonLevelFilter ? m_lessonLevelFilter->currentData().toInt() : -1;
    QStringList problems;
    // Sorted by order, so each topic's lessons come together, topics in course order.
    for (const Lesson& lesson : listLessons(dir, &problems)) {
        if (levelFilter >= 0 && int(lesson.level) != levelFilter)
            continue;
        QStringList subtitle{kindLabel(lesson.kind)};
        if (const QString done = doneLabel(*m_lessonProgress, lesson); !done.isEmpty())
            subtitle << done;
        if (const QString figure = recordedFigure(lesson); !figure.isEmpty())
            subtitle << figure;
        WelcomeCard card;
        card.title = tr("%1. %2").arg(lesson.order).arg(lesson.title);
        card.subtitle = subtitle.join(QStringLiteral(" · "));
        card.topic = lesson.topic;
        card.level = lessonLevelName(lesson.level);
        card.path = lesson.directory;
        // What the lesson is about, not where it lies: the starter project's summary.
        card.toolTip =
            lesson.project.description.isEmpty() ? lesson.title : lesson.project.description;
        MainWindow* window = this;
        card.activate = [window, path = lesson.directory] { window->openLesson(path); };
        card.menu.append({tr("Start Over…"),
                          [window, path = lesson.directory] { window->startOverLesson(path); }});
        cards.append(card);
    }
    if (cards.isEmpty() && problems.isEmpty()) {
        WelcomeCard card;
        card.title = tr("No lessons at this level");
        card.problem = tr("Choose another level above, or all of them.");
        cards.append(card);
    }
    for (const QString& problem : problems) {
        WelcomeCard card;
        card.title = tr("A lesson that does not load");
        card.topic = tr("Lessons that do not load");
        card.problem = problem;
        card.path = dir;
        cards.append(card);
    }
    return cards;
}

void MainWindow::createLessonSection() {
    m_lessonProgress = new LessonProgress(this);
    m_welcome->addSection(kLessonsSection, tr("Lessons"), [this] { return lessonCards(); });

    auto* filter = new QComboBox;
    filter->setObjectName(QStringLiteral("lessonLevelFilter"));
    filter->setAccessibleName(tr("Lesson level"));
    filter->addItem(tr("All levels"), -1);
    for (LessonLevel level :
         {LessonLevel::Beginner, LessonLevel::Intermediate, LessonLevel::Advanced})
        filter->addItem(lessonLevelName(level), int(level));
    m_lessonLevelFilter = filter;
    m_welcome->setSectionTool(kLessonsSection, filter);
    connect(filter, &QComboBox::currentIndexChanged, this,
            [this] { m_welcome->refreshSection(kLessonsSection); });

    connect(m_lessonProgress, &LessonProgress::changed, this, [this] {
        m_welcome->refreshSection(kLessonsSection);
        fillLessonsMenu();
    });
    // A lesson's title is the window's, which the lesson section of the project gives.
    connect(m_document, &ProjectDocument::projectReplaced, this, &MainWindow::updateTitle);
}

void MainWindow::addLessonActions(QMenu* help) {
    m_lessonsMenu = new QMenu(tr("&Lessons"), help);
    m_lessonsMenu->setObjectName(QStringLiteral("lessonsMenu"));
    m_lessonsMenu->setToolTipsVisible(true);

    m_showLessonsAction = new QAction(tr("&Show All Lessons"), this);
    m_showLessonsAction->setObjectName(QStringLiteral("showLessonsAction"));
    m_showLessonsAction->setStatusTip(tr("The lessons on the welcome page, by topic and level"));
    connect(m_showLessonsAction, &QAction::triggered, this, &MainWindow::showLessons);

    m_startOverAction = new QAction(tr("S&tart This Lesson Over…"), this);
    m_startOverAction->setObjectName(QStringLiteral("startOverLessonAction"));
    m_startOverAction->setStatusTip(tr("Replace your copy of the open lesson with a fresh one"));
    connect(m_startOverAction, &QAction::triggered, this, [this] {
        if (const QString lesson = openLessonDirectory(); !lesson.isEmpty())
            startOverLesson(lesson);
    });

    m_resetProgressAction = new QAction(tr("&Reset Progress…"), this);
    m_resetProgressAction->setObjectName(QStringLiteral("resetLessonProgressAction"));
    m_resetProgressAction->setStatusTip(tr("Forget which lessons you have completed"));
    connect(m_resetProgressAction, &QAction::triggered, this, [this] {
        if (confirm(tr("Reset Lesson Progress"),
                    tr("Forget which lessons you have completed? Your copies of the lessons "
                       "and your code in them are kept.")))
            m_lessonProgress->resetAll();
    });

    // Read again before it opens: the open project decides whether Start Over applies.
    connect(m_lessonsMenu, &QMenu::aboutToShow, this, &MainWindow::fillLessonsMenu);
    connect(m_document, &ProjectDocument::pathChanged, this,
            [this] { m_startOverAction->setEnabled(!openLessonDirectory().isEmpty()); });
    fillLessonsMenu();
    // After Help ▸ Welcome, before the separator that follows it.
    help->insertMenu(help->actions().value(1), m_lessonsMenu);
}

void MainWindow::fillLessonsMenu() {
    m_lessonsMenu->clear(); // deletes the lessons' actions; the window's own are kept
    const QString dir = lessonsDirectory();
    const QVector<Lesson> lessons = dir.isEmpty() ? QVector<Lesson>() : listLessons(dir);
    QString topic;
    for (const Lesson& lesson : lessons) {
        if (lesson.topic != topic) {
            topic = lesson.topic;
            m_lessonsMenu->addSection(topic);
        }
        QString label = tr("%1. %2").arg(lesson.order).arg(lesson.title);
        QAction* action =
            m_lessonsMenu->addAction(label.replace(QLatin1Char('&'), QStringLiteral("&&")));
        const bool done = m_lessonProgress->isDone(LessonProgress::lessonId(lesson));
        action->setCheckable(true);
        action->setChecked(done);
        action->setData(lesson.directory);
        action->setToolTip(
            tr("%1, %2").arg(lessonLevelName(lesson.level), kindLabel(lesson.kind).toLower()));
        connect(action, &QAction::triggered, this, [this, action, done, path = lesson.directory] {
            action->setChecked(done); // the mark is progress, not something a click changes
            openLesson(path);
        });
    }
    if (lessons.isEmpty())
        m_lessonsMenu
            ->addAction(
                tr("No lessons found (looked in %1)")
                    .arg(QDir::toNativeSeparators(lessonsSearchPaths().join(QStringLiteral(", ")))))
            ->setEnabled(false);
    m_lessonsMenu->addSeparator();
    m_lessonsMenu->addAction(m_showLessonsAction);
    m_startOverAction->setEnabled(!openLessonDirectory().isEmpty());
    m_lessonsMenu->addAction(m_startOverAction);
    m_lessonsMenu->addAction(m_resetProgressAction);
}

bool MainWindow::confirm(const QString& title, const QString& question) {
    if (!m_promptsEnabled)
        return true;
    return QMessageBox::question(this, title, question, QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
}

QString MainWindow::openLessonDirectory() const {
    const QFileInfo file(m_document->path());
    if (m_document->path().isEmpty() || file.fileName() != QLatin1String(Lesson::kProjectFile) ||
        !isLessonCopy(file.absolutePath()))
        return {};
    const QString shipped = lessonsDirectory() + QLatin1Char('/') + file.dir().dirName();
    return QFileInfo(shipped).isDir() ? QFileInfo(shipped).canonicalFilePath() : QString();
}

bool MainWindow::openLesson(const QString& lessonDirectory) {
    if (!maybeSave())
        return false;
    QString error;
    bool created = false;
    const std::optional<QString> copy = lessonCopy(lessonDirectory, &error, &created);
    if (!copy) {
        showError(tr("Cannot Open Lesson"),
                  tr("The lesson could not be copied to %1, where your copy of it is kept:\n%2")
                      .arg(QDir::toNativeSeparators(lessonWorkspaceDirectory()), error));
        return false;
    }
    const QString path = *copy + QLatin1Char('/') + QLatin1String(Lesson::kProjectFile);
    if (!m_document->open(path, &error)) {
        showError(tr("Cannot Open Lesson"),
                  tr("Your copy of the lesson, %1, could not be opened:\n%2\n\"Start Over…\" on "
                     "the lesson's card gives you a fresh copy.")
                      .arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    statusBar()->showMessage(
        (created ? tr("Lesson \"%1\": your copy is in %2; Help ▸ Lessons ▸ Start This Lesson "
                      "Over restores it")
                 : tr("Lesson \"%1\": your copy, with your edits, from %2"))
            .arg(m_document->project().name, QDir::toNativeSeparators(*copy)),
        kLessonStatusMessageMs);
    return true;
}

bool MainWindow::startOverLesson(const QString& lessonDirectory) {
    const QString id = LessonProgress::lessonId(lessonDirectory);
    const QString shipped = isLessonCopy(lessonDirectory)
                                ? lessonsDirectory() + QLatin1Char('/') + id
                                : lessonDirectory;
    const QString copyPath = lessonWorkspaceDirectory() + QLatin1Char('/') + id;
    const bool isOpen =
        QFileInfo(m_document->path()).absolutePath() == QFileInfo(copyPath).absoluteFilePath();
    if (!confirm(tr("Start the Lesson Over"),
                 tr("Replace your copy of the lesson %1 with a fresh one? Your code in it%2 is "
                    "lost and the lesson is no longer marked done.")
                     .arg(id, isOpen && m_document->isDirty() ? tr(", saved or not,") : QString())))
        return false;
    QString error;
    if (!restoreLessonCopy(shipped, &error)) {
        showError(tr("Cannot Start the Lesson Over"), error);
        return false;
    }
    m_lessonProgress->reset(id);
    if (isOpen) {
        m_document->removeRecovery(); // the unsaved edits went with the copy
        if (!m_document->open(copyPath + QLatin1Char('/') + QLatin1String(Lesson::kProjectFile),
                              &error)) {
            showError(tr("Cannot Open Lesson"), error);
            return false;
        }
    }
    statusBar()->showMessage(tr("%1 starts over from a fresh copy").arg(id),
                             kLessonStatusMessageMs);
    return true;
}

void MainWindow::showLessons() {
    showWelcome();
    QWidget* section = m_welcome->section(kLessonsSection);
    if (!section || section->isHidden())
        return;
    m_welcome->ensureWidgetVisible(section);
    const QVector<WelcomeCardButton*> cards = m_welcome->cards(kLessonsSection);
    if (!cards.isEmpty())
        cards.first()->setFocus(Qt::OtherFocusReason);
}

/// Lessons first for someone who has not opened a project yet: that is who they are for.
void MainWindow::orderWelcomeSections() {
    if (m_recent->allFiles().isEmpty())
        m_welcome->setSectionOrder({kLessonsSection, QStringLiteral("templates"),
                                    QStringLiteral("recent"), QStringLiteral("examples")});
    else
        m_welcome->setSectionOrder({QStringLiteral("templates"), QStringLiteral("recent"),
                                    kLessonsSection, QStringLiteral("examples")});
}

} // namespace kernelpad
