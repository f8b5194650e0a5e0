// The window on a 1280x720 and a 1280x800 laptop screen: with every shipped example and every
// lesson open, the window's and every dock's minimum size fit the screen, the status bar and
// the right docks are on it, and every dialog (Preferences, Device, Texture, the Find bar, the
// shortcuts) fits with its buttons visible. A saved geometry larger than the screen is
// dropped, and View ▸ Reset Layout gives a layout that fits.

#include "../support/TestMain.h"
#include "../support/WindowParts.h"
#include "core/launch/TextureArgument.h"
#include "core/project/Examples.h"
#include "core/project/Lesson.h"
#include "ui/ProjectDocument.h"
#include "ui/dialogs/DeviceDialog.h"
#include "ui/dialogs/PreferencesDialog.h"
#include "ui/dialogs/TextureDialog.h"
#include "ui/widgets/FindReplaceBar.h"
#include "ui/windows/MainWindow.h"

#include <QAbstractButton>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include "TestPaths.h"

#include <algorithm>

namespace tst_windowfits {

using namespace kernelpad;

namespace {

// What a desktop keeps of a laptop screen's height for its panel and the window's title bar.
constexpr int kDesktopChromePx = 40;
constexpr int kSettleMs = 2000;

/// The window's client area on a screen of `screen`.
QSize clientSize(const QSize& screen) {
    return {screen.width(), screen.height() - kDesktopChromePx};
}

bool fits(const QSize& size, const QSize& room) {
    return size.width() <= room.width() && size.height() <= room.height();
}

QString sizeText(const QSize& size) {
    return QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
}

/// The widgets inside `root` that ask for more than `room`, deepest first: who to blame.
QStringList widestChildren(const QWidget* root, const QSize& room) {
    QStringList names;
    for (const QWidget* w : root->findChildren<QWidget*>()) {
        if (!w->isVisibleTo(root) || w->isWindow())
            continue;
        const QSize need = w->minimumSizeHint().expandedTo(w->minimumSize());
        if (fits(need, room))
            continue;
        bool childAlsoTooBig = false;
        for (const QWidget* c : w->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (c->isVisibleTo(root) &&
                !fits(c->minimumSizeHint().expandedTo(c->minimumSize()), room))
                childAlsoTooBig = true;
        if (!childAlsoTooBig)
            names << QStringLiteral("%1 (%2) needs %3")
                         .arg(w->objectName(), QString::fromLatin1(w->metaObject()->className()),
                              sizeText(need));
    }
    return names;
}

/// The part of `widget` inside its window, in window coordinates.
QRect inWindow(const QWidget* widget) {
    return QRect(widget->mapTo(widget->window(), QPoint(0, 0)), widget->size());
}

/// Empty when the window, at `client`, fits and shows its status bar and docks; else what is
/// wrong, naming `what` (the open project).
QStringList problems(MainWindow& window, const QSize& client, const QString& what) {
    QStringList found;
    const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
    if (!fits(minimum, client)) {
        found << QStringLiteral("%1: the window needs %2 on %3: %4")
                     .arg(what, sizeText(minimum), sizeText(client),
                          widestChildren(&window, {client.width() / 4, QWIDGETSIZE_MAX})
                              .join(QStringLiteral("; ")));
        return found;
    }
    window.resize(client);
    if (!QTest::qWaitFor([&] { return window.size() == client; }, kSettleMs))
        found << QStringLiteral("%1: the window stays %2").arg(what, sizeText(window.size()));
    QTest::qWait(50);
    const QRect area = window.rect();
    QStatusBar* status = window.statusBar();
    if (!status->isVisible() || !area.contains(inWindow(status)))
        found << QStringLiteral("%1: the status bar is cut off").arg(what);
    for (const QLabel* label : status->findChildren<QLabel*>())
        if (label->isVisible() && !area.contains(inWindow(label)))
            found << QStringLiteral("%1: the status bar's \"%2\" is cut off")
                         .arg(what, label->text());
    for (const QDockWidget* dock : window.findChildren<QDockWidget*>()) {
        // A dock tabbed behind another is "visible" but not shown: nothing of it is on screen.
        if (!dock->isVisible() || dock->isFloating() || dock->visibleRegion().isEmpty())
            continue;
        if (!fits(dock->minimumSizeHint(), client))
            found << QStringLiteral("%1: %2 needs %3")
                         .arg(what, dock->objectName(), sizeText(dock->minimumSizeHint()));
        if (!area.contains(inWindow(dock)))
            found << QStringLiteral("%1: %2 is cut off at %3,%4 %5")
                         .arg(what, dock->objectName())
                         .arg(inWindow(dock).x())
                         .arg(inWindow(dock).y())
                         .arg(sizeText(dock->size()));
    }
    return found;
}

std::unique_ptr<MainWindow> shownWindow() {
    auto window = std::make_unique<MainWindow>(nullptr);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()))
        return nullptr;
    return window;
}

/// Lays out `dialog` as its parent would show it, on a screen of `screen`, and returns what is
/// off that screen (its OK/Cancel/Close buttons must be on it).
QStringList dialogProblems(QWidget* dialog, const QSize& screen, const QString& what) {
    QStringList found;
    const QSize client = clientSize(screen);
    dialog->show();
    QTest::qWait(20);
    const QSize minimum = dialog->minimumSizeHint().expandedTo(dialog->minimumSize());
    if (!fits(minimum, client))
        found << QStringLiteral("%1 needs %2 on %3: %4")
                     .arg(what, sizeText(minimum), sizeText(client),
                          widestChildren(dialog, client).join(QStringLiteral("; ")));
    dialog->resize(dialog->size().boundedTo(client));
    QTest::qWait(20);
    for (const QDialogButtonBox* box : dialog->findChildren<QDialogButtonBox*>())
        for (const QAbstractButton* button : box->buttons())
            if (!dialog->rect().contains(inWindow(button)))
                found << QStringLiteral("%1: \"%2\" is off the screen").arg(what, button->text());
    dialog->hide();
    return found;
}

} // namespace

