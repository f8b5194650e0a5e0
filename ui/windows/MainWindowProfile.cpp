// MainWindow: Build ▸ Profile and its set, what the status bar shows while ncu runs, and the
// Profile tab brought to the front when a profile ends. The tab, the editor's margin and the
// roofline follow the workbench through their view (ui/views/ProfileView.h).

#include "ui/windows/MainWindow.h"

#include "ui/Workbench.h"
#include "ui/windows/PanelBindings.h"

#include <QAction>
#include <QActionGroup>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

namespace kernelpad {

namespace {
const char kProfileSetKey[] = "build/profileSet";
constexpr int kProfileMessageMs = 10000;
} // namespace

void MainWindow::createProfileActions() {
    m_profileAction = new QAction(tr("&Profile"), this);
    m_profileAction->setObjectName(QStringLiteral("profileAction"));
    m_profileAction->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_P));
    connect(m_profileAction, &QAction::triggered, this, &MainWindow::profile);

    m_profileSetGroup = new QActionGroup(this);
    m_profileSetGroup->setExclusive(true);
    const struct {
        ProfileSet set;
        QString text;
        QString toolTip;
    } sets[] = {
        {ProfileSet::Basic, tr("&Basic Set"),
         tr("Speed of light, occupancy, memory, stall reasons and per-line samples: the "
            "quicker profile")},
        {ProfileSet::Full, tr("&Full Set"),
         tr("Every Nsight Compute section: slower, with the most detail")},
    };
    const QString saved =
        QSettings()
            .value(QLatin1String(kProfileSetKey), profileSetName(ProfileSet::Basic))
            .toString();
    for (const auto& s : sets) {
        QAction* action = m_profileSetGroup->addAction(s.text);
        action->setCheckable(true);
        action->setToolTip(s.toolTip);
        action->setData(profileSetName(s.set));
        action->setObjectName(QStringLiteral("profileSet.") + profileSetName(s.set));
        action->setChecked(profileSetName(s.set) == saved);
    }
    // Basic by default, as kernelpad-cli profile: with the sections the margin and the roofline
    // need, it is the quicker of the two.
    if (!m_profileSetGroup->checkedAction())
        m_profileSetGroup->actions().constFirst()->setChecked(true);
    connect(m_profileSetGroup, &QActionGroup::triggered, this, [](QAction* action) {
        QSettings().setValue(QLatin1String(kProfileSetKey), action->data().toString());
    });
}

void MainWindow::addProfileMenu(QMenu* build) {
    build->addSeparator();
    build->addAction(m_profileAction);
    QMenu* sets = build->addMenu(tr("Profile &Set"));
    sets->addActions(m_profileSetGroup->actions());
}

ProfileSet MainWindow::profileSet() const {
    const QAction* checked = m_profileSetGroup->checkedAction();
    return checked ? profileSetFromName(checked->data().toString()).value_or(ProfileSet::Basic)
                   : ProfileSet::Basic;
}

void MainWindow::setProfileSet(ProfileSet set) {
    for (QAction* action : m_profileSetGroup->actions())
        if (action->data().toString() == profileSetName(set))
            action->setChecked(true);
    QSettings().setValue(QLatin1String(kProfileSetKey), profileSetName(set));
}

void MainWindow::profile() {
    QString why;
    if (!m_workbench->profile(profileSet(), &why))
        statusBar()->showMessage(tr("Cannot profile: %1").arg(why), kProfileMessageMs);
}

void MainWindow::updateProfileState() {
    if (!m_profileAction)
        return;
    const QString reason = m_workbench->profileBlockedReason();
    m_profileAction->setEnabled(reason.isEmpty());
    m_profileAction->setToolTip(
        reason.isEmpty()
            ? tr("Profile one launch under Nsight Compute (Ctrl+Alt+P): the Profile tab, the "
                 "editor's margin and the roofline show it")
            : tr("Profile is unavailable: %1").arg(reason));
}

void MainWindow::watchProfiles() {
    PanelViewer* viewer = makeViewer(this);
    viewer->onProfileStarted = [this](const Workbench&) {
        m_progress->setRange(0, 0); // ncu reports no progress of its own
        m_progressLabel->setText(
            tr("Profiling with Nsight Compute (%1 set)…").arg(profileSetName(profileSet())));
        m_progress->show();
        m_progressLabel->show();
    };
    viewer->onProfileFinished = [this](const Workbench& s, const RunRecord*) {
        const std::optional<ProfileOutcome>& outcome = s.lastProfile();
        if (!outcome)
            return;
        if (outcome->ok())
            statusBar()->showMessage(tr("Profile finished: %1").arg(outcome->report.kernel),
                                     kProfileMessageMs);
        else
            statusBar()->showMessage(tr("Profile failed: %1").arg(outcome->error),
                                     kProfileMessageMs);
        m_tabs->setCurrentIndex(ProfileTab);
    };
    m_workbench->addViewer(viewer);
}

} // namespace kernelpad
