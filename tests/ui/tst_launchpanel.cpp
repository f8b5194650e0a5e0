// The launch panel: limits shown as text, the "cover N elements" helper, round trips.

#include "../support/TestMain.h"
#include "ui/widgets/LaunchPanel.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

namespace tst_launchpanel {

using namespace kernelpad;

class TestLaunchPanel : public QObject {
    Q_OBJECT
private slots:
    void blockLimitProblem_data();
    void blockLimitProblem();
    void coverSetsGrid_data();
    void coverSetsGrid();
    void configAndTimingRoundTrip();
    void coverTakesCountExpressions_data();
    void coverTakesCountExpressions();
    void tabGoesAlongTheRows();
};

void TestLaunchPanel::blockLimitProblem_data() {
    QTest::addColumn<int>("blockX");
    QTest::addColumn<int>("blockY");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("block-2048x1x1-exceeds-1024") << 2048 << 1 << QStringLiteral("1024");
    QTest::newRow("block-64x32-is-2048-threads") << 64 << 32 << QStringLiteral("1024");
    // 128 × 2: the default block.x is 256, so the row must change something to be an edit.
    QTest::newRow("block-128x2-is-fine") << 128 << 2 << QString();
}

void TestLaunchPanel::blockLimitProblem() {
    QFETCH(int, blockX);
    QFETCH(int, blockY);
    QFETCH(QString, mentions);
    LaunchPanel panel;
    panel.setLimits(genericLaunchLimits());
    panel.show();
    QSignalSpy changed(&panel, &LaunchPanel::changed);
    auto* x = panel.findChild<QSpinBox*>(QStringLiteral("blockX"));
    auto* y = panel.findChild<QSpinBox*>(QStringLiteral("blockY"));
    QVERIFY(x && y);
    x->setValue(blockX);
    y->setValue(blockY);
    QVERIFY(changed.count() >= 1);
    QCOMPARE(panel.config().block[0], blockX);
    auto* label = panel.findChild<QLabel*>(QStringLiteral("problemLabel"));
    QVERIFY(label);
    if (mentions.isEmpty()) {
        QVERIFY(panel.problem().isEmpty());
        QVERIFY(label->isHidden());
    } else {
        QVERIFY(panel.problem().contains(mentions));
        QCOMPARE(label->text(), panel.problem());
        QVERIFY(label->isVisible());
        QVERIFY(label->styleSheet().contains(QStringLiteral("color")));
    }
    auto* total = panel.findChild<QLabel*>(QStringLiteral("totalThreads"));
    QVERIFY(total->text().contains(QLocale().toString(qint64(blockX) * blockY)));
}

void TestLaunchPanel::coverSetsGrid_data() {
    QTest::addColumn<qint64>("elements");
    QTest::addColumn<int>("blockX");
    QTest::addColumn<int>("expectedGridX");
    QTest::newRow("exact-multiple") << qint64(1 << 20) << 256 << 4096;
    QTest::newRow("remainder-needs-one-more-block") << qint64(1000) << 256 << 4;
    QTest::newRow("fewer-elements-than-a-block") << qint64(10) << 128 << 1;
    QTest::newRow("hundred-million") << qint64(100000000) << 1024 << 97657;
}

void TestLaunchPanel::coverSetsGrid() {
    QFETCH(qint64, elements);
    QFETCH(int, blockX);
    QFETCH(int, expectedGridX);
    LaunchPanel panel;
    LaunchConfig config;
    config.block = {blockX, 1, 1};
    config.grid = {7, 2, 1};
    panel.setConfig(config);
    panel.setCoverCount(elements);
    auto* count = panel.findChild<QLineEdit*>(QStringLiteral("coverCount"));
    QCOMPARE(count->text(), QString::number(elements));
    auto* button = panel.findChild<QPushButton*>(QStringLiteral("coverButton"));
    QVERIFY(button && button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(panel.config().grid[0], expectedGridX);
    QCOMPARE(panel.config().grid[1], 2); // only grid.x is the helper's business
    QVERIFY(panel.config().totalThreads() >= elements);
}

void TestLaunchPanel::coverTakesCountExpressions_data() {
    QTest::addColumn<QString>("typed");
    QTest::addColumn<int>("expectedGridX"); // 0: refused, grid unchanged
    QTest::addColumn<QString>("reason");
    QTest::newRow("n/2 of n = 4,194,304") << "n/2" << 8192 << QString();
    QTest::newRow("n") << "n" << 16384 << QString();
    QTest::newRow("a plain number") << "1000" << 4 << QString();
    QTest::newRow("an unknown name is refused, not eaten") << "m/2" << 0 << "m";
}
void TestLaunchPanel::coverTakesCountExpressions() {
    QFETCH(QString, typed);
    QFETCH(int, expectedGridX);
    QFETCH(QString, reason);
    LaunchPanel panel;
    LaunchConfig config;
    config.block = {256, 1, 1};
    config.grid = {7, 1, 1};
    panel.setConfig(config);
    ArgumentSpec n;
    n.name = QStringLiteral("n");
    n.type = ValueType::of(ScalarType::UInt32);
    n.value = QStringLiteral("4194304");
    panel.setCoverArguments({n});
    auto* count = panel.findChild<QLineEdit*>(QStringLiteral("coverCount"));
    auto* button = panel.findChild<QPushButton*>(QStringLiteral("coverButton"));
    QTest::keyClicks(count, typed);
    QCOMPARE(count->text(), typed); // what was typed stays, as typed
    if (expectedGridX == 0) {
        QVERIFY(!button->isEnabled());
        QVERIFY2(button->toolTip().contains(reason), qPrintable(button->toolTip()));
        QTest::keyClick(count, Qt::Key_Return);
        QCOMPARE(panel.config().grid[0], 7);
        return;
    }
    QVERIFY(button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(panel.config().grid[0], expectedGridX);
}

void TestLaunchPanel::configAndTimingRoundTrip() {
    LaunchPanel panel;
    QSignalSpy changed(&panel, &LaunchPanel::changed);
    LaunchConfig config;
    config.grid = {128, 4, 2};
    config.block = {32, 8, 1};
    config.sharedMemBytes = 4096;
    panel.setConfig(config);
    QCOMPARE(panel.config(), config);
    TimingSpec timing;
    timing.warmupLaunches = 5;
    timing.repetitions = 200;
    timing.timeLimitMs = 30000;
    timing.bytesOverride = qint64(12) << 30;
    timing.flopsPerLaunch = 2e9;
    timing.mode = TimingSpec::Mode::Cold;
    timing.adaptive = false;
    timing.targetNoise = 0.02;
    timing.maxTimeMs = 2500;
    timing.blockingKernel = false;
    panel.setTiming(timing);
    QCOMPARE(panel.timing(), timing);
    QCOMPARE(changed.count(), 0); // programmatic changes are not user edits
    panel.findChild<QSpinBox*>(QStringLiteral("repetitions"))->setValue(50);
    QCOMPARE(panel.timing().repetitions, 50);
    QCOMPARE(changed.count(), 1);
    // A fixed count: the noise target and the budget do not apply and say so by being off.
    auto* noise = panel.findChild<QDoubleSpinBox*>(QStringLiteral("targetNoise"));
    QVERIFY(noise);
    QVERIFY(!noise->isEnabled());
    panel.findChild<QCheckBox*>(QStringLiteral("adaptive"))->setChecked(true);
    QVERIFY(panel.timing().adaptive);
    QVERIFY(noise->isEnabled());
    noise->setValue(1.5);
    QCOMPARE(panel.timing().targetNoise, 0.015);
    auto* mode = panel.findChild<QComboBox*>(QStringLiteral("timingMode"));
    QVERIFY(mode);
    mode->setCurrentIndex(mode->findData(int(TimingSpec::Mode::Hot)));
    QCOMPARE(panel.timing().mode, TimingSpec::Mode::Hot);
    QCOMPARE(changed.count(), 4);
    auto* blocking = panel.findChild<QCheckBox*>(QStringLiteral("blockingKernel"));
    QVERIFY(blocking);
    QVERIFY(!blocking->isChecked());
    blocking->setChecked(true);
    QVERIFY(panel.timing().blockingKernel);
    QCOMPARE(changed.count(), 5);
}

// Tab from Block x went to Grid y (the spin boxes were created down the columns).
void TestLaunchPanel::tabGoesAlongTheRows() {
    LaunchPanel panel;
    panel.show();
    panel.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    const QStringList order{"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "sharedBytes"};
    auto* first = panel.findChild<QWidget*>(order.first());
    QVERIFY(first);
    first->setFocus(Qt::TabFocusReason);
    QCOMPARE(QApplication::focusWidget(), first);
    for (qsizetype i = 1; i < order.size(); ++i) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QWidget* focused = QApplication::focusWidget();
        QVERIFY(focused);
        QCOMPARE(focused->objectName(), order.at(i));
    }
}

KERNELPAD_TEST_MAIN(TestLaunchPanel)
} // namespace tst_launchpanel
#include "tst_launchpanel.moc"