class TestWindowFits : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void everyExampleFits_data();
    void everyExampleFits();
    void everyLessonFits_data();
    void everyLessonFits();
    void findBarFits_data();
    void findBarFits();
    void dialogsFit_data();
    void dialogsFit();
    void opensWithinTheScreen();
    void oversizedSavedGeometryIsDropped();
    void resetLayoutFits();
};

void TestWindowFits::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

namespace {
void addScreens() {
    QTest::addColumn<QSize>("screen");
    QTest::newRow("1280x720") << QSize(1280, 720);
    QTest::newRow("1280x800") << QSize(1280, 800);
}
} // namespace

void TestWindowFits::everyExampleFits_data() {
    addScreens();
}

void TestWindowFits::everyExampleFits() {
    QFETCH(QSize, screen);
    const QVector<ExampleInfo> examples = listExamples(QStringLiteral(KERNELPAD_EXAMPLES_DIR));
    QVERIFY(examples.size() >= 10);
    auto window = shownWindow();
    QVERIFY(window);
    QStringList found;
    for (const ExampleInfo& example : examples) {
        if (!window->openExample(example.path)) {
            found << QStringLiteral("%1 does not open: %2").arg(example.path, window->lastError());
            continue;
        }
        found << problems(*window, clientSize(screen), QFileInfo(example.path).fileName());
    }
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestWindowFits::everyLessonFits_data() {
    addScreens();
}

void TestWindowFits::everyLessonFits() {
    QFETCH(QSize, screen);
    const QVector<Lesson> lessons = listLessons(QStringLiteral(KERNELPAD_LESSONS_DIR));
    QVERIFY(lessons.size() >= 10);
    auto window = shownWindow();
    QVERIFY(window);
    QStringList found;
    for (const Lesson& lesson : lessons) {
        if (!window->openLesson(lesson.directory)) {
            found << QStringLiteral("%1 does not open: %2")
                         .arg(lesson.directory, window->lastError());
            continue;
        }
        auto* pane = window->findChild<QDockWidget*>(QStringLiteral("lessonDock"));
        if (!pane || !pane->isVisible())
            found << QStringLiteral("%1: the lesson pane is not shown").arg(lesson.title);
        found << problems(*window, clientSize(screen), lesson.title);
    }
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestWindowFits::findBarFits_data() {
    addScreens();
}

void TestWindowFits::findBarFits() {
    QFETCH(QSize, screen);
    auto window = shownWindow();
    QVERIFY(window);
    auto* bar = window->findChild<FindReplaceBar*>();
    QVERIFY(bar);
    bar->showReplace();
    QVERIFY(bar->isVisible());
    const QStringList found = problems(*window, clientSize(screen), QStringLiteral("Find bar"));
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    // The bar itself is no wider than the editor it sits under.
    QVERIFY2(bar->width() <= bar->parentWidget()->width() &&
                 bar->minimumSizeHint().width() <= bar->parentWidget()->width(),
             qPrintable(QStringLiteral("the Find bar needs %1 px of %2")
                            .arg(bar->minimumSizeHint().width())
                            .arg(bar->parentWidget()->width())));
}

void TestWindowFits::dialogsFit_data() {
    addScreens();
}

void TestWindowFits::dialogsFit() {
    QFETCH(QSize, screen);
    auto window = shownWindow();
    QVERIFY(window);
    QStringList found;
    {
        PreferencesDialog preferences(window.get());
        found << dialogProblems(&preferences, screen, QStringLiteral("Preferences"));
        // Sized to the real (offscreen) screen as well: never taller than its free height.
        const QRect available = window->screen()->availableGeometry();
        if (preferences.height() > available.height())
            found << QStringLiteral("Preferences opens %1 px tall on a %2 px screen")
                         .arg(preferences.height())
                         .arg(available.height());
    }
    {
        DeviceDialog devices({}, -1, QStringLiteral("no CUDA driver (test)"), window.get());
        found << dialogProblems(&devices, screen, QStringLiteral("Device"));
    }
    for (const bool surface : {false, true}) {
        TextureDialog texture(makeTextureArgument(QStringLiteral("tex"), surface), window.get());
        found << dialogProblems(&texture, screen, QStringLiteral("Texture"));
    }
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

void TestWindowFits::opensWithinTheScreen() {
    QSettings().clear();
    MainWindow window(nullptr);
    const QRect available = window.screen()->availableGeometry();
    QCOMPARE(available.size(), QSize(1280, 720)); // runTest()'s screen
    // The window takes the screen's free area (less a title bar), not Qt's 995x533 default.
    QVERIFY2(fits(window.frameGeometry().size(), available.size()),
             qPrintable(sizeText(window.frameGeometry().size())));
    QCOMPARE(window.width(), available.width());
    QVERIFY(window.height() >= available.height() - kDesktopChromePx);
}

void TestWindowFits::oversizedSavedGeometryIsDropped() {
    QSettings().clear();
    {
        auto big = shownWindow();
        QVERIFY(big);
        big->resize(3000, 2000);
        QTest::qWait(50);
        QVERIFY(big->close()); // saves the layout
    }
    QVERIFY(QSettings().contains(QStringLiteral("window/geometry")));
    MainWindow window(nullptr);
    const QRect available = window.screen()->availableGeometry();
    QVERIFY2(
        fits(window.frameGeometry().size(), available.size()),
        qPrintable(QStringLiteral("restored %1 on a %2 screen")
                       .arg(sizeText(window.frameGeometry().size()), sizeText(available.size()))));
}

void TestWindowFits::resetLayoutFits() {
    QSettings().clear();
    auto window = shownWindow();
    QVERIFY(window);
    QVERIFY(
        window->openLesson(listLessons(QStringLiteral(KERNELPAD_LESSONS_DIR)).first().directory));
    for (QDockWidget* dock : window->findChildren<QDockWidget*>())
        dock->setFloating(true);
    window->resetLayout();
    QTest::qWait(50);
    for (QDockWidget* dock : window->findChildren<QDockWidget*>())
        QVERIFY2(!dock->isFloating(), qPrintable(dock->objectName()));
    const QStringList found = problems(*window, clientSize({1280, 720}), QStringLiteral("reset"));
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
}

/// Runs the tests on the offscreen platform given a 1280x720 screen as its primary (the
/// offscreen default, 800x600, is no laptop), so that the window sizes itself against it.
static int runTest(int argc, char** argv) {
    QTemporaryDir dir;
    if (!dir.isValid())
        return 1;
    const QString config = dir.filePath(QStringLiteral("laptop-screen.json"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly))
        return 1;
    file.write(R"({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1280, "height": 720,
                   "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
    file.close();
    qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + config.toUtf8());
    QApplication app(argc, argv);
    TestWindowFits test;
    return QTest::qExec(&test, argc, argv);
}

KERNELPAD_TEST_CUSTOM_MAIN(runTest)
} // namespace tst_windowfits
#include "tst_windowfits.moc"
