// The window's layout at the sizes people use: every control of the default
// project is on screen without scrolling sideways, and extra width goes where content
// needs it.

#include "../support/WindowParts.h"
#include "core/project/Project.h"
#include "ui/ProjectDocument.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/CompileOptionsPanel.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/ProfilePanel.h"
#include "ui/windows/MainWindow.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <algorithm>

namespace tst_windowlayout {

using namespace kernelpad;

namespace {

constexpr int kSettleMs = 2000;

/// The part of `widget` that is not clipped by any ancestor, in window coordinates.
QRect visibleRect(const QWidget* widget) {
    const QWidget* window = widget->window();
    QRect visible(widget->mapTo(window, QPoint(0, 0)), widget->size());
    for (const QWidget* w = widget->parentWidget(); w && w != window; w = w->parentWidget())
        visible &= QRect(w->mapTo(window, QPoint(0, 0)), w->size());
    return visible & window->rect();
}

/// Empty when `widget` is shown in full width and at least as wide as it needs, else why not.
QString cutOff(const QWidget* widget) {
    if (!widget->isVisible())
        return QStringLiteral("%1 is hidden").arg(widget->objectName());
    const QRect visible = visibleRect(widget);
    if (visible.width() < widget->width())
        return QStringLiteral("%1 shows %2 of %3 px")
            .arg(widget->objectName())
            .arg(visible.width())
            .arg(widget->width());
    if (widget->width() < widget->minimumSizeHint().width())
        return QStringLiteral("%1 is %2 px wide, needs %3")
            .arg(widget->objectName())
            .arg(widget->width())
            .arg(widget->minimumSizeHint().width());
    return {};
}

/// Empty when `widget` is as wide as it needs and no ancestor cuts it left or right (a form
/// that is taller than its dock scrolls vertically: that hides nothing for good), else why.
QString cutSideways(const QWidget* widget) {
    const QWidget* window = widget->window();
    const int left = widget->mapTo(window, QPoint(0, 0)).x();
    const int right = left + widget->width();
    for (const QWidget* w = widget->parentWidget(); w; w = w->parentWidget()) {
        const int wLeft = w == window ? 0 : w->mapTo(window, QPoint(0, 0)).x();
        if (left < wLeft || right > wLeft + w->width())
            return QStringLiteral("%1 spans x %2..%3 but %4 shows only %5..%6")
                .arg(widget->objectName())
                .arg(left)
                .arg(right)
                .arg(w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className())
                                               : w->objectName())
                .arg(wLeft)
                .arg(wLeft + w->width());
        if (w == window)
            break;
    }
    if (widget->width() < widget->minimumSizeHint().width())
        return QStringLiteral("%1 is %2 px wide, needs %3")
            .arg(widget->objectName())
            .arg(widget->width())
            .arg(widget->minimumSizeHint().width());
    return {};
}

/// The window as main.cpp opens it (the SAXPY example), shown at its default size first and
/// then resized, as a user or the window manager does.
std::unique_ptr<MainWindow> windowAt(const QSize& size) {
    auto window = std::make_unique<MainWindow>(nullptr);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    QString error;
    const std::optional<Project> saxpy =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad"), &error);
    if (!saxpy) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    window->document()->replace(*saxpy);
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()))
        return nullptr;
    window->resize(size);
    // Docks settle over a few layout passes.
    // A window whose minimum is wider than asked cannot be resized to it: that is a failure.
    if (!QTest::qWaitFor([&] { return window->size() == size; }, kSettleMs)) {
        qWarning() << "the window stays" << window->size() << "for" << size;
        return nullptr;
    }
    QTest::qWait(100);
    return window;
}

} // namespace

class TestWindowLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void everyControlVisible_data();
    void everyControlVisible();
    void argumentColumnsVisible_data();
    void argumentColumnsVisible();
    void noSidewaysScrolling_data();
    void noSidewaysScrolling();
    void noControlCutSideways_data();
    void noControlCutSideways();
    void profileValuesReadable();
};

