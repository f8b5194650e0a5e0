// The Occupancy tab: the three curves for a compiled example, the marker
// at the launch, the limiter in words; changing the block size moves the marker. Offscreen;
// without a device the limits come from the compiled architecture's tables.

#include "../support/WindowParts.h"
#include "core/compile/Program.h"
#include "core/engine/Engine.h"
#include "core/project/Project.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/OccupancyView.h"
#include "ui/windows/MainWindow.h"

#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <cmath>

namespace tst_occupancyview {

using namespace kernelpad;

namespace {

// NVRTC on a loaded machine can take several seconds for the first compile.
constexpr int kCompileTimeoutMs = 60000;

Project example(const QString& file) {
    QString error;
    const std::optional<Project> p =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/") + file, &error);
    if (!p)
        qFatal("cannot load %s: %s", qPrintable(file), qPrintable(error));
    return *p;
}

CompileResult compileFor(const Project& p, const QString& arch) {
    return Program(p.source, p.sourceName, p.options).compile(arch);
}

} // namespace

class TestOccupancyView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void curvesForACompiledExample_data();
    void curvesForACompiledExample();
    void errorsShowASentence();
    void windowMarkerFollowsTheBlockSize();
};

void TestOccupancyView::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestOccupancyView::curvesForACompiledExample_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("maxWarps");
    QTest::newRow("reduction on sm_90") << "reduction.kpad"
                                        << "sm_90" << 64;
    QTest::newRow("convolution on sm_86") << "convolution.kpad"
                                          << "sm_86" << 48;
    QTest::newRow("saxpy on sm_80") << "saxpy.kpad"
                                    << "sm_80" << 64;
}

void TestOccupancyView::curvesForACompiledExample() {
    QFETCH(QString, file);
    QFETCH(QString, arch);
    QFETCH(int, maxWarps);
    const Project p = example(file);
    const CompileResult compile = compileFor(p, arch);
    QVERIFY2(compile.ok, qPrintable(compile.log + compile.error));
    const int block = int(p.launch.threadsPerBlock());
    const OccupancyReport report =
        occupancyReport(compile, p.kernel, nullptr, nullptr, block, p.launch.sharedMemBytes);
    QVERIFY2(report.error.isEmpty(), qPrintable(report.error));
    QVERIFY(!report.fromDevice);
    QVERIFY(!report.fromDriver);

    OccupancyView view;
    view.resize(1200, 320);
    view.show();
    view.showReport(report, p.kernel, QString());
    QVERIFY(view.showsCharts());
    QVERIFY2(view.titleText().contains(QStringLiteral("from %1's limits, no device").arg(arch)),
             qPrintable(view.titleText()));
    QVERIFY(view.titleText().contains(
        QStringLiteral("%1 registers per thread").arg(report.curves.kernel.registersPerThread)));
    QVERIFY(report.curves.kernel.registersPerThread > 0);

    QCOMPARE(view.curvePoints(OccupancyAxis::BlockSize).size(), 32);
    QCOMPARE(view.curvePoints(OccupancyAxis::Registers).size(), 255);
    QVERIFY(view.curvePoints(OccupancyAxis::DynamicShared).size() > 100);
    // Every point is a share of the SM's warps.
    for (const OccupancyAxis axis :
         {OccupancyAxis::BlockSize, OccupancyAxis::Registers, OccupancyAxis::DynamicShared})
        for (const QPointF& point : view.curvePoints(axis)) {
            QVERIFY(point.y() >= 0 && point.y() <= 100);
            const double warps = point.y() / 100.0 * maxWarps;
            QVERIFY2(std::abs(warps - std::round(warps)) < 1e-9,
                     qPrintable(QString::number(warps)));
        }

    // The marker is the launch, on each chart, at the launch's occupancy.
    const double percent = report.curves.current.occupancy * 100.0;
    QVERIFY(percent > 0);
    QCOMPARE(view.markerPoint(OccupancyAxis::BlockSize), QPointF(block, percent));
    QCOMPARE(view.markerPoint(OccupancyAxis::Registers),
             QPointF(report.curves.kernel.registersPerThread, percent));
    QCOMPARE(view.markerPoint(OccupancyAxis::DynamicShared),
             QPointF(p.launch.sharedMemBytes / 1024.0, percent));
    // The block-size curve passes through the marker.
    QVERIFY(view.curvePoints(OccupancyAxis::BlockSize).contains(QPointF(block, percent)));

    // The limiter, in words, under the charts.
    QVERIFY2(view.limiterText().startsWith(QStringLiteral("Limited by ")),
             qPrintable(view.limiterText()));
    QVERIFY(view.limiterText().contains(
        occupancyLimiterName(report.curves.current.limiter).section(QLatin1Char(' '), 0, 0)));
    // A tooltip on a point: its value, its occupancy and what limits it there.
    const QString tip = view.pointToolTip(OccupancyAxis::BlockSize, block + 3);
    QVERIFY2(tip.startsWith(QStringLiteral("%1 threads: ").arg(block)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("limited by ")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("the current launch")), qPrintable(tip));
    const QString far = view.pointToolTip(OccupancyAxis::Registers, 200);
    QVERIFY2(far.startsWith(QStringLiteral("200 registers per thread: ")), qPrintable(far));
}

