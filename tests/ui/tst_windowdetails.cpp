// Details of the window at 1280x800 that a newcomer trips over: a refusal of the launch
// (a block over __launch_bounds__) is in view in the Launch dock, the Launch dock starts at its
// top for each project, a diagnostic is shown whole (wrapped, never cut with "…"), and
// Help ▸ README is shown in KernelPad itself.

#include "../support/TestMain.h"
#include "../support/WindowParts.h"
#include "core/project/Project.h"
#include "ui/ProjectDocument.h"
#include "ui/dialogs/DocumentDialog.h"
#include "ui/widgets/DiagnosticsList.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QtTest>

#include "TestPaths.h"

namespace tst_windowdetails {

using namespace kernelpad;
using test::part;

namespace {

std::unique_ptr<MainWindow> windowWith(const QString& example) {
    auto window = std::make_unique<MainWindow>(nullptr);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    window->resize(1280, 760); // a 1280x800 screen less the panel and the title bar
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()))
        return nullptr;
    if (!window->openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/") + example))
        return nullptr;
    QTest::qWait(50);
    return window;
}

/// True when all of `widget` is inside every ancestor up to its window: on screen, unscrolled.
bool wholeInView(const QWidget* widget) {
    const QWidget* window = widget->window();
    const QRect rect(widget->mapTo(window, QPoint(0, 0)), widget->size());
    for (const QWidget* w = widget->parentWidget(); w && w != window; w = w->parentWidget())
        if (!QRect(w->mapTo(window, QPoint(0, 0)), w->size()).contains(rect))
            return false;
    return window->rect().contains(rect);
}

QScrollArea* launchArea(MainWindow& window) {
    auto* dock = part<QDockWidget>(&window, "launchDock");
    return dock ? qobject_cast<QScrollArea*>(dock->widget()) : nullptr;
}

Diagnostic longDiagnostic() {
    Diagnostic d;
    d.file = QStringLiteral("kernel.cu");
    d.line = 12;
    d.column = 3;
    d.severity = Diagnostic::Severity::Error;
    d.message = QStringLiteral(
        "no instance of overloaded function \"atomicAdd\" matches the argument list; argument "
        "types are: (const float *, float); the first argument must point to writable memory "
        "in global or shared space, and the end of this sentence is what used to be cut off\n"
        "  detected during instantiation of \"void histogram<T>(const T *, int)\" [with "
        "T=float]");
    return d;
}

} // namespace

class TestWindowDetails : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void launchRefusalInView();
    void launchDockStartsAtTheTopForEachProject();
    void diagnosticShownWhole();
    void readmeShownInTheApp();
};

void TestWindowDetails::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestWindowDetails::launchRefusalInView() {
    auto window = windowWith(QStringLiteral("saxpy.kpad"));
    QVERIFY(window);
    auto* panel = part<LaunchPanel>(window, "launchPanel");
    auto* area = launchArea(*window);
    QVERIFY(panel && area);
    // The user was reading the timing settings at the bottom of the dock.
    area->verticalScrollBar()->setValue(area->verticalScrollBar()->maximum());
    LaunchLimits limits = genericLaunchLimits();
    limits.kernelMaxntid = {128, 1, 1};
    limits.kernelName = QStringLiteral("saxpy");
    panel->setLimits(limits);
    LaunchConfig config = panel->config();
    config.block = {256, 1, 1};
    panel->setConfig(config);
    QVERIFY(!panel->problem().isEmpty());
    auto* label = panel->findChild<QLabel*>(QStringLiteral("problemLabel"));
    QVERIFY(label);
    QTRY_VERIFY2(
        label->isVisible() && wholeInView(label),
        qPrintable(QStringLiteral("the refusal \"%1\" is out of view").arg(label->text())));
}

void TestWindowDetails::launchDockStartsAtTheTopForEachProject() {
    auto window = windowWith(QStringLiteral("saxpy.kpad"));
    QVERIFY(window);
    auto* area = launchArea(*window);
    QVERIFY(area);
    QScrollBar* bar = area->verticalScrollBar();
    if (bar->maximum() == 0)
        QSKIP("the Launch dock is tall enough not to scroll in this layout");
    bar->setValue(bar->maximum());
    QVERIFY(bar->value() > 0);
    QVERIFY(window->openExample(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/vector_add.kpad")));
    QTRY_COMPARE(bar->value(), 0);
}

void TestWindowDetails::diagnosticShownWhole() {
    DiagnosticsList list;
    list.resize(520, 300);
    list.show();
    QVERIFY(QTest::qWaitForWindowExposed(&list));
    const Diagnostic d = longDiagnostic();
    list.setDiagnostics({d}, QStringLiteral("kernel.cu"));
    QTreeWidgetItem* item = list.topLevelItem(0);
    QVERIFY(item);
    constexpr int kMessageColumn = 2;
    // All of it, both lines, in the row itself.
    QCOMPARE(item->text(kMessageColumn), d.message);
    QCOMPARE(item->toolTip(kMessageColumn), d.message);
    // Wrapped to the column: the row is several lines tall, and as wide as the column.
    QTest::qWait(50);
    const QRect row = list.visualItemRect(item);
    const int lineHeight = list.fontMetrics().height();
    QVERIFY2(row.height() >= 3 * lineHeight,
             qPrintable(QStringLiteral("the row is %1 px tall for lines of %2 px")
                            .arg(row.height())
                            .arg(lineHeight)));
    QCOMPARE(list.textElideMode(), Qt::ElideNone);
    QVERIFY(list.wordWrap());
}

void TestWindowDetails::readmeShownInTheApp() {
    auto window = windowWith(QStringLiteral("saxpy.kpad"));
    QVERIFY(window);
    auto* readme = part<QAction>(window, "readmeAction");
    QVERIFY(readme);
    readme->trigger();
    auto* dialog = part<DocumentDialog>(window, "documentDialog");
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    const QString text = dialog->browser()->toPlainText();
    // Rendered Markdown: the README's text, without its "# " heading marks.
    QVERIFY2(text.contains(QStringLiteral("KernelPad")), qPrintable(text.left(200)));
    QVERIFY(!text.startsWith(QStringLiteral("# ")));
    QVERIFY(!dialog->browser()->document()->toMarkdown().isEmpty());
    QVERIFY(dialog->height() <= window->screen()->availableGeometry().height());
}

KERNELPAD_TEST_MAIN(TestWindowDetails)
} // namespace tst_windowdetails
#include "tst_windowdetails.moc"
