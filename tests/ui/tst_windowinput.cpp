// The mouse wheel and the keys a newcomer tries first: the wheel over an unfocused spin box or
// combo box scrolls the dock instead of editing it; Ctrl+, opens Preferences from the editor
// and the kernel box without typing a comma; F5 runs from the editor as Ctrl+R does.

#include "../support/TestMain.h"
#include "../support/WindowParts.h"
#include "core/project/Project.h"
#include "ui/ProjectDocument.h"
#include "ui/dialogs/PreferencesDialog.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>
#include <QtTest>
#include <qtestspontaneevent.h>

#include "TestPaths.h"

namespace tst_windowinput {

using namespace kernelpad;
using test::part;

namespace {

// One notch of a mouse wheel (QWheelEvent: eighths of a degree, 15 degrees a notch).
constexpr int kWheelNotch = 120;

std::unique_ptr<MainWindow> shownWindow() {
    auto window = std::make_unique<MainWindow>(nullptr);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    QString error;
    const std::optional<Project> saxpy =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"), &error);
    if (!saxpy)
        return nullptr;
    window->document()->replace(*saxpy);
    window->resize(1280, 800);
    window->show();
    window->activateWindow();
    if (!QTest::qWaitForWindowActive(window.get()))
        return nullptr;
    return window;
}

/// A wheel turn over `widget`'s centre, delivered as the window system delivers one: to the
/// child under the pointer, spontaneous, so that Qt's focus-by-wheel and propagation apply.
void turnWheel(QWidget* widget, int notches) {
    QWidget* target = widget;
    const QPoint centre = widget->rect().center();
    if (QWidget* child = widget->childAt(centre))
        target = child;
    const QPointF local = target->mapFrom(widget, centre);
    QWheelEvent wheel(local, target->mapToGlobal(local), QPoint(), QPoint(0, notches * kWheelNotch),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QSpontaneKeyEvent::setSpontaneous(&wheel);
    QApplication::sendEvent(target, &wheel);
}

} // namespace

class TestWindowInput : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void wheelOverUnfocusedSpinBoxScrollsTheDock();
    void wheelOverFocusedSpinBoxStillEdits();
    void wheelOverUnfocusedComboKeepsItsChoice();
    void ctrlCommaOpensPreferences_data();
    void ctrlCommaOpensPreferences();
    void f5RunsFromTheEditor_data();
    void f5RunsFromTheEditor();
    void runKeysSayWhyWhenRunIsOff_data();
    void runKeysSayWhyWhenRunIsOff();
};

void TestWindowInput::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestWindowInput::wheelOverUnfocusedSpinBoxScrollsTheDock() {
    auto window = shownWindow();
    QVERIFY(window);
    auto* warmup = part<LaunchPanel>(window, "launchPanel")->findChild<QSpinBox*>("warmup");
    QVERIFY(warmup);
    QVERIFY(!window->document()->isDirty());
    // Short enough that the Launch dock's form scrolls, and "Warm-up launches" in view.
    auto* dock = part<QDockWidget>(window, "launchDock");
    auto* area = qobject_cast<QScrollArea*>(dock->widget());
    QVERIFY(area);
    area->ensureWidgetVisible(warmup);
    QTest::qWait(20);
    const int before = warmup->value();
    QVERIFY(!warmup->hasFocus());
    QCOMPARE(warmup->focusPolicy(), Qt::StrongFocus);
    turnWheel(warmup, -3);
    turnWheel(warmup, 2);
    QCOMPARE(warmup->value(), before);
    QVERIFY(!warmup->hasFocus()); // the wheel no longer focuses it
    QVERIFY2(!window->document()->isDirty(), "the wheel marked the project modified");
}

void TestWindowInput::wheelOverFocusedSpinBoxStillEdits() {
    auto window = shownWindow();
    QVERIFY(window);
    auto* warmup = part<LaunchPanel>(window, "launchPanel")->findChild<QSpinBox*>("warmup");
    QVERIFY(warmup);
    warmup->setFocus(Qt::TabFocusReason);
    QVERIFY(QTest::qWaitFor([&] { return warmup->hasFocus(); }));
    const int before = warmup->value();
    // Straight to the focused box: the rule lets it through.
    QWheelEvent wheel(warmup->rect().center(), warmup->mapToGlobal(warmup->rect().center()),
                      QPoint(), QPoint(0, kWheelNotch), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(warmup, &wheel);
    QCOMPARE(warmup->value(), before + 1);
}

void TestWindowInput::wheelOverUnfocusedComboKeepsItsChoice() {
    auto window = shownWindow();
    QVERIFY(window);
    auto* mode = part<LaunchPanel>(window, "launchPanel")->findChild<QComboBox*>("timingMode");
    QVERIFY(mode);
    QCOMPARE(mode->focusPolicy(), Qt::StrongFocus);
    const int before = mode->currentIndex();
    turnWheel(mode, before == 0 ? -1 : 1);
    QCOMPARE(mode->currentIndex(), before);
    QVERIFY(!window->document()->isDirty());
}

void TestWindowInput::ctrlCommaOpensPreferences_data() {
    QTest::addColumn<QString>("focus");
    QTest::newRow("editor") << QStringLiteral("editor");
    QTest::newRow("kernel box") << QStringLiteral("kernelSelector");
}

void TestWindowInput::ctrlCommaOpensPreferences() {
    QFETCH(QString, focus);
    auto window = shownWindow();
    QVERIFY(window);
    auto* editor = part<CodeEditor>(window, "editor");
    auto* kernel = part<QComboBox>(window, "kernelSelector");
    QVERIFY(editor && kernel && kernel->lineEdit());
    QWidget* target =
        focus == QLatin1String("editor") ? static_cast<QWidget*>(editor) : kernel->lineEdit();
    const QString editorText = editor->text();
    const QString kernelText = kernel->currentText();
    target->setFocus(Qt::OtherFocusReason);
    QVERIFY(QTest::qWaitFor([&] { return QApplication::focusWidget() != nullptr; }));
    // The dialog is modal: note it and close it from inside its event loop.
    bool opened = false;
    QTimer::singleShot(0, window.get(), [&] {
        if (auto* dialog = qobject_cast<PreferencesDialog*>(QApplication::activeModalWidget())) {
            opened = true;
            dialog->reject();
        }
    });
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Comma, Qt::ControlModifier);
    QVERIFY2(opened, "Ctrl+, did not open Preferences");
    QCOMPARE(editor->text(), editorText);
    QCOMPARE(kernel->currentText(), kernelText);
    QVERIFY(!kernel->currentText().contains(QLatin1Char(',')));
}

void TestWindowInput::f5RunsFromTheEditor_data() {
    QTest::addColumn<int>("key");
    QTest::newRow("F5") << int(Qt::Key_F5);
    QTest::newRow("Ctrl+R") << QKeyCombination(Qt::CTRL, Qt::Key_R).toCombined();
}

void TestWindowInput::f5RunsFromTheEditor() {
    QFETCH(int, key);
    auto window = shownWindow();
    QVERIFY(window);
    auto* run = part<QAction>(window, "runAction");
    QVERIFY(run);
    // Without a GPU the action is off; the key must still reach it once it is on.
    run->setEnabled(true);
    QSignalSpy triggered(run, &QAction::triggered);
    auto* editor = part<CodeEditor>(window, "editor");
    editor->setFocus(Qt::OtherFocusReason);
    QVERIFY(QTest::qWaitFor([&] { return QApplication::focusWidget() != nullptr; }));
    const QString before = editor->text();
    const QKeyCombination combination = QKeyCombination::fromCombined(key);
    QTest::keyClick(QApplication::focusWidget(), combination.key(),
                    combination.keyboardModifiers());
    QCOMPARE(triggered.count(), 1);
    QCOMPARE(editor->text(), before);
}

void TestWindowInput::runKeysSayWhyWhenRunIsOff_data() {
    f5RunsFromTheEditor_data();
}

void TestWindowInput::runKeysSayWhyWhenRunIsOff() {
    QFETCH(int, key);
    auto window = shownWindow();
    QVERIFY(window);
    auto* run = part<QAction>(window, "runAction");
    QVERIFY(run);
    QVERIFY2(!run->isEnabled(), "without an engine there is no device to run on");
    window->statusBar()->clearMessage();
    part<CodeEditor>(window, "editor")->setFocus(Qt::OtherFocusReason);
    QVERIFY(QTest::qWaitFor([&] { return QApplication::focusWidget() != nullptr; }));
    const QKeyCombination combination = QKeyCombination::fromCombined(key);
    QTest::keyClick(QApplication::focusWidget(), combination.key(),
                    combination.keyboardModifiers());
    QVERIFY2(!window->statusBar()->currentMessage().isEmpty(), "the key did nothing");
    QCOMPARE(window->statusBar()->currentMessage(), run->toolTip());
}

KERNELPAD_TEST_MAIN(TestWindowInput)
} // namespace tst_windowinput
#include "tst_windowinput.moc"
