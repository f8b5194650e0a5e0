#include "ui/dialogs/PreferencesDialog.h"

#include "ui/widgets/RunnersEditor.h"

#include "ui/Theme.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFontComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace kernelpad {

namespace {

// The same bounds as the launch panel's timing fields and TimingSpec::validate().
constexpr int kPreferenceMaxWarmupLaunches = 10000;
constexpr int kPreferenceMaxRepetitions = 100000;
constexpr int kPreferenceMaxTimeBudgetMs = 3600 * 1000;
constexpr int kPreferenceMinTimeLimitMs = 100;
constexpr int kPreferenceMaxTimeLimitMs = 24 * 3600 * 1000;
constexpr double kPreferenceMinNoisePercent = 0.01;
constexpr double kPreferenceMaxNoisePercent = 50.0;

QSpinBox* makePreferenceSpin(QWidget* parent, int min, int max, const char* name) {
    auto* spin = new QSpinBox(parent);
    spin->setRange(min, max);
    spin->setGroupSeparatorShown(true);
    spin->setObjectName(QString::fromLatin1(name));
    return spin;
}

} // namespace

PreferencesDialog::PreferencesDialog(QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Preferences"));

    m_font = new QFontComboBox(this);
    m_font->setObjectName(QStringLiteral("editorFont"));
    m_font->setFontFilters(QFontComboBox::MonospacedFonts);
    m_fontSize = makePreferenceSpin(this, Preferences::kMinEditorPointSize,
                                    Preferences::kMaxEditorPointSize, "editorFontSize");
    m_fontSize->setSuffix(tr(" pt"));
    m_theme = new QComboBox(this);
    m_theme->setObjectName(QStringLiteral("theme"));
    m_theme->addItem(tr("As the system"), int(Preferences::ThemeChoice::System));
    m_theme->addItem(tr("Light"), int(Preferences::ThemeChoice::Light));
    m_theme->addItem(tr("Dark"), int(Preferences::ThemeChoice::Dark));
    m_lineColours = new QCheckBox(tr("a colour per source line in the editor, PTX and SASS"), this);
    m_lineColours->setObjectName(QStringLiteral("lineColours"));
    auto* look = new QGroupBox(tr("Editor and theme"), this);
    auto* lookForm = new QFormLayout(look);
    lookForm->addRow(tr("Editor font"), m_font);
    lookForm->addRow(tr("Font size"), m_fontSize);
    lookForm->addRow(tr("Theme"), m_theme);
    lookForm->addRow(tr("Line colours"), m_lineColours);

    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("timingMode"));
    m_mode->addItem(tr("hot (back-to-back)"), int(TimingSpec::Mode::Hot));
    m_mode->addItem(tr("cold (L2 flushed)"), int(TimingSpec::Mode::Cold));
    m_warmup = makePreferenceSpin(this, 0, kPreferenceMaxWarmupLaunches, "warmup");
    m_repetitions = makePreferenceSpin(this, 1, kPreferenceMaxRepetitions, "repetitions");
    m_adaptive = new QCheckBox(tr("until the noise target"), this);
    m_adaptive->setObjectName(QStringLiteral("adaptive"));
    m_targetNoise = new QDoubleSpinBox(this);
    m_targetNoise->setObjectName(QStringLiteral("targetNoise"));
    m_targetNoise->setRange(kPreferenceMinNoisePercent, kPreferenceMaxNoisePercent);
    m_targetNoise->setDecimals(2);
    m_targetNoise->setSuffix(tr(" %"));
    m_maxTime = makePreferenceSpin(this, 1, kPreferenceMaxTimeBudgetMs, "maxTimeMs");
    m_maxTime->setSuffix(tr(" ms"));
    m_blocking = new QCheckBox(tr("queue behind a blocking kernel"), this);
    m_blocking->setObjectName(QStringLiteral("blockingKernel"));
    auto* timing = new QGroupBox(tr("Timing of new projects"), this);
    timing->setToolTip(tr("File ▸ New and opened .cu files start with these; a project keeps "
                          "its own in the Launch panel."));
    auto* timingForm = new QFormLayout(timing);
    timingForm->addRow(tr("Mode"), m_mode);
    timingForm->addRow(tr("Warm-up launches"), m_warmup);
    timingForm->addRow(tr("Repetitions"), m_repetitions);
    timingForm->addRow(tr("Adaptive"), m_adaptive);
    timingForm->addRow(tr("Target noise"), m_targetNoise);
    timingForm->addRow(tr("Time budget"), m_maxTime);
    timingForm->addRow(tr("Launch queue"), m_blocking);

    m_timeLimit = makePreferenceSpin(this, kPreferenceMinTimeLimitMs, kPreferenceMaxTimeLimitMs,
                                     "timeLimitMs");
    m_timeLimit->setSuffix(tr(" ms"));
    m_timeLimit->setToolTip(tr("The runner's watchdog stops a run that takes longer than this "
                               "(new projects; each project keeps its own)."));
    auto* runner = new QGroupBox(tr("Runner"), this);
    auto* runnerForm = new QFormLayout(runner);
    runnerForm->addRow(tr("Time limit"), m_timeLimit);
    m_memcheckAfterFault =
        new QCheckBox(tr("After a memory fault, re-run under memcheck automatically"), this);
    m_memcheckAfterFault->setObjectName(QStringLiteral("memcheckAfterFault"));
    m_memcheckAfterFault->setToolTip(
        tr("A kernel that faults (a bad memory access, a trap) runs once more under "
           "compute-sanitizer's memcheck, which names the faulting line, thread and block. "
           "Off: the fault's message offers that run."));
    runnerForm->addRow(tr("Faults"), m_memcheckAfterFault);

    auto* buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &PreferencesDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &PreferencesDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
            &PreferencesDialog::restoreDefaults);
    connect(m_adaptive, &QCheckBox::toggled, this, [this](bool on) {
        m_targetNoise->setEnabled(on);
        m_maxTime->setEnabled(on);
    });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(look);
    layout->addWidget(timing);
    layout->addWidget(runner);
    m_runners = new RunnersEditor(this);
    m_runners->setObjectName(QStringLiteral("runners"));
    layout->addWidget(m_runners);
    layout->addWidget(buttons);
    setPreferences(Preferences::load());
}

