// The welcome page: shown when no project is open; its template, example and recent-project
// cards open what they name; a missing recent file is marked and can be removed; Help ▸
// Welcome shows it over a project and Escape goes back; it is keyboard navigable and fits
// 1280x800 in the light and the dark theme.

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/project/Examples.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/WelcomePage.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_welcome {

using namespace kernelpad;
} // namespace tst_welcome
Q_DECLARE_METATYPE(kernelpad::Preferences::ThemeChoice)
namespace tst_welcome {

using namespace kernelpad::test;

namespace {

/// A window as `kernelpad` with no arguments starts it: no project, the welcome page.
std::unique_ptr<MainWindow> startWindow(Engine* engine) {
    auto window = std::make_unique<MainWindow>(engine);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    window->resize(1280, 800);
    window->show();
    // Keyboard tests need the window to hold the focus, as it does when it starts.
    QApplication::setActiveWindow(window.get());
    if (!QTest::qWaitForWindowActive(window.get()) || !window->closeProject())
        return nullptr;
    return window;
}

WelcomePage* page(const std::unique_ptr<MainWindow>& window) {
    return part<WelcomePage>(window, "welcomePage");
}

WelcomeCardButton* cardFor(const std::unique_ptr<MainWindow>& window, const QString& section,
                           const QString& path) {
    for (WelcomeCardButton* card : page(window)->cards(section))
        if (QFileInfo(card->card().path) == QFileInfo(path))
            return card;
    return nullptr;
}

QStringList titles(const QVector<WelcomeCardButton*>& cards) {
    QStringList list;
    for (const WelcomeCardButton* card : cards)
        list.append(card->card().title);
    return list;
}

bool anyDockVisible(const std::unique_ptr<MainWindow>& window) {
    for (const QDockWidget* dock : window->findChildren<QDockWidget*>())
        if (dock->isVisible())
            return true;
    return false;
}

QString templatePath(const QString& file) {
    return QStringLiteral(KERNELPAD_SOURCE_DIR "/resources/templates/") + file;
}

} // namespace

class TestWelcome : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        // The source tree's folders, whatever the test runs from.
        qputenv("KERNELPAD_TEMPLATES", KERNELPAD_SOURCE_DIR "/resources/templates");
        qputenv("KERNELPAD_EXAMPLES", KERNELPAD_EXAMPLES_DIR);
    }
    void init() {
        RecentFiles().clear();
        QDir(ProjectDocument::recoveryDirectory()).removeRecursively();
    }

    void startsOnTheWelcomePage() {
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        QVERIFY(window->welcomeShown());
        QVERIFY(page(window)->isVisible());
        QVERIFY(!part<CodeEditor>(window, "editor")->isVisible());
        QVERIFY(!anyDockVisible(window));
        // No project behind it: nothing to go back to, nothing to close.
        QVERIFY(!part<QPushButton>(window, "welcomeReturn")->isVisible());
        QVERIFY(!part<QAction>(window, "closeProjectAction")->isEnabled());

        QCOMPARE(
            titles(page(window)->cards(QStringLiteral("templates"))),
            (QStringList{QStringLiteral("Empty kernel"), QStringLiteral("1D map"),
                         QStringLiteral("2D map over an image"), QStringLiteral("Reduction")}));
        // Every example, each with the name and description of its .kpad file.
        const QVector<ExampleInfo> examples = listExamples(QStringLiteral(KERNELPAD_EXAMPLES_DIR));
        QVERIFY(!examples.isEmpty());
        QCOMPARE(page(window)->cards(QStringLiteral("examples")).size(), examples.size());
        for (const ExampleInfo& info : examples) {
            WelcomeCardButton* card = cardFor(window, QStringLiteral("examples"), info.path);
            QVERIFY2(card, qPrintable(info.path));
            QCOMPARE(card->card().title, info.name);
            QCOMPARE(card->card().subtitle, info.description);
            QCOMPARE(card->card().topic, info.topic);
        }
        // Grouped by topic: a heading per topic.
        QStringList headings;
        for (const QLabel* label :
             page(window)->section(QStringLiteral("examples"))->findChildren<QLabel*>())
            headings.append(label->text());
        QVERIFY2(headings.contains(QStringLiteral("Basics")), qPrintable(headings.join(',')));
        QVERIFY(headings.contains(QStringLiteral("Reductions and synchronisation")));
        // No recent projects yet: no empty section, and the lessons lead (tst_welcomelessons).
        QVERIFY(!page(window)->section(QStringLiteral("recent"))->isVisibleTo(page(window)));
        QVERIFY(page(window)->section(QStringLiteral("lessons"))->isVisibleTo(page(window)));
        QCOMPARE(page(window)->sectionOrder().value(0), QStringLiteral("lessons"));
    }

    void templateCardOpensAnUntitledCopy_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("empty kernel") << "empty_kernel.kpad";
        QTest::newRow("1D map") << "map_1d.kpad";
        QTest::newRow("2D map") << "map_2d.kpad";
        QTest::newRow("reduction") << "reduction.kpad";
    }
    void templateCardOpensAnUntitledCopy() {
        QFETCH(QString, file);
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        const QString path = templatePath(file);
        const QDateTime before = QFileInfo(path).lastModified();
        WelcomeCardButton* card = cardFor(window, QStringLiteral("templates"), path);
        QVERIFY(card);
        QTest::mouseClick(card, Qt::LeftButton);

        QVERIFY(!window->welcomeShown());
        QVERIFY(part<CodeEditor>(window, "editor")->isVisible());
        QVERIFY(anyDockVisible(window));
        QVERIFY(window->document()->isUntitled());
        QVERIFY(!window->document()->isDirty());
        const std::optional<Project> shipped = Project::load(path, nullptr);
        QVERIFY(shipped);
        QCOMPARE(part<CodeEditor>(window, "editor")->text(), shipped->source);
        QCOMPARE(window->document()->project().kernel, shipped->kernel);
        QVERIFY(part<QAction>(window, "closeProjectAction")->isEnabled());
        QCOMPARE(QFileInfo(path).lastModified(), before); // nothing written
    }

    void recentCardOpensTheProject() {
        const QString path = m_dir.filePath(QStringLiteral("mine.kpad"));
        std::optional<Project> project = Project::load(templatePath("map_1d.kpad"), nullptr);
        QVERIFY(project);
        project->name = QStringLiteral("Mine");
        QString error;
        QVERIFY2(project->save(path, &error), qPrintable(error));
        RecentFiles().add(path);

        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        WelcomeCardButton* card = cardFor(window, QStringLiteral("recent"), path);
        QVERIFY(card);
        QCOMPARE(card->card().title, QStringLiteral("mine.kpad"));
        QVERIFY(!card->card().missing);
        card->setFocus();
        QTest::keyClick(card, Qt::Key_Return);
        QVERIFY(!window->welcomeShown());
        QCOMPARE(QFileInfo(window->document()->path()), QFileInfo(path));
        QCOMPARE(window->document()->project().name, QStringLiteral("Mine"));
    }

    void missingRecentFileIsMarkedAndRemovable() {
        const QString gone = m_dir.filePath(QStringLiteral("gone.kpad"));
        const QString there = m_dir.filePath(QStringLiteral("there.kpad"));
        QVERIFY(Project::load(templatePath("empty_kernel.kpad"), nullptr)->save(there, nullptr));
        RecentFiles().add(gone);
        RecentFiles().add(there);

        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        QCOMPARE(page(window)->cards(QStringLiteral("recent")).size(), 2);
        WelcomeCardButton* card = cardFor(window, QStringLiteral("recent"), gone);
        QVERIFY(card);
        QVERIFY(card->card().missing);
        QVERIFY(card->accessibleDescription().startsWith(QStringLiteral("Not found")));
        QVERIFY(!cardFor(window, QStringLiteral("recent"), there)->card().missing);
        // Activating it opens nothing.
        QTest::mouseClick(card, Qt::LeftButton);
        QVERIFY(window->welcomeShown());

        auto* remove =
            card->parentWidget()->findChild<QPushButton*>(QStringLiteral("welcomeRemove"));
        QVERIFY(remove);
        QTest::mouseClick(remove, Qt::LeftButton);
        QVERIFY(!RecentFiles().allFiles().contains(QFileInfo(gone).absoluteFilePath()));
        QCOMPARE(titles(page(window)->cards(QStringLiteral("recent"))),
                 QStringList{QStringLiteral("there.kpad")});
    }

    void helpWelcomeShowsThePageAndEscapeReturns() {
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        QVERIFY(window->openTemplate(templatePath("map_2d.kpad")));
        auto* editor = part<CodeEditor>(window, "editor");
        editor->setText(editor->text() + QStringLiteral("// mine\n"));
        QVERIFY(window->document()->isDirty());

        part<QAction>(window, "welcomeAction")->trigger();
        QVERIFY(window->welcomeShown());
        QVERIFY(!anyDockVisible(window));
        auto* back = part<QPushButton>(window, "welcomeReturn");
        QVERIFY(back->isVisible());
        QVERIFY2(back->text().contains(window->document()->displayName()),
                 qPrintable(back->text()));

        QVERIFY(QApplication::focusWidget());
        QVERIFY(page(window)->isAncestorOf(QApplication::focusWidget()));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QVERIFY(!window->welcomeShown());
        QVERIFY(anyDockVisible(window));
        QVERIFY(editor->text().endsWith(QStringLiteral("// mine\n"))); // the work is still there
        QVERIFY(window->document()->isDirty());

        // Close Project asks about the unsaved work; cancelled, the project stays.
        window->setUnsavedChoice(MainWindow::UnsavedChoice::Cancel);
        part<QAction>(window, "closeProjectAction")->trigger();
        QVERIFY(!window->welcomeShown());
        window->setUnsavedChoice(MainWindow::UnsavedChoice::Discard);
        part<QAction>(window, "closeProjectAction")->trigger();
        QVERIFY(window->welcomeShown());
        QVERIFY(!back->isVisible());
        QVERIFY(QApplication::focusWidget());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QVERIFY(window->welcomeShown()); // nothing to go back to
    }

    void keyboardMovesBetweenCardsAndOpens() {
        // With a recent project the templates lead the page (a newcomer's starts on the lessons).
        RecentFiles().add(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"));
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        const QVector<WelcomeCardButton*> cards = page(window)->cards(QStringLiteral("templates"));
        QVERIFY(cards.size() >= 2);
        QTRY_COMPARE(QApplication::focusWidget(), cards.at(0));
        QTest::keyClick(cards.at(0), Qt::Key_Right);
        QCOMPARE(QApplication::focusWidget(), cards.at(1));
        QTest::keyClick(cards.at(1), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), cards.at(2));
        QTest::keyClick(cards.at(2), Qt::Key_Left);
        QCOMPARE(QApplication::focusWidget(), cards.at(1));
        QTest::keyClick(cards.at(1), Qt::Key_Space);
        QVERIFY(!window->welcomeShown());
        QCOMPARE(window->document()->project().kernel, QStringLiteral("map"));
    }

    void fitsAt1280x800InBothThemes_data() {
        QTest::addColumn<Preferences::ThemeChoice>("theme");
        QTest::newRow("light") << Preferences::ThemeChoice::Light;
        QTest::newRow("dark") << Preferences::ThemeChoice::Dark;
    }
    void fitsAt1280x800InBothThemes() {
        QFETCH(Preferences::ThemeChoice, theme);
        Preferences::applyTheme(theme);
        Engine engine;
        auto window = startWindow(&engine);
        QVERIFY(window);
        // Nothing cut: every card at least its minimum width and its full height (once the
        // page has laid its sections out), and no horizontal scrolling.
        const auto cardsFit = [&window] {
            for (const QString& section :
                 {QStringLiteral("templates"), QStringLiteral("examples")}) {
                for (const WelcomeCardButton* card : page(window)->cards(section)) {
                    if (card->width() < card->minimumSizeHint().width() ||
                        card->height() < card->sizeHint().height())
                        return false;
                }
            }
            return true;
        };
        QTRY_VERIFY(cardsFit());
        QCOMPARE(page(window)->horizontalScrollBar()->maximum(), 0);
        // Four templates side by side at this width.
        const QVector<WelcomeCardButton*> templates =
            page(window)->cards(QStringLiteral("templates"));
        QCOMPARE(templates.size(), 4);
        QCOMPARE(templates.at(3)->y(), templates.at(0)->y());
        // The card is drawn on the palette's Base: dark paper in the dark theme, light in the
        // light one, with the text in contrast.
        WelcomeCardButton* card = page(window)->cards(QStringLiteral("templates")).value(1);
        QVERIFY(card);
        const QImage image = card->grab().toImage();
        const QColor paper = image.pixelColor(image.width() / 2, image.height() - 4);
        const bool dark = theme == Preferences::ThemeChoice::Dark;
        QCOMPARE(paper.lightness() < 128, dark);
        QCOMPARE(paper, card->palette().color(QPalette::Base));
        QVERIFY(qAbs(card->palette().color(QPalette::Text).lightness() - paper.lightness()) > 100);
        Preferences::applyTheme(Preferences::ThemeChoice::Light);
    }

private:
    QTemporaryDir m_dir;
};

KERNELPAD_TEST_MAIN(TestWelcome)
} // namespace tst_welcome
#include "tst_welcome.moc"
