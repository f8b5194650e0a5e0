// The window's Tests tab (ui/views/TestsView.h, ui/models/TestsModel.h), offscreen and
// without an Engine: the grid of cases × checks grows a column for each new check and
// colours each outcome; a failing case shows its messages and first mismatches and opens its
// output buffer at the first mismatch; Build ▸ Run Tests brings the tab to the front and says
// why the tests cannot run.

#include "ui/Workbench.h"
#include "ui/models/TestsModel.h"
#include "ui/views/TestsView.h"
#include "ui/widgets/BufferViewer.h"
#include "ui/windows/MainWindow.h"
#include "ui/windows/ViewRegistry.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include "../support/TestMain.h"

namespace tst_testsview {

using namespace kernelpad;

namespace {

TestCheck check(const char* name, CheckOutcome outcome, const QString& message = {},
                const QStringList& details = {}) {
    return TestCheck{QString::fromLatin1(name), outcome, message, details};
}

/// A case at n = 33 whose element 32 was never written, with its outputs kept.
TestCaseResult failingCase() {
    TestCaseResult c;
    c.name = QStringLiteral("n = 33");
    c.launch = QStringLiteral("grid 1x1x1, block 256x1x1");
    c.checks = {check("verify", CheckOutcome::Failed,
                      QStringLiteral("out: 1 of 33 elements wrong (1 never written)"),
                      {QStringLiteral("out[32]: got 0, expected 66")}),
                check("determinism", CheckOutcome::Skipped, QStringLiteral("not asked"))};
    for (const char* name : {"x", "out"}) {
        OutputBuffer b;
        b.name = QString::fromLatin1(name);
        b.type = ValueType::of(ScalarType::Float32);
        b.count = 33;
        b.data = QByteArray(33 * 4, '\0');
        c.run.outputs.append(b);
    }
    BufferVerification v;
    v.buffer = QStringLiteral("out");
    v.checked = 33;
    v.mismatches = 1;
    v.firstMismatches = {Mismatch{32, 0, 66}};
    c.run.verification = {v};
    return c;
}

TestCaseResult passingCase() {
    TestCaseResult c;
    c.name = QStringLiteral("n = 1");
    c.launch = QStringLiteral("grid 1x1x1, block 256x1x1");
    c.checks = {check("verify", CheckOutcome::Passed, QStringLiteral("out: 1 elements match")),
                check("determinism", CheckOutcome::Passed)};
    return c;
}

} // namespace

class TestTestsView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }
    void modelGrowsAColumnPerCheck();
    void failingCaseShowsMismatchesAndBuffer();
    void runTestsFromTheBuildMenu();
};

void TestTestsView::modelGrowsAColumnPerCheck() {
    TestsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.columnCount(), int(TestsModel::kFixedColumns));
    model.append(passingCase());
    model.append(failingCase());
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.checkNames(), (QStringList{"verify", "determinism"}));
    // A check the earlier cases lack (a canary or a zeros-would-pass check) adds
    // its column; the earlier rows show a dash there.
    TestCaseResult warned = passingCase();
    warned.name = QStringLiteral("n = 31");
    warned.checks.append(check("zeros", CheckOutcome::Warning, QStringLiteral("zeros pass")));
    model.append(warned);
    QCOMPARE(model.columnCount(), int(TestsModel::kFixedColumns) + 3);
    QCOMPARE(model.headerData(4, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("zeros"));
    QCOMPARE(model.index(0, 4).data().toString(), QStringLiteral("—"));
    QCOMPARE(model.index(2, 4).data().toString(), QStringLiteral("warning"));
    QCOMPARE(model.index(1, TestsModel::CaseName).data().toString(), QStringLiteral("n = 33"));
    QCOMPARE(model.index(1, 2).data().toString(), QStringLiteral("failed"));
    QVERIFY(model.index(1, 2).data(Qt::ForegroundRole).value<QBrush>().color() !=
            model.index(0, 2).data(Qt::ForegroundRole).value<QBrush>().color());
    const QString tip = model.index(1, 2).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("out[32]: got 0, expected 66")), qPrintable(tip));
    QVERIFY(model.index(1, TestsModel::CaseName).data(Qt::FontRole).value<QFont>().bold());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), int(TestsModel::kFixedColumns));
}

void TestTestsView::failingCaseShowsMismatchesAndBuffer() {
    TestsView view(ViewContext{});
    view.model()->append(passingCase());
    view.model()->append(failingCase());
    QWidget* widget = view.widget();
    auto* details = widget->findChild<QPlainTextEdit*>(QStringLiteral("testsDetails"));
    auto* buffers = widget->findChild<BufferViewer*>(QStringLiteral("testsBuffers"));
    QVERIFY(details && buffers);
    view.showCase(1);
    QVERIFY2(details->toPlainText().contains(QStringLiteral("verify: failed — out: 1 of 33 "
                                                            "elements wrong")),
             qPrintable(details->toPlainText()));
    QVERIFY(details->toPlainText().contains(QStringLiteral("    out[32]: got 0, expected 66")));
    // The failing buffer is chosen (not the first, x) and its row at the first mismatch.
    auto* combo = buffers->findChild<QComboBox*>(QStringLiteral("bufferCombo"));
    QVERIFY(combo);
    QCOMPARE(combo->currentText(), QStringLiteral("out"));
    auto* table = buffers->tableView();
    QVERIFY(table->currentIndex().isValid());
    // A passing case kept no outputs: the viewer is cleared.
    view.showCase(0);
    QCOMPARE(combo->count(), 0);
    QVERIFY(details->toPlainText().startsWith(QStringLiteral("n = 1 (grid 1x1x1")));
    delete widget; // the window would own it; the view is its child's owner here
}

void TestTestsView::runTestsFromTheBuildMenu() {
    MainWindow window(nullptr);
    window.setPromptsEnabled(false);
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("resultTabs"));
    QVERIFY(tabs);
    QAction* run = window.findChild<QAction*>(QStringLiteral("runTestsAction"));
    QVERIFY(run);
    run->trigger();
    auto* view = qobject_cast<TestsView*>(window.views()->view(QStringLiteral("tests")));
    QVERIFY(view);
    QVERIFY(tabs->currentWidget() == view->widget() ||
            tabs->currentWidget()->isAncestorOf(view->widget()));
    auto* status = view->widget()->findChild<QLabel*>(QStringLiteral("testsStatus"));
    QVERIFY(status);
    QVERIFY2(status->text().startsWith(QStringLiteral("Tests cannot run: ")),
             qPrintable(status->text()));
}

KERNELPAD_TEST_MAIN(TestTestsView)
} // namespace tst_testsview
#include "tst_testsview.moc"
