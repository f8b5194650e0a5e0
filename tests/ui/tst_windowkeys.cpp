// The window's keys and menus as a newcomer meets them: zoom shortcuts zoom and never type into
// the kernel, F8 walks the diagnostics, a single click on one jumps, the View menu shows "&" as
// written, Help lists About, the shortcuts, the user guide and the README.

#include "../support/TestMain.h"
#include "../support/WindowParts.h"
#include "ui/ProjectDocument.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/windows/HelpDocuments.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QtTest>

namespace tst_windowkeys {

using namespace kernelpad;

namespace {

std::unique_ptr<MainWindow> makeShownWindow() {
    // No Engine: these tests need no compiler, only the window's own behaviour.
    auto window = std::make_unique<MainWindow>(nullptr);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    window->resize(1280, 800);
    window->show();
    window->activateWindow();
    if (!QTest::qWaitForWindowActive(window.get()))
        return nullptr;
    return window;
}

QMenu* topMenu(MainWindow& window, const QString& title) {
    for (QAction* action : window.menuBar()->actions())
        if (action->menu() && action->text().remove(QLatin1Char('&')) == title)
            return action->menu();
    return nullptr;
}

Diagnostic errorAt(int line) {
    Diagnostic d;
    d.file = QStringLiteral("kernel.cu");
    d.line = line;
    d.column = 5;
    d.severity = Diagnostic::Severity::Error;
    d.message = QStringLiteral("something is wrong");
    return d;
}

} // namespace

class TestWindowKeys : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void zoomKeysZoomAndNeverType_data();
    void zoomKeysZoomAndNeverType();
    void viewMenuListsZoomWithItsKeys();
    void viewMenuShowsAmpersand();
    void singleClickOnDiagnosticJumps();
    void singleClickInTheWindowMovesTheCursor();
    void f8WalksDiagnostics();
    void helpMenuHasAboutAndShortcuts();
    void resetLayoutShowsClosedDocks();
};

void TestWindowKeys::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestWindowKeys::zoomKeysZoomAndNeverType_data() {
    QTest::addColumn<int>("key");
    QTest::addColumn<int>("modifiers");
    QTest::addColumn<int>("direction"); // +1 in, -1 out, 0 back to the default

    const int ctrl = int(Qt::ControlModifier);
    const int ctrlShift = int(Qt::ControlModifier | Qt::ShiftModifier);
    QTest::newRow("Ctrl+= typed '='") << int(Qt::Key_Equal) << ctrl << 1;
    QTest::newRow("Ctrl++ zooms in") << int(Qt::Key_Plus) << ctrl << 1;
    QTest::newRow("Ctrl+Shift+= typed '+'") << int(Qt::Key_Plus) << ctrlShift << 1;
    QTest::newRow("Ctrl+- zooms out") << int(Qt::Key_Minus) << ctrl << -1;
    QTest::newRow("Ctrl+0 typed '0'") << int(Qt::Key_0) << ctrl << 0;
}

void TestWindowKeys::zoomKeysZoomAndNeverType() {
    QFETCH(int, key);
    QFETCH(int, modifiers);
    QFETCH(int, direction);
    std::unique_ptr<MainWindow> window = makeShownWindow();
    QVERIFY(window);
    CodeEditor* editor = test::part<CodeEditor>(window, "editor");
    editor->setText(QStringLiteral("__global__ void k() {}\n"));
    editor->setFocus();
    QTRY_VERIFY(editor->hasFocus());
    if (direction == 0)
        editor->zoomTo(3); // so that the reset has something to undo
    const QString before = editor->text();
    const int zoomBefore = editor->zoomLevel();

    QTest::keyClick(editor, Qt::Key(key), Qt::KeyboardModifiers(modifiers));

    QCOMPARE(editor->text(), before);
    if (direction > 0)
        QVERIFY2(editor->zoomLevel() > zoomBefore,
                 qPrintable(QString::number(editor->zoomLevel())));
    else if (direction < 0)
        QVERIFY(editor->zoomLevel() < zoomBefore);
    else
        QCOMPARE(editor->zoomLevel(), 0);
}

