// MainWindow: live mode's toggle (toolbar and Build menu, kept in Preferences) and the
// baseline's actions; the sentences the status bar shows come from Session::comparisonText().

#include "ui/windows/MainWindow.h"

#include "core/run/Summary.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/Session.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
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
    connect(m_clearBaselineAction, &QAction::triggered, m_session, [this] {
        m_session->clearBaseline();
        m_session->setBaselineKernel(QString());
    });
    m_baselineKernelMenu = new QMenu(tr("Baseline &Kernel"), this);
    m_baselineKernelMenu->setObjectName(QStringLiteral("baselineKernelMenu"));
    m_baselineKernelMenu->setToolTip(
        tr("A second kernel of the same source, run with the same arguments after each run"));
    connect(m_baselineKernelMenu, &QMenu::aboutToShow, this, &MainWindow::fillBaselineKernelMenu);
    fillBaselineKernelMenu();
    connect(m_session, &Session::baselineChanged, this, &MainWindow::updateBaselineActions);
    // The baseline kernel answers after the run it follows: say how that run compares now.
    connect(m_session, &Session::baselineChanged, this, [this] {
        if (!m_session->baselineKernelRun() || m_session->history().isEmpty())
            return;
        const QString comparison = m_session->comparisonText(m_session->history().constLast());
        if (!comparison.isEmpty())
            statusBar()->showMessage(comparison, kLiveMessageMs);
    });
    connect(m_session, &Session::runStateChanged, this, &MainWindow::updateBaselineActions);
    updateBaselineActions();
}

void MainWindow::updateBaselineActions() {
    const RunRecord* last = m_session->lastMeasuredRun();
    m_setBaselineAction->setEnabled(last && last->result.status == RunStatus::Ok);
    m_clearBaselineAction->setEnabled(m_session->baselineRun() != nullptr ||
                                      !m_session->baselineKernel().isEmpty());
}

void MainWindow::fillBaselineKernelMenu() {
    m_baselineKernelMenu->clear();
    auto* group = new QActionGroup(m_baselineKernelMenu);
    const auto add = [&](const QString& text, const QString& kernel) {
        QAction* a = m_baselineKernelMenu->addAction(text);
        a->setCheckable(true);
        a->setChecked(m_session->baselineKernel() == kernel);
        a->setActionGroup(group);
        connect(a, &QAction::triggered, m_session,
                [this, kernel] { m_session->setBaselineKernel(kernel); });
    };
    add(tr("None"), QString());
    const std::optional<CompileResult>& compiled = m_session->lastCompile();
    const QString current = m_document->project().kernel;
    if (compiled && compiled->ok)
        for (const KernelInfo& k : compiled->kernels)
            if (k.name != current)
                add(k.name, k.name);
}

} // namespace kernelpad
