// The window's result views (ui/ResultView.h, ui/windows/ViewRegistry.h): a view registered
// from outside the window gets its tab or dock at once and is made only when that is first
// shown; from then on it hears each Workbench event and project edit exactly once, starting
// with the current state. Offscreen, without an Engine.

#include "ui/ProjectDocument.h"
#include "ui/ResultView.h"
#include "ui/Workbench.h"
#include "ui/windows/MainWindow.h"
#include "ui/windows/ViewRegistry.h"

#include <QDockWidget>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QtTest>

#include "../support/TestMain.h"

namespace tst_resultviews {

using namespace kernelpad;

namespace {

/// Counts what it is told.
class CountingView : public ResultView {
    Q_OBJECT
public:
    CountingView()
        : m_label(new QLabel(QStringLiteral("counting"))) {}
    [[nodiscard]] QWidget* widget() const override { return m_label; }
    void workbenchCleared(const Workbench&) override { ++cleared; }
    void projectEdited(const Workbench&, ProjectPart part) override { edits << part; }
    void shown(const Workbench&) override { ++timesShown; }

    int cleared = 0;
    int timesShown = 0;
    QVector<ProjectPart> edits;

private:
    QLabel* m_label;
};

Project projectNamed(const QString& name) {
    Project p;
    p.name = name;
    p.kernel = QStringLiteral("k");
    return p;
}

} // namespace

class TestResultViews : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void aTabViewIsMadeWhenShownAndHearsEachEventOnce();
    void aDockViewIsMadeWhenItsDockShows();
    void theOccupancyTabIsMadeWhenShown();
};

void TestResultViews::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestResultViews::aTabViewIsMadeWhenShownAndHearsEachEventOnce() {
    MainWindow window(nullptr);
    window.setPromptsEnabled(false);
    int made = 0;
    CountingView* view = nullptr;
    QWidget* page =
        window.registerView(QStringLiteral("counting"), QStringLiteral("Counting"),
                            ViewPlace::ResultTabs, [&](const ViewContext& context) {
                                ++made;
                                // The context names the window's workbench and result tabs.
                                if (context.workbench != window.workbench() || !context.resultTabs)
                                    return static_cast<CountingView*>(nullptr);
                                view = new CountingView;
                                return view;
                            });
    QVERIFY(page);
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("resultTabs"));
    QVERIFY(tabs);
    const int index = tabs->indexOf(page);
    QCOMPARE(index, tabs->count() - 1);
    QCOMPARE(tabs->tabText(index), QStringLiteral("Counting"));
    // An id is registered once.
    QVERIFY(!window.registerView(QStringLiteral("counting"), QStringLiteral("Again"),
                                 ViewPlace::ResultTabs,
                                 [](const ViewContext&) { return new CountingView; }));
    QCOMPARE(tabs->count(), index + 1);

    // Not made while its tab is behind another.
    window.document()->replace(projectNamed(QStringLiteral("first")));
    QCOMPARE(made, 0);
    QVERIFY(!window.views()->view(QStringLiteral("counting")));

    tabs->setCurrentWidget(page);
    QCOMPARE(made, 1);
    QVERIFY(view);
    QCOMPARE(window.views()->view(QStringLiteral("counting")), view);
    QCOMPARE(view->widget()->parentWidget(), page);
    // The current state at once (the project was cleared once), and that it is shown.
    QCOMPARE(view->cleared, 1);
    QCOMPARE(view->timesShown, 1);

    // Each event once.
    window.document()->replace(projectNamed(QStringLiteral("second")));
    QCOMPARE(view->cleared, 2);
    LaunchConfig launch = window.document()->project().launch;
    launch.block = {64, 1, 1};
    window.document()->setLaunch(launch);
    QCOMPARE(view->edits, QVector<ResultView::ProjectPart>{ResultView::ProjectPart::Launch});

    // Shown again: told so, not made again.
    tabs->setCurrentIndex(0);
    tabs->setCurrentWidget(page);
    QCOMPARE(made, 1);
    QCOMPARE(view->timesShown, 2);
    QCOMPARE(view->cleared, 2);
}

void TestResultViews::aDockViewIsMadeWhenItsDockShows() {
    MainWindow window(nullptr);
    window.setPromptsEnabled(false);
    int made = 0;
    CountingView* view = nullptr;
    auto* dock = qobject_cast<QDockWidget*>(
        window.registerView(QStringLiteral("countingDock"), QStringLiteral("Counting"),
                            ViewPlace::BottomDock, [&](const ViewContext&) {
                                ++made;
                                view = new CountingView;
                                return view;
                            }));
    QVERIFY(dock);
    QCOMPARE(dock->objectName(), QStringLiteral("countingDockDock"));
    QCOMPARE(window.dockWidgetArea(dock), Qt::BottomDockWidgetArea);
    QCOMPARE(made, 0);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_COMPARE(made, 1);
    QCOMPARE(dock->widget(), view->widget());
    QCOMPARE(view->cleared, 1);
    window.document()->replace(projectNamed(QStringLiteral("other")));
    QCOMPARE(view->cleared, 2);
}

void TestResultViews::theOccupancyTabIsMadeWhenShown() {
    MainWindow window(nullptr);
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("resultTabs"));
    QVERIFY(tabs);
    QVERIFY(window.views()->ids().contains(QStringLiteral("occupancy")));
    QVERIFY(!window.views()->view(QStringLiteral("occupancy")));
    QCOMPARE(tabs->tabText(MainWindow::OccupancyTab), QStringLiteral("Occupancy"));
    tabs->setCurrentIndex(MainWindow::OccupancyTab);
    QVERIFY(window.views()->view(QStringLiteral("occupancy")));
    // Nothing compiled (no Engine): the tab says what it will show.
    auto* empty = tabs->widget(MainWindow::OccupancyTab)
                      ->findChild<QLabel*>(QStringLiteral("occupancyEmptyState"));
    QVERIFY(empty);
    QVERIFY2(empty->text().contains(QStringLiteral("Nothing compiled yet")),
             qPrintable(empty->text()));
}

KERNELPAD_TEST_MAIN(TestResultViews)
} // namespace tst_resultviews
#include "tst_resultviews.moc"