void TestWindowKeys::viewMenuListsZoomWithItsKeys() {
    MainWindow window(nullptr);
    QMenu* view = topMenu(window, QStringLiteral("View"));
    QVERIFY(view);
    QMenu* zoom = nullptr;
    for (QAction* action : view->actions())
        if (action->menu() && action->text().remove(QLatin1Char('&')) == QStringLiteral("Zoom"))
            zoom = action->menu();
    QVERIFY(zoom);
    QStringList keys;
    for (QAction* action : zoom->actions())
        keys << action->shortcut().toString(QKeySequence::PortableText);
    QCOMPARE(keys, (QStringList{QStringLiteral("Ctrl++"), QStringLiteral("Ctrl+-"),
                                QStringLiteral("Ctrl+0")}));
}

void TestWindowKeys::viewMenuShowsAmpersand() {
    MainWindow window(nullptr);
    QMenu* view = topMenu(window, QStringLiteral("View"));
    QVERIFY(view);
    bool found = false;
    for (QAction* action : view->actions()) {
        if (action->text().contains(QStringLiteral("Compile Options"))) {
            QCOMPARE(action->text(), QStringLiteral("Kernel && Compile Options"));
            found = true;
        }
    }
    QVERIFY(found);
}

void TestWindowKeys::singleClickOnDiagnosticJumps() {
    DiagnosticsList list;
    list.resize(600, 200);
    list.show();
    QVERIFY(QTest::qWaitForWindowExposed(&list));
    list.setDiagnostics({errorAt(3), errorAt(7)}, QStringLiteral("kernel.cu"));
    QSignalSpy jumps(&list, &DiagnosticsList::jumpRequested);
    QTreeWidgetItem* second = list.topLevelItem(1);
    QVERIFY(second);
    const QRect rect = list.visualItemRect(second);
    QTest::mouseClick(list.viewport(), Qt::LeftButton, {}, rect.center());
    QVERIFY(jumps.count() >= 1);
    QCOMPARE(jumps.last().at(0).toInt(), 7);
}

void TestWindowKeys::singleClickInTheWindowMovesTheCursor() {
    std::unique_ptr<MainWindow> window = makeShownWindow();
    QVERIFY(window);
    CodeEditor* editor = test::part<CodeEditor>(window, "editor");
    QStringList lines;
    for (int i = 0; i < 10; ++i)
        lines << QStringLiteral("int x%1;").arg(i);
    editor->setText(lines.join(QLatin1Char('\n')));
    auto* list = test::part<DiagnosticsList>(window, "diagnostics");
    list->setDiagnostics({errorAt(3), errorAt(7)}, QStringLiteral("kernel.cu"));
    test::part<QTabWidget>(window, "resultTabs")->setCurrentIndex(MainWindow::DiagnosticsTab);
    QTRY_VERIFY(list->isVisible());
    QTreeWidgetItem* second = list->topLevelItem(1);
    QVERIFY(second);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(second).center());
    int line = -1;
    int column = -1;
    editor->getCursorPosition(&line, &column);
    QCOMPARE(line + 1, 7);
    QCOMPARE(column + 1, 5);
}

void TestWindowKeys::f8WalksDiagnostics() {
    std::unique_ptr<MainWindow> window = makeShownWindow();
    QVERIFY(window);
    CodeEditor* editor = test::part<CodeEditor>(window, "editor");
    QStringList lines;
    for (int i = 0; i < 10; ++i)
        lines << QStringLiteral("int x%1;").arg(i);
    editor->setText(lines.join(QLatin1Char('\n')));
    test::part<DiagnosticsList>(window, "diagnostics")
        ->setDiagnostics({errorAt(3), errorAt(7)}, QStringLiteral("kernel.cu"));
    editor->setFocus();
    QTRY_VERIFY(editor->hasFocus());
    int line = -1;
    int column = -1;

    QTest::keyClick(editor, Qt::Key_F8);
    editor->getCursorPosition(&line, &column);
    QCOMPARE(line + 1, 3);
    QCOMPARE(test::part<QTabWidget>(window, "resultTabs")->currentIndex(),
             int(MainWindow::DiagnosticsTab));
    QTest::keyClick(editor, Qt::Key_F8);
    editor->getCursorPosition(&line, &column);
    QCOMPARE(line + 1, 7);
    QTest::keyClick(editor, Qt::Key_F8, Qt::ShiftModifier);
    editor->getCursorPosition(&line, &column);
    QCOMPARE(line + 1, 3);
    QCOMPARE(editor->text(), lines.join(QLatin1Char('\n')));
}

