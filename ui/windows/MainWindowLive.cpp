// MainWindow: live mode's toggle (toolbar and Build menu, kept in Preferences) and the
// baseline's actions; the sentences the status bar shows come from Workbench::comparisonText().

#include "ui/windows/MainWindow.h"

#include "core/run/Summary.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/Workbench.h"

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
            .arg(Workbench::kLiveDelayMs));
    m_liveModeAction->setChecked(Preferences::load().liveMode);
    m_workbench->setLiveMode(m_liveModeAction->isChecked());
    connect(m_liveModeAction, &QAction::toggled, this, [this](bool on) {
        m_workbench->setLiveMode(on);
        Preferences preferences = Preferences::load();
        if (preferences.liveMode != on) {
            preferences.liveMode = on;
            preferences.apply();
        }
    });
    connect(PreferencesNotifier::instance(), &PreferencesNotifier::changed, m_liveModeAction,
            [this] { m_liveModeAction->setChecked(Preferences::load().liveMode); });
    connect(m_workbench, &Workbench::liveRunSkipped, this, [this](const QString& why) {
        statusBar()->showMessage(tr("Live mode compiled the edit but cannot run it: %1").arg(why),
                                 kLiveMessageMs);
    });

    m_setBaselineAction = new QAction(tr("Set as &Baseline"), this);
    m_setBaselineAction->setObjectName(QStringLiteral("setBaselineAction"));
    m_setBaselineAction->setToolTip(
        tr("Pin the last successful run: every later run shows its speedup against it"));
    connect(m_setBaselineAction, &QAction::triggered, this, [this] {
        const RunRecord* last = m_workbench->lastMeasuredRun();
        if (!last || !m_workbench->setBaseline(last->serial))
            statusBar()->showMessage(tr("Cannot set a baseline: the last run has no successful "
                                        "timings"),
                                     kLiveMessageMs);
        else
            statusBar()->showMessage(tr("Baseline: run %1 (median %2)")
                                         .arg(m_workbench->history().size())
                                         .arg(formatDurationMs(last->result.timing.medianMs)),
                                     kLiveMessageMs);
    });
    m_clearBaselineAction = new QAction(tr("C&lear Baseline"), this);
    m_clearBaselineAction->setObjectName(QStringLiteral("clearBaselineAction"));
    connect(m_clearBaselineAction, &QAction::triggered, m_workbench, [this] {
        m_workbench->clearBaseline();
        m_workbench->setBaselineKernel(QString());
    });
    m_baselineKernelMenu = new QMenu(tr("Baseline &Kernel"), this);
    m_baselineKernelMenu->setObjectName(QStringLiteral("baselineKernelMenu"));
    m_baselineKernelMenu->setToolTip(
        tr("A second kernel of the same source, run with the same arguments after each run"));
    connect(m_baselineKernelMenu, &QMenu::aboutToShow, this, &MainWindow::fillBaselineKernelMenu);
    fillBaselineKernelMenu();
    connect(m_workbench, &Workbench::baselineChanged, this, &MainWindow::updateBaselineActions);
    // The baseline kernel answers after the run it follows: say how that run compares now.
    connect(m_workbench, &Workbench::baselineChanged, this, [this] {
        if (!m_workbench->baselineKernelRun() || m_workbench->history().isEmpty())
            return;
        const QString comparison = m_workbench->comparisonText(m_workbench->history().constLast());
        if (!comparison.isEmpty())
            statusBar()->showMessage(comparison, kLiveMessageMs);
    });
    connect(m_workbench, &Workbench::runStateChanged, this, &MainWindow::updateBaselineActions);
    updateBaselineActions();
}

void MainWindow::updateBaselineActions() {
    const RunRecord* last = m_workbench->lastMeasuredRun();
    m_setBaselineAction->setEnabled(last && last->result.status == RunStatus::Ok);
    m_clearBaselineAction->setEnabled(m_workbench->baselineRun() != nullptr ||
                                      !m_workbench->baselineKernel().isEmpty());
}

void MainWindow::fillBaselineKernelMenu() {
    m_baselineKernelMenu->clear();
    auto* group = new QActionGroup(m_baselineKernelMenu);
    const auto add = [&](const QString& text, const QString& kernel) {
        QAction* a = m_baselineKernelMenu->addAction(text);
        a->setCheckable(true);
        a->setChecked(m_workbench->baselineKernel() == kernel);
        a->setActionGroup(group);
        connect(a, &QAction::triggered, m_workbench,
                [this, kernel] { m_workbench->setBaselineKernel(kernel); });
    };
    add(tr("None"), QString());
    const std::optional<CompileResult>& compiled = m_workbench->lastCompile();
    const QString current = m_document->project().kernel;
    if (compiled && compiled->ok)
        for (const KernelInfo& k : compiled->kernels)
            if (k.name != current)
                add(k.name, k.name);
}

} // namespace kernelpad
