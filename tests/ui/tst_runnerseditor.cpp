// Runners in Edit ▸ Preferences: this computer always first, runners elsewhere added from the
// CLI syntax (each error naming the field), removed, chosen, kept in the settings; the test of a
// runner answers with its devices or why it could not be reached; the Device dialog names each
// device after its runner.

#include "ui/Preferences.h"
#include "ui/dialogs/DeviceDialog.h"
#include "ui/dialogs/PreferencesDialog.h"
#include "ui/widgets/RunnersEditor.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_runnerseditor {

using namespace kernelpad;

class TestRunnersEditor : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void cleanup() { QSettings().clear(); }

    void thisComputerIsAlwaysFirst() {
        RunnersEditor editor;
        auto* list = editor.findChild<QListWidget*>(QStringLiteral("runnerList"));
        auto* choice = editor.findChild<QComboBox*>(QStringLiteral("runnerChoice"));
        QCOMPARE(list->count(), 1);
        QCOMPARE(choice->count(), 1);
        QVERIFY(editor.chosen().isEmpty());
        list->setCurrentRow(0);
        editor.removeSelected();
        QCOMPARE(list->count(), 1); // cannot be removed
    }

    void addsRemovesAndChooses() {
        RunnersEditor editor;
        QVERIFY(editor.addRunner(QStringLiteral("ssh:ana@gpu-box:2222"), QString()));
        QVERIFY(editor.addRunner(QStringLiteral("cmd:srun --gpus=1 kernelpad-cli serve"),
                                 QStringLiteral("cluster")));
        QCOMPARE(editor.runners().size(), 2);
        QCOMPARE(editor.runners().at(0).host, QStringLiteral("gpu-box"));
        QCOMPARE(editor.runners().at(1).displayName(), QStringLiteral("cluster"));
        auto* choice = editor.findChild<QComboBox*>(QStringLiteral("runnerChoice"));
        QCOMPARE(choice->count(), 3);
        choice->setCurrentIndex(choice->findText(QStringLiteral("gpu-box")));
        QCOMPARE(editor.chosen(), QStringLiteral("gpu-box"));
        // Removing the chosen one goes back to this computer.
        editor.findChild<QListWidget*>(QStringLiteral("runnerList"))->setCurrentRow(1);
        editor.removeSelected();
        QCOMPARE(editor.runners().size(), 1);
        QVERIFY(editor.chosen().isEmpty());
    }

    void errorsNameTheField_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("message");
        QTest::newRow("no host") << "ssh:"
                                 << ""
                                 << "Runner: the host is empty";
        QTest::newRow("bad port") << "ssh:h:x"
                                  << ""
                                  << "Runner: the port 'x' is not a number";
        QTest::newRow("kind") << "gpu-box"
                              << ""
                              << "Runner: unknown kind of runner";
        QTest::newRow("local") << "local"
                               << ""
                               << "this computer is always in the list";
        QTest::newRow("taken") << "ssh:other"
                               << "first"
                               << "Runner name: 'first' is taken";
    }
    void errorsNameTheField() {
        QFETCH(QString, text);
        QFETCH(QString, name);
        QFETCH(QString, message);
        RunnersEditor editor;
        QVERIFY(editor.addRunner(QStringLiteral("ssh:first"), QString()));
        QVERIFY(!editor.addRunner(text, name));
        QVERIFY2(editor.status().startsWith(message) || editor.status().contains(message),
                 qPrintable(editor.status()));
        QCOMPARE(editor.runners().size(), 1);
    }

    void keptInTheSettings() {
        PreferencesDialog dialog;
        auto* editor = dialog.findChild<RunnersEditor*>(QStringLiteral("runners"));
        QVERIFY(editor);
        QVERIFY(editor->addRunner(QStringLiteral("ssh:gpu-box/opt/kp/kernelpad-cli"), QString()));
        auto* choice = editor->findChild<QComboBox*>(QStringLiteral("runnerChoice"));
        choice->setCurrentIndex(1);
        dialog.accept();
        const Preferences p = Preferences::load();
        QCOMPARE(p.runners.size(), 1);
        QCOMPARE(p.runner, QStringLiteral("gpu-box"));
        QCOMPARE(p.chosenRunner().remotePath, QStringLiteral("/opt/kp/kernelpad-cli"));
        PreferencesDialog again;
        QCOMPARE(again.findChild<RunnersEditor*>(QStringLiteral("runners"))->chosen(),
                 QStringLiteral("gpu-box"));
        QVERIFY(again.preferences() == p);
    }

    void limitFieldsEditTheSelectedRunner() {
        RunnersEditor editor;
        QVERIFY(editor.addRunner(QStringLiteral("cmd:srun --gpus=1 kernelpad-cli serve"),
                                 QStringLiteral("cluster")));
        QVERIFY(editor.addRunner(QStringLiteral("ssh:gpu-box"), QString()));
        auto* list = editor.findChild<QListWidget*>(QStringLiteral("runnerList"));
        auto* hello = editor.findChild<QLineEdit*>(QStringLiteral("runnerHelloLimit"));
        auto* keep = editor.findChild<QLineEdit*>(QStringLiteral("runnerKeepLimit"));
        QVERIFY(hello && keep);
        list->setCurrentRow(0); // this computer: nothing to set
        QVERIFY(!hello->isEnabled());
        QVERIFY(!keep->isEnabled());
        list->setCurrentRow(1);
        QVERIFY(hello->isEnabled() && keep->isEnabled());
        QVERIFY(hello->text().isEmpty());
        QVERIFY2(hello->placeholderText().startsWith(QLatin1String("600")),
                 qPrintable(hello->placeholderText())); // a command's default
        QVERIFY(keep->placeholderText().startsWith(QLatin1String("64")));

        // Typed and left, as a user does: a Slurm queue gets 15 minutes.
        hello->setFocus();
        QTest::keyClicks(hello, QStringLiteral("900"));
        QTest::keyClick(hello, Qt::Key_Return);
        keep->setText(QStringLiteral("512"));
        QVERIFY(editor.applyLimits());
        QCOMPARE(editor.runners().at(0).helloLimitMs, 900000);
        QCOMPARE(editor.runners().at(0).keepBeyondBytes, qint64(512) << 20);
        QCOMPARE(editor.runners().at(1).helloLimitMs, 0); // the other keeps its defaults
        QVERIFY2(editor.status().contains(QLatin1String("hello within 900 s")),
                 qPrintable(editor.status()));

        // A bad value names the runner and the field, and changes nothing.
        hello->setText(QStringLiteral("soon"));
        QVERIFY(!editor.applyLimits());
        QVERIFY2(editor.status().startsWith(QLatin1String("cluster: Hello time limit: 'soon'")),
                 qPrintable(editor.status()));
        QCOMPARE(editor.runners().at(0).helloLimitMs, 900000);
        hello->setText(QStringLiteral("900"));
        keep->setText(QStringLiteral("-3"));
        QVERIFY(!editor.applyLimits());
        QVERIFY2(editor.status().contains(QLatin1String("Keep outputs larger than: '-3'")),
                 qPrintable(editor.status()));
        QCOMPARE(editor.runners().at(0).keepBeyondBytes, qint64(512) << 20);

        // Each runner shows its own.
        list->setCurrentRow(2);
        QVERIFY(hello->text().isEmpty());
        QVERIFY(hello->placeholderText().startsWith(QLatin1String("30")));
        list->setCurrentRow(1);
        QCOMPARE(hello->text(), QStringLiteral("900"));
        QCOMPARE(keep->text(), QStringLiteral("512"));
    }

    void limitsAreKeptInTheSettings() {
        PreferencesDialog dialog;
        auto* editor = dialog.findChild<RunnersEditor*>(QStringLiteral("runners"));
        QVERIFY(editor->addRunner(QStringLiteral("cmd:srun kernelpad-cli serve"),
                                  QStringLiteral("cluster")));
        editor->findChild<QListWidget*>(QStringLiteral("runnerList"))->setCurrentRow(1);
        editor->findChild<QLineEdit*>(QStringLiteral("runnerHelloLimit"))
            ->setText(QStringLiteral("1200"));
        editor->findChild<QLineEdit*>(QStringLiteral("runnerKeepLimit"))
            ->setText(QStringLiteral("300"));
        QVERIFY(editor->applyLimits());
        dialog.accept();
        const Preferences p = Preferences::load();
        QCOMPARE(p.runners.size(), 1);
        QCOMPARE(p.runners.first().helloLimitMs, 1200000);
        QCOMPARE(p.runners.first().keepBeyondBytes, qint64(300) << 20);
        PreferencesDialog again;
        auto* shown = again.findChild<RunnersEditor*>(QStringLiteral("runners"));
        shown->findChild<QListWidget*>(QStringLiteral("runnerList"))->setCurrentRow(1);
        QCOMPARE(shown->findChild<QLineEdit*>(QStringLiteral("runnerKeepLimit"))->text(),
                 QStringLiteral("300"));
    }

    void testShowsDevicesOrWhy() {
        RunnersEditor editor;
        // The real runner as a command: without a GPU it answers with the driver's reason,
        // with one with its devices named after the runner.
        QVERIFY(editor.addRunner(QStringLiteral("cmd:\"%1\" serve").arg(KERNELPAD_CLI_PATH),
                                 QStringLiteral("here")));
        auto* list = editor.findChild<QListWidget*>(QStringLiteral("runnerList"));
        list->setCurrentRow(1);
        QSignalSpy tested(&editor, &RunnersEditor::tested);
        editor.testSelected();
        QVERIFY(editor.status().startsWith(QLatin1String("Connecting to here")));
        QVERIFY(tested.wait(30000));
        QVERIFY2(editor.status().startsWith(QLatin1String("here: ")), qPrintable(editor.status()));

        QVERIFY(editor.addRunner(QStringLiteral("cmd:/nonexistent/kernelpad-cli serve"),
                                 QStringLiteral("nowhere")));
        list->setCurrentRow(2);
        editor.testSelected();
        // A program that cannot start answers at once.
        QTRY_COMPARE_WITH_TIMEOUT(tested.size(), 2, 30000);
        QVERIFY2(editor.status().contains(QLatin1String("could not be started")),
                 qPrintable(editor.status()));
    }

    void devicesAreNamedAfterTheirRunner() {
        DeviceInfo d;
        d.ordinal = 0;
        d.name = QStringLiteral("NVIDIA H100 80GB HBM3");
        d.ccMajor = 9;
        d.ccMinor = 0;
        RunnerSpec gpuBox;
        gpuBox.kind = RunnerSpec::Kind::Ssh;
        gpuBox.host = QStringLiteral("gpu-box");
        QCOMPARE(RunnersEditor::deviceLabel(gpuBox, d),
                 QStringLiteral("gpu-box: NVIDIA H100 80GB HBM3, sm_90"));
        QCOMPARE(RunnersEditor::deviceLabel(RunnerSpec::local(), d),
                 QStringLiteral("NVIDIA H100 80GB HBM3, sm_90"));
        DeviceDialog dialog({d}, 0, QString());
        dialog.setRunner(gpuBox);
        QCOMPARE(dialog.findChild<QComboBox*>()->itemText(0),
                 QStringLiteral("gpu-box: NVIDIA H100 80GB HBM3, sm_90 (device 0)"));
    }
};

KERNELPAD_TEST_MAIN(TestRunnersEditor)
} // namespace tst_runnerseditor
#include "tst_runnerseditor.moc"
