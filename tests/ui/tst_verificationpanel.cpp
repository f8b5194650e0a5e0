// The verification panel: pass/fail per buffer, counts, mismatches, no-verification text.

#include "../support/TestMain.h"
#include "ui/widgets/VerificationPanel.h"

#include <QLabel>
#include <QTableWidget>
#include <QTest>

namespace tst_verificationpanel {

using namespace kernelpad;

namespace {

BufferVerification report(const QString& buffer, bool passed, qint64 mismatches, qint64 nans,
                          qint64 unwritten) {
    BufferVerification v;
    v.buffer = buffer;
    v.method = QStringLiteral("expression a*x+y");
    v.passed = passed;
    v.checked = 1000;
    v.mismatches = mismatches;
    v.nanCount = nans;
    v.unwritten = unwritten;
    v.maxAbsError = passed ? 1e-7 : 0.5;
    v.maxUlpError = passed ? 1 : 4096;
    for (qint64 i = 0; i < std::min<qint64>(mismatches, 16); ++i)
        v.firstMismatches << Mismatch{i * 3, 1.5 + i, 1.0 + i};
    return v;
}

} // namespace

class TestVerificationPanel : public QObject {
    Q_OBJECT
private slots:
    void showsVerdict_data();
    void showsVerdict();
    void noVerificationConfigured();
    void verificationCouldNotRun();
    void showsGuardHitsWarningsAndAdvice();
};

void TestVerificationPanel::showsVerdict_data() {
    QTest::addColumn<bool>("passed");
    QTest::addColumn<qint64>("mismatches");
    QTest::addColumn<qint64>("nans");
    QTest::addColumn<qint64>("unwritten");
    QTest::newRow("fail-with-mismatches-nans-unwritten")
        << false << qint64(37) << qint64(2) << qint64(5);
    QTest::newRow("fail-three-mismatches") << false << qint64(3) << qint64(0) << qint64(0);
    QTest::newRow("pass") << true << qint64(0) << qint64(0) << qint64(0);
}

void TestVerificationPanel::showsVerdict() {
    QFETCH(bool, passed);
    QFETCH(qint64, mismatches);
    QFETCH(qint64, nans);
    QFETCH(qint64, unwritten);
    VerificationPanel panel;
    RunResult result;
    result.status = passed ? RunStatus::Ok : RunStatus::VerificationFailed;
    result.verification = {report(QStringLiteral("z"), true, 0, 0, 0),
                           report(QStringLiteral("y"), passed, mismatches, nans, unwritten)};
    panel.showResult(result);

    QTableWidget* summary = panel.summaryTable();
    QCOMPARE(summary->rowCount(), 2);
    QCOMPARE(summary->item(1, 0)->text(), QStringLiteral("y"));
    const QTableWidgetItem* verdict = summary->item(1, 1);
    QCOMPARE(verdict->text(), passed ? QStringLiteral("PASS") : QStringLiteral("FAIL"));
    const QColor color = verdict->background().color();
    QVERIFY(passed ? color.green() > color.red() : color.red() > color.green());
    QCOMPARE(summary->horizontalHeaderItem(5)->text(), QStringLiteral("Max ulp error"));
    QCOMPARE(summary->item(1, 5)->text(), passed ? QStringLiteral("1") : QStringLiteral("4096"));
    QCOMPARE(summary->item(1, 6)->text(), QLocale().toString(mismatches));
    QCOMPARE(summary->item(1, 7)->text(), QLocale().toString(nans));
    QCOMPARE(summary->item(1, 8)->text(), QLocale().toString(unwritten));

    // A failing buffer is selected and its first mismatches listed.
    QTableWidget* table = panel.mismatchTable();
    if (passed) {
        QCOMPARE(table->rowCount(), 0);
        QVERIFY(panel.message().contains(QStringLiteral("passed")));
    } else {
        QCOMPARE(summary->currentRow(), 1);
        QCOMPARE(table->rowCount(), int(std::min<qint64>(mismatches, 16)));
        QCOMPARE(table->item(1, 0)->text(), QStringLiteral("3"));
        QCOMPARE(table->item(1, 1)->text().toDouble(), 2.5);
        QCOMPARE(table->item(1, 2)->text().toDouble(), 2.0);
        QVERIFY(panel.message().contains(QStringLiteral("failed")));
        QCOMPARE(panel.message().contains(QStringLiteral("never written")), unwritten > 0);
    }
}

void TestVerificationPanel::noVerificationConfigured() {
    VerificationPanel panel;
    RunResult result;
    panel.showResult(result);
    QVERIFY(panel.message().contains(QStringLiteral("No verification configured")));
    QCOMPARE(panel.summaryTable()->rowCount(), 0);
}

void TestVerificationPanel::verificationCouldNotRun() {
    VerificationPanel panel;
    RunResult result;
    result.status = RunStatus::VerificationFailed;
    BufferVerification v = report(QStringLiteral("y"), false, 0, 0, 0);
    v.error = QStringLiteral("unknown variable 'b' in 'a*b'");
    result.verification = {v};
    panel.showResult(result);
    QCOMPARE(panel.summaryTable()->item(0, 1)->text(), QStringLiteral("ERROR"));
    QVERIFY(panel.message().contains(v.error));

    RunResult crashed;
    crashed.status = RunStatus::CudaError;
    crashed.error = QStringLiteral("CUDA_ERROR_ILLEGAL_ADDRESS during the launch");
    panel.showResult(crashed);
    QVERIFY(panel.message().contains(crashed.error));
    QVERIFY(!panel.message().contains(QStringLiteral("No verification configured")));
}

void TestVerificationPanel::showsGuardHitsWarningsAndAdvice() {
    VerificationPanel panel;
    RunResult result;
    result.status = RunStatus::VerificationFailed;
    BufferVerification loose = report(QStringLiteral("y"), true, 0, 0, 0);
    loose.warnings << QStringLiteral("y: this check would also pass if the kernel wrote nothing "
                                     "(all zeros)");
    loose.advice = QStringLiteral("worst error 1 ulp (1.2e-07 relative, 1e-07 absolute; float32 "
                                  "epsilon 1.2e-07); rtol=5e-07 (about 3x the worst seen)");
    BufferVerification guard;
    guard.buffer = QStringLiteral("out");
    guard.method = QStringLiteral("guard bytes");
    guard.checked = 512;
    guard.failure = QStringLiteral("out: 4 bytes written past the end (element 1024)");
    result.verification = {loose, guard};
    panel.showResult(result);
    QCOMPARE(panel.summaryTable()->item(1, 1)->text(), QStringLiteral("FAIL"));
    const QString message = panel.message();
    QVERIFY2(message.contains(guard.failure), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("Warning: ") + loose.warnings.front()),
             qPrintable(message));
    QVERIFY2(message.contains(loose.advice), qPrintable(message));
    // The failing row is selected and says why, with no mismatches to list.
    QCOMPARE(panel.summaryTable()->currentRow(), 1);
    bool titled = false;
    for (const QLabel* label : panel.findChildren<QLabel*>())
        titled |= label->text() == guard.failure;
    QVERIFY(titled);
}

KERNELPAD_TEST_MAIN(TestVerificationPanel)
} // namespace tst_verificationpanel
#include "tst_verificationpanel.moc"