void TestWindowLayout::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestWindowLayout::everyControlVisible_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("objectName");
    const QStringList names = {
        // launch panel: y and z were cut off, and the Cover button
        QStringLiteral("gridX"), QStringLiteral("gridY"), QStringLiteral("gridZ"),
        QStringLiteral("blockX"), QStringLiteral("blockY"), QStringLiteral("blockZ"),
        QStringLiteral("coverCount"), QStringLiteral("coverButton"),
        // compile options: the flag check boxes and the architecture drop-down
        QStringLiteral("arch"), QStringLiteral("fastMath"), QStringLiteral("lineInfo"),
        QStringLiteral("deviceDebug"), QStringLiteral("kernelSelector"),
        // the rest of the compile options and of the launch, all on screen at once at
        // 1280x800 (the include dirs and extra flags were below the fold)
        QStringLiteral("cppStandard"), QStringLiteral("fmad"), QStringLiteral("maxRegisters"),
        QStringLiteral("defines"), QStringLiteral("includeDirs"), QStringLiteral("extraFlags"),
        QStringLiteral("sharedBytes"), QStringLiteral("totalThreads")};
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)})
        for (const QString& name : names)
            QTest::newRow(qPrintable(
                QStringLiteral("%1 at %2x%3").arg(name).arg(size.width()).arg(size.height())))
                << size << name;
}

void TestWindowLayout::everyControlVisible() {
    QFETCH(QSize, size);
    QFETCH(QString, objectName);
    std::unique_ptr<MainWindow> window = windowAt(size);
    QVERIFY(window);
    auto* widget = window->findChild<QWidget*>(objectName);
    QVERIFY2(widget, qPrintable(objectName));
    const QString why = cutOff(widget);
    QVERIFY2(why.isEmpty(), qPrintable(why));
}

void TestWindowLayout::argumentColumnsVisible_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
}

void TestWindowLayout::argumentColumnsVisible() {
    QFETCH(QSize, size);
    std::unique_ptr<MainWindow> window = windowAt(size);
    QVERIFY(window);
    auto* table = test::part<ArgumentTableView>(window, "arguments")
                      ->findChild<QTableView*>(QStringLiteral("argumentTable"));
    QVERIFY(table);
    QHeaderView* header = table->horizontalHeader();
    const int viewportWidth = table->viewport()->width();
    QVERIFY(!table->horizontalScrollBar()->isVisible() ||
            table->horizontalScrollBar()->maximum() == 0);
    for (int column = 0; column < header->count(); ++column) {
        const QString title = table->model()->headerData(column, Qt::Horizontal).toString();
        const int left = header->sectionViewportPosition(column);
        const int right = left + header->sectionSize(column);
        QVERIFY2(left >= 0 && right <= viewportWidth,
                 qPrintable(QStringLiteral("column %1 spans %2..%3 of %4 px")
                                .arg(title)
                                .arg(left)
                                .arg(right)
                                .arg(viewportWidth)));
        // A column narrower than its title or its content cuts them off.
        int needed = header->sectionSizeHint(column);
        QStyleOptionViewItem option;
        option.initFrom(table);
        for (int row = 0; row < table->model()->rowCount(); ++row)
            needed = std::max(needed, table->itemDelegate()
                                          ->sizeHint(option, table->model()->index(row, column))
                                          .width());
        QVERIFY2(header->sectionSize(column) >= needed,
                 qPrintable(QStringLiteral("column %1 is %2 px, needs %3")
                                .arg(title)
                                .arg(header->sectionSize(column))
                                .arg(needed)));
    }
    QCOMPARE(cutOff(table), QString());
}

void TestWindowLayout::noSidewaysScrolling_data() {
    argumentColumnsVisible_data();
}

void TestWindowLayout::noSidewaysScrolling() {
    QFETCH(QSize, size);
    std::unique_ptr<MainWindow> window = windowAt(size);
    QVERIFY(window);
    for (QScrollArea* area : window->findChildren<QScrollArea*>()) {
        if (!area->isVisible())
            continue;
        QScrollBar* bar = area->horizontalScrollBar();
        QVERIFY2(!bar->isVisible() || bar->maximum() == 0,
                 qPrintable(QStringLiteral("%1 scrolls sideways by %2 px")
                                .arg(area->parentWidget()->objectName())
                                .arg(bar->maximum())));
    }
}

void TestWindowLayout::noControlCutSideways_data() {
    argumentColumnsVisible_data();
}

