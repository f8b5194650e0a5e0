// MainWindow: live mode's toggle (toolbar and Build menu, kept in Preferences) and the
// baseline's actions; the sentences the status bar shows come from Session::comparisonText().

#include "ui/windows/MainWindow.h"

#include "core/run/Summary.h"
#include "ui/Preferences.h"
#include "ui/Session.h"

#include <QAction>
#include <QStatusBar>

namespace kernelpad {

namespace {
constexpr int kLiveMessageMs = 5000;
} // namespace

void MainWindow::createLiveActions() {
    m_liveModeAction = new QAction(tr("&Live Mode"), this);
    m_liveModeAction->setObjectName(QStringLiteral("liveModeAction"));
    m_liveModeAction->setCheckable(true);
    m_liveModeAction->setToolTip(
        tr("Compile and run after each pause in typing (%1 ms), with a short timing budget; "
           "the status bar says whether the edit made a real change")
            .arg(Session::kLiveDelayMs));
    m_liveModeAction->setChecked(Preferences::load().liveMode);
    m_session->setLiveMode(m_liveModeAction->isChecked());
    connect(m_liveModeAction, &QAction::toggled, this, [this](bool on) {
        m_session->setLiveMode(on);
        Preferences preferences = Preferences::load();
        if (preferences.liveMode != on) {
            preferences.liveMode = on;
            preferences.apply();
        }
    });
    connect(PreferencesNotifier::instance(), &PreferencesNotifier::changed, m_liveModeAction,
            [this] { m_liveModeAction->setChecked(Preferences::load().liveMode); });
    connect(m_session, &Session::liveRunSkipped, this, [this](const QString& why) {
        statusBar()->showMessage(tr("Live mode compiled the edit but cannot run it: %1").arg(why),
                                 kLiveMessageMs);
    });

    m_setBaselineAction = new QAction(tr("Set as &Baseline"), this);
    m_setBaselineAction->setObjectName(QStringLiteral("setBaselineAction"));
    m_setBaselineAction->setToolTip(
        tr("Pin the last successful run: every later run shows its speedup against it"));
    connect(m_setBaselineAction, &QAction::triggered, this, [this] {
        const RunRecord* last = m_session->lastMeasuredRun();
        if (!last || !m_session->setBaseline(last->serial))
            statusBar()->showMessage(tr("Cannot set a baseline: the last run has no successful "
                                        "timings"),
                                     kLiveMessageMs);
        else
            statusBar()->showMessage(tr("Baseline: run %1 (median %2)")
                                         .arg(m_session->history().size())
                                         .arg(formatDurationMs(last->result.timing.medianMs)),
                                     kLiveMessageMs);
    });
    m_clearBaselineAction = new QAction(tr("C&lear Baseline"), this);
    m_clearBaselineAction->setObjectName(QStringLiteral("clearBaselineAction"));
    connect(m_clearBaselineAction, &QAction::triggered, m_session, &Session::clearBaseline);
    connect(m_session, &Session::baselineChanged, this, &MainWindow::updateBaselineActions);
    connect(m_session, &Session::runStateChanged, this, &MainWindow::updateBaselineActions);
    updateBaselineActions();
}

void MainWindow::updateBaselineActions() {
    const RunRecord* last = m_session->lastMeasuredRun();
    m_setBaselineAction->setEnabled(last && last->result.status == RunStatus::Ok);
    m_clearBaselineAction->setEnabled(m_session->baselineRun() != nullptr);
}

} // namespace kernelpad