void TestWindowKeys::helpMenuHasAboutAndShortcuts() {
    QCoreApplication::setApplicationVersion(QStringLiteral("9.8.7"));
    MainWindow window(nullptr);
    QMenu* help = topMenu(window, QStringLiteral("Help"));
    QVERIFY(help);
    QStringList titles;
    for (QAction* action : help->actions())
        titles << action->text().remove(QLatin1Char('&'));
    QVERIFY(titles.contains(QStringLiteral("About KernelPad")));
    QVERIFY(titles.contains(QStringLiteral("Keyboard Shortcuts")));
    QVERIFY(titles.contains(QStringLiteral("KernelPad README")));
    QVERIFY(titles.contains(QStringLiteral("KernelPad User Guide")));
    // The README and the guide they open are there (the source tree's here), and About links
    // to the guide.
    const QString readme = MainWindow::readmePath();
    QVERIFY(QFileInfo(readme).isFile());
    QCOMPARE(QFileInfo(readme).fileName(), QStringLiteral("README.md"));
    const QString guide = userGuidePath();
    QVERIFY2(QFileInfo(guide).isFile(), qPrintable(guide));
    QCOMPARE(QFileInfo(guide).fileName(), QStringLiteral("user-guide.md"));

    const QString about = window.aboutText();
    QVERIFY(about.contains(QStringLiteral("9.8.7")));
    QVERIFY(about.contains(QString::fromLatin1(qVersion())));
    QVERIFY(about.contains(QStringLiteral("NVRTC")));
    QVERIFY(about.contains(QStringLiteral("driver")));
    QVERIFY2(about.contains(QStringLiteral("<a href=\"%1\">User Guide</a>")
                                .arg(QUrl::fromLocalFile(guide).toString(QUrl::FullyEncoded))),
             qPrintable(about));

    bool zoomListed = false;
    bool f8Listed = false;
    for (const auto& [action, keys] : window.shortcutList()) {
        zoomListed |= action == QStringLiteral("Zoom In");
        f8Listed |= keys == QStringLiteral("F8");
    }
    QVERIFY(zoomListed);
    QVERIFY(f8Listed);
}

void TestWindowKeys::resetLayoutShowsClosedDocks() {
    std::unique_ptr<MainWindow> window = makeShownWindow();
    QVERIFY(window);
    auto* launch = window->findChild<QDockWidget*>(QStringLiteral("launchDock"));
    QVERIFY(launch);
    auto* kernel = window->findChild<QDockWidget*>(QStringLiteral("kernelDock"));
    QVERIFY(kernel);
    QTRY_VERIFY(kernel->width() > window->width() / 3);
    const int defaultWidth = kernel->width();
    launch->close();
    QVERIFY(!launch->isVisible());
    kernel->setFloating(true);
    window->resetLayout();
    QTRY_VERIFY(launch->isVisible());
    QVERIFY(!kernel->isFloating());
    // Back to the default share of the width, as after the first start.
    QTRY_VERIFY2(
        qAbs(kernel->width() - defaultWidth) <= 2,
        qPrintable(QStringLiteral("%1 px, was %2").arg(kernel->width()).arg(defaultWidth)));
}

KERNELPAD_TEST_MAIN(TestWindowKeys)
} // namespace tst_windowkeys
#include "tst_windowkeys.moc"
