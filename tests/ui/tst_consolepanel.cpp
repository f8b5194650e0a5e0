// The Console tab: each run's printf output under a line naming the kernel and the time,
// bounded, with what was not kept said plainly.

#include "../support/TestMain.h"
#include "ui/widgets/ConsolePanel.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

namespace tst_consolepanel {

using namespace kernelpad;

class TestConsolePanel : public QObject {
    Q_OBJECT

private slots:
    void showsEachRunUnderItsHeading() {
        ConsolePanel panel;
        QSignalSpy title(&panel, &ConsolePanel::titleChanged);
        const QDateTime when(QDate(2026, 11, 23), QTime(15, 42, 7));
        ConsoleOutput out;
        out.text = QStringLiteral("i=0\ni=1\ni=2\n");
        out.totalBytes = out.text.size();
        panel.showRun(QStringLiteral("saxpy"), out, when);
        QCOMPARE(panel.lastRunLines(), 3);
        QVERIFY2(panel.text().contains(QStringLiteral("saxpy · 15:42:07 · 3 line(s)")),
                 qPrintable(panel.text()));
        QVERIFY(panel.text().contains(QLatin1String("i=0\ni=1\ni=2")));
        QCOMPARE(title.last().at(0).toString(), QStringLiteral("Console (3)"));

        panel.showRun(QStringLiteral("saxpy"), ConsoleOutput{}, when.addSecs(5));
        QCOMPARE(panel.lastRunLines(), 0);
        QVERIFY(panel.text().contains(QStringLiteral("15:42:12 · printed nothing")));
        QCOMPARE(title.last().at(0).toString(), QStringLiteral("Console"));
    }

    void saysWhatWasNotKept_data() {
        QTest::addColumn<qint64>("extraBytes");
        QTest::addColumn<qint64>("laterBytes");
        QTest::addColumn<QString>("mustSay");
        QTest::newRow("beyond the limit") << qint64(5000) << qint64(0) << "more not kept";
        QTest::newRow("later launches")
            << qint64(0) << qint64(300000) << "launches after this one printed";
    }
    void saysWhatWasNotKept() {
        QFETCH(qint64, extraBytes);
        QFETCH(qint64, laterBytes);
        QFETCH(QString, mustSay);
        ConsolePanel panel;
        ConsoleOutput out;
        out.text = QStringLiteral("no newline at the end");
        out.totalBytes = out.text.size() + extraBytes;
        out.laterBytes = laterBytes;
        panel.showRun(QStringLiteral("k"), out, QDateTime::currentDateTime());
        QVERIFY2(panel.text().contains(mustSay), qPrintable(panel.text()));
        QVERIFY(panel.text().contains(QLatin1String("no newline at the end")));
    }

    void clearEmptiesIt() {
        ConsolePanel panel;
        auto* clear = panel.findChild<QPushButton*>(QStringLiteral("consoleClear"));
        QVERIFY(clear);
        QVERIFY(!clear->isEnabled());
        ConsoleOutput out;
        out.text = QStringLiteral("x\n");
        out.totalBytes = 2;
        panel.showRun(QStringLiteral("k"), out, QDateTime::currentDateTime());
        QVERIFY(clear->isEnabled());
        QTest::mouseClick(clear, Qt::LeftButton);
        QVERIFY(panel.text().isEmpty());
        QVERIFY(!clear->isEnabled());
    }
};

KERNELPAD_TEST_MAIN(TestConsolePanel)
} // namespace tst_consolepanel
#include "tst_consolepanel.moc"
