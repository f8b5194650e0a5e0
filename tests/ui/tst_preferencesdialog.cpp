// Edit ▸ Preferences: editor font and size, theme, the timing of new projects and
// the runner's time limit, kept in QSettings and read where they are used.

#include "../support/TestMain.h"
#include "core/engine/Engine.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/Theme.h"
#include "ui/dialogs/PreferencesDialog.h"
#include "ui/widgets/CodeEditor.h"
#include "ui/windows/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontComboBox>
#include <QMenuBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace tst_preferencesdialog {

using namespace kernelpad;

namespace {

Preferences changedPreferences() {
    Preferences p;
    p.editorPointSize = 14;
    p.theme = Preferences::ThemeChoice::Dark;
    p.newProjectTiming.mode = TimingSpec::Mode::Cold;
    p.newProjectTiming.warmupLaunches = 7;
    p.newProjectTiming.repetitions = 77;
    p.newProjectTiming.adaptive = false;
    p.newProjectTiming.blockingKernel = false;
    p.newProjectTiming.timeLimitMs = 30000;
    p.memcheckAfterFault = true;
    p.lineColours = false;
    return p;
}

} // namespace

class TestPreferencesDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();
    void roundTripThroughSettings();
    void brokenSettingsKeepDefaults();
    void dialogSavesAndAppliesAtOnce();
    void newProjectsTakeTheTiming();
};

void TestPreferencesDialog::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
}

void TestPreferencesDialog::init() {
    QSettings().clear();
}

void TestPreferencesDialog::cleanup() {
    Preferences::applyTheme(Preferences::ThemeChoice::System);
    QSettings().clear();
}

void TestPreferencesDialog::roundTripThroughSettings() {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("prefs.ini")), QSettings::IniFormat);
    Preferences p = changedPreferences();
    p.editorFontFamily = QStringLiteral("Some Mono");
    p.save(settings);
    settings.sync();
    QSettings reread(dir.filePath(QStringLiteral("prefs.ini")), QSettings::IniFormat);
    QVERIFY(Preferences::load(reread) == p);
    QCOMPARE(Preferences::load(reread).editorFont().pointSize(), 14);
}

void TestPreferencesDialog::brokenSettingsKeepDefaults() {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("prefs.ini")), QSettings::IniFormat);
    settings.setValue(QStringLiteral("preferences/editorPointSize"), 1000);
    settings.setValue(QStringLiteral("preferences/theme"), QStringLiteral("purple"));
    settings.setValue(QStringLiteral("preferences/lineColours"), QStringLiteral("purple"));
    settings.setValue(QStringLiteral("preferences/newProjectTiming"),
                      QStringLiteral("{\"repetitions\": -3}"));
    const Preferences p = Preferences::load(settings);
    QVERIFY(p == Preferences{});
}

void TestPreferencesDialog::dialogSavesAndAppliesAtOnce() {
    CodeEditor editor; // made before: follows the change
    QCOMPARE(editor.editorFont().pointSize(), Preferences::kDefaultEditorPointSize);
    {
        PreferencesDialog dialog;
        QVERIFY(dialog.preferences() == Preferences{});
        dialog.findChild<QSpinBox*>(QStringLiteral("editorFontSize"))->setValue(14);
        auto* theme = dialog.findChild<QComboBox*>(QStringLiteral("theme"));
        theme->setCurrentIndex(theme->findData(int(Preferences::ThemeChoice::Dark)));
        auto* mode = dialog.findChild<QComboBox*>(QStringLiteral("timingMode"));
        mode->setCurrentIndex(mode->findData(int(TimingSpec::Mode::Cold)));
        dialog.findChild<QSpinBox*>(QStringLiteral("warmup"))->setValue(7);
        dialog.findChild<QSpinBox*>(QStringLiteral("repetitions"))->setValue(77);
        dialog.findChild<QCheckBox*>(QStringLiteral("adaptive"))->setChecked(false);
        dialog.findChild<QCheckBox*>(QStringLiteral("blockingKernel"))->setChecked(false);
        dialog.findChild<QSpinBox*>(QStringLiteral("timeLimitMs"))->setValue(30000);
        dialog.findChild<QCheckBox*>(QStringLiteral("memcheckAfterFault"))->setChecked(true);
        dialog.findChild<QCheckBox*>(QStringLiteral("lineColours"))->setChecked(false);
        dialog.accept();
    }
    QVERIFY(Preferences::load() == changedPreferences());
    QCoreApplication::processEvents(); // the palette reaches widgets through posted events
    QCOMPARE(editor.editorFont().pointSize(), 14);
    QVERIFY(Theme::current().dark);
    QVERIFY(editor.theme().dark); // the editor follows the palette
    // A new dialog shows what was saved.
    PreferencesDialog again;
    QVERIFY(again.preferences() == changedPreferences());
    QCOMPARE(again.findChild<QSpinBox*>(QStringLiteral("timeLimitMs"))->value(), 30000);
    QVERIFY(again.findChild<QCheckBox*>(QStringLiteral("memcheckAfterFault"))->isChecked());
    // Restore Defaults fills the fields; Cancel keeps the saved values.
    again.findChild<QSpinBox*>(QStringLiteral("repetitions"))->setValue(5);
    again.reject();
    QCOMPARE(Preferences::load().newProjectTiming.repetitions, 77);
}

void TestPreferencesDialog::newProjectsTakeTheTiming() {
    changedPreferences().apply();
    Engine engine;
    MainWindow window(&engine);
    window.setPromptsEnabled(false);
    window.setCompileWhileTyping(false);
    QVERIFY(window.newProject());
    const TimingSpec timing = window.document()->project().timing;
    QCOMPARE(timing.repetitions, 77);
    QCOMPARE(timing.timeLimitMs, 30000);
    QCOMPARE(timing.mode, TimingSpec::Mode::Cold);
    // Edit ▸ Preferences… is in the menu.
    QAction* action = nullptr;
    for (QAction* menu : window.menuBar()->actions()) {
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->objectName() == QLatin1String("preferencesAction"))
                    action = a;
    }
    QVERIFY(action);
    // Ctrl+, itself: QKeySequence::Preferences is empty outside macOS and KDE.
    QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Comma));
}

KERNELPAD_TEST_MAIN(TestPreferencesDialog)
} // namespace tst_preferencesdialog
#include "tst_preferencesdialog.moc"