// Every control of the docks, the ones below the fold included (the defines, include dirs,
// extra flags, the timing settings): none is cut left or right nor squeezed below its width.
void TestWindowLayout::noControlCutSideways() {
    QFETCH(QSize, size);
    std::unique_ptr<MainWindow> window = windowAt(size);
    QVERIFY(window);
    int checked = 0;
    for (const char* dockName : {"kernelDock", "argumentsDock", "launchDock"}) {
        auto* dock = window->findChild<QDockWidget*>(QLatin1String(dockName));
        QVERIFY2(dock && dock->isVisible(), dockName);
        for (QWidget* control : dock->findChildren<QWidget*>()) {
            const bool isControl = qobject_cast<QAbstractButton*>(control) ||
                                   qobject_cast<QAbstractSpinBox*>(control) ||
                                   qobject_cast<QComboBox*>(control) ||
                                   qobject_cast<QLineEdit*>(control);
            // Parts of other widgets (a spin box's line edit, the dock's title buttons)
            // are checked through their owners.
            if (!isControl || !control->isVisibleTo(dock) || control->objectName().isEmpty() ||
                control->objectName().startsWith(QLatin1String("qt_")))
                continue;
            const QString why = cutSideways(control);
            QVERIFY2(why.isEmpty(), qPrintable(QStringLiteral("%1: %2").arg(dockName, why)));
            ++checked;
        }
    }
    // Compile options (11), launch (6 + cover + 2) and timing controls at least.
    QVERIFY2(checked >= 25, qPrintable(QString::number(checked)));
}

// The Profile tab at 1600x1000: every speed-of-light value is as wide as its text and on
// screen (they were cut inside narrow bars), the memory table's numbers too.
void TestWindowLayout::profileValuesReadable() {
    const std::unique_ptr<MainWindow> window = windowAt(QSize(1600, 1000));
    QVERIFY(window);
    auto* tabs = window->findChild<QTabWidget*>(QStringLiteral("resultTabs"));
    QVERIFY(tabs);
    tabs->setCurrentIndex(MainWindow::ProfileTab);
    auto* panel = qobject_cast<ProfilePanel*>(tabs->widget(MainWindow::ProfileTab));
    QVERIFY(panel);
    ProfileReport report;
    report.kernel = QStringLiteral("read_strided");
    report.device = QStringLiteral("NVIDIA H100 80GB HBM3");
    report.set = QStringLiteral("basic");
    report.speedOfLight.computeThroughputPct = 12.5;
    report.speedOfLight.memoryThroughputPct = 81.04;
    report.speedOfLight.dramThroughputPct = 100.0;
    report.speedOfLight.achievedOccupancyPct = 83.6;
    report.speedOfLight.theoreticalOccupancyPct = 100;
    report.speedOfLight.dramBytes = 201.3e6;
    report.speedOfLight.l2Bytes = 210e6;
    report.speedOfLight.l2HitRatePct = 33.3;
    report.stalls = {{QStringLiteral("long_scoreboard"), QString(), 600, 590}};
    panel->showReport(report); // L1 and L2 throughput are "not collected by the basic set"
    QTest::qWait(100);
    const QList<QLabel*> values = panel->valueLabels();
    QCOMPARE(values.size(), 7);
    for (const QLabel* value : values) {
        QVERIFY2(!value->text().isEmpty(), qPrintable(value->objectName()));
        QVERIFY2(value->sizeHint().width() <= value->width(),
                 qPrintable(QStringLiteral("%1 '%2' is %3 px wide, needs %4")
                                .arg(value->objectName(), value->text())
                                .arg(value->width())
                                .arg(value->sizeHint().width())));
        const QString cut = cutSideways(value);
        QVERIFY2(cut.isEmpty(), qPrintable(cut));
    }
    auto* memory = panel->findChild<QTableWidget*>(QStringLiteral("profileMemory"));
    QVERIFY(memory);
    for (int c = 0; c < memory->columnCount(); ++c) {
        for (int r = 0; r < memory->rowCount(); ++r) {
            const QString text = memory->item(r, c)->text();
            const int needs = memory->fontMetrics().horizontalAdvance(text);
            QVERIFY2(needs <= memory->columnWidth(c),
                     qPrintable(QStringLiteral("'%1' needs %2 px, column %3 is %4")
                                    .arg(text)
                                    .arg(needs)
                                    .arg(c)
                                    .arg(memory->columnWidth(c))));
        }
    }
    const QString tableCut = cutSideways(memory);
    QVERIFY2(tableCut.isEmpty(), qPrintable(tableCut));
}

KERNELPAD_TEST_MAIN(TestWindowLayout)
} // namespace tst_windowlayout
#include "tst_windowlayout.moc"
