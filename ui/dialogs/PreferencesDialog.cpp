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
#include <QGuiApplication>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
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
// A window manager's title bar and borders, kept free when the dialog's height is capped.
constexpr int kWindowFrameAllowancePx = 40;

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

    // The settings scroll, the buttons stay: on a 720 or 800 px screen the whole form is
    // taller than the screen, and OK/Cancel must never be off it.
    auto* form = new QWidget(this);
    auto* formLayout = new QVBoxLayout(form);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->addWidget(look);
    formLayout->addWidget(timing);
    formLayout->addWidget(runner);
    m_runners = new RunnersEditor(form);
    m_runners->setObjectName(QStringLiteral("runners"));
    formLayout->addWidget(m_runners);
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("preferencesScroll"));
    scroll->setWidget(form);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(form->minimumSizeHint().width() +
                            scroll->verticalScrollBar()->sizeHint().width());
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addWidget(buttons);
    setPreferences(Preferences::load());
    fitToScreen(form);
}

void PreferencesDialog::fitToScreen(const QWidget* form) {
    // As tall as the form needs, but never taller than the screen's free height (less the
    // window frame the window manager adds).
    const QScreen* screen =
        parentWidget() ? parentWidget()->screen() : QGuiApplication::primaryScreen();
    const int available = screen ? screen->availableGeometry().height() - kWindowFrameAllowancePx
                                 : form->sizeHint().height();
    const QSize wanted = sizeHint().expandedTo(
        QSize(0, form->sizeHint().height() + layout()->contentsMargins().top() +
                     layout()->contentsMargins().bottom() + layout()->spacing() +
                     findChild<QDialogButtonBox*>()->sizeHint().height()));
    resize(wanted.width(), std::min(wanted.height(), available));
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
    // QKeySequence::Preferences is Ctrl+, on macOS only (empty under GNOME, Ctrl+Shift+, under
    // KDE): name Ctrl+, itself, the key the docs give. A window shortcut, so that it also works
    // from the editor, a dock's field or a floating dock, and never types a comma there (an
    // application shortcut would be ambiguous, and dead, with two windows open).
    QList<QKeySequence> keys = QKeySequence::keyBindings(QKeySequence::Preferences);
    const QKeySequence ctrlComma(Qt::CTRL | Qt::Key_Comma);
    if (!keys.contains(ctrlComma))
        keys.prepend(ctrlComma);
    action->setShortcuts(keys);
    action->setMenuRole(QAction::PreferencesRole);
    connect(action, &QAction::triggered, window, [window] {
        PreferencesDialog dialog(window);
        dialog.exec();
    });
    return action;
}

} // namespace kernelpad
