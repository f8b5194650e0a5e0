// The window on a real GPU: module globals set in the argument table
// reach the device before the launch, are read back after it, and their verification shows in
// the verification panel. gpu-labelled; without a driver every test skips with the reason.

#include "GpuTestSupport.h"

#include "../support/TestMain.h"
#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"
#include "ui/models/ArgumentTableModel.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/VerificationPanel.h"
#include "ui/windows/MainWindow.h"

#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

namespace tst_guiglobals {

using namespace kernelpad;

namespace {

// Device discovery starts the runner process; a run includes compile, upload and teardown.
constexpr int kDevicesTimeoutMs = 60000;
constexpr int kRunTimeoutMs = 120000;

using Col = ArgumentTableModel::Column;

/// Waits for the engine's device list; false (with the reason) when there is no driver.
bool waitForDevices(Engine& engine, MainWindow& window, QString* driverError) {
    QSignalSpy devices(&engine, &Engine::devicesChanged);
    window.show();
    if (devices.isEmpty() && !devices.wait(kDevicesTimeoutMs))
        return false;
    *driverError = devices.last().at(1).toString();
    return driverError->isEmpty();
}

int globalRow(const ArgumentTableModel& model, const QString& name) {
    for (int row = model.argumentCount(); row < model.rowCount(); ++row) {
        if (model.index(row, Col::NameColumn).data().toString() == name)
            return row;
    }
    return -1;
}

/// The verification panel's row for `output` as it shows it, -1 when none.
int summaryRow(const VerificationPanel& panel, const QString& shown) {
    for (int row = 0; row < panel.summaryTable()->rowCount(); ++row) {
        if (panel.summaryTable()->item(row, 0)->text() == shown)
            return row;
    }
    return -1;
}

} // namespace

class TestGuiGlobals : public QObject {
    Q_OBJECT
private slots:
    void init() { KERNELPAD_REQUIRE_DRIVER(); }
    void globalsEditedInTheTableAreVerified_data();
    void globalsEditedInTheTableAreVerified();
};

void TestGuiGlobals::globalsEditedInTheTableAreVerified_data() {
    QTest::addColumn<QString>("verify");
    QTest::addColumn<bool>("passes");
    // blocksDone starts at 5 (set in the table): 4096 blocks each add one.
    QTest::newRow("counter from 5, expected n/256+5")
        << QStringLiteral("expression n/256+5 atol=0 rtol=0") << true;
    QTest::newRow("counter from 5, expected n/256 (the example's)")
        << QStringLiteral("expression n/256 atol=0 rtol=0") << false;
}

void TestGuiGlobals::globalsEditedInTheTableAreVerified() {
    QFETCH(QString, verify);
    QFETCH(bool, passes);
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    QString driverError;
    if (!waitForDevices(engine, window, &driverError))
        QSKIP(qPrintable(QStringLiteral("the engine found no device: %1").arg(driverError)));
    QVERIFY2(window.openProject(test::examplesDir() + QStringLiteral("/convolution.kpad")),
             qPrintable(window.lastError()));
    ArgumentTableModel* model = test::part<ArgumentTableView>(&window, "arguments")->model();
    const int blocks = globalRow(*model, QStringLiteral("blocksDone"));
    QVERIFY(blocks >= 0);
    QVERIFY(model->setData(model->index(blocks, Col::InitColumn), QStringLiteral("constant 5")));
    QVERIFY(model->setData(model->index(blocks, Col::VerifyColumn), verify));
    QCOMPARE(
        window.document()->project().findGlobal(QStringLiteral("blocksDone"))->value.init.value,
        5.0);
    QTRY_VERIFY2_WITH_TIMEOUT(window.workbench()->runBlockedReason().isEmpty(),
                              qPrintable(window.workbench()->runBlockedReason()),
                              kDevicesTimeoutMs);

    QSignalSpy shown(window.workbench(), &Workbench::runShown);
    window.run();
    QVERIFY(shown.wait(kRunTimeoutMs));
    const RunResult result = shown.first().first().value<RunResult>();
    QVERIFY2(result.status == (passes ? RunStatus::Ok : RunStatus::VerificationFailed),
             qPrintable(runStatusName(result.status) + QStringLiteral(": ") + result.error));

    auto* panel = window.findChild<VerificationPanel*>();
    QVERIFY(panel);
    const int out = summaryRow(*panel, QStringLiteral("out"));
    const int counter = summaryRow(*panel, QStringLiteral("blocksDone (global)"));
    QVERIFY2(out >= 0 && counter >= 0, qPrintable(panel->message()));
    QCOMPARE(panel->summaryTable()->item(out, 1)->text(), QStringLiteral("PASS"));
    QCOMPARE(panel->summaryTable()->item(counter, 1)->text(),
             passes ? QStringLiteral("PASS") : QStringLiteral("FAIL"));
    if (!passes) {
        // Read back from the device: 5 + 4096, where n/256 expects 4096.
        QCOMPARE(panel->mismatchTable()->item(0, 1)->text().toDouble(), 4101.0);
        QCOMPARE(panel->mismatchTable()->item(0, 2)->text().toDouble(), 4096.0);
    }
    qInfo("convolution from the window: %s", qPrintable(panel->message()));
}

KERNELPAD_TEST_MAIN(TestGuiGlobals)
} // namespace tst_guiglobals
#include "tst_guiglobals.moc"