void TestOccupancyView::errorsShowASentence() {
    const Project p = example(QStringLiteral("saxpy.kpad"));
    const CompileResult compile = compileFor(p, QStringLiteral("sm_90"));
    QVERIFY(compile.ok);
    OccupancyView view;
    view.showReport(occupancyReport(compile, QStringLiteral("nosuch"), nullptr, nullptr, 256, 0),
                    QStringLiteral("nosuch"), QString());
    QVERIFY(!view.showsCharts());
    const QString text = view.findChild<QLabel*>(QStringLiteral("occupancyEmptyState"))->text();
    QVERIFY2(text.contains(QStringLiteral("no kernel named 'nosuch'")), qPrintable(text));
    // A PTX-only compile has no CUBIN to read the registers from.
    const CompileResult ptxOnly = compileFor(p, QStringLiteral("compute_90"));
    QVERIFY2(ptxOnly.ok, qPrintable(ptxOnly.log + ptxOnly.error));
    const OccupancyReport report = occupancyReport(ptxOnly, p.kernel, nullptr, nullptr, 256, 0);
    QVERIFY2(report.error.contains(QStringLiteral("PTX only")), qPrintable(report.error));
}

void TestOccupancyView::windowMarkerFollowsTheBlockSize() {
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    window.resize(1280, 800);
    window.show();
    QSignalSpy shown(window.workbench(), &Workbench::compileShown);
    Project p = example(QStringLiteral("saxpy.kpad"));
    p.launch.block = {256, 1, 1};
    window.document()->replace(p);
    QVERIFY(shown.wait(kCompileTimeoutMs) || shown.count() > 0);
    QVERIFY(window.workbench()->lastCompile() && window.workbench()->lastCompile()->ok);

    auto* tabs = test::part<QTabWidget>(&window, "resultTabs");
    QCOMPARE(tabs->tabText(MainWindow::OccupancyTab), QStringLiteral("Occupancy"));
    // The tab's view is made when the tab is first shown (MainWindowViews.cpp).
    tabs->setCurrentIndex(MainWindow::OccupancyTab);
    auto* view = tabs->widget(MainWindow::OccupancyTab)->findChild<OccupancyView*>();
    QVERIFY(view);
    QTRY_VERIFY_WITH_TIMEOUT(view->showsCharts(), kCompileTimeoutMs);
    QCOMPARE(view->markerPoint(OccupancyAxis::BlockSize).x(), 256.0);
    QVERIFY(!view->limiterText().isEmpty());
    if (!window.workbench()->currentDevice())
        QVERIFY2(view->titleText().contains(QStringLiteral("no device")),
                 qPrintable(view->titleText()));

    // Changing the block size in the launch panel moves the marker, and the marker stays on
    // the block-size curve.
    auto* blockX = test::part<LaunchPanel>(&window, "launchPanel")
                       ->findChild<QSpinBox*>(QStringLiteral("blockX"));
    QVERIFY(blockX);
    blockX->setValue(96);
    QTRY_COMPARE(view->markerPoint(OccupancyAxis::BlockSize).x(), 96.0);
    QVERIFY(view->curvePoints(OccupancyAxis::BlockSize)
                .contains(view->markerPoint(OccupancyAxis::BlockSize)));
    QCOMPARE(view->report().curves.blockThreads, 96);
    QVERIFY(view->limiterText().contains(QStringLiteral("of 96 threads")));
}

KERNELPAD_TEST_MAIN(TestOccupancyView)
} // namespace tst_occupancyview
#include "tst_occupancyview.moc"