void PreferencesDialog::setPreferences(const Preferences& p) {
    m_preferences = p;
    m_font->setCurrentFont(p.editorFont());
    m_fontSize->setValue(p.editorPointSize);
    m_theme->setCurrentIndex(m_theme->findData(int(p.theme)));
    m_lineColours->setChecked(p.lineColours);
    const TimingSpec& t = p.newProjectTiming;
    m_mode->setCurrentIndex(m_mode->findData(int(t.mode)));
    m_warmup->setValue(t.warmupLaunches);
    m_repetitions->setValue(t.repetitions);
    m_adaptive->setChecked(t.adaptive);
    m_targetNoise->setValue(t.targetNoise * 100.0);
    m_maxTime->setValue(t.maxTimeMs);
    m_blocking->setChecked(t.blockingKernel);
    m_timeLimit->setValue(t.timeLimitMs);
    m_memcheckAfterFault->setChecked(p.memcheckAfterFault);
    m_runners->setRunners(p.runners, p.runner);
    m_targetNoise->setEnabled(t.adaptive);
    m_maxTime->setEnabled(t.adaptive);
}

Preferences PreferencesDialog::preferences() const {
    Preferences p = m_preferences;
    // The default family stays "default" (empty) unless another one was picked.
    const QString family = m_font->currentFont().family();
    p.editorFontFamily =
        family == monospaceFont().family() && p.editorFontFamily.isEmpty() ? QString() : family;
    p.editorPointSize = m_fontSize->value();
    p.theme = Preferences::ThemeChoice(m_theme->currentData().toInt());
    p.lineColours = m_lineColours->isChecked();
    TimingSpec& t = p.newProjectTiming;
    t.mode = TimingSpec::Mode(m_mode->currentData().toInt());
    t.warmupLaunches = m_warmup->value();
    t.repetitions = m_repetitions->value();
    t.adaptive = m_adaptive->isChecked();
    t.targetNoise = m_targetNoise->value() / 100.0;
    t.maxTimeMs = m_maxTime->value();
    t.minTimeMs = std::min(t.minTimeMs, t.maxTimeMs); // keeps TimingSpec::validate() happy
    t.blockingKernel = m_blocking->isChecked();
    t.timeLimitMs = m_timeLimit->value();
    p.memcheckAfterFault = m_memcheckAfterFault->isChecked();
    p.runners = m_runners->runners();
    p.runner = m_runners->chosen();
    return p;
}

void PreferencesDialog::restoreDefaults() {
    setPreferences(Preferences{});
}

void PreferencesDialog::accept() {
    preferences().apply();
    QDialog::accept();
}

QAction* PreferencesDialog::createAction(QWidget* window) {
    auto* action = new QAction(tr("&Preferences…"), window);
    action->setObjectName(QStringLiteral("preferencesAction"));
    action->setShortcut(QKeySequence::Preferences);
    action->setMenuRole(QAction::PreferencesRole);
    connect(action, &QAction::triggered, window, [window] {
        PreferencesDialog dialog(window);
        dialog.exec();
    });
    return action;
}

} // namespace kernelpad
